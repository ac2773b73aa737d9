package query

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/report/render"
)

// The decoded evaluator (Eval) against Match on the JSON the writer
// prints: for every record of every test capture and generated anomaly
// session, and for relations on every path of the schema (and every
// path the records show), the two must leave every atom of the
// expression in the same state (present, satisfied). A key the writer
// changes or adds without Eval following fails here.

// evalSource is a capture to run, with its session options.
type evalSource struct {
	name string
	pcap []byte
	opt  dissect.SessionOptions
}

func evalSources(t testing.TB) []evalSource {
	t.Helper()
	var out []evalSource
	caps, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	caps = append(caps, filepath.Join(testdata, "sample.pcap"))
	for _, c := range caps {
		out = append(out, evalSource{name: c, pcap: readFile(t, c)})
	}
	for _, code := range dissecttest.AnomalyCodes() {
		s, _ := dissecttest.Anomaly(code)
		var pc bytes.Buffer
		if err := s.WritePcap(&pc); err != nil {
			t.Fatal(err)
		}
		for _, asFound := range []bool{false, true} {
			out = append(out, evalSource{name: "anomaly " + code.String(), pcap: pc.Bytes(),
				opt: dissect.SessionOptions{EventsAsFound: asFound}})
		}
	}
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runSource runs a source into sink.
func runSource(t testing.TB, src evalSource, sink dissect.Sink) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(src.pcap), src.name, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dissect.NewSession(src.opt).Run(context.Background(), r, sink); err != nil {
		t.Fatal(err)
	}
}

// recordSink has the JSON reporter (what read -F json runs) write every
// record: datagrams, events (live), and a one-element summary record per
// end event (what Select tests); it hands each record, without its
// newline, with the decoded record to fn.
type recordSink struct {
	out bytes.Buffer
	j   *render.JSON
	fn  func(rec []byte, d *dissect.Datagram, ev *dissect.Event, summary bool)
}

func newRecordSink(fn func(rec []byte, d *dissect.Datagram, ev *dissect.Event, summary bool)) *recordSink {
	s := &recordSink{fn: fn}
	s.j = render.NewJSON(&s.out, true)
	return s
}

// line is the record the reporter wrote since the last call.
func (s *recordSink) line() []byte {
	b := bytes.TrimSuffix(s.out.Bytes(), []byte("\n"))
	s.out.Reset()
	return b
}

func (s *recordSink) Datagram(d *dissect.Datagram) error {
	if err := s.j.Datagram(d); err != nil {
		return err
	}
	s.fn(s.line(), d, nil, false)
	return nil
}

func (s *recordSink) Events(ev []dissect.Event) error {
	for i := range ev {
		if err := s.j.Events(ev[i : i+1]); err != nil {
			return err
		}
		s.fn(s.line(), nil, &ev[i], false)
	}
	return nil
}

func (s *recordSink) Finish(end []dissect.Event) error {
	for i := range end {
		if err := s.j.Finish(end[i : i+1]); err != nil {
			return err
		}
		s.fn(s.line(), nil, &end[i], true)
	}
	return nil
}

// pathValues collects, per path (array levels left out; below a field
// root also as root.leaf), the distinct JSON values records hold.
type pathValues map[string][]any

func (pv pathValues) add(path string, v any) {
	vs := pv[path]
	for _, w := range vs {
		if w == v {
			return
		}
	}
	if len(vs) < 3 {
		pv[path] = append(vs, v)
	} else {
		vs[2] = v // keep the first two and the latest
	}
}

func (pv pathValues) walk(path string, v any) { pv.walkSeen(path, v, map[string]bool{}) }

// walkSeen walks v under path and under its short forms (a decoder field
// by its own name below its root); seen holds the objects already walked
// under a path, as a deep tree (a checksum tree 32 directories deep) is
// reached under the same short path along many routes.
func (pv pathValues) walkSeen(path string, v any, seen map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		key := fmt.Sprintf("%s\x00%p", path, v)
		if seen[key] {
			return
		}
		seen[key] = true
		if path != "" {
			pv.add(path, struct{}{})
		}
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			pv.walkSeen(p, x, seen)
			for _, root := range fieldRoots {
				if rest, ok := strings.CutPrefix(p, root+"."); ok && strings.Contains(rest, ".") {
					pv.walkSeen(root+"."+rest[strings.LastIndexByte(rest, '.')+1:], x, seen)
				}
			}
		}
	case []any:
		for _, x := range v {
			pv.walkSeen(path, x, seen)
		}
	case nil:
	default:
		pv.add(path, v)
	}
}

