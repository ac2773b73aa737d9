package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
)

type readOptions struct {
	decodeFlags
	filterFlag
	format  string
	color   string
	cipher  bool
	count   int
	context int
	write   string
	output  string
	only    bool // --only-matching
	tshark  tsharkFlags
	widthFlags
	formatGiven bool // --format was given, not defaulted
}

func newReadCmd(s *streams) *cobra.Command {
	o := &readOptions{}
	cmd := &cobra.Command{
		Use:   "read FILE...",
		Short: "Decode captures and print every datagram",
		Long: `Decode one or more captures and print every BC datagram on the game ports.

A directory stands for every capture under it, in name order. With several
captures each file's records come under a "==> name <==" header (JSON: a
"file" key); one that cannot be read gets an error line and the others are
still read (exit 2 at the end). A pipe (tcpdump -U -w - | bcdump read -)
is shown as it arrives. -p auto finds BC traffic on other ports; --plain
decodes payloads deciphered already (decrypt -w copies are recognised).

Formats: table (one line per datagram), json (JSON Lines, see bcdump help json),
hex (field tree with offsets and an annotated hexdump; --cipher adds the
enciphered bytes).

As in tshark and tcpdump: -r FILE names a capture; -V prints the field
tree, -x the hexdump (both: -F hex); -T json is -F json, -T text the
table, and -T fields prints the -e fields of each datagram tab-separated
(several values of one field joined by commas). Other letters of theirs
get a one-line hint.

-Y shows only the records a display filter selects (bcdump fields lists the
fields; bcdump help filters). The filter applies after full decoding
and flow tracking, so retransmits, RTTs and anomalies are marked as without
it. When a table line is cut to the terminal, the messages -Y matched on
their own come first, marked *; --only-matching shows only them (and how
many others the datagram carries). -c ends the read after N records; the
end-of-capture summary is then left out. -C adds the N datagrams before and after each match in its flow,
marked as context ("-" after the frame number, "context": true in JSON).

-w FILE writes the frames of the datagrams shown, byte for byte with their
original timestamps and link type, as pcapng ("-" for stdout): each frame
bcdump has findings for carries them as packet comments, and the section
header names the source and the filter. Without -Y it is an annotated copy
of every datagram's frame. Nothing goes to stdout with -w unless --format is
given.`,
		Example: `  bcdump read -Y 'messages.opcode_name == ChecksumResp' session.pcap
  bcdump read -Y 'anomalies.severity == error' -F json session.pcap
  bcdump read -Y 'messages.retransmit and frame > 1000' -c 20 session.pcap
  bcdump read -Y 'messages.fields.text contains "gg"' -C 2 session.pcap
  bcdump read -Y 'anomalies' -w findings.pcapng session.pcap
  bcdump read -r session.pcap -T fields -e frame -e messages.opcode_name`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(o.tshark.files) == 0 {
				return fmt.Errorf("requires at least 1 arg(s), only received 0")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			format, err := o.tshark.resolve(o.format, fl.Changed("format"))
			if err != nil {
				return err
			}
			o.format = format
			if err := colorWithJSON(fl, o.format); err != nil {
				return err
			}
			args = append(o.tshark.files[:len(o.tshark.files):len(o.tshark.files)], args...)
			o.formatGiven = fl.Changed("format") || format != "table"
			o.widthFlags.recordGiven(fl)
			return runRead(s, o, args)
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "table", readFormats, "output format: %s")
	f.StringVarP(&o.output, "output", "o", "", "-F parquet: the Parquet file to write, or DIR/ for one file per capture (bcdump help parquet)")
	o.filterFlag.register(f, "show only matching records")
	f.IntVarP(&o.count, "count", "c", 0, "stop after N records are shown (0: no limit)")
	f.IntVarP(&o.context, "context", "C", 0, "also show N datagrams before and after each match in its flow")
	f.BoolVar(&o.only, "only-matching", false, "table: show only the messages -Y matched on their own, and how many others a datagram carries (like grep -o)")
	f.StringVarP(&o.write, "write", "w", "", `write the frames shown to this pcapng file with bcdump's findings as comments ("-": stdout)`)
	o.decodeFlags.register(f)
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	f.BoolVar(&o.cipher, "cipher", false, "hex format: also dump the enciphered bytes")
	o.widthFlags.register(f)
	o.tshark.register(f)
	return cmd
}

func newReporter(s *streams, format, colorMode string, withCipher, flushEach bool) (render.Reporter, error) {
	on, err := useColor(colorMode, s.out)
	if err != nil {
		return nil, err
	}
	pal := render.NewPalette(on)
	if withCipher && format != "hex" {
		return nil, fmt.Errorf("--cipher adds the enciphered bytes to the hex dump; it does nothing with --format %s (use -F hex)", format)
	}
	switch format {
	case "json":
		return render.NewJSON(s.out, flushEach), nil
	case "hex":
		return render.NewHex(s.out, pal, withCipher, flushEach), nil
	}
	return render.NewTable(s.out, pal, flushEach), nil // --format's values are checked as it is parsed
}

func runRead(s *streams, o *readOptions, files []string) error {
	formatGiven := o.formatGiven
	flt, err := o.compile()
	if err != nil {
		return err
	}
	if o.count < 0 || o.context < 0 {
		return fmt.Errorf("-c and -C cannot be negative")
	}
	if o.write == "-" && formatGiven {
		return fmt.Errorf("-w - writes the capture to stdout; --format has nowhere to go")
	}
	opt, gate, err := o.resolve(s)
	if err != nil {
		return err
	}
	ins, many, err := expandInputs(s, files)
	if err != nil {
		return err
	}
	var rep render.Reporter = dissect.SinkFuncs{} // -w without --format: nothing on stdout
	printing := o.write == "" || formatGiven
	pq, err := startParquet(s, o.format, o.output, inputNames(ins))
	if err != nil {
		return err
	}
	defer pq.abort()
	if pq != nil {
		rep = pq
		opt.MaxFlowBytes = parquetFlowBytes(opt.MaxFlowBytes)
	} else if printing {
		if o.format == "fields" {
			rep, err = newFieldsWriter(s.out, o.tshark.fields, streaming(s, ins))
		} else {
			rep, err = newReporter(s, o.format, o.color, o.cipher, streaming(s, ins))
		}
		if err != nil {
			return err
		}
		if h, ok := rep.(*render.Hex); ok && o.tshark.verbose != o.tshark.hex {
			h.SetParts(o.tshark.verbose, o.tshark.hex) // -V alone, -x alone
		}
		if err := o.widthFlags.shape(rep, o.format, s.out); err != nil {
			return err
		}
		if o.only {
			t, ok := rep.(*render.Table)
			if !ok {
				return fmt.Errorf("--only-matching shapes the table's lines; -F %s shows every message", o.format)
			}
			if flt == nil {
				return fmt.Errorf("--only-matching shows the messages -Y matched; give -Y")
			}
			t.SetOnlyMatching(true)
		}
	} else if o.widthFlags.anyGiven() {
		return fmt.Errorf("-t, --wide and --width shape the printed output; with -w and no --format nothing is printed")
	}
	// -w copies one capture: a folder holding exactly one is that capture.
	if o.write != "" && len(ins) > 1 {
		return fmt.Errorf("-w takes one capture, not %d", len(ins))
	}
	if o.write != "" && len(ins) == 0 {
		return fmt.Errorf("-w takes one capture; %s holds none", strings.Join(files, ", "))
	}
	if o.write != "" && o.write != "-" {
		if err := outfile.Check(o.write, s.outputRules(inputNames(ins)...)); err != nil {
			return fmt.Errorf("-w: %w", err)
		}
	}
	marker, _ := rep.(render.FileMarker)
	run := &inputRun{s: s, many: many}
	shown := 0
	err = run.each(ins, func(in input) (bool, error) {
		if (many || pq != nil) && marker != nil {
			if err := marker.StartFile(sourceName(in.name)); err != nil {
				return true, err
			}
		}
		sel := readSelection{filter: flt, context: o.context, write: o.write}
		if many {
			sel.file = sourceName(in.name)
		}
		if o.count > 0 {
			sel.limit = o.count - shown
		}
		n, capped, err := readOne(s, in.name, opt, rep, gate, sel)
		shown += n
		run.done = capped // -c reached: the rest is not read
		return !isInputError(err) || n > 0, err
	})
	if err == nil {
		err = pq.commit()
	}
	if err != nil {
		return err
	}
	if err := run.err(); err != nil {
		return err
	}
	return gate.err()
}

// readSelection is what read shows of a capture: -Y, -c (what is left of
// it), -C and -w.
type readSelection struct {
	filter  *filter.Filter
	limit   int
	context int
	write   string
	file    string // the capture's name when the run reads several
}

// readOne decodes one capture and shows what sel selects. Everything
// before a broken record is reported before the error is returned. It
// returns the records shown and whether the limit ended the read.
func readOne(s *streams, name string, opt dissect.Options, rep render.Reporter, gate *severityGate, sel readSelection) (shown int, capped bool, err error) {
	source := sourceName(name)
	if sel.context > 0 || sel.write != "" {
		// Both read the capture twice; stdin is kept in a file for that.
		local, cleanup, err := dissect.Spool(dissect.Input{Name: name, Stdin: s.in})
		if err != nil {
			return 0, false, err
		}
		defer cleanup()
		name = local.Name
	}
	so := query.SelectOptions{Filter: sel.filter, Limit: sel.limit, File: sel.file}
	if sel.context > 0 {
		p := query.NewPlanner(sel.filter, sel.context, sel.limit, sel.file)
		if _, _, err := decodeCapture(s, name, opt, p, nil); err != nil {
			return 0, false, err
		}
		so.Plan = p.Plan()
	}
	// A pipe is shown as it arrives, unless read twice.
	how := decodeHow{follow: sel.context == 0 && sel.write == ""}
	var ann *annotations
	if sel.write != "" {
		ann = newAnnotations()
		so.OnShow = ann.shown
		how.observers = append(how.observers, ann)
	}
	sl := query.NewSelect(rep, so)
	_, _, err = decodeCaptureHow(s, name, opt, sl, gate, how)
	if err == nil && ann != nil {
		err = writeAnnotated(s, name, source, sel.write, sel.filter, opt.Ports, ann)
	}
	return sl.Shown(), sl.Capped(), err
}

// decodeCapture runs one capture through dissect.Dissect into rep and the
// --fail-on gate, with the progress line, and returns the Session (for its
// flows). Everything before a broken record reaches rep before the error
// is returned; opened is false when the capture could not be opened.
func decodeCapture(s *streams, name string, opt dissect.Options, rep dissect.Sink, gate *severityGate) (sess *dissect.Session, opened bool, err error) {
	return decodeCaptureHow(s, name, opt, rep, gate, decodeHow{})
}

// decodeHow says how a capture is decoded besides its options.
type decodeHow struct {
	// follow: a pipe is followed like a live capture (serial, events as
	// found, ticks on a quiet pipe).
	follow bool
	// observers see every datagram and event after the gate, before rep.
	observers []dissect.Sink
}

// decodeCaptureHow is decodeCapture with how.
func decodeCaptureHow(s *streams, name string, opt dissect.Options, rep dissect.Sink, gate *severityGate, how decodeHow) (sess *dissect.Session, opened bool, err error) {
	ro := dissect.RunOptions{
		Options:    opt,
		Mode:       s.mode,
		Workers:    s.workers,
		Follow:     how.follow,
		Progress:   s.progress,
		PortsFound: s.portsFound,
		Opened:     func(src dissect.Source) { sayLacks(s, src) },
	}
	if gate != nil {
		ro.Observers = append(ro.Observers, gate)
	}
	ro.Observers = append(ro.Observers, how.observers...)
	res, err := dissect.Dissect(context.Background(), dissect.Input{Name: name, Stdin: s.in}, ro, rep)
	if err != nil {
		if !res.Opened {
			return nil, false, &inputError{err}
		}
		return res.Session, true, asInputError(err, true)
	}
	if res.Unmatched != nil {
		s.unmatched(name, res.Unmatched, res.Ports)
	}
	return res.Session, true, nil
}
