package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/diff"
	"github.com/bcdump/bcdump/report/filter"
)

type diffOptions struct {
	decodeFlags // --port, --manifest and --plain (diff has no --fail-on)
	filterFlag
	format      string
	context     int
	timing      string
	addresses   bool
	retransmits bool
	ignore      []string
	prof        profileDiffFlags // --profile mode (profile_diff.go)
	fitFlags
	// memory is diff's --flow-memory: the bound of the whole diff, shared
	// out in runDiff. It is not decodeFlags.flowMemory, which hands all of
	// it to the decoder's tracker; runDiff sets the same soft memory limit.
	memory string
}

func newDiffCmd(s *streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare the decoded conversations of two captures or saved JSON traces",
		Long: `Compare the decoded conversation of two captures (pcap, pcapng; gzip, xz, zstd) or
saved "bcdump read --format json" traces, told apart by content; "-" reads
one side from stdin.

Flows are matched by role and order of first appearance, not by address;
within each flow and direction the delivered messages (reassembled,
retransmissions and keepalive repeats folded, ACKs left out) are aligned and
compared by transport type, flags, opcode and decoded fields. Timestamps,
addresses, ports, absolute seq values (seq is compared relative to each
channel), retransmission counts and ACK batching do not count unless asked.

-Y compares only the datagrams a display filter selects, on both sides
alike (e.g. -Y 'messages.opcode_name == StateUpdate'); a datagram selected
is compared whole.

A capture is decoded as bcdump read decodes it: a decrypt -w copy is
recognised, --plain and -p (with "auto") apply to both sides, and the
names --manifest gives checksum hashes are labels, not compared.

Exit status: 0 equal, 1 different, 2 trouble.` + profileDiffHelp,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.prof.check(cmd.Flags()); err != nil {
				return err
			}
			if err := o.text(cmd.Flags(), o.format); err != nil {
				return err
			}
			if o.prof.on {
				return runProfileDiffCmd(s, o, args[0], args[1], cmd.Flags())
			}
			return runDiff(s, o, args[0], args[1], cmd.Flags())
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "text", textOrJSON, "output format: %s")
	o.filterFlag.register(f, "compare only matching datagrams, on both sides")
	f.IntVarP(&o.context, "unified", "U", 3, "messages of context around each difference")
	f.StringVar(&o.timing, "timing", "", "also compare message times since each flow's start, within this tolerance (e.g. 50ms)")
	f.BoolVar(&o.addresses, "addresses", false, "also compare flow endpoints and addresses inside Connect/PeerInfo/Disconnect")
	f.BoolVar(&o.retransmits, "retransmits", false, "also compare how often reliable messages were resent and whether they were ACKed")
	f.StringArrayVar(&o.ignore, "ignore", nil, "drop a key path from the comparison, e.g. fields.game_time (repeatable)")
	o.decodeFlags.registerInput(f)
	f.StringVar(&o.memory, "flow-memory", defaultFlowMemory, "memory bound of the whole diff: half for the flows tracked while decoding a capture, the rest for what the sides and the comparison keep before a temporary file (bcdump help memory)")
	o.prof.register(f)
	o.fitFlags.register(f)
	return cmd
}

func runDiff(s *streams, o *diffOptions, oldName, newName string, fl *pflag.FlagSet) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	if oldName == "-" && newName == "-" {
		return fmt.Errorf("diff: only one side can be read from stdin")
	}
	if err := s.reading(oldName, newName); err != nil {
		return err
	}
	if o.context < 0 {
		return fmt.Errorf("--unified must not be negative")
	}
	if err := diff.CheckIgnore(o.ignore); err != nil {
		return err
	}
	width, err := o.columns(fl, s.out)
	if err != nil {
		return err
	}
	opt := diff.Options{Context: o.context, Addresses: o.addresses, Retransmits: o.retransmits, Ignore: o.ignore}
	if o.timing != "" {
		tol, err := diff.ParseTolerance(o.timing)
		if err != nil {
			return fmt.Errorf("--timing: %w", err)
		}
		opt.Timing, opt.Tolerance = true, tol
	}
	dopt, err := o.options(s)
	if err != nil {
		return err
	}
	// One bound for the process (bcdump help memory), B = --flow-memory:
	// the decoder's flow tracker gets B/2 while a capture side is read;
	// each of the seven stores (message content, message records and
	// resend/ACK state of each side; the edits) keeps B/64 in memory, the
	// rest in a temporary file (the resend/ACK state is dropped instead,
	// 1 MiB at least); the alignment window is B/16384 messages (some 220
	// bytes each, both sides); each side keeps B/16 of flows (about 512
	// bytes a flow with its pair), the flows past that merged into one.
	// That is three quarters of B; the soft memory limit is B plus the
	// headroom the other commands get.
	bound, err := parseByteSize(o.memory)
	if err != nil {
		return fmt.Errorf("--flow-memory %w", err)
	}
	if limitMemory != nil {
		limitMemory(int64(bound) + memoryHeadroom)
	}
	dopt.MaxFlowBytes = max(bound/2, 1)
	opt.SpillBytes = max(bound/64, 1)
	opt.Window = min(max(bound/16384, 64), 1<<16)
	opt.MaxFlows = max(bound/16/512, 64)
	old, err := loadSide(s, oldName, dopt, flt, &opt)
	if err != nil {
		return err
	}
	defer old.Close()
	// A filter is not safe for concurrent use, nor needed: one at a time.
	nw, err := loadSide(s, newName, dopt, flt, &opt)
	if err != nil {
		return err
	}
	defer nw.Close()
	res := diff.Compare(old, nw, opt)
	defer res.Close()
	if o.format == "json" {
		err = res.WriteJSON(s.out)
	} else {
		lf := newLineFitter(s.out, width, diffMarks)
		if err = res.WriteText(lf); err == nil {
			err = lf.Close()
		}
	}
	if err != nil {
		return err
	}
	if !res.Equal() {
		return &findingError{}
	}
	return nil
}

// loadSide reads one side of a diff: a saved JSON trace, or a capture
// decoded as every command decodes one (dissect.Dissect: a decrypt -w copy
// is recognised, -p auto finds the ports).
func loadSide(s *streams, name string, opt dissect.Options, flt *filter.Filter, dopt *diff.Options) (*diff.Conversation, error) {
	path := name
	if name == "-" {
		// stdin is read twice: to tell a trace from a capture, then whole.
		local, cleanup, err := dissect.Spool(dissect.Input{Name: name, Stdin: s.in})
		if err != nil {
			return nil, err
		}
		defer cleanup()
		f, err := os.Open(local.Name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		s2 := *s
		s2.in, s, path = f, &s2, local.Name
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if err := notProfileDoc(br, sourceName(name)); err != nil {
		return nil, err
	}
	trace, err := diff.IsTrace(sourceName(name), br)
	if err != nil {
		return nil, err
	}
	if trace {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return diff.LoadTrace(sourceName(name), f, flt, dopt)
	}
	sink := diff.NewCaptureSink(sourceName(name), flt, dopt)
	if _, _, err := decodeCapture(s, name, opt, sink, nil); err != nil {
		sink.Conversation().Close()
		return nil, err
	}
	return sink.Conversation(), nil
}