// evalAtoms generates relations: presence of every schema path and of
// every path the records show, and relations with values taken from
// the records (or made up, for paths no record has).
func evalAtoms(t testing.TB, pv pathValues) []string {
	paths := map[string]bool{}
	for _, p := range schema.Names() {
		paths[p] = true
	}
	for _, g := range gameFields {
		for _, root := range fieldRoots {
			paths[root+"."+g.name] = true
			paths[root+"."+g.name+"_name"] = true
		}
	}
	for p := range pv {
		paths[p] = true
	}
	paths["gamespy.nonesuch"] = true
	var sorted []string
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)
	var atoms []string
	for _, p := range sorted {
		typ, ok := schema.Field(p)
		if !ok {
			t.Errorf("records show %s, which the schema does not know", p)
			continue
		}
		atoms = append(atoms, p)
		vals := pv[p]
		switch typ {
		case filter.Number:
			vals = append(vals, json.Number("0"), json.Number("1"), json.Number("-1.5"), json.Number("0x7fffffff"))
		case filter.String:
			vals = append(vals, "", "x")
		case filter.Bool:
			vals = append(vals, true, false)
		case filter.Hex:
			vals = append(vals, "0x00000000", "0x1")
		}
		for _, v := range vals {
			atoms = append(atoms, relations(p, typ, v)...)
		}
	}
	return atoms
}

// relations are the relations tested on path p with value v.
func relations(p string, typ filter.Type, v any) []string {
	switch typ {
	case filter.Number:
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		s := n.String()
		out := []string{p + " == " + s, p + " != " + s, p + " < " + s, p + " >= " + s, p + " in {" + s + " 3}"}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, fmt.Sprintf("%s in {%d..%d}", p, i-1, i+1), fmt.Sprintf("%s == 0x%x", p, i))
		}
		return out
	case filter.Bool:
		b, ok := v.(bool)
		if !ok {
			return nil
		}
		return []string{fmt.Sprintf("%s == %v", p, b), fmt.Sprintf("%s != %v", p, b)}
	case filter.String, filter.Hex:
		s, ok := v.(string)
		if !ok {
			return nil
		}
		q := strconv.QuoteToASCII(s)
		out := []string{p + " contains " + strconv.QuoteToASCII(s[:len(s)/2])}
		if typ == filter.Hex {
			if _, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64); err == nil {
				out = append(out, p+" == "+s, p+" != "+s, p+" > "+s, p+" in {"+s+" 1}",
					p+" contains "+strconv.QuoteToASCII(strings.ToLower(s[2:])))
			}
			return out
		}
		out = append(out, p+" == "+q, p+" != "+q, p+" < "+q, p+" >= "+q, p+" in {"+q+` "x"}`,
			p+" matches "+strconv.QuoteToASCII("^"+regexpQuote(s[:min(len(s), 4)])))
		return out
	}
	return nil
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// compileAtoms compiles the atoms that compile, joined by or, in filters
// of at most n atoms each.
func compileAtoms(t testing.TB, atoms []string, n int) []*filter.Filter {
	var ok []string
	for _, a := range atoms {
		if _, err := filter.Compile(a, schema); err == nil {
			ok = append(ok, a)
		}
	}
	if len(ok) < len(atoms)/2 {
		t.Fatalf("only %d of %d generated relations compile", len(ok), len(atoms))
	}
	var fs []*filter.Filter
	for len(ok) > 0 {
		k := min(n, len(ok))
		f, err := filter.Compile(strings.Join(ok[:k], " or "), schema)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
		ok = ok[k:]
	}
	return fs
}

// sameState reports how e's decoded evaluation and Match on rec differ.
func sameState(e *Eval, rec []byte, d *dissect.Datagram, ev *dissect.Event, summary bool) string {
	f := e.Filter()
	want := f.Match(rec)
	wantState := make([][2]bool, f.Atoms())
	for i := range wantState {
		wantState[i][0], wantState[i][1] = f.AtomState(i)
	}
	var got bool
	switch {
	case d != nil:
		got = e.Datagram(d)
	case summary:
		got = e.Summary(ev)
	default:
		got = e.Event(ev)
	}
	for i := range wantState {
		seen, hit := f.AtomState(i)
		if [2]bool{seen, hit} != wantState[i] {
			atoms := strings.Split(f.String(), " or ")
			return fmt.Sprintf("atom %q: decoded (present %v, holds %v), JSON (present %v, holds %v)",
				atoms[i], seen, hit, wantState[i][0], wantState[i][1])
		}
	}
	if got != want {
		return fmt.Sprintf("decoded %v, JSON %v", got, want)
	}
	return ""
}

