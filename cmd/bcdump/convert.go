package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

type convertOptions struct {
	out   string
	trace traceFlags
	ports []string
}

func newConvertCmd(s *streams) *cobra.Command {
	o := &convertOptions{}
	cmd := &cobra.Command{
		Use:   "convert IN -w OUT.pcapng",
		Short: "Turn a packet_trace.log or OBCTRACE into a pcapng capture",
		Long: `Write the datagrams of a packet_trace.log (the stock server's trace DLL) or an
OBCTRACE (OpenBC's harness) as a pcapng capture that Wireshark and every bcdump
command read as an ordinary capture: game payloads enciphered again as on the
wire, synthetic IPv4/UDP headers between the logged peer and --trace-server,
and a packet comment per frame carrying the log's SEQ, rc and tags. A capture
given as IN is copied as it is. See "bcdump help traces".`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConvert(s, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "write", "w", "", `the pcapng file to write ("-" is stdout)`)
	f.StringSliceVarP(&o.ports, "port", "p", nil, `additional game port (repeatable); 22101 is always included`)
	o.trace.register(f)
	cmd.MarkFlagRequired("write")
	return cmd
}

func runConvert(s *streams, o *convertOptions, in string) error {
	if err := s.reading(in); err != nil {
		return err
	}
	df := decodeFlags{ports: o.ports, trace: o.trace}
	opt, err := df.options(s)
	if err != nil {
		return err
	}
	if opt.AutoPorts {
		return errors.New("convert: -p auto is not supported; name the ports")
	}
	if o.out != "-" {
		if err := outfile.Check(o.out, s.outputRules(in)); err != nil {
			return fmt.Errorf("-w: %w", err)
		}
	}
	r, err := openCaptureWith(s, in, capture.Options{Ports: opt.Ports, Trace: opt.Trace})
	if err != nil {
		return &inputError{err}
	}
	defer r.Close()
	sayLacks(s, r)
	return writeWhole(s, o.out, in, func(w io.Writer) error { return convertFrames(w, r) })
}

// convertFrames writes every datagram of r as a pcapng frame, the game
// payloads enciphered, with the trace's comment on each.
func convertFrames(w io.Writer, r *capture.Reader) error {
	shb := "bcdump convert of " + r.Name() + " (" + r.Format() + ")"
	if !r.IsTrace() && r.Plaintext() {
		shb = plainCopySHB(shb)
	}
	var comments [1]string
	return writeFrames(w, r, shb, func(p *capture.Packet) (bool, []string) {
		if r.IsTrace() && !dissect.IsGameSpy(p.Payload) {
			cipher.Encrypt(p.Payload) // in place: Data holds Payload
		}
		if p.Comment == "" {
			return true, nil
		}
		comments[0] = p.Comment
		return true, comments[:]
	})
}

// writeWhole writes an output file whole or not at all, under the rules
// of package outfile (never over the input in); "-" is stdout.
func writeWhole(s *streams, out, in string, write func(io.Writer) error) error {
	var dst io.Writer = s.out
	var f *outfile.File
	if out != "-" {
		var err error
		if f, err = outfile.Create(out, s.outputRules(in)); err != nil {
			return fmt.Errorf("-w: %w", err)
		}
		defer f.Abort() // no output unless every frame was written
		dst = f
	}
	bw := bufio.NewWriterSize(dst, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("-w %s: %w", out, err)
	}
	if f != nil {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("-w %s: %w", out, err)
		}
	}
	return nil
}
