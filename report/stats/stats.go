package stats

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Stats collects what `bcdump stats` prints (and `bcdump live` prints on
// exit): per-flow tables, opcode counts per direction and anomaly totals.
// It is a Reporter (a dissect.Sink): feed it every datagram and event,
// then the flows of each capture (AddFlows), then write it. Several captures may be
// fed into one Stats; their counts add up and their flows are listed with
// the capture they came from.
//
// Datagram runs once per packet and does not allocate once every anomaly
// code has been seen: counters live in fixed arrays indexed by direction
// and opcode byte.
type Stats struct {
	sources []string
	skipped []skippedDoc
	// flows holds the records in chunks of flowChunk, so that growing
	// never copies them nor holds twice their room.
	flows [][]statsFlow

	first, last time.Time
	seen        bool
	game        [2]uint64 // game datagrams by direction (0 c2s, 1 s2c)
	gameBytes   [2]uint64 // their UDP payload bytes
	gamespy     [2]uint64

	// ops counts game messages by opcode byte: unfragmented messages on
	// their first send (retransmitted copies skipped) and reassembled
	// messages where they were delivered.
	ops [2][256]uint64

	anoms map[anomaly.Code]uint64 // datagram anomalies and events

	filter string // the display filter applied before Stats, if any

	// budget bounds the estimated bytes of the flow records kept (0: no
	// bound); kept is their estimate. Past it, each capture's further
	// flows are summed into one record for the capture (bound).
	budget, kept int
	// summedFlows and summedCaptures count what the budget summed.
	summedFlows, summedCaptures int
}

// SetRecordBudget bounds the estimated memory of the flow records kept
// across all captures: once they reach n bytes, the flows of each further
// capture are summed into one record per capture, and the output says so.
// 0 (the default) keeps every record.
func (s *Stats) SetRecordBudget(n int) { s.budget = n }

// RecordBytes is the estimated memory of the flow records kept.
func (s *Stats) RecordBytes() int { return s.kept }

// recordBytes estimates the heap a kept flow record takes: the record, its
// two strings and its anomaly map (a map of up to 8 codes is one group of
// slots; more grow it).
func recordBytes(f *transport.FlowStats) int {
	n := int(unsafe.Sizeof(statsFlow{})) + len(f.PeerIDFrom) + len(f.PlayerName)
	if f.Anomalies != nil {
		n += 208 + 16*max(len(f.Anomalies)-8, 0)
	}
	return n
}

// SetFilter records that a display filter chose what Stats sees (stats
// -Y); the table and JSON say so.
func (s *Stats) SetFilter(expr string) { s.filter = expr }

type statsFlow struct {
	source string
	// bound: the record sums flows of its capture past the record budget
	// (SetRecordBudget), not the tracker's finished flows.
	bound bool
	transport.FlowStats
}

// NewStats returns an empty collector (the zero Stats is one too).
func NewStats() *Stats { return &Stats{} }

func dirIndex(d dissect.Dir) int {
	if d == dissect.S2C {
		return 1
	}
	return 0
}

// FieldBlind says Stats reads no payload fields, so a Session stores none
// (dissect.FieldBlind).
func (*Stats) FieldBlind() bool { return true }

// Datagram counts d's opcodes and anomalies.
func (s *Stats) Datagram(d *dissect.Datagram) error {
	if !s.seen || d.Time.Before(s.first) {
		s.first = d.Time
	}
	if !s.seen || d.Time.After(s.last) {
		s.last = d.Time
	}
	s.seen = true
	di := dirIndex(d.Dir)
	if d.Kind == dissect.KindGameSpy {
		s.gamespy[di]++
	} else {
		s.game[di]++
		s.gameBytes[di] += uint64(len(d.Raw))
		ops := &s.ops[di]
		for i := range d.Transport.Messages {
			if i >= len(d.Msgs) {
				break
			}
			m, dm := &d.Transport.Messages[i], &d.Msgs[i]
			if m.Type != transport.TypeData {
				continue
			}
			if !m.Fragment && !dm.Track.Retransmit && dm.Opcode != nil {
				ops[dm.Opcode.Code]++
			}
			if r := dm.Reassembled; r != nil && r.Opcode != nil {
				ops[r.Opcode.Code]++
			}
		}
	}
	for i := range d.Anomalies {
		a := &d.Anomalies[i]
		s.count(a.Code, 1)
	}
	return nil
}

func (s *Stats) count(code anomaly.Code, n uint64) {
	if s.anoms == nil {
		s.anoms = make(map[anomaly.Code]uint64) // the zero Stats works too
	}
	s.anoms[code] += n
}

// Events counts events found mid-capture (live).
func (s *Stats) Events(ev []dissect.Event) error {
	for i := range ev {
		s.count(ev[i].Code, 1)
	}
	return nil
}

// Finish counts the end-of-capture events.
func (s *Stats) Finish(end []dissect.Event) error { return s.Events(end) }

// AddUnlisted counts the events a Dissector found but did not list
// (Dissector.Unlisted), so the totals stay exact past its event limit.
func (s *Stats) AddUnlisted(u map[anomaly.Code]int) {
	for code, n := range u {
		s.count(code, uint64(n))
	}
}

// AddSkipped records a capture that could not be read (partly: false) or
// was read only up to damage (partly: true; its flows are counted), with
// the reason; the table and JSON list it.
func (s *Stats) AddSkipped(source, reason string, partly bool) {
	s.skipped = append(s.skipped, skippedDoc{File: source, Reason: reason, Partly: partly})
}

// AddFlows records the flows of one capture (source names it). Past the
// record budget the rest of the capture's flows are summed into one record.
func (s *Stats) AddFlows(source string, flows []transport.FlowStats) {
	s.sources = append(s.sources, source)
	var sum *transport.FlowStats
	for i := range flows {
		f := &flows[i]
		n := recordBytes(f)
		if s.budget <= 0 || s.kept+n <= s.budget {
			s.addRecord(statsFlow{source: source, FlowStats: *f})
			s.kept += n
			continue
		}
		if sum == nil {
			sum = &transport.FlowStats{Other: true, Finished: true, First: f.First, Last: f.Last, Anomalies: map[anomaly.Code]int{}}
			s.summedCaptures++
		}
		sum.Sum(f)
		if f.Other {
			s.summedFlows += f.Flows
		} else {
			s.summedFlows++
		}
	}
	if sum != nil {
		s.addRecord(statsFlow{source: source, bound: true, FlowStats: *sum})
		s.kept += recordBytes(sum)
	}
}

// flowChunk is how many flow records one chunk of Stats.flows holds.
const flowChunk = 1024

func (s *Stats) addRecord(f statsFlow) {
	if n := len(s.flows); n == 0 || len(s.flows[n-1]) == flowChunk {
		s.flows = append(s.flows, make([]statsFlow, 0, flowChunk))
	}
	last := &s.flows[len(s.flows)-1]
	*last = append(*last, f)
}

// eachFlow calls fn with every flow record in order, until it fails.
func (s *Stats) eachFlow(fn func(f *statsFlow) error) error {
	for _, c := range s.flows {
		for i := range c {
			if err := fn(&c[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// The JSON document of `bcdump stats --format json`. Key names are a
// contract like the read output's: new keys may be added, none renamed.
// Durations are milliseconds, times RFC 3339 in UTC.
type statsDoc struct {
	Sources []string `json:"sources"`
	// Skipped lists the captures that could not be read, or only up to
	// damage (partly), with the reason.
	Skipped []skippedDoc `json:"skipped,omitempty"`
	// Filter is the display filter (stats -Y): only matching datagrams
	// and events, and the flows of those datagrams, are counted.
	Filter string `json:"filter,omitempty"`
	// Summed says how many flows were summed per capture because the
	// records kept reached the memory bound; absent when none were.
	Summed    *summedDoc   `json:"summed,omitempty"`
	Totals    totalsDoc    `json:"totals"`
	Flows     []flowDoc    `json:"flows"`
	Opcodes   []opcodeDoc  `json:"opcodes"`
	Anomalies []anomalyDoc `json:"anomalies"`
}

type summedDoc struct {
	Flows      int `json:"flows"`       // flows summed into per-capture records
	Captures   int `json:"captures"`    // captures with such a record
	BoundBytes int `json:"bound_bytes"` // the bound on the records kept
}

// text says what was summed, for the table and the brief listing.
func (sd *summedDoc) text() string {
	return fmt.Sprintf("%d flows of %d captures are summed, one record per capture: the flow records kept reached their bound (%d MiB, half of --flow-memory)",
		sd.Flows, sd.Captures, sd.BoundBytes>>20)
}

type totalsDoc struct {
	First            *string  `json:"first"`
	Last             *string  `json:"last"`
	DurationMs       float64  `json:"duration_ms"`
	Flows            int      `json:"flows"`
	GameDatagrams    dirCount `json:"game_datagrams"`
	GameBytes        dirCount `json:"game_bytes"`
	GamespyDatagrams dirCount `json:"gamespy_datagrams"`
	Anomalies        uint64   `json:"anomalies"`
}

type dirCount struct {
	C2S uint64 `json:"c2s"`
	S2C uint64 `json:"s2c"`
}

type flowDoc struct {
	Source  string `json:"source"`
	Flow    uint32 `json:"flow"`
	Other   bool   `json:"other,omitempty"` // sum of finished flows beyond the tracker's limit
	FlowsIn int    `json:"flows_summed,omitempty"`
	// SummedFor says why a record sums flows: "flow-memory" when the
	// records kept reached the bound; absent for the tracker's "other".
	SummedFor  string       `json:"summed_for,omitempty"`
	Client     string       `json:"client,omitempty"`
	Server     string       `json:"server,omitempty"`
	PeerID     *uint8       `json:"peer_id"`
	PeerIDFrom string       `json:"peer_id_from,omitempty"`
	PlayerName string       `json:"player_name"`
	First      string       `json:"first"`
	Last       string       `json:"last"`
	DurationMs float64      `json:"duration_ms"`
	Finished   bool         `json:"finished"`
	C2S        flowDirDoc   `json:"c2s"`
	S2C        flowDirDoc   `json:"s2c"`
	RTT        RTTDirsDoc   `json:"rtt"`
	Anomalies  []anomalyDoc `json:"anomalies"`
}

type flowDirDoc struct {
	Datagrams         uint64 `json:"datagrams"`
	Bytes             uint64 `json:"bytes"`
	Acks              uint64 `json:"acks"`
	Reliable          uint64 `json:"reliable"`
	Retransmissions   uint64 `json:"retransmissions"`
	RetransmittedMsgs uint64 `json:"retransmitted_msgs"`
	Keepalives        uint64 `json:"keepalives"`
	Fragments         uint64 `json:"fragments"`
	Reassembled       uint64 `json:"reassembled"`
	PeerIDMismatches  uint64 `json:"peer_id_mismatches"`
}

// RTTDirsDoc holds the RTT of each direction of the acknowledged message
// (transport.RTT): c2s times the client's messages, s2c the server's.
// profile and diff write the same objects.
type RTTDirsDoc struct {
	C2S RTTDoc `json:"c2s"`
	S2C RTTDoc `json:"s2c"`
}

// RTTDoc is one direction's RTT in the JSON of stats, profile and diff.
type RTTDoc struct {
	Count   uint64   `json:"count"`
	P50Ms   *float64 `json:"p50_ms"` // null without samples (or for summed flows)
	P95Ms   *float64 `json:"p95_ms"`
	MaxMs   *float64 `json:"max_ms"`
	Sampled bool     `json:"sampled"` // percentiles cover only the first samples
}

type opcodeDoc struct {
	Opcode uint8  `json:"opcode"`
	Hex    string `json:"opcode_hex"`
	Name   string `json:"opcode_name"`
	Known  bool   `json:"known"` // false for the free and mod ranges
	C2S    uint64 `json:"c2s"`
	S2C    uint64 `json:"s2c"`
}

type skippedDoc struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Partly bool   `json:"partly,omitempty"` // read up to the damage; counted so far
}

type anomalyDoc struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Count    uint64 `json:"count"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// stamp is a time as the JSON summary writes it (render.TimeLayout).
func stamp(t time.Time) string { return t.UTC().Format(render.TimeLayout) }

// short is a stamp for the table: trailing zeros dropped, as before the
// JSON's digits were fixed ("...:20.850000000Z" is "...:20.85Z").
func short(s string) string {
	t, err := time.Parse(render.TimeLayout, s)
	if err != nil {
		return s
	}
	return t.Format(time.RFC3339Nano)
}

// Counts is the flows and anomalies the summary totals (bcdump live's
// stop line).
func (s *Stats) Counts() (flows int, anomalies uint64) {
	t := s.doc().Totals
	return t.Flows, t.Anomalies
}

// doc builds the summary the writers print, but for the flows: they are
// written one at a time from the records (flowDocOf), never all at once.
func (s *Stats) doc() *statsDoc {
	d := &statsDoc{Sources: slices.Clone(s.sources), Skipped: slices.Clone(s.skipped), Filter: s.filter, Flows: []flowDoc{}, Opcodes: []opcodeDoc{}}
	if d.Sources == nil {
		d.Sources = []string{}
	}
	t := &d.Totals
	if s.seen {
		f, l := stamp(s.first), stamp(s.last)
		t.First, t.Last, t.DurationMs = &f, &l, ms(s.last.Sub(s.first))
	}
	t.GameDatagrams = dirCount{s.game[0], s.game[1]}
	t.GameBytes = dirCount{s.gameBytes[0], s.gameBytes[1]}
	t.GamespyDatagrams = dirCount{s.gamespy[0], s.gamespy[1]}

	for _, n := range s.anoms {
		t.Anomalies += n
	}
	d.Anomalies = anomalyList(s.anoms)

	s.eachFlow(func(f *statsFlow) error {
		if f.Other {
			t.Flows += f.Flows
		} else {
			t.Flows++
		}
		return nil
	})
	if s.summedFlows > 0 {
		d.Summed = &summedDoc{Flows: s.summedFlows, Captures: s.summedCaptures, BoundBytes: s.budget}
	}
	for op := range 256 {
		c2s, s2c := s.ops[0][op], s.ops[1][op]
		if c2s == 0 && s2c == 0 {
			continue
		}
		o := game.Lookup(uint8(op))
		d.Opcodes = append(d.Opcodes, opcodeDoc{Opcode: uint8(op), Hex: fmt.Sprintf("0x%02X", op),
			Name: o.Name, Known: o.Known, C2S: c2s, S2C: s2c})
	}
	return d
}

// anomalyList orders anomaly counts by severity (errors first), then code.
func anomalyList[N uint64 | int](m map[anomaly.Code]N) []anomalyDoc {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b anomaly.Code) int {
		return cmp.Or(cmp.Compare(b.Severity(), a.Severity()), strings.Compare(a.String(), b.String()))
	})
	out := make([]anomalyDoc, 0, len(keys))
	for _, k := range keys {
		out = append(out, anomalyDoc{Code: k.String(), Severity: k.Severity().String(), Count: uint64(m[k])})
	}
	return out
}

func flowDocOf(f *statsFlow) flowDoc {
	fd := flowDoc{
		Source: f.source, Flow: uint32(f.ID), Other: f.Other, PeerIDFrom: f.PeerIDFrom, PlayerName: f.PlayerName,
		First: stamp(f.First), Last: stamp(f.Last), DurationMs: ms(f.Last.Sub(f.First)), Finished: f.Finished,
		C2S: flowDirOf(&f.FlowStats, transport.C2S), S2C: flowDirOf(&f.FlowStats, transport.S2C),
	}
	if f.Other {
		fd.FlowsIn = f.Flows
		if f.bound {
			fd.SummedFor = "flow-memory"
		}
	} else {
		fd.Client, fd.Server = f.Client.String(), f.Server.String()
	}
	if f.HasPeerID {
		id := f.PeerID
		fd.PeerID = &id
	}
	fd.RTT.C2S, fd.RTT.S2C = RTTDocOf(f.RTT[transport.C2S], f.Other), RTTDocOf(f.RTT[transport.S2C], f.Other)
	fd.Anomalies = anomalyList(f.Anomalies)
	return fd
}

// RTTDocOf is one direction's RTT; a sum of flows has no percentiles.
func RTTDocOf(t transport.RTT, sum bool) RTTDoc {
	r := RTTDoc{Count: t.Count, Sampled: t.Sampled}
	if t.Count > 0 {
		mx := ms(t.Max)
		r.MaxMs = &mx
		if !sum {
			p50, p95 := ms(t.P50), ms(t.P95)
			r.P50Ms, r.P95Ms = &p50, &p95
		}
	}
	return r
}

func flowDirOf(f *transport.FlowStats, d transport.Dir) flowDirDoc {
	return flowDirDoc{
		Datagrams: f.Datagrams[d], Bytes: f.Bytes[d], Acks: f.Acks[d], Reliable: f.Reliable[d],
		Retransmissions: f.Retransmissions[d], RetransmittedMsgs: f.RetransmittedMsgs[d],
		Keepalives: f.Keepalives[d], Fragments: f.Fragments[d], Reassembled: f.Reassembled[d],
		PeerIDMismatches: f.PeerIDMismatches[d],
	}
}

// WriteJSON writes everything as one (indented) JSON document. The flows
// are encoded one at a time into the document's "flows" array, so the
// output of any number of flows takes no more memory than one.
func (s *Stats) WriteJSON(w io.Writer) error {
	// quote.JSON escapes what a terminal would act on, piece by piece:
	// each piece holds whole runes.
	bw := bufio.NewWriter(w)
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s.doc()); err != nil {
		return err
	}
	// The document with no flows has "flows": [] at the top level; the
	// flows go between its brackets, indented as the encoder would.
	const mark = "\n  \"flows\": ["
	doc := head.Bytes()
	at := bytes.Index(doc, []byte(mark+"],\n"))
	if at < 0 {
		return fmt.Errorf("stats: no flows array in the document")
	}
	at += len(mark)
	bw.Write(quote.JSON(doc[:at]))
	var one bytes.Buffer
	fenc := json.NewEncoder(&one)
	fenc.SetEscapeHTML(false)
	fenc.SetIndent("    ", "  ")
	n := 0
	err := s.eachFlow(func(f *statsFlow) error {
		one.Reset()
		if err := fenc.Encode(flowDocOf(f)); err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		bw.Write(quote.JSON(bytes.TrimSuffix(one.Bytes(), []byte{'\n'})))
		return nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(quote.JSON(doc[at:]))
	return bw.Flush()
}

// WriteTable writes the summary as text tables that fit 100 columns: the
// totals, one table per flow (metrics by direction, anomalies by code),
// the opcode counts and the anomaly totals. Names go through package quote
// so that bytes from the wire cannot drive the terminal.
func (s *Stats) WriteTable(w io.Writer, pal render.Palette) error {
	d := s.doc()
	bw := bufio.NewWriter(w)
	p := &pal
	t := &d.Totals

	names := make([]string, len(d.Sources))
	for i, src := range d.Sources {
		names[i] = quote.Name(src)
	}
	fmt.Fprintf(bw, "Captures: %s\n", strings.Join(names, ", "))
	for _, sk := range d.Skipped {
		what := "Skipped: "
		if sk.Partly {
			what = "Cut off: "
		}
		fmt.Fprintf(bw, "%s %s\n", what, sk.Reason)
	}
	if d.Filter != "" {
		fmt.Fprintf(bw, "Filter:   %s (only matching datagrams and events, and the flows of those datagrams, are counted)\n", d.Filter)
	}
	if d.Summed != nil {
		fmt.Fprintf(bw, "Summed:   %s\n", d.Summed.text())
	}
	if t.First != nil {
		fmt.Fprintf(bw, "Time:     %s .. %s (%s)\n", short(*t.First), short(*t.Last), fmtMs(t.DurationMs))
	}
	tb := newStatsTable(bw, "totals", "c2s", "s2c", "total")
	tb.row("game datagrams", t.GameDatagrams.C2S, t.GameDatagrams.S2C)
	tb.row("game bytes", t.GameBytes.C2S, t.GameBytes.S2C)
	tb.row("GameSpy datagrams", t.GamespyDatagrams.C2S, t.GamespyDatagrams.S2C)
	tb.total("flows", uint64(t.Flows))
	tb.total("anomalies", t.Anomalies)
	if err := tb.render(); err != nil {
		return err
	}

	err := s.eachFlow(func(f *statsFlow) error {
		fd := flowDocOf(f)
		return writeFlowTable(bw, p, &fd, tb)
	})
	if err != nil {
		return err
	}

	fmt.Fprintf(bw, "\nOpcodes (first sends and reassembled messages; retransmitted copies not counted)\n")
	ot := newTable(bw, []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight}, "opcode", "name", "c2s", "s2c")
	for _, o := range d.Opcodes {
		if err := ot.Append(o.Hex, o.Name, u(o.C2S), u(o.S2C)); err != nil {
			return err
		}
	}
	if len(d.Opcodes) == 0 {
		if err := ot.Append("-", "none", "", ""); err != nil {
			return err
		}
	}
	if err := ot.Render(); err != nil {
		return err
	}

	fmt.Fprintf(bw, "\nAnomalies (on datagrams and at the end of each capture)\n")
	at := newTable(bw, []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignRight}, "code", "severity", "count")
	for _, a := range d.Anomalies {
		if err := at.Append(p.PaintSev(a.Code, a.Severity), p.PaintSev(a.Severity, a.Severity), u(a.Count)); err != nil {
			return err
		}
	}
	if len(d.Anomalies) == 0 {
		if err := at.Append("none", "", ""); err != nil {
			return err
		}
	}
	if err := at.Render(); err != nil {
		return err
	}
	return bw.Flush()
}

// writeFlowTable writes one flow's header lines and table, with tb (on w)
// reused for the table.
func writeFlowTable(w io.Writer, p *render.Palette, f *flowDoc, tb *statsTable) error {
	switch {
	case f.SummedFor != "":
		fmt.Fprintf(w, "\nOther flows (%s): %d flows summed: the flow records kept reached the memory bound (--flow-memory)\n", quote.Name(f.Source), f.FlowsIn)
	case f.Other:
		fmt.Fprintf(w, "\nOther flows (%s): %d finished flows beyond the tracker's limit, summed\n", quote.Name(f.Source), f.FlowsIn)
	default:
		fmt.Fprintf(w, "\nFlow %d (%s)\n", f.Flow, quote.Name(f.Source))
		fmt.Fprintf(w, "  client  %s\n  server  %s\n", f.Client, f.Server)
		peer := "unknown"
		if f.PeerID != nil {
			peer = fmt.Sprintf("%d (from %s)", *f.PeerID, f.PeerIDFrom)
		}
		player := "unknown"
		if f.PlayerName != "" {
			player = quote.String(f.PlayerName)
		}
		fmt.Fprintf(w, "  peer    %s, player %s\n", peer, player)
	}
	state := "active at the end"
	if f.Finished {
		state = "finished"
	}
	fmt.Fprintf(w, "  time    %s .. %s (%s, %s)\n", short(f.First), short(f.Last), fmtMs(f.DurationMs), state)
	writeRTT(w, "c2s", &f.RTT.C2S)
	writeRTT(w, "s2c", &f.RTT.S2C)
	tb.reset("traffic", "c2s", "s2c", "total")
	c, s := &f.C2S, &f.S2C
	tb.row("datagrams", c.Datagrams, s.Datagrams)
	tb.row("bytes", c.Bytes, s.Bytes)
	tb.row("ACKs", c.Acks, s.Acks)
	tb.row("reliable messages", c.Reliable, s.Reliable)
	tb.row("retransmissions", c.Retransmissions, s.Retransmissions)
	tb.row("retransmitted messages", c.RetransmittedMsgs, s.RetransmittedMsgs)
	tb.row("keepalives", c.Keepalives, s.Keepalives)
	tb.row("fragments", c.Fragments, s.Fragments)
	tb.row("reassembled messages", c.Reassembled, s.Reassembled)
	tb.row("peer id mismatches", c.PeerIDMismatches, s.PeerIDMismatches)
	for _, a := range f.Anomalies {
		label := "anomaly " + a.Code
		if a.Severity != "" {
			label += " (" + a.Severity + ")"
		}
		tb.total(p.PaintSev(label, a.Severity), a.Count)
	}
	return tb.render()
}

// writeRTT writes one direction's RTT line of a flow.
func writeRTT(w io.Writer, dir string, r *RTTDoc) {
	switch {
	case r.Count == 0:
		fmt.Fprintf(w, "  rtt %s no samples\n", dir)
	case r.P50Ms == nil:
		fmt.Fprintf(w, "  rtt %s max %s (%s)\n", dir, fmtMs(*r.MaxMs), samples(r.Count))
	default:
		sampled := ""
		if r.Sampled {
			sampled = ", percentiles over the first samples"
		}
		fmt.Fprintf(w, "  rtt %s p50 %s  p95 %s  max %s (%s%s)\n",
			dir, fmtMs(*r.P50Ms), fmtMs(*r.P95Ms), fmtMs(*r.MaxMs), samples(r.Count), sampled)
	}
}

func samples(n uint64) string {
	if n == 1 {
		return "1 sample"
	}
	return u(n) + " samples"
}

func fmtMs(v float64) string {
	return time.Duration(v * float64(time.Millisecond)).Round(time.Microsecond).String()
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

// newTable returns an ASCII table (plain characters for any terminal and
// for diffs) with the given column alignments.
func newTable(w io.Writer, align []tw.Align, header ...any) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(header...)
	return t
}

// statsTable is a metric | c2s | s2c | total table. It is rendered by hand
// (a stats run prints one per flow, thousands of them; a tablewriter per
// table took most of the time) exactly as newTable would render it, which
// it falls back to for a cell that is not plain ASCII.
type statsTable struct {
	w      io.Writer
	header [4]string
	rows   [][4]string
	buf    []byte
}

var statsAlign = []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight}

func newStatsTable(w io.Writer, header ...string) *statsTable {
	t := &statsTable{w: w}
	copy(t.header[:], header)
	return t
}

// reset starts another table on the same writer, keeping the buffers.
func (t *statsTable) reset(header ...string) {
	t.header = [4]string{}
	copy(t.header[:], header)
	clear(t.rows)
	t.rows = t.rows[:0]
}

func (t *statsTable) row(label string, c2s, s2c uint64) {
	t.rows = append(t.rows, [4]string{label, u(c2s), u(s2c), u(c2s + s2c)})
}

// total adds a row with no direction.
func (t *statsTable) total(label string, v uint64) {
	t.rows = append(t.rows, [4]string{label, "", "", u(v)})
}

func (t *statsTable) render() error {
	var width [4]int
	for _, r := range append([][4]string{t.header}, t.rows...) {
		for c, cell := range r {
			n, ok := plainWidth(cell)
			if !ok {
				return t.renderTablewriter()
			}
			width[c] = max(width[c], n)
		}
	}
	b := t.buf[:0]
	sep := func() {
		b = append(b, '+')
		for _, n := range width {
			for range n + 2 {
				b = append(b, '-')
			}
			b = append(b, '+')
		}
		b = append(b, '\n')
	}
	line := func(r *[4]string) {
		b = append(b, '|')
		for c, cell := range r {
			n, _ := plainWidth(cell)
			b = append(b, ' ')
			if c > 0 {
				b = appendSpaces(b, width[c]-n)
			}
			b = append(b, cell...)
			if c == 0 {
				b = appendSpaces(b, width[c]-n)
			}
			b = append(b, ' ', '|')
		}
		b = append(b, '\n')
	}
	sep()
	line(&t.header)
	sep()
	for i := range t.rows {
		line(&t.rows[i])
	}
	if len(t.rows) > 0 {
		sep()
	}
	t.buf = b
	_, err := t.w.Write(b)
	return err
}

// renderTablewriter renders the table with tablewriter (newTable).
func (t *statsTable) renderTablewriter() error {
	tt := newTable(t.w, statsAlign, t.header[0], t.header[1], t.header[2], t.header[3])
	for _, r := range t.rows {
		if err := tt.Append(r[0], r[1], r[2], r[3]); err != nil {
			return err
		}
	}
	return tt.Render()
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// plainWidth is the display width of s if it is printable ASCII with at
// most SGR colour sequences (ESC [ digits and semicolons m), which take no
// room; ok is false for anything else.
func plainWidth(s string) (n int, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			n++
			continue
		}
		if c != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			return 0, false
		}
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j >= len(s) || s[j] != 'm' {
			return 0, false
		}
		i = j
	}
	return n, true
}
