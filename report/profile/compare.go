package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect/game"

	"github.com/bcdump/bcdump/report/internal/jsonerr"
	"github.com/bcdump/bcdump/report/quote"
)

// Kind groups compared metrics that share a tolerance.
type Kind string

const (
	KindRate     Kind = "rate"     // messages per second, per flow, StateUpdate Hz and interval
	KindLatency  Kind = "latency"  // ms: request/response, ACK delay, retransmit interval
	KindSize     Kind = "size"     // bytes: payload and datagram sizes
	KindBundling Kind = "bundling" // messages per datagram
	KindRatio    Kind = "ratio"    // ACKs per reliable message
	KindShare    Kind = "share"    // fractions 0..1: reliable, duplicate, retransmit, flag shares
)

// Kinds lists every kind in the order tolerances are printed.
var Kinds = []Kind{KindRate, KindLatency, KindSize, KindBundling, KindRatio, KindShare}

// Tolerance is how far a value may move: relative (Rel, a fraction of the
// old value) or absolute (Abs, in the metric's unit; ms for latency,
// fraction points for shares).
type Tolerance struct {
	Rel, Abs float64
	relative bool
}

func (t Tolerance) String() string {
	if t.relative {
		return strconv.FormatFloat(t.Rel*100, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(t.Abs, 'f', -1, 64)
}

// within reports whether new is within t of old.
func (t Tolerance) within(old, nw float64) bool {
	d := math.Abs(nw - old)
	if t.relative {
		return d <= t.Rel*math.Abs(old)+1e-9
	}
	return d <= t.Abs+1e-9
}

// Tolerances maps each kind to its tolerance.
type Tolerances map[Kind]Tolerance

// DefaultTolerances are the tolerances of `bcdump diff --profile`.
func DefaultTolerances() Tolerances {
	return Tolerances{
		KindRate:     {Rel: 0.10, relative: true},
		KindLatency:  {Abs: 20},
		KindSize:     {Rel: 0.10, relative: true},
		KindBundling: {Rel: 0.20, relative: true},
		KindRatio:    {Rel: 0.20, relative: true},
		KindShare:    {Abs: 0.05},
	}
}

// String prints the tolerances as --tolerance takes them.
func (ts Tolerances) String() string {
	parts := make([]string, 0, len(Kinds))
	for _, k := range Kinds {
		parts = append(parts, string(k)+"="+ts.kindString(k))
	}
	return strings.Join(parts, ",")
}

// ParseTolerances applies "kind=value,..." to the defaults. A value ending
// in % is relative to the old value; latency also takes a duration (20ms)
// and share takes percentage points (5pp) or a fraction (0.05); other
// plain numbers are absolute in the metric's unit.
func ParseTolerances(s string) (Tolerances, error) {
	ts := DefaultTolerances()
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("tolerance %q is not kind=value", item)
		}
		kind := Kind(strings.TrimSpace(k))
		if _, known := ts[kind]; !known {
			return nil, fmt.Errorf("unknown tolerance kind %q (known: %s)", kind, kindList())
		}
		t, err := parseTolerance(kind, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("tolerance %s: %w", kind, err)
		}
		ts[kind] = t
	}
	return ts, nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func parseTolerance(kind Kind, v string) (Tolerance, error) {
	num := func(s string) (float64, error) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 0 && f <= 1e12) {
			return 0, fmt.Errorf("%q is not a non-negative number", v)
		}
		return f, nil
	}
	switch {
	case strings.HasSuffix(v, "%"):
		f, err := num(strings.TrimSuffix(v, "%"))
		return Tolerance{Rel: f / 100, relative: true}, err
	case kind == KindShare && strings.HasSuffix(v, "pp"):
		f, err := num(strings.TrimSuffix(v, "pp"))
		return Tolerance{Abs: f / 100}, err
	case kind == KindLatency:
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return Tolerance{Abs: float64(d) / float64(time.Millisecond)}, nil
		}
		f, err := num(v) // plain number: milliseconds
		return Tolerance{Abs: f}, err
	}
	f, err := num(v)
	return Tolerance{Abs: f}, err
}

// metric is one compared value (nil: the side does not have it).
type metric struct {
	kind Kind
	v    *float64
	// absent says how to compare with a profile without the metric: as 0
	// (an opcode's rate) or not at all (its size: the rate tells).
	absent absence
}

type absence uint8

