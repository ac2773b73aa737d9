package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/story"
)

type sessionOptions struct {
	decodeFlags
	filterFlag
	fitFlags
	format  string
	color   string
	timeFmt string
	verbose bool
}

func newSessionCmd(s *streams) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "session FILE...",
		Short: "Tell each game's story: server, players, their verdicts, timeline",
		Long: `Decode one or more captures and tell, per game server, what happened:
the server (its GameSpy status reply, the Settings and MissionInit it sent),
every player (peer id, name, address, when it joined, its checksum verdict,
when it entered the game, ship and team, when and how it left, kills, deaths
and score, RTT and retransmissions), each player's verdict (entered the
game, or never entered and why, with the frames that show it; bcdump help
verdicts lists the rules) and a timeline of joins, checksum outcomes, chat,
kills, ships, mission start and end, disconnects, every error-severity
anomaly and the warnings that bear on a verdict. Repeated findings of one
code for one player and message are one line with a count and their time
span; --verbose prints every line.

Times are seconds since the capture's first datagram; -t abs or epoch
prints them as dates or epoch seconds (the JSON has both forms).
With --manifest a failed checksum names the file that differs.
Several files are read in turn into one story per server.
With -Y the story is told from the matching datagrams and events only
(decoding and flow tracking still see every datagram); an expression on
the session.* fields (session.verdict, session.cause, session.name, ...)
lists only the matching players instead.
--fail-on join exits 1 when a player never entered the game.
Formats: table (text), json (one JSON document per server, one per line;
see bcdump help session; bcdump help verdicts lists the verdict rules).`,
		Example: `  bcdump session capture.pcap
  bcdump session -Y 'session.verdict == "never entered"' capture.pcap
  bcdump session --fail-on join -F json capture.pcap`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			if err := colorWithJSON(fl, o.format); err != nil {
				return err
			}
			if err := o.text(fl, o.format); err != nil {
				return err
			}
			return runSession(s, o, args, fl)
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "table", tableOrJSON, "output format: %s")
	o.fitFlags.register(f)
	o.decodeFlags.register(f)
	o.filterFlag.register(f, "tell the story of matching datagrams and events only; on session.* fields, list only the matching players")
	setChoices(f, "fail-on", sessionFailOn, "exit 1 when an anomaly at or above this severity occurred in the capture, whatever -Y shows, or (join) when a player never entered the game: %s")
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	enumVarP(f, &o.timeFmt, "time-format", "t", "rel", timeChoices("timeline: since the line before"), "times of the table format: %s")
	f.BoolVar(&o.verbose, "verbose", false, "every timeline line: repeated findings are not folded")
	return cmd
}

// sessionFailOn are the values of session --fail-on: the severities and join.
var sessionFailOn = append(severities[:len(severities):len(severities)], choice{name: "join"})

// sessionFilter compiles -Y against the datagram fields and the session.*
// fields: it returns the datagram filter or the player filter.
func (o *sessionOptions) sessionFilter() (datagrams, players *filter.Filter, err error) {
	if o.expr == "" {
		return nil, nil, nil
	}
	f, err := filter.Compile(o.expr, story.Schema{Schema: query.FieldSchema()})
	if err != nil {
		return nil, nil, err
	}
	switch on, mixed := story.OnSession(f); {
	case mixed:
		return nil, nil, fmt.Errorf("-Y: session.* fields test players, the others datagrams; one expression cannot mix them")
	case on:
		return nil, f, nil
	}
	return f, nil, nil
}

func runSession(s *streams, o *sessionOptions, files []string, fl *pflag.FlagSet) error {
	flt, players, err := o.sessionFilter()
	if err != nil {
		return err
	}
	if fl.Changed("time-format") && o.format == "json" {
		return fmt.Errorf("-t changes the times of the table format; -F json has time and t always")
	}
	tf, err := render.ParseTimeFormat(o.timeFmt)
	if err != nil {
		return err
	}
	on, err := useColor(o.color, s.out)
	if err != nil {
		return err
	}
	joinGate := strings.EqualFold(o.failOn, "join")
	if joinGate {
		o.failOn = ""
	}
	width, err := o.columns(fl, s.out)
	if err != nil {
		return err
	}
	an := story.New()
	an.SetOptions(story.Options{Verbose: o.verbose, Time: tf, Color: on})
	an.SetWidth(width)
	if players != nil {
		an.SetPlayerFilter(players)
	}
	return s.summarize(&o.decodeFlags, files, summary{
		start: func(dissect.Options, []input, bool) (dissect.Sink, error) { return selected(an, flt), nil },
		write: func() error {
			if o.format == "json" {
				return an.WriteJSON(s.out)
			}
			return an.WriteTable(s.out)
		},
		finding: func() error {
			if never := an.NeverEntered(); joinGate && len(never) > 0 {
				return &findingError{msg: fmt.Sprintf("--fail-on join: %d player(s) never entered the game (first: %s)", len(never), never[0])}
			}
			return nil
		},
	})
}
