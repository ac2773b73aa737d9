package stats

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

var samplePath = filepath.Join(testdata, "sample.pcap")

// collect runs captures through one Stats, as `bcdump stats` does; flows
// are listed under the file's base name so goldens do not depend on paths.
func collect(t testing.TB, paths ...string) *Stats {
	t.Helper()
	s := NewStats()
	for _, path := range paths {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sess := dissect.NewSession(dissect.SessionOptions{})
		err = sess.Run(context.Background(), r, s)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		s.AddFlows(filepath.Base(path), sess.Flows())
	}
	return s
}

func statsOutputs(t *testing.T, s *Stats) (table, js []byte) {
	t.Helper()
	var tb, jb bytes.Buffer
	if err := s.WriteTable(&tb, render.NewPalette(false)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes(), jb.Bytes()
}

func TestStatsGoldenSample(t *testing.T) {
	table, js := statsOutputs(t, collect(t, samplePath))
	checkGolden(t, "sample.stats.table", table)
	checkGolden(t, "sample.stats.json", js)
}

func TestStatsGoldenRealCaptures(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	for _, c := range []string{"openbc-session-3", "stock-excerpts"} {
		t.Run(c, func(t *testing.T) {
			table, js := statsOutputs(t, collect(t, filepath.Join(dir, c+".pcap")))
			checkGolden(t, c+".stats.table", table)
			checkGolden(t, c+".stats.json", js)
		})
	}
}

// The generated seed 001 session (stock fragmented-ACK bug): one
// unacked-fragment-retransmit and 30 retransmit notes in one flow.
func TestStatsGoldenSeed001(t *testing.T) {
	path := filepath.Join(tempDir(t), "seed001.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dissecttest.Seed001(dissecttest.Seed001FragmentAcks).WritePcap(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	table, js := statsOutputs(t, collect(t, path))
	checkGolden(t, "seed001.stats.table", table)
	checkGolden(t, "seed001.stats.json", js)
}

// decodeStats parses the JSON document back.
func decodeStats(t *testing.T, s *Stats) *statsDoc {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var d statsDoc
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Fatal("more than one JSON document")
	}
	return &d
}

func opcodeCount(d *statsDoc, op uint8) (c2s, s2c uint64) {
	for _, o := range d.Opcodes {
		if o.Opcode == op {
			return o.C2S, o.S2C
		}
	}
	return 0, 0
}

// The sample (real seed 003 checksum bytes) has five checksum rounds: five
// requests, five responses, one of them reassembled from three fragments
// and counted once, not once for its fragment 0 and again reassembled.
func TestStatsSampleCounts(t *testing.T) {
	d := decodeStats(t, collect(t, samplePath))
	tests := []struct {
		op       uint8
		c2s, s2c uint64
	}{
		{0x20, 0, 5}, {0x21, 5, 0}, {0x28, 0, 1}, {0x00, 0, 1}, {0x2A, 1, 0}, {0x2C, 1, 1}, {0x35, 0, 1},
	}
	for _, tt := range tests {
		if c2s, s2c := opcodeCount(d, tt.op); c2s != tt.c2s || s2c != tt.s2c {
			t.Errorf("opcode 0x%02X: c2s %d s2c %d, want %d %d", tt.op, c2s, s2c, tt.c2s, tt.s2c)
		}
	}
	tot := d.Totals
	if tot.GameDatagrams != (dirCount{14, 11}) || tot.GamespyDatagrams != (dirCount{1, 1}) || tot.Flows != 1 || tot.Anomalies != 0 {
		t.Errorf("totals %+v", tot)
	}
	if len(d.Flows) != 1 {
		t.Fatalf("%d flows", len(d.Flows))
	}
	f := d.Flows[0]
	if f.Source != "sample.pcap" || f.Client != "192.168.1.20:2655" || f.PeerID == nil || *f.PeerID != 2 ||
		f.PlayerName != "Cady2" || f.C2S.Fragments != 3 || f.C2S.Reassembled != 1 || f.RTT.C2S.Count+f.RTT.S2C.Count != 19 {
		t.Errorf("flow %+v", f)
	}
}

// openbc-session-3 resends six messages (host to the third bot); the
// retransmitted copies are not counted as opcodes again, and the six
// retransmit notes show in the flow and in the totals.
func TestStatsOpenBCRetransmits(t *testing.T) {
	path := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	d := decodeStats(t, collect(t, path))
	var retrans uint64
	for _, f := range d.Flows {
		retrans += f.S2C.Retransmissions + f.C2S.Retransmissions
	}
	if retrans != 6 {
		t.Errorf("%d retransmissions, want 6", retrans)
	}
	var notes uint64
	for _, a := range d.Anomalies {
		if a.Code == anomaly.Retransmit.String() {
			notes = a.Count
			if a.Severity != "note" {
				t.Errorf("retransmit severity %q", a.Severity)
			}
		}
	}
	if notes != 6 {
		t.Errorf("%d retransmit anomalies, want 6", notes)
	}

	// Count first sends independently: every data message with an opcode
	// that is not a fragment, minus the copies the tracker marked.
	var all, resent [2][256]uint64
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = dissect.NewSession(dissect.SessionOptions{}).Run(context.Background(), r, dissect.SinkFuncs{OnDatagram: func(dg *dissect.Datagram) error {
		for i, m := range dg.Transport.Messages {
			if m.Type != transport.TypeData || m.Fragment || len(m.Payload) == 0 {
				continue
			}
			all[dirIndex(dg.Dir)][m.Payload[0]]++
			if dg.Msgs[i].Track.Retransmit {
				resent[dirIndex(dg.Dir)][m.Payload[0]]++
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var nResent uint64
	for op := range 256 {
		c2s, s2c := opcodeCount(d, uint8(op))
		if c2s != all[0][op]-resent[0][op] || s2c != all[1][op]-resent[1][op] {
			t.Errorf("opcode 0x%02X: %d/%d, want %d/%d", op, c2s, s2c, all[0][op]-resent[0][op], all[1][op]-resent[1][op])
		}
		nResent += resent[0][op] + resent[1][op]
	}
	if nResent != 6 {
		t.Errorf("%d resent data messages, want 6", nResent)
	}
}

// Several captures add up; flows keep their source.
func TestStatsAggregates(t *testing.T) {
	one := decodeStats(t, collect(t, samplePath))
	two := decodeStats(t, collect(t, samplePath, samplePath))
	if !slices.Equal(two.Sources, []string{"sample.pcap", "sample.pcap"}) || len(two.Flows) != 2 || two.Totals.Flows != 2 {
		t.Fatalf("sources %v, %d flows", two.Sources, len(two.Flows))
	}
	if two.Totals.GameDatagrams.C2S != 2*one.Totals.GameDatagrams.C2S || two.Totals.GameBytes.S2C != 2*one.Totals.GameBytes.S2C {
		t.Errorf("totals %+v, one capture %+v", two.Totals, one.Totals)
	}
	for i, o := range two.Opcodes {
		if o.C2S != 2*one.Opcodes[i].C2S || o.S2C != 2*one.Opcodes[i].S2C {
			t.Errorf("opcode %s: %d/%d, one capture %d/%d", o.Hex, o.C2S, o.S2C, one.Opcodes[i].C2S, one.Opcodes[i].S2C)
		}
	}
	if two.Flows[1].First != one.Flows[0].First || two.Flows[1].C2S != one.Flows[0].C2S {
		t.Errorf("second flow %+v", two.Flows[1])
	}
}

// msgDatagram is a hand-made game datagram for the counting rules.
func msgDatagram(dir dissect.Dir, msgs []transport.Message, dms []dissect.Message, anoms ...anomaly.Anomaly) *dissect.Datagram {
	d := &dissect.Datagram{Dir: dir, Kind: dissect.KindGame, Raw: make([]byte, 10), Msgs: dms, Anomalies: anoms}
	d.Transport.Messages = msgs
	return d
}

// The counting rules, one case each.
func TestStatsCountingRules(t *testing.T) {
	chk, resp, mod := game.Lookup(0x20), game.Lookup(0x21), game.Lookup(0x90)
	data := transport.Message{Type: transport.TypeData, Reliable: true, Payload: []byte{0x20}}
	frag0 := transport.Message{Type: transport.TypeData, Reliable: true, Fragment: true, HasFragTotal: true, FragTotal: 2, Payload: []byte{0x21}}
	frag1 := transport.Message{Type: transport.TypeData, Reliable: true, Fragment: true, FragIdx: 1, Payload: []byte{0xAA}}
	ack := transport.Message{Type: transport.TypeACK}
	tests := []struct {
		name     string
		dg       *dissect.Datagram
		op       uint8
		c2s, s2c uint64
	}{
		{"first send", msgDatagram(dissect.S2C, []transport.Message{data}, []dissect.Message{{Payload: dissect.Payload{Opcode: chk}}}), 0x20, 0, 1},
		{"retransmitted copy", msgDatagram(dissect.S2C, []transport.Message{data},
			[]dissect.Message{{Payload: dissect.Payload{Opcode: chk}, Track: transport.MsgInfo{Retransmit: true, RetransmitCount: 1}}}), 0x20, 0, 0},
		{"fragment 0 alone", msgDatagram(dissect.C2S, []transport.Message{frag0}, []dissect.Message{{Payload: dissect.Payload{Opcode: resp}}}), 0x21, 0, 0},
		{"completing fragment", msgDatagram(dissect.C2S, []transport.Message{frag1},
			[]dissect.Message{{Reassembled: &dissect.Reassembled{Frags: 2, Payload: dissect.Payload{Opcode: resp}}}}), 0x21, 1, 0},
		{"completed by a resent copy", msgDatagram(dissect.C2S, []transport.Message{frag1},
			[]dissect.Message{{Track: transport.MsgInfo{Retransmit: true}, Reassembled: &dissect.Reassembled{Frags: 2, Payload: dissect.Payload{Opcode: resp}}}}), 0x21, 1, 0},
		{"mod opcode", msgDatagram(dissect.C2S, []transport.Message{{Type: transport.TypeData, Payload: []byte{0x90}}},
			[]dissect.Message{{Payload: dissect.Payload{Opcode: mod}}}), 0x90, 1, 0},
		{"ack", msgDatagram(dissect.C2S, []transport.Message{ack}, []dissect.Message{{}}), 0x01, 0, 0},
		{"messages without Msgs", msgDatagram(dissect.C2S, []transport.Message{data}, nil), 0x20, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStats()
			if err := s.Datagram(tt.dg); err != nil {
				t.Fatal(err)
			}
			d := decodeStats(t, s)
			if c2s, s2c := opcodeCount(d, tt.op); c2s != tt.c2s || s2c != tt.s2c {
				t.Errorf("opcode 0x%02X: %d/%d, want %d/%d", tt.op, c2s, s2c, tt.c2s, tt.s2c)
			}
		})
	}
}

// Anomaly totals add datagram anomalies and events, by code and severity,
// errors first; a flow's counts take the registry's severities.
func TestStatsAnomalyTotals(t *testing.T) {
	s := NewStats()
	warn := anomaly.Anomaly{Code: anomaly.SeqReuse}
	bad := anomaly.Anomaly{Code: anomaly.PayloadMalformed}
	_ = s.Datagram(msgDatagram(dissect.C2S, nil, nil, warn, bad, warn))
	_ = s.Finish([]dissect.Event{{Anomaly: anomaly.Anomaly{Code: anomaly.UnackedFragmentRetransmit}}})
	_ = s.Finish([]dissect.Event{{Anomaly: anomaly.Anomaly{Code: anomaly.UnackedFragmentRetransmit}}})
	s.AddFlows("x.pcap", []transport.FlowStats{{ID: 1, Flows: 1, Anomalies: map[anomaly.Code]int{
		anomaly.SeqReuse: 2, anomaly.UnackedFragmentRetransmit: 2, anomaly.PeerTimeout: 1}}})
	d := decodeStats(t, s)
	want := []anomalyDoc{{"payload-malformed", "error", 1}, {"seq-reuse", "warn", 2}, {"unacked-fragment-retransmit", "warn", 2}}
	if !slices.Equal(d.Anomalies, want) || d.Totals.Anomalies != 5 {
		t.Errorf("anomalies %v (total %d), want %v", d.Anomalies, d.Totals.Anomalies, want)
	}
	wantFlow := []anomalyDoc{{"peer-timeout", "warn", 1}, {"seq-reuse", "warn", 2}, {"unacked-fragment-retransmit", "warn", 2}}
	if !slices.Equal(d.Flows[0].Anomalies, wantFlow) {
		t.Errorf("flow anomalies %v, want %v", d.Flows[0].Anomalies, wantFlow)
	}
}

// An empty collector still writes a complete document and tables; the zero
// Stats counts like NewStats.
func TestStatsEmpty(t *testing.T) {
	var zero Stats
	if err := zero.Datagram(msgDatagram(dissect.C2S, nil, nil, anomaly.Anomaly{Code: anomaly.TrackingLimit})); err != nil {
		t.Fatal(err)
	}
	if d := decodeStats(t, &zero); d.Totals.Anomalies != 1 {
		t.Errorf("zero Stats: %+v", d.Totals)
	}
	d := decodeStats(t, NewStats())
	if d.Sources == nil || d.Flows == nil || d.Opcodes == nil || d.Anomalies == nil || d.Totals.First != nil {
		t.Errorf("empty document %+v", d)
	}
	var b bytes.Buffer
	if err := NewStats().WriteTable(&b, render.NewPalette(false)); err != nil || !strings.Contains(b.String(), "none") {
		t.Errorf("err %v, table:\n%s", err, b.String())
	}
}

// The JSON key names are a contract (bcdump help stats): this is the full list.
func TestStatsJSONKeys(t *testing.T) {
	var b bytes.Buffer
	if err := collect(t, samplePath).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				keys[path+"."+k] = true
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		}
	}
	walk("", v)
	got := slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	})
	dir := []string{"acks", "bytes", "datagrams", "fragments", "keepalives", "peer_id_mismatches", "reassembled", "reliable", "retransmissions", "retransmitted_msgs"}
	want := []string{".flows", ".opcodes", ".sources", ".totals", ".anomalies"}
	for _, k := range []string{"anomalies", "client", "duration_ms", "finished", "first", "flow", "last", "peer_id", "peer_id_from", "player_name", "rtt", "server", "source", "c2s", "s2c"} {
		want = append(want, ".flows[]."+k)
	}
	for _, k := range dir {
		want = append(want, ".flows[].c2s."+k, ".flows[].s2c."+k)
	}
	want = append(want, ".flows[].rtt.c2s", ".flows[].rtt.s2c")
	for _, k := range []string{"count", "max_ms", "p50_ms", "p95_ms", "sampled"} {
		want = append(want, ".flows[].rtt.c2s."+k, ".flows[].rtt.s2c."+k)
	}
	for _, k := range []string{"c2s", "known", "opcode", "opcode_hex", "opcode_name", "s2c"} {
		want = append(want, ".opcodes[]."+k)
	}
	for _, k := range []string{"anomalies", "duration_ms", "first", "flows", "last", "game_bytes", "game_datagrams", "gamespy_datagrams"} {
		want = append(want, ".totals."+k)
	}
	for _, k := range []string{"game_bytes", "game_datagrams", "gamespy_datagrams"} {
		want = append(want, ".totals."+k+".c2s", ".totals."+k+".s2c")
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("keys:\n got %v\nwant %v", got, want)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// With colour the tables keep their shape: stripping the escapes gives the
// plain output.
func TestStatsTableColor(t *testing.T) {
	s := NewStats()
	_ = s.Datagram(msgDatagram(dissect.C2S, nil, nil, anomaly.Anomaly{Code: anomaly.SeqReuse}))
	s.AddFlows("x.pcap", []transport.FlowStats{{ID: 1, Flows: 1, Anomalies: map[anomaly.Code]int{anomaly.SeqReuse: 1}}})
	var plain, colored bytes.Buffer
	if err := s.WriteTable(&plain, render.NewPalette(false)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteTable(&colored, render.NewPalette(true)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(colored.Bytes(), []byte("\x1b[")) {
		t.Fatal("no colour")
	}
	if got := ansi.ReplaceAllString(colored.String(), ""); got != plain.String() {
		t.Errorf("coloured output differs once stripped:\n%s\nplain:\n%s", got, plain.String())
	}
}

// Player names come from the wire: quoted, never raw control bytes.
func TestStatsTableQuotesNames(t *testing.T) {
	s := NewStats()
	s.AddFlows("x.pcap", []transport.FlowStats{{ID: 1, Flows: 1, HasPeerID: true, PeerID: 2, PeerIDFrom: "byte0", PlayerName: "evil\x1b[2J"}})
	var b bytes.Buffer
	if err := s.WriteTable(&b, render.NewPalette(false)); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("\x1b")) || !strings.Contains(b.String(), `"evil\x1b[2J"`) {
		t.Errorf("name not quoted:\n%s", b.String())
	}
}

// Table lines stay within 100 columns for the sample.
func TestStatsTableWidth(t *testing.T) {
	table, _ := statsOutputs(t, collect(t, samplePath))
	for i, line := range strings.Split(string(table), "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("line %d is %d columns: %s", i+1, n, line)
		}
	}
}

// datagrams decodes a capture into separate Datagrams (the dissector
// reuses its own), for feeding the collector repeatedly.
func datagrams(t testing.TB, path string) ([]*dissect.Datagram, int) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d := dissect.New(dissect.Options{})
	var out []*dissect.Datagram
	size := 0
	var p capture.Packet
	for {
		err := r.Next(&p)
		if err == io.EOF {
			return out, size
		}
		if err != nil {
			t.Fatal(err)
		}
		dg := new(dissect.Datagram)
		d.Decode(dg, &p)
		d.Advance(dg)
		out = append(out, dg)
		size += len(dg.Raw)
	}
}

// Once every anomaly code has been seen, Datagram does not allocate.
func TestStatsDatagramNoAllocs(t *testing.T) {
	for _, c := range []struct {
		name string
		path func(t *testing.T) string
	}{
		{"sample", func(*testing.T) string { return samplePath }},
		{"openbc-session-3", func(t *testing.T) string {
			return filepath.Join(testdata, "captures", "openbc-session-3.pcap")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dgs, _ := datagrams(t, c.path(t))
			s := NewStats()
			for _, dg := range dgs {
				_ = s.Datagram(dg)
			}
			allocs := testing.AllocsPerRun(5, func() {
				for _, dg := range dgs {
					_ = s.Datagram(dg)
				}
			})
			if allocs != 0 {
				t.Errorf("%.1f allocations per pass over %d datagrams", allocs, len(dgs))
			}
		})
	}
}

func BenchmarkStatsDatagram(b *testing.B) {
	path := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	dgs, size := datagrams(b, path)
	s := NewStats()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, dg := range dgs {
			_ = s.Datagram(dg)
		}
	}
}

func BenchmarkStatsWrite(b *testing.B) {
	s := collect(b, samplePath)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.WriteTable(io.Discard, render.NewPalette(false)); err != nil {
			b.Fatal(err)
		}
		if err := s.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// stats --brief: one line per flow, on the captures with many flows.
func TestStatsBriefGolden(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	for _, c := range []string{"openbc-session-2", "openbc-session-3"} {
		var b bytes.Buffer
		if err := collect(t, filepath.Join(dir, c+".pcap")).WriteBrief(&b); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, c+".stats.brief", b.Bytes())
	}
	// Several sources add a SOURCE column.
	s := collect(t, samplePath, filepath.Join(dir, "stock-excerpts.pcap"))
	var b bytes.Buffer
	if err := s.WriteBrief(&b); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "multi.stats.brief", b.Bytes())
}
