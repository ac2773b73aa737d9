package stats

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// WriteBrief writes one line per flow, like tshark -z conv,udp: the
// client (and server), peer id, player, duration, datagrams and bytes
// each way (c2s/s2c), RTT p50 and p95, retransmissions each way and the
// flow's anomalies by severity (error/warn/note). Several captures add a
// source column. "-" marks what is not known.
func (s *Stats) WriteBrief(w io.Writer) error {
	d := s.doc()
	multi := len(d.Sources) > 1
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if multi {
		fmt.Fprint(tw, "SOURCE\t")
	}
	fmt.Fprintln(tw, "FLOW\tCLIENT\tSERVER\tPEER\tPLAYER\tDURATION\tDGRAMS c2s/s2c\tBYTES c2s/s2c\tRTT p50\tRTT p95\tRETX c2s/s2c\tANOMALIES e/w/n")
	for i := range d.Flows {
		f := &d.Flows[i]
		if multi {
			fmt.Fprintf(tw, "%s\t", f.Source)
		}
		flow, client, server := strconv.FormatUint(uint64(f.Flow), 10), f.Client, f.Server
		if f.Other {
			flow, client, server = "+"+strconv.Itoa(f.FlowsIn), "(finished flows beyond the tracker's limit)", "-"
		}
		peer := "-"
		if f.PeerID != nil {
			peer = strconv.Itoa(int(*f.PeerID))
		}
		player := "-"
		if f.PlayerName != "" {
			player = strconv.QuoteToGraphic(f.PlayerName)
		}
		p50, p95 := "-", "-"
		if f.RTT.P50Ms != nil {
			p50, p95 = fmtMs(*f.RTT.P50Ms), fmtMs(*f.RTT.P95Ms)
		}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%s\t%s\t%d/%d\t%d/%d/%d\n",
			flow, client, server, peer, player, fmtMs(f.DurationMs),
			f.C2S.Datagrams, f.S2C.Datagrams, f.C2S.Bytes, f.S2C.Bytes, p50, p95,
			f.C2S.Retransmissions, f.S2C.Retransmissions, sev[0], sev[1], sev[2])
	}
	return tw.Flush()
}
