package main

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/transport"
)

// faultAction is what a --fault rule does.
type faultAction uint8

const (
	faultDrop faultAction = iota + 1
	faultDelay
	faultDup
	faultReorder
	faultCorrupt
)

var faultNames = [...]string{faultDrop: "drop", faultDelay: "delay", faultDup: "dup", faultReorder: "reorder", faultCorrupt: "corrupt"}

func (a faultAction) String() string { return faultNames[a] }

// maxDup bounds dup N: the proxy sends at most maxDup+1 datagrams (or
// message copies) for one it received, so it can never amplify traffic
// more than that.
const maxDup = 8

// maxDelay bounds delay DURATION.
const maxDelay = time.Minute

// faultRule is one --fault: ACTION [ARG] [P%] [if FILTER].
type faultRule struct {
	n      int    // 1-based, in flag order
	text   string // as given
	action faultAction
	delay  time.Duration
	dup    int
	prob   float64 // 0 < prob <= 1
	expr   string  // the filter; "" matches everything
	perMsg bool    // the filter tests message fields: it acts on single messages
}

// label names the rule in records: rule 2 "drop 10% if ...".
func (r *faultRule) label() string { return fmt.Sprintf("rule %d %q", r.n, r.text) }

// parseFault parses one --fault value. A bad filter is a filter.Error
// whose caret points into the whole value.
func parseFault(n int, text string) (*faultRule, error) {
	r := &faultRule{n: n, text: text, prob: 1}
	head, expr, hasIf := cutWord(text, "if")
	if hasIf {
		r.expr = expr
		if strings.TrimSpace(expr) == "" {
			return nil, faultErr(text, len(text), 1, "'if' needs a filter after it", "")
		}
	}
	words := strings.Fields(head)
	if len(words) == 0 {
		return nil, faultErr(text, 0, max(len(text), 1), "a fault starts with an action: drop, delay DURATION, dup [N], reorder or corrupt", "")
	}
	pos := func(i int) int { // byte offset of words[i] in text
		off := 0
		for j := 0; j <= i; j++ {
			k := strings.Index(text[off:], words[j])
			off += k
			if j < i {
				off += len(words[j])
			}
		}
		return off
	}
	switch words[0] {
	case "drop":
		r.action = faultDrop
	case "delay":
		r.action = faultDelay
	case "dup":
		r.action = faultDup
		r.dup = 1
	case "reorder":
		r.action = faultReorder
	case "corrupt":
		r.action = faultCorrupt
	default:
		return nil, faultErr(text, pos(0), len(words[0]), "unknown action '"+words[0]+"'", "the actions are drop, delay DURATION, dup [N], reorder and corrupt")
	}
	i := 1
	if r.action == faultDelay {
		if len(words) < 2 {
			return nil, faultErr(text, len(head), 1, "delay needs a duration (e.g. delay 300ms)", "")
		}
		d, err := time.ParseDuration(words[1])
		if err != nil || d <= 0 || d > maxDelay {
			return nil, faultErr(text, pos(1), len(words[1]), "delay takes a duration from 1ns to 1m, like 300ms or 2s", "")
		}
		r.delay = d
		i = 2
	}
	if r.action == faultDup && i < len(words) && !strings.HasSuffix(words[i], "%") {
		k, err := strconv.Atoi(words[i])
		if err != nil || k < 1 || k > maxDup {
			return nil, faultErr(text, pos(i), len(words[i]), fmt.Sprintf("dup takes a count from 1 to %d (the proxy never amplifies more)", maxDup), "")
		}
		r.dup = k
		i++
	}
	if i < len(words) && strings.HasSuffix(words[i], "%") {
		p, err := strconv.ParseFloat(strings.TrimSuffix(words[i], "%"), 64)
		if err != nil || p <= 0 || p > 100 {
			return nil, faultErr(text, pos(i), len(words[i]), "a probability is a percentage above 0 and at most 100, like 10%", "")
		}
		r.prob = p / 100
		i++
	}
	if i < len(words) {
		return nil, faultErr(text, pos(i), len(words[i]), "unexpected '"+words[i]+"'", "the form is ACTION [ARG] [P%] [if FILTER]")
	}
	if r.expr != "" {
		f, err := filter.Compile(r.expr, query.FieldSchema())
		if err != nil {
			if fe, ok := err.(*filter.Error); ok {
				off := len(text) - len(r.expr)
				return nil, faultErr(text, off+fe.Pos, fe.Len, fe.Msg, fe.Hint)
			}
			return nil, err
		}
		for _, p := range f.Paths() {
			if p == jsonkeys.Messages || strings.HasPrefix(p, jsonkeys.Messages+".") {
				r.perMsg = true
			}
		}
	}
	return r, nil
}

