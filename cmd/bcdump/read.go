package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report"
)

type readOptions struct {
	decodeFlags
	format string
	color  string
	cipher bool
}

func newReadCmd(s *streams) *cobra.Command {
	o := &readOptions{}
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode captures and print every datagram",
		Long: `Decode one or more captures and print every BC datagram on the game ports.

Formats: table (one line per datagram), json (JSON Lines, see README),
hex (field tree with offsets and an annotated hexdump; --cipher adds the
enciphered bytes).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runRead(s, o, args) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.format, "format", "F", "table", "output format: table, json or hex")
	o.decodeFlags.register(f)
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	return cmd
}

func newReporter(s *streams, format, colorMode string, withCipher, flushEach bool) (report.Reporter, error) {
	on, err := useColor(colorMode, s.out)
	if err != nil {
		return nil, err
	}
	pal := report.NewPalette(on)
	switch format {
	case "table", "":
		return report.NewTable(s.out, pal, flushEach), nil
	case "json":
		return report.NewJSON(s.out, flushEach), nil
	case "hex":
		return report.NewHex(s.out, pal, withCipher, flushEach), nil
	}
	return nil, fmt.Errorf("--format must be table, json or hex, not %q", format)
}

func runRead(s *streams, o *readOptions, files []string) error {
	opt, gate, err := o.resolve()
	if err != nil {
		return err
	}
	rep, err := newReporter(s, o.format, o.color, o.cipher, false)
	if err != nil {
		return err
	}
	for _, name := range files {
		if err := readOne(s, name, opt, rep, gate); err != nil {
			return err
		}
	}
	return gate.err()
}

// readOne decodes one capture. Everything before a broken record is
// reported before the error is returned.
func readOne(s *streams, name string, opt dissect.Options, rep report.Reporter, gate *severityGate) error {
	_, _, err := decodeCapture(s, name, opt, rep, gate)
	return err
}

// decodeCapture runs one capture through a Session into rep and the
// --fail-on gate, with the progress line, and returns the Session (for its
// flows). Everything before a broken record reaches rep before the error
// is returned; opened is false when the capture could not be opened.
func decodeCapture(s *streams, name string, opt dissect.Options, rep report.Reporter, gate *severityGate) (sess *dissect.Session, opened bool, err error) {
	r, err := openCapture(s, name, opt.Ports)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	var out sinks
	_, total := r.Progress()
	if p := newProgress(s, r.Name(), total); p != nil {
		out = append(out, &progressSink{p: p, r: r})
	}
	out = out.withGate(gate)
	out = append(out, rep)
	sess = dissect.NewSession(dissect.SessionOptions{Options: opt})
	return sess, true, sess.Run(context.Background(), r, out)
}

// sinks hands what a Session decodes to several sinks, in order. A
// datagram or event stops at the first error; Finish reaches every sink
// (each flushes) and returns the first error.
type sinks []dissect.Sink

// withGate adds the --fail-on gate, if there is one.
func (ss sinks) withGate(g *severityGate) sinks {
	if g == nil {
		return ss
	}
	return append(ss, g)
}

func (ss sinks) add(s dissect.Sink) sinks { return append(ss, s) }

func (ss sinks) Datagram(dg *dissect.Datagram) error {
	for _, s := range ss {
		if err := s.Datagram(dg); err != nil {
			return err
		}
	}
	return nil
}

func (ss sinks) Events(ev []dissect.Event) error {
	for _, s := range ss {
		if err := s.Events(ev); err != nil {
			return err
		}
	}
	return nil
}

func (ss sinks) Finish(end []dissect.Event) error {
	var first error
	for _, s := range ss {
		if err := s.Finish(end); first == nil {
			first = err
		}
	}
	return first
}

// Tick passes a live session's tick on to the sinks that want it.
func (ss sinks) Tick(now time.Time) error {
	for _, s := range ss {
		if t, ok := s.(dissect.Ticker); ok {
			if err := t.Tick(now); err != nil {
				return err
			}
		}
	}
	return nil
}

func openCapture(s *streams, name string, ports []uint16) (*capture.Reader, error) {
	opt := capture.Options{Ports: ports}
	if name == "-" {
		return capture.NewReader(s.in, "stdin", opt)
	}
	return capture.Open(name, opt)
}
