package stats

import (
	"fmt"
	"io"
	"strconv"

	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/report/quote"
)

// WriteBrief writes one line per flow, like tshark -z conv,udp: the
// client (and server), peer id, player, duration, datagrams and bytes
// each way (c2s/s2c), RTT p50 and p95 each way (of the acknowledged
// messages: transport.RTT), retransmissions each way and the
// flow's anomalies by severity (error/warn/note). Several captures add a
// source column. "-" marks what is not known.
func (s *Stats) WriteBrief(w io.Writer) error { return s.WriteBriefWidth(w, 0) }

// WriteBriefWidth is WriteBrief fitted to width columns (package fit; 0:
// no limit): on a narrow terminal the byte counts, retransmissions, RTT
// and server go first.
func (s *Stats) WriteBriefWidth(w io.Writer, width int) error {
	d := s.doc()
	multi := len(d.Sources) > 1
	cols := []fit.Column{{Head: "FLOW"}, {Head: "CLIENT"}, {Head: "SERVER", Drop: 4}, {Head: "PEER", Drop: 5},
		{Head: "PLAYER"}, {Head: "DURATION", Drop: 3}, {Head: "DGRAMS c2s/s2c"}, {Head: "BYTES c2s/s2c", Drop: 8},
		{Head: "RTT p50 c2s/s2c", Drop: 2}, {Head: "RTT p95 c2s/s2c", Drop: 6}, {Head: "RETX c2s/s2c", Drop: 7}, {Head: "ANOMALIES e/w/n"}}
	if multi {
		cols = append([]fit.Column{{Head: "SOURCE", Drop: 1}}, cols...)
	}
	tw := &fit.Table{Cols: cols}
	err := tw.Stream(w, width, func(emit func(cells ...string)) error {
		return s.eachFlow(func(sf *statsFlow) error {
			f := flowDocOf(sf)
			emit(briefRow(&f, multi)...)
			return nil
		})
	})
	if err != nil || d.Summed == nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Summed: %s\n", d.Summed.text())
	return err
}

// briefRow is one flow's cells in the brief listing.
func briefRow(f *flowDoc, multi bool) []string {
	var row []string
	if multi {
		row = append(row, quote.Name(f.Source))
	}
	flow, client, server := strconv.FormatUint(uint64(f.Flow), 10), f.Client, f.Server
	switch {
	case f.SummedFor != "":
		flow, client, server = "+"+strconv.Itoa(f.FlowsIn), "(flows summed at the memory bound)", "-"
	case f.Other:
		flow, client, server = "+"+strconv.Itoa(f.FlowsIn), "(finished flows beyond the tracker's limit)", "-"
	}
	peer := "-"
	if f.PeerID != nil {
		peer = strconv.Itoa(int(*f.PeerID))
	}
	player := "-"
	if f.PlayerName != "" {
		player = quote.String(f.PlayerName)
	}
	rtt := func(r *RTTDoc, p95 bool) string {
		switch {
		case r.P50Ms == nil:
			return "-"
		case p95:
			return fmtMs(*r.P95Ms)
		}
		return fmtMs(*r.P50Ms)
	}
	p50 := rtt(&f.RTT.C2S, false) + "/" + rtt(&f.RTT.S2C, false)
	p95 := rtt(&f.RTT.C2S, true) + "/" + rtt(&f.RTT.S2C, true)
	var sev [3]uint64 // error, warn, note
	for _, a := range f.Anomalies {
		switch a.Severity {
		case "error":
			sev[0] += a.Count
		case "warn":
			sev[1] += a.Count
		default:
			sev[2] += a.Count
		}
	}
	pair := func(a, b any) string { return fmt.Sprintf("%d/%d", a, b) }
	return append(row, flow, client, server, peer, player, fmtMs(f.DurationMs),
		pair(f.C2S.Datagrams, f.S2C.Datagrams), pair(f.C2S.Bytes, f.S2C.Bytes), p50, p95,
		pair(f.C2S.Retransmissions, f.S2C.Retransmissions), fmt.Sprintf("%d/%d/%d", sev[0], sev[1], sev[2]))
}