// TestEvalMatchesJSON: for every record of the test captures and the
// anomaly sessions, Eval agrees with Match on the record's JSON on every
// relation evalAtoms generates.
func TestEvalMatchesJSON(t *testing.T) {
	srcs := evalSources(t)
	if testing.Short() {
		// Most of the records, and of the time, are the long session's;
		// the full suite has it.
		srcs = slices.DeleteFunc(srcs, func(s evalSource) bool { return strings.HasSuffix(s.name, "openbc-session-3.pcap") })
	}
	pv := pathValues{}
	for _, src := range srcs {
		runSource(t, src, newRecordSink(func(rec []byte, _ *dissect.Datagram, _ *dissect.Event, _ bool) {
			dec := json.NewDecoder(bytes.NewReader(rec))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s: %v: %s", src.name, err, rec)
			}
			pv.walk("", v)
		}))
	}
	atoms := evalAtoms(t, pv)
	fs := compileAtoms(t, atoms, 4000)
	var evals []*Eval
	for _, f := range fs {
		e := NewEval(f)
		if e.slow {
			t.Errorf("no accessor for some path of %.200s...: the JSON writer has a key Eval lacks", f)
		}
		evals = append(evals, e)
	}
	records, fails := 0, 0
	for _, src := range srcs {
		runSource(t, src, newRecordSink(func(rec []byte, d *dissect.Datagram, ev *dissect.Event, summary bool) {
			records++
			for _, e := range evals {
				if diff := sameState(e, rec, d, ev, summary); diff != "" {
					fails++
					if fails <= 10 {
						t.Errorf("%s: %s\n%s", src.name, diff, rec)
					}
				}
			}
		}))
	}
	t.Logf("%d records, %d relations on %d paths", records, len(atoms), len(pv))
}

// decodedDatagrams decodes a capture into datagrams of their own (not a
// Session's reused ones), tracked in order.
func decodedDatagrams(t testing.TB, path string) []*dissect.Datagram {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(readFile(t, path)), path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := dissect.New(dissect.Options{})
	var out []*dissect.Datagram
	var p capture.Packet
	for r.Next(&p) == nil {
		p.Payload = bytes.Clone(p.Payload)
		dg := new(dissect.Datagram)
		d.Decode(dg, &p)
		d.Advance(dg)
		out = append(out, dg)
	}
	return out
}