// cutWord splits s at the first whole word w.
func cutWord(s, w string) (before, after string, found bool) {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i:i+len(w)] != w {
			continue
		}
		if (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') && (i+len(w) == len(s) || s[i+len(w)] == ' ' || s[i+len(w)] == '\t') {
			return s[:i], s[i+len(w):], true
		}
	}
	return s, "", false
}

func faultErr(text string, pos, n int, msg, hint string) error {
	return &faultError{&filter.Error{Expr: text, Pos: pos, Len: n, Msg: msg, Hint: hint}}
}

// faultError is a --fault value that does not parse: the value with a
// caret under the fault, as a filter error shows it.
type faultError struct{ fe *filter.Error }

func (e *faultError) Error() string {
	return "--fault: " + strings.TrimPrefix(e.fe.Error(), "filter: ")
}

// faultJudge decides, for one relay goroutine, which rules a datagram
// triggers. It has its own compiled filters and decoder state: the
// relay's goroutines judge in parallel.
type faultJudge struct {
	rules   []*faultRule
	evals   []*query.Eval
	d       *dissect.Dissector
	dg      dissect.Datagram
	view    dissect.Datagram
	pkt     capture.Packet
	rng     *rand.Rand
	mark    []int8 // per message: index of the rule acting on it, -1 none
	malform bool   // the last datagram judged did not frame
}

func newFaultJudge(rules []*faultRule, opt dissect.Options, seed uint64) *faultJudge {
	j := &faultJudge{rules: rules, d: dissect.New(opt), rng: rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
	for _, r := range rules {
		var ev *query.Eval
		if r.expr != "" {
			f, err := filter.Compile(r.expr, query.FieldSchema())
			if err != nil {
				panic(err) // compiled once already by parseFault
			}
			ev = query.NewEval(f)
		}
		j.evals = append(j.evals, ev)
	}
	return j
}

// verdict is what judge found: a rule acting on the whole datagram
// (whole >= 0), or rules acting on single messages (mark).
type verdict struct {
	whole int
	msgs  bool
}

// judge decodes raw (src to dst) and applies the rules in order: the
// first whole-datagram rule that matches (and whose dice say yes) wins;
// otherwise each message gets the first per-message rule that matches it.
func (j *faultJudge) judge(raw []byte, src, dst netip.AddrPort, now time.Time) verdict {
	v := verdict{whole: -1}
	p := &j.pkt
	p.Kind, p.Src, p.Dst, p.Payload, p.Time = capture.KindMatched, src, dst, raw, now
	j.d.Decode(&j.dg, p)
	dg := &j.dg
	j.malform = dg.Kind == dissect.KindGame && len(dg.Transport.Anomalies) > 0
	if len(j.rules) == 0 || j.malform {
		return v
	}
	j.mark = j.mark[:0]
	for range dg.Transport.Messages {
		j.mark = append(j.mark, -1)
	}
	for i, r := range j.rules {
		ev := j.evals[i]
		if !r.perMsg || dg.Kind != dissect.KindGame {
			if r.perMsg {
				continue // message fields: a GameSpy datagram has none
			}
			if (ev == nil || ev.Datagram(dg)) && j.roll(r.prob) {
				v.whole = i
				return v
			}
			continue
		}
		for k := range dg.Transport.Messages {
			if j.mark[k] >= 0 {
				continue
			}
			j.view = *dg
			j.view.Transport.Messages = dg.Transport.Messages[k : k+1]
			j.view.Msgs = dg.Msgs[k : k+1]
			if ev.Datagram(&j.view) && j.roll(r.prob) {
				j.mark[k] = int8(i)
				v.msgs = true
			}
		}
	}
	j.view = dissect.Datagram{}
	return v
}

func (j *faultJudge) roll(p float64) bool { return p >= 1 || j.rng.Float64() < p }

// msgLabel describes message k of the judged datagram: "ACK seq 2 frag 1".
func (j *faultJudge) msgLabel(k int) string {
	m := &j.dg.Transport.Messages[k]
	var b strings.Builder
	b.WriteString(m.Type.Name())
	if m.Type == transport.TypeData && len(m.Payload) > 0 && (!m.Fragment || m.FragIdx == 0) {
		fmt.Fprintf(&b, " op 0x%02X", m.Payload[0])
	}
	if m.Type == transport.TypeACK || m.Reliable {
		fmt.Fprintf(&b, " seq %d", m.Seq)
	}
	if m.Fragment || m.AckFrag {
		fmt.Fprintf(&b, " frag %d", m.FragIdx)
	}
	return b.String()
}