const (
	absentNil  absence = iota // compared as missing
	absentZero                // compared as 0
	absentSkip                // not compared
)

// metricList is the values of one profile by key, in a stable order.
type metricList struct {
	keys []string
	m    map[string]metric
}

func (l *metricList) add(key string, k Kind, v *float64) { l.addAbsent(key, k, v, absentNil) }

func (l *metricList) addAbsent(key string, k Kind, v *float64, a absence) {
	if _, ok := l.m[key]; !ok {
		l.keys = append(l.keys, key)
	}
	l.m[key] = metric{k, v, a}
}

func val(v float64) *float64 { return &v }

func fraction(a, b uint64) *float64 {
	if b == 0 {
		return nil
	}
	return val(float64(a) / float64(b))
}

// metrics flattens what Compare compares. Counts that grow with capture
// length are not compared; rates, per-flow counts, shares, sizes and
// latencies are.
func metrics(d *Doc) *metricList {
	l := &metricList{m: map[string]metric{}}
	flows := uint64(max(d.Flows, 1))
	for _, dd := range []struct {
		name string
		d    *DirDoc
	}{{"c2s", &d.C2S}, {"s2c", &d.S2C}} {
		p, s := dd.name+".", dd.d
		for _, o := range s.Opcodes {
			op := p + "opcode." + o.Hex + "."
			if o.InGameCount > 0 {
				l.addAbsent(op+"rate_per_s", KindRate, val(o.RatePerS), absentZero)
			} else {
				l.addAbsent(op+"per_flow", KindRate, fraction(o.Count, flows), absentZero)
			}
			l.addAbsent(op+"size_p50", KindSize, val(float64(o.SizeP50)), absentSkip)
			l.addAbsent(op+"reliable_share", KindShare, val(o.ReliableShare), absentSkip)
			l.addAbsent(op+"duplicate_share", KindShare, fraction(o.Duplicates, o.Count), absentSkip)
		}
		sh := &s.Shape
		if s.Datagrams > 0 {
			l.add(p+"datagram.messages_p50", KindBundling, val(float64(sh.MessagesP50)))
			l.add(p+"datagram.messages_p95", KindBundling, val(float64(sh.MessagesP95)))
			l.add(p+"datagram.messages_mean", KindBundling, val(sh.MessagesMean))
			l.add(p+"datagram.bytes_p50", KindSize, val(float64(sh.BytesP50)))
			l.add(p+"datagram.bytes_p95", KindSize, val(float64(sh.BytesP95)))
		}
		l.add(p+"acks.acks_per_reliable", KindRatio, s.Acks.AcksPerReliable)
		l.add(p+"acks.delay_p50_ms", KindLatency, s.Acks.DelayP50Ms)
		l.add(p+"acks.delay_p95_ms", KindLatency, s.Acks.DelayP95Ms)
		l.add(p+"retransmits.ratio", KindShare, s.Retransmits.Ratio)
		l.add(p+"retransmits.interval_p50_ms", KindLatency, s.Retransmits.IntervalP50Ms)
		su := &s.StateUpdates
		l.add(p+"state_updates.hz_p50", KindRate, su.HzP50)
		l.add(p+"state_updates.hz_p95", KindRate, su.HzP95)
		l.add(p+"state_updates.interval_p95_ms", KindRate, su.IntervalP95Ms)
		for _, fb := range su.FlagBits {
			l.add(p+"state_updates.flag_bit."+fb.Flags+".share", KindShare, val(fb.Share))
		}
	}
	for _, pr := range d.Pairs {
		if pr.Requests == 0 && pr.Extra == 0 {
			continue
		}
		k := "pair." + pr.Pair + "."
		l.add(k+"p50_ms", KindLatency, pr.P50Ms)
		l.add(k+"max_ms", KindLatency, pr.MaxMs)
		l.add(k+"unanswered_share", KindShare, fraction(pr.Unanswered, pr.Requests))
		l.add(k+"extra_per_request", KindShare, fraction(pr.Extra, max(pr.Requests, 1)))
	}
	return l
}

// Status says how a difference was judged.
type Status string

const (
	StatusDrift    Status = "drift"    // outside tolerance, not in the baseline
	StatusAccepted Status = "accepted" // outside tolerance, accepted by the baseline
	StatusWithin   Status = "within"   // different, within tolerance
)

