package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/report/story"
)

type sessionOptions struct {
	decodeFlags
	filterFlag
	format string
}

func newSessionCmd(s *streams) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "session FILE...",
		Short: "Tell each game's story: server, players, checksum verdicts, timeline",
		Long: `Decode one or more captures and tell, per game server, what happened:
the server (its GameSpy status reply, the Settings and MissionInit it sent),
every player (peer id, name, address, when it joined, its checksum verdict,
when it entered the game, ship and team, when and how it left, kills, deaths
and score, RTT and retransmissions) and a timeline of joins, checksum
outcomes, chat, kills, ships, mission start and end, disconnects and every
error-severity anomaly.

With --manifest a failed checksum names the file that differs.
Several files are read in turn into one story per server.
With -Y the story is told from the matching datagrams and events only
(decoding and flow tracking still see every datagram).
Formats: table (text), json (one JSON document per server, one per line;
see bcdump help session).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSession(s, o, args) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "format", "F", "table", "output format: table or json")
	o.decodeFlags.register(f)
	o.filterFlag.register(f, "tell the story of matching datagrams and events only")
	return cmd
}

func runSession(s *streams, o *sessionOptions, files []string) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	if o.format != "table" && o.format != "json" {
		return fmt.Errorf("--format must be table or json, not %q", o.format)
	}
	opt, gate, err := o.resolve()
	if err != nil {
		return err
	}
	an := story.New()
	ins, many := expandInputs(files)
	run := &inputRun{s: s, many: many}
	err = run.each(ins, func(in input) (bool, error) {
		_, opened, err := decodeCapture(s, in.name, opt, selected(an, flt), gate)
		return opened, err
	})
	if err != nil {
		return err
	}
	if run.opened == 0 {
		return run.err() // nothing to tell
	}
	if o.format == "json" {
		err = an.WriteJSON(s.out)
	} else {
		err = an.WriteTable(s.out)
	}
	if err != nil {
		return err
	}
	if err := run.err(); err != nil {
		return err
	}
	return gate.err()
}
