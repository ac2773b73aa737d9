package main

import (
	"fmt"

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

// decodeCapture runs one capture through a new Dissector into rep and the
// --fail-on gate, with the progress line, and returns the Dissector (for
// its flows). Everything before a broken record reaches rep before the
// error is returned; opened is false when the capture could not be opened.
func decodeCapture(s *streams, name string, opt dissect.Options, rep report.Reporter, gate *severityGate) (d *dissect.Dissector, opened bool, err error) {
	r, err := openCapture(s, name, opt.Ports)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	d = dissect.New(opt)
	_, total := r.Progress()
	prog := newProgress(s, r.Name(), total)
	n := 0
	runErr := d.Run(r, func(dg *dissect.Datagram) error {
		n++
		if prog != nil {
			done, _ := r.Progress()
			prog.update(done, n)
		}
		gate.datagram(dg)
		return rep.Datagram(dg)
	})
	prog.done()
	end := d.Finish()
	gate.events(end)
	if err := rep.Finish(end); err != nil && runErr == nil {
		runErr = err
	}
	return d, true, runErr
}

func openCapture(s *streams, name string, ports []uint16) (*capture.Reader, error) {
	opt := capture.Options{Ports: ports}
	if name == "-" {
		return capture.NewReader(s.in, "stdin", opt)
	}
	return capture.Open(name, opt)
}