// Difference is one metric whose values differ.
type Difference struct {
	Metric    string   `json:"metric"`
	Kind      Kind     `json:"kind"`
	Old       *float64 `json:"old"`
	New       *float64 `json:"new"`
	Change    *float64 `json:"change"` // (new-old)/|old|; null when old is 0 or missing
	Tolerance string   `json:"tolerance"`
	Status    Status   `json:"status"`
}

// Result is the outcome of Compare.
type Result struct {
	Old         string       `json:"old"`
	New         string       `json:"new"`
	Tolerances  string       `json:"tolerances"`
	Differences []Difference `json:"differences"`
	Drift       int          `json:"drift"`
	Accepted    int          `json:"accepted"`
	Within      int          `json:"within"`
	// Parity is the opcode table: which opcodes each side has.
	Parity *Parity `json:"parity"`
	// Failed names every row that fails the comparison: the metric key of
	// each drift and parity.DIR.OPCODE.PRESENCE of each opcode on one side
	// only that the baseline does not accept. Empty when Passed.
	Failed []string `json:"failed,omitempty"`
	// Recording says the result is being written as a baseline
	// (--write-baseline), which accepts what failed: the text then does
	// not say the run failed.
	Recording bool `json:"-"`
}

// Passed reports whether no difference is outside tolerance and no opcode
// is on one side only, after the baseline.
func (r *Result) Passed() bool { return r.Drift == 0 && (r.Parity == nil || r.Parity.Failed() == 0) }

// parityKey names a one-sided parity row in Failed.
func parityKey(p *ParityRow) string {
	return "parity." + p.Dir + "." + p.Hex + "." + string(p.Presence)
}

// failures fills Failed.
func (r *Result) failures() {
	for _, d := range r.Differences {
		if d.Status == StatusDrift {
			r.Failed = append(r.Failed, d.Metric)
		}
	}
	if r.Parity == nil {
		return
	}
	for i := range r.Parity.Rows {
		if p := &r.Parity.Rows[i]; p.Presence != PresentBoth && !p.Accepted {
			r.Failed = append(r.Failed, parityKey(p))
		}
	}
}

// CompareOptions configure Compare; the zero value uses the default
// tolerances, no baseline and ignores nothing.
type CompareOptions struct {
	Tolerances Tolerances
	Baseline   *Baseline
	// Ignore drops metrics whose key equals an entry or starts with it
	// followed by a dot ("pair.gamespy_query", "s2c.acks").
	Ignore []string
}

func (o *CompareOptions) ignored(key string) bool {
	for _, p := range o.Ignore {
		if key == p || strings.HasPrefix(key, p) && strings.HasPrefix(key[len(p):], ".") {
			return true
		}
	}
	return false
}

// Compare compares two profiles metric by metric. A difference outside
// tolerance is drift unless the baseline accepts it.
func Compare(oldName string, old *Doc, newName string, nw *Doc, opt CompareOptions) *Result {
	ts, base := opt.Tolerances, opt.Baseline
	if ts == nil {
		ts = DefaultTolerances()
	}
	r := &Result{Old: oldName, New: newName, Tolerances: ts.String(), Differences: []Difference{}, Parity: ComparePresence(old, nw)}
	om, nm := metrics(old), metrics(nw)
	keys := append([]string(nil), om.keys...)
	for _, k := range nm.keys {
		if _, ok := om.m[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keyOrder(keys[i]) < keyOrder(keys[j]) })
	for _, k := range keys {
		o, inOld := om.m[k]
		n, inNew := nm.m[k]
		kind, absent := o.kind, o.absent
		if !inOld {
			kind, absent = n.kind, n.absent
		}
		if (!inOld || !inNew) && absent == absentSkip || opt.ignored(k) {
			continue
		}
		if absent == absentZero {
			if !inOld {
				o.v = val(0)
			}
			if !inNew {
				n.v = val(0)
			}
		}
		if equal(o.v, n.v) {
			continue
		}
		t := ts[kind]
		d := Difference{Metric: k, Kind: kind, Old: rounded(o.v), New: rounded(n.v), Tolerance: ts.kindString(kind)}
		if o.v != nil && n.v != nil && *o.v != 0 {
			d.Change = val(round3((*n.v - *o.v) / math.Abs(*o.v)))
		}
		switch {
		case o.v != nil && n.v != nil && t.within(*o.v, *n.v):
			d.Status = StatusWithin
			r.Within++
		case base.accepts(k, n.v, t):
			d.Status = StatusAccepted
			r.Accepted++
		default:
			d.Status = StatusDrift
			r.Drift++
		}
		r.Differences = append(r.Differences, d)
	}
	r.Parity.accept(base)
	r.failures()
	return r
}

