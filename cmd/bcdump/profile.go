package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/profile"
	"github.com/bcdump/bcdump/report/render"
)

type profileOptions struct {
	decodeFlags
	filterFlag
	format    string
	perFlow   bool
	dupWindow string
	color     string
	timeFmt   string
	fitFlags
}

func newProfileCmd(s *streams) *cobra.Command {
	o := &profileOptions{}
	cmd := &cobra.Command{
		Use:   "profile FILE...",
		Short: "Measure traffic behaviour: rates, bundling, ACKs, latencies, cadence",
		Long: `Decode one or more captures and measure how the peers behave, per
direction (c2s, s2c): for each opcode the count, the rate per second over
the time the flows were in game (from NewPlayerInGame or the first
StateUpdate to the flow's last datagram), bytes, payload size p50/max,
the reliable share and duplicates (identical payloads sent again as new
messages, not transport retransmissions); the datagram shape (messages per
datagram, bytes per datagram); ACKs per reliable message; the RTT of the
reliable messages each way (as stats prints it per flow, bcdump help
flows);
the retransmit ratio and interval; the latency of each request/response
pair (Connect, PeerInfo, checksum rounds, ChecksumComplete,
NewPlayerInGame -> MissionInit, object requests, GameSpy queries);
StateUpdate cadence per object and its flag families.

Several files are added up. --per-flow adds the same per flow.
With -Y only matching datagrams and events are measured (decoding and flow
tracking still see every datagram).
Formats: table, json (a document "bcdump diff --profile" reads back).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			if err := colorWithJSON(fl, o.format); err != nil {
				return err
			}
			if err := o.text(fl, o.format); err != nil {
				return err
			}
			if fl.Changed("time-format") && o.format == "json" {
				return fmt.Errorf("-t changes the times of the table format; -F json has first and last always")
			}
			return runProfile(s, o, args, fl)
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "table", tableOrJSON, "output format: %s")
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	enumVarP(f, &o.timeFmt, "time-format", "t", "rel", timeChoices("as rel"), "times of the table format: %s")
	f.BoolVar(&o.perFlow, "per-flow", false, "also profile each flow")
	f.StringVar(&o.dupWindow, "dup-window", profile.DefaultDupWindow.String(), "largest gap between identical payloads that counts as a duplicate")
	o.decodeFlags.register(f)
	o.filterFlag.register(f, "measure matching datagrams and events only")
	o.fitFlags.register(f)
	return cmd
}

func runProfile(s *streams, o *profileOptions, files []string, fl *pflag.FlagSet) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	popt, err := o.profilerOptions()
	if err != nil {
		return err
	}
	tf, err := render.ParseTimeFormat(o.timeFmt)
	if err != nil {
		return err
	}
	on, err := useColor(o.color, s.out)
	if err != nil {
		return err
	}
	width, err := o.columns(fl, s.out)
	if err != nil {
		return err
	}
	p := profile.New(popt)
	return s.summarize(&o.decodeFlags, files, summary{
		start: func(dissect.Options, []input, bool) (dissect.Sink, error) { return nil, nil },
		one: func(in input, opt dissect.Options, gate *severityGate) (bool, error) {
			return profileOne(s, in.name, opt, p, flt, gate)
		},
		write: func() error {
			doc := p.Doc(o.perFlow)
			if o.format == "json" {
				return doc.WriteJSON(s.out)
			}
			lf := newLineFitter(s.out, width, tableMarks)
			if err := doc.WriteTableOpts(lf, profile.TableOptions{Time: tf, Color: on, Width: width}); err != nil {
				return err
			}
			return lf.Close()
		},
	})
}

func (o *profileOptions) profilerOptions() (profile.Options, error) {
	w, err := parseDupWindow(o.dupWindow)
	return profile.Options{DupWindow: w}, err
}
