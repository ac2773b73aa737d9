package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report"
)

type readOptions struct {
	format string
	ports  []uint
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
	f.UintSliceVarP(&o.ports, "port", "p", nil, "additional game port (repeatable); 22101 is always included")
	f.StringVar(&o.color, "color", "auto", "colour: auto, always or never")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	return cmd
}

func (o *readOptions) gamePorts() ([]uint16, error) {
	ports := []uint16{dissect.DefaultPort}
	for _, p := range o.ports {
		if p == 0 || p > 65535 {
			return nil, fmt.Errorf("--port %d is not a UDP port", p)
		}
		ports = append(ports, uint16(p))
	}
	return ports, nil
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
	ports, err := o.gamePorts()
	if err != nil {
		return err
	}
	rep, err := newReporter(s, o.format, o.color, o.cipher, false)
	if err != nil {
		return err
	}
	for _, name := range files {
		if err := readOne(s, name, ports, rep); err != nil {
			return err
		}
	}
	return nil
}

// readOne decodes one capture. Everything before a broken record is
// reported before the error is returned.
func readOne(s *streams, name string, ports []uint16, rep report.Reporter) error {
	r, err := openCapture(s, name, ports)
	if err != nil {
		return err
	}
	defer r.Close()
	d := dissect.New(dissect.Options{Ports: ports})
	runErr := d.Run(r, rep.Datagram)
	if err := rep.Finish(d.Finish()); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func openCapture(s *streams, name string, ports []uint16) (*capture.Reader, error) {
	opt := capture.Options{Ports: ports}
	if name == "-" {
		return capture.NewReader(s.in, "stdin", opt)
	}
	return capture.Open(name, opt)
}