// keyOrder sorts c2s before s2c before pairs, keeping each side's order.
func keyOrder(k string) int {
	switch {
	case strings.HasPrefix(k, "c2s."):
		return 0
	case strings.HasPrefix(k, "s2c."):
		return 1
	}
	return 2
}

func (ts Tolerances) kindString(k Kind) string {
	t := ts[k]
	switch {
	case k == KindLatency && !t.relative:
		return t.String() + "ms"
	case k == KindShare && !t.relative:
		return strconv.FormatFloat(round3(t.Abs*100), 'f', -1, 64) + "pp"
	}
	return t.String()
}

func equal(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-9
}

func rounded(v *float64) *float64 {
	if v == nil {
		return nil
	}
	return val(round3(*v))
}

// WriteJSON writes the result as one indented JSON document.
func (r *Result) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteText writes one line per difference and a summary.
func (r *Result) WriteText(w io.Writer) error { return r.WriteTextWidth(w, 0) }

// WriteTextWidth is WriteText for a terminal of width columns (0: no
// limit): when the difference lines are wider, the tolerance column goes,
// then the change; what is still too wide is the caller's to cut.
func (r *Result) WriteTextWidth(w io.Writer, width int) error {
	fmt.Fprintf(w, "--- %s\n+++ %s\ntolerances: %s\n", quote.Name(r.Old), quote.Name(r.New), r.Tolerances)
	var buf bytes.Buffer
	for cols := 5; cols >= 3; cols-- {
		buf.Reset()
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		for _, d := range r.Differences {
			change := "n/a"
			if d.Change != nil {
				change = fmt.Sprintf("%+.1f%%", *d.Change*100)
			}
			cells := []string{string(d.Status), metricLabel(d.Metric), num(d.Old) + " -> " + num(d.New), change,
				"(tolerance " + string(d.Kind) + " " + d.Tolerance + ")"}
			fmt.Fprintf(tw, "%s\n", strings.Join(cells[:cols], "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if width <= 0 || widestLine(buf.Bytes()) <= width {
			break
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d outside tolerance, %d accepted by the baseline, %d within tolerance\n", r.Drift, r.Accepted, r.Within); err != nil {
		return err
	}
	if r.Parity == nil {
		return nil
	}
	fmt.Fprintln(w)
	if err := r.Parity.WriteText(w, r.Old, r.New); err != nil {
		return err
	}
	return r.writeVerdict(w)
}

// writeVerdict says why the run fails, naming every failing row (nothing
// when it passes or is being recorded as a baseline).
func (r *Result) writeVerdict(w io.Writer) error {
	if r.Passed() || r.Recording {
		return nil
	}
	parity := 0
	if r.Parity != nil {
		parity = r.Parity.Failed()
	}
	fmt.Fprintf(w, "\nFAILED (exit 1): %d %s outside tolerance and %d %s on one side only, not accepted by the baseline:\n",
		r.Drift, plural(r.Drift, "metric", "metrics"), parity, plural(parity, "opcode", "opcodes"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, d := range r.Differences {
		if d.Status == StatusDrift {
			fmt.Fprintf(tw, "  drift\t%s\t%s -> %s\n", metricLabel(d.Metric), num(d.Old), num(d.New))
		}
	}
	if r.Parity != nil {
		for _, p := range r.Parity.Rows {
			if p.Presence != PresentBoth && !p.Accepted {
				fmt.Fprintf(tw, "  parity\t%s %s %s\t%s (%d -> %d)\n", p.Dir, p.Hex, p.Name, p.presenceText(), p.OldCount, p.NewCount)
			}
		}
	}
	return tw.Flush()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// widestLine is the longest line of b in runes, trailing spaces left out
// (tabwriter pads every cell but the last).
func widestLine(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		n = max(n, utf8.RuneCount(bytes.TrimRight(l, " ")))
	}
	return n
}

// metricLabel is a metric key for people: an opcode is named beside its
// number (c2s.opcode.ChecksumResp(0x21).size_p50); the JSON and --ignore
// keep the bare key.
func metricLabel(key string) string {
	i := strings.Index(key, ".opcode.0x")
	if i < 0 || len(key) < i+12 {
		return key
	}
	hex := key[i+8 : i+12]
	code, err := strconv.ParseUint(hex[2:], 16, 8)
	if err != nil {
		return key
	}
	name := game.Lookup(uint8(code)).Name
	if name == "" {
		return key
	}
	return key[:i+8] + name + "(" + hex + ")" + key[i+12:]
}

func num(v *float64) string {
	if v == nil {
		return "none"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// Baseline lists accepted differences: a metric whose new value is still
// within tolerance of the recorded one is not drift, and an opcode
// recorded on one side only is not a parity failure while it stays so.
type Baseline struct {
	Version  int             `json:"bcdump_profile_baseline"`
	Accepted []BaselineEntry `json:"accepted"`
	// Parity lists the opcodes accepted on one side only.
	Parity []BaselineParity `json:"parity,omitempty"`
}

// BaselineParity is one accepted parity row: an opcode in one direction
// present on one side only.
type BaselineParity struct {
	Dir      string   `json:"dir"`
	Opcode   uint8    `json:"opcode"`
	Hex      string   `json:"opcode_hex"`
	Name     string   `json:"opcode_name"`
	Presence Presence `json:"presence"`
}

func (b *Baseline) acceptsParity(r *ParityRow) bool {
	for _, e := range b.Parity {
		if e.Dir == r.Dir && e.Opcode == r.Opcode && e.Presence == r.Presence {
			return true
		}
	}
	return false
}

// BaselineEntry is one accepted difference.
type BaselineEntry struct {
	Metric string   `json:"metric"`
	Old    *float64 `json:"old"`
	New    *float64 `json:"new"`
}

func (b *Baseline) accepts(key string, nw *float64, t Tolerance) bool {
	if b == nil {
		return false
	}
	for _, e := range b.Accepted {
		if e.Metric != key {
			continue
		}
		if e.New == nil || nw == nil {
			return e.New == nil && nw == nil
		}
		// The baseline holds values rounded as printed: the same rounded
		// value is accepted whatever the tolerance (a relative tolerance
		// of a value that rounds to 0 would accept nothing else).
		return equal(e.New, rounded(nw)) || t.within(*e.New, *nw)
	}
	return false
}

// Baseline returns the differences outside tolerance (drift and accepted)
// and the opcodes on one side only as a baseline that accepts them: the
// same comparison gated by it passes.
func (r *Result) Baseline() *Baseline {
	b := &Baseline{Version: 1, Accepted: []BaselineEntry{}}
	for _, d := range r.Differences {
		if d.Status != StatusWithin {
			b.Accepted = append(b.Accepted, BaselineEntry{Metric: d.Metric, Old: d.Old, New: d.New})
		}
	}
	if r.Parity != nil {
		for _, p := range r.Parity.Rows {
			if p.Presence != PresentBoth {
				b.Parity = append(b.Parity, BaselineParity{Dir: p.Dir, Opcode: p.Opcode, Hex: p.Hex, Name: p.Name, Presence: p.Presence})
			}
		}
	}
	return b
}

// WriteJSON writes the baseline.
func (b *Baseline) WriteJSON(w io.Writer) error { return writeJSON(w, b) }

// ReadBaseline reads a baseline written by WriteJSON.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(r)
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline: not a bcdump profile baseline (%s)", jsonerr.Describe(err))
	}
	if b.Version != 1 {
		return nil, fmt.Errorf("baseline: not a bcdump profile baseline (want \"bcdump_profile_baseline\": 1)")
	}
	for _, p := range b.Parity {
		if p.Presence != OnlyOld && p.Presence != OnlyNew || p.Dir != "c2s" && p.Dir != "s2c" {
			return nil, fmt.Errorf("baseline: parity entry %s %s: want dir c2s or s2c and presence %s or %s", quote.Name(p.Dir), quote.Name(string(p.Presence)), OnlyOld, OnlyNew)
		}
	}
	return &b, nil
}

// ReadDoc reads a profile written by Doc.WriteJSON.
func ReadDoc(r io.Reader) (*Doc, error) {
	var d Doc
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	if d.Version != FormatVersion {
		return nil, fmt.Errorf("profile: not a bcdump profile document (want \"bcdump_profile\": %d, got %d)", FormatVersion, d.Version)
	}
	return &d, nil
}