// TestSelectNoMatchAllocs: selecting nothing allocates nothing per
// datagram, whatever the expression reads.
func TestSelectNoMatchAllocs(t *testing.T) {
	dgs := decodedDatagrams(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	dgs = append(dgs, decodedDatagrams(t, filepath.Join(testdata, "sample.pcap"))...)
	for _, expr := range []string{
		`messages.opcode_name == ChecksumResp and anomalies.code contains "no-such-code"`,
		`messages.fields.name_hash == 0x1 or anomalies.severity contains "fatal"`,
		`time contains "1999" or src == "1.2.3.4:5" or messages.fields.position > 1e30 or messages.rtt_ms < 0`,
		`messages.reassembled.fields.text matches "^no such" or gamespy.hostname == "x" or plain_hex contains "zz"`,
		`messages.fields.files.name_hash_name == "x" or cut.fields.round == -1 or messages.payload_hex contains "zz"`,
	} {
		f, err := filter.Compile(expr, schema)
		if err != nil {
			t.Fatal(err)
		}
		sel := NewSelect(dissect.SinkFuncs{OnDatagram: func(d *dissect.Datagram) error {
			t.Errorf("%s: frame %d selected", expr, d.Frame)
			return nil
		}}, SelectOptions{Filter: f})
		run := func() {
			for _, d := range dgs {
				if err := sel.Datagram(d); err != nil {
					t.Fatal(err)
				}
			}
		}
		run() // warm the scratch space
		if n := testing.AllocsPerRun(5, run); n != 0 {
			t.Errorf("%s: %v allocations per pass over %d datagrams", expr, n, len(dgs))
		}
	}
}

// fuzzEvalFilters are compiled once per fuzzing process: relations on
// every schema path with made-up values.
var fuzzEvalFilters struct {
	once sync.Once
	fs   []*filter.Filter
}

// FuzzEvalMatchesJSON feeds FuzzDissect's inputs (raw UDP payloads of one
// client/server pair, each behind a little-endian uint16: length in the
// low 11 bits, bit 15 set for server to client) through the dissector and
// compares Eval with Match on every datagram and end event: relations on
// every schema path, and relations with the values the record itself
// holds.
func FuzzEvalMatchesJSON(f *testing.F) {
	for _, hx := range []string{
		"FF01030FC000000A0A0AEF5F0A00000000",
		"01020306C0000002321B80000020000800736372697074732F07004170702E70796320",
		"0203050AC00200020A0A0AEF0127000001280000",
		"010101020002",
	} {
		b, _ := hex.DecodeString(hx)
		cipher.Encrypt(b)
		f.Add(append(binary.LittleEndian.AppendUint16(nil, uint16(len(b))), b...))
	}
	f.Add(append([]byte{8, 0}, `\status\`...))
	f.Add(append([]byte{0x27, 0x80}, `\gamename\bcommander\hostname\x\final\`...))
	if dgs := decodedDatagrams(f, filepath.Join(testdata, "sample.pcap")); len(dgs) > 12 {
		var in []byte
		for _, d := range dgs[:12] {
			h := uint16(len(d.Raw))
			if d.Dir == dissect.S2C {
				h |= 0x8000
			}
			in = binary.LittleEndian.AppendUint16(in, h)
			in = append(in, d.Raw...)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzEvalFilters.once.Do(func() {
			fuzzEvalFilters.fs = compileAtoms(t, evalAtoms(t, pathValues{}), 4000)
		})
		client := netip.MustParseAddrPort("10.0.0.2:2655")
		server := netip.MustParseAddrPort("10.0.0.1:22101")
		epoch := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		d := dissect.New(dissect.Options{})
		var dg dissect.Datagram
		check := func(fs []*filter.Filter, rec []byte, dg *dissect.Datagram, ev *dissect.Event, summary bool) {
			for _, flt := range fs {
				if diff := sameState(NewEval(flt), rec, dg, ev, summary); diff != "" {
					t.Fatalf("%s\n%s", diff, rec)
				}
			}
		}
		// own: relations with the values rec holds.
		own := func(rec []byte) []*filter.Filter {
			dec := json.NewDecoder(bytes.NewReader(rec))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%v: %s", err, rec)
			}
			pv := pathValues{}
			pv.walk("", v)
			var atoms []string
			for p, vals := range pv {
				if typ, ok := schema.Field(p); ok {
					for _, v := range vals {
						atoms = append(atoms, relations(p, typ, v)...)
					}
				}
			}
			if len(atoms) == 0 {
				return nil
			}
			return compileAtoms(t, atoms, 4000)
		}
		sink := newRecordSink(func(rec []byte, dg *dissect.Datagram, ev *dissect.Event, summary bool) {
			check(fuzzEvalFilters.fs, rec, dg, ev, summary)
			check(own(rec), rec, dg, ev, summary)
		})
		frame := 0
		for len(in) >= 2 {
			h := binary.LittleEndian.Uint16(in)
			n := min(int(h&0x7FF), len(in)-2)
			p := capture.Packet{Frame: frame + 1, Time: epoch.Add(time.Duration(frame) * 700 * time.Millisecond),
				Src: client, Dst: server, Payload: in[2 : 2+n]}
			if h&0x8000 != 0 {
				p.Src, p.Dst = server, client
			}
			in = in[2+n:]
			frame++
			d.Decode(&dg, &p)
			d.Advance(&dg)
			if err := sink.Datagram(&dg); err != nil {
				t.Fatal(err)
			}
		}
		end := d.Finish()
		if err := sink.Events(end); err != nil {
			t.Fatal(err)
		}
		if err := sink.Finish(end); err != nil {
			t.Fatal(err)
		}
	})
}

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

// TestEvalReadsEveryKey: Eval has an accessor for every path of the
// record key table (report/jsonkeys), so no filter on a record key falls
// back to rendering the record.
func TestEvalReadsEveryKey(t *testing.T) {
	for _, k := range jsonkeys.Table() {
		if strings.Contains(k.Path, "<") {
			continue
		}
		f, err := filter.Compile(k.Path, schema)
		if err != nil {
			t.Fatalf("%s: %v", k.Path, err)
		}
		if NewEval(f).slow {
			t.Errorf("%s: Eval has no accessor for it", k.Path)
		}
	}
}
