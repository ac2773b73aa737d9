package main

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
	"github.com/bcdump/bcdump/transport"
)

type statsOptions struct {
	decodeFlags
	filterFlag
	format string
	color  string
	brief  bool
	fitFlags
}

func newStatsCmd(s *streams) *cobra.Command {
	o := &statsOptions{}
	cmd := &cobra.Command{
		Use:   "stats FILE...",
		Short: "Summarize captures per flow: traffic, reliability, RTT, opcodes, anomalies",
		Long: `Decode one or more captures and summarize them: per flow (client endpoint
talking to a game server) the peer id and player name, first and last time,
datagrams and bytes each way, reliable messages, retransmissions, fragments
and reassembled messages, RTT percentiles and anomalies by code; then the
game opcodes counted per direction (a retransmitted copy counts once, a
fragmented message once when reassembled) and the anomaly totals.

Several files are added up; each flow names the file it came from. A
directory stands for every capture under it, in name order. A capture that
cannot be read is reported and listed under "Skipped" (or "Cut off", counted
up to the damage), the others are summarized, and the exit status is 2.
Formats: table (text tables), json (one JSON document, see bcdump help stats).
--brief prints one line per flow instead, like tshark -z conv,udp.

-Y counts only the datagrams and events a display filter selects, and lists
only the flows those datagrams belong to (their per-flow figures are the
whole flow's); the header names the filter.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := colorWithJSON(cmd.Flags(), o.format); err != nil {
				return err
			}
			if err := o.text(cmd.Flags(), o.format); err != nil {
				return err
			}
			return runStats(s, o, args, cmd.Flags())
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "table", tableOrJSON, "output format: %s")
	o.filterFlag.register(f, "count only matching datagrams and events, and their flows")
	o.decodeFlags.register(f)
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	o.fitFlags.register(f)
	f.BoolVarP(&o.brief, "brief", "b", false, "one line per flow (like tshark -z conv,udp): client, server, peer, player, duration, datagrams, bytes, RTT p50/p95, retransmissions, anomalies by severity")
	return cmd
}

func runStats(s *streams, o *statsOptions, files []string, fl *pflag.FlagSet) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	if o.brief && o.format == "json" {
		return fmt.Errorf("--brief is a one-line-per-flow table; -F json has every flow's figures in \"flows\"")
	}
	on, err := useColor(o.color, s.out)
	if err != nil {
		return err
	}
	st := stats.NewStats()
	if flt != nil {
		st.SetFilter(flt.String())
	}
	var ins []input
	var many bool
	var bound int
	return s.summarize(&o.decodeFlags, files, summary{
		start: func(opt dissect.Options, i []input, m bool) (dissect.Sink, error) {
			ins, many = i, m
			// One bound for the process: the flow records kept across
			// captures take at most half of --flow-memory, and each
			// capture's tracker gets what they leave (statsOne).
			bound = opt.MaxFlowBytes
			if bound <= 0 {
				bound = transport.DefaultMaxFlowBytes
			}
			st.SetRecordBudget(bound / 2)
			return st, nil
		},
		one: func(in input, opt dissect.Options, gate *severityGate) (bool, error) {
			opt.MaxFlowBytes = bound - st.RecordBytes()
			opened, err := statsOne(s, in.name, opt, st, gate, flt)
			if many && err != nil && isInputError(err) {
				st.AddSkipped(sourceName(in.name), err.Error(), opened)
			}
			return opened, err
		},
		write: func() error {
			for _, in := range ins {
				if many && in.err != nil {
					st.AddSkipped(in.name, in.err.Error(), false)
				}
			}
			if o.format == "json" {
				return st.WriteJSON(s.out)
			}
			width, err := o.columns(fl, s.out)
			if err != nil {
				return err
			}
			if o.brief {
				return st.WriteBriefWidth(s.out, width)
			}
			lf := newLineFitter(s.out, width, tableMarks)
			if err := st.WriteTable(lf, render.NewPalette(on)); err != nil {
				return err
			}
			return lf.Close()
		},
	})
}

// statsOne adds one capture to st. A capture that breaks off (cut short
// while recording) is summarized up to the break, like tshark does, and its
// error returned: the caller prints the summary, then fails. A file that
// cannot be opened (opened false) stops the command without a summary.
//
// With a filter, st counts only the records it selects, and only the flows
// of the datagrams it selects are added; events left unlisted past the
// Dissector's limit cannot be tested and are not counted.
func statsOne(s *streams, name string, opt dissect.Options, st *stats.Stats, gate *severityGate, flt *filter.Filter) (opened bool, err error) {
	var sink render.Reporter = st
	matched := map[[2]netip.AddrPort]bool{} // client, server
	if flt != nil {
		sink = query.NewSelect(st, query.SelectOptions{Filter: flt, OnShow: func(d *dissect.Datagram, _ bool) {
			matched[query.ClientServer(d)] = true
		}})
	}
	sess, opened, err := decodeCapture(s, name, opt, sink, gate)
	if !opened {
		return false, err
	}
	source := sourceName(name)
	flows := sess.Flows()
	if flt != nil {
		flows = slices.DeleteFunc(flows, func(f transport.FlowStats) bool {
			return !matched[[2]netip.AddrPort{f.Client, f.Server}]
		})
	} else {
		st.AddUnlisted(sess.Unlisted())
	}
	st.AddFlows(source, flows)
	return true, err
}
