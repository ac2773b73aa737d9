package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/profile"
	"github.com/bcdump/bcdump/report/quote"
)

// profileDiffFlags are diff's --profile mode: compare traffic profiles
// (captures or saved `profile --format json` documents) with tolerances.
type profileDiffFlags struct {
	on            bool
	tolerance     string
	baseline      string
	writeBaseline string
	dupWindow     string
}

func (o *profileDiffFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&o.on, "profile", false, "compare traffic profiles (see bcdump profile) instead of conversations")
	f.StringVar(&o.tolerance, "tolerance", "", "--profile: tolerances, kind=value,... (defaults "+profile.DefaultTolerances().String()+")")
	f.StringVar(&o.baseline, "baseline", "", "--profile: JSON file of accepted differences; only new drift fails")
	f.StringVar(&o.writeBaseline, "write-baseline", "", "--profile: write the differences outside tolerance to this file as a baseline")
	f.StringVar(&o.dupWindow, "dup-window", profile.DefaultDupWindow.String(), "--profile: duplicate window when profiling a capture")
}

// check rejects the --profile flags given without --profile.
func (o *profileDiffFlags) check(f *pflag.FlagSet) error {
	if o.on {
		return nil
	}
	for _, name := range []string{"tolerance", "baseline", "write-baseline", "dup-window"} {
		if f.Changed(name) {
			return fmt.Errorf("--%s compares traffic profiles: add --profile", name)
		}
	}
	return nil
}

// docKey is the version key a bcdump JSON document starts with
// ("bcdump_profile", "bcdump_profile_baseline"), or "" when br does not
// start with one. It only peeks.
func docKey(br *bufio.Reader) string {
	b, _ := br.Peek(256)
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return ""
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) == 0 || b[0] != '"' {
		return ""
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return ""
	}
	switch k := string(b[1 : 1+end]); k {
	case "bcdump_profile", "bcdump_profile_baseline":
		return k
	}
	return ""
}

// notProfileDoc is the error for a profile or baseline document given to
// diff without --profile.
func notProfileDoc(br *bufio.Reader, name string) error {
	switch docKey(br) {
	case "bcdump_profile":
		return fmt.Errorf("%s: this is a profile (bcdump profile --format json): use diff --profile", name)
	case "bcdump_profile_baseline":
		return fmt.Errorf("%s: this is a profile baseline: give it to diff --profile --baseline", name)
	}
	return nil
}

// profileDiffHelp is appended to diff's help.
const profileDiffHelp = `

With --profile, OLD and NEW are traffic profiles: captures, or documents
saved by "bcdump profile --format json", told apart by content. Rates,
per-flow counts of pre-game opcodes, sizes, bundling, ACK ratios, shares
and latencies are compared, each kind with its tolerance (--tolerance
kind=value,...; a value ending in % is relative to OLD, latency takes a
duration, share takes percentage points like 5pp). Defaults:
  rate=10%      opcode rate per second in game, per-flow count, StateUpdate Hz and interval
  latency=20ms  request/response p50/max, ACK delay p50/p95, retransmit interval
  size=10%      payload size p50, bytes per datagram
  bundling=20%  messages per datagram p50/p95/mean
  ratio=20%     ACKs per reliable message
  share=5pp     reliable, duplicate, retransmit, unanswered and flag-bit shares
--ignore drops metrics by key prefix (pair.gamespy_query, s2c.acks).
Every differing metric is printed with both values and the relative
change, then the opcode parity table (an opcode on one side only fails
too); exit status 1 when a metric is outside tolerance or an opcode on one
side only and --baseline (a file --write-baseline wrote) does not accept
it, with a last block "FAILED (exit 1)" naming each such row; 0 when none,
2 on trouble. --write-baseline FILE records all of them as accepted and
exits 0 once FILE is written (2 if it cannot be).
--tolerance, --baseline, --write-baseline and --dup-window need --profile.`

func runProfileDiff(s *streams, o *profileDiffFlags, format string, ignore []string, dopt dissect.Options, width int, oldName, newName string) error {
	ts, err := profile.ParseTolerances(o.tolerance)
	if err != nil {
		return fmt.Errorf("--tolerance: %w", err)
	}
	window, err := parseDupWindow(o.dupWindow)
	if err != nil {
		return err
	}
	rules := s.outputRules() // the two sides and --baseline (streams.reading)
	if o.writeBaseline != "" {
		if err := outfile.Check(o.writeBaseline, rules); err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
	}
	var base *profile.Baseline
	if o.baseline != "" {
		f, err := os.Open(o.baseline)
		if err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
		base, err = profile.ReadBaseline(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("--baseline %s: %w", o.baseline, err)
		}
	}
	popt := profile.Options{DupWindow: window}
	old, err := loadProfile(s, oldName, dopt, popt)
	if err != nil {
		return err
	}
	nw, err := loadProfile(s, newName, dopt, popt)
	if err != nil {
		return err
	}
	res := profile.Compare(sourceName(oldName), old, sourceName(newName), nw,
		profile.CompareOptions{Tolerances: ts, Baseline: base, Ignore: ignore})
	res.Recording = o.writeBaseline != ""
	if format == "json" {
		err = res.WriteJSON(s.out)
	} else {
		lf := newLineFitter(s.out, width, diffMarks)
		if err = res.WriteTextWidth(lf, width); err == nil {
			err = lf.Close()
		}
	}
	if err != nil {
		return err
	}
	if o.writeBaseline != "" {
		var buf bytes.Buffer
		if err := res.Baseline().WriteJSON(&buf); err != nil {
			return err
		}
		if err := outfile.WriteFile(o.writeBaseline, buf.Bytes(), rules); err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
		// The drift is now accepted: writing the baseline was the job.
		oneSided := res.Parity.Failed()
		fmt.Fprintf(s.err, "bcdump: wrote %s: %d %s and %d %s on one side only accepted\n", quote.Name(o.writeBaseline),
			res.Drift, plural(res.Drift, "difference", "differences"), oneSided, plural(oneSided, "opcode", "opcodes"))
		return nil
	}
	if !res.Passed() {
		return &findingError{}
	}
	return nil
}

// loadProfile reads one side: a saved profile document (its first
// non-space byte is '{') or a capture, which is profiled.
func loadProfile(s *streams, name string, dopt dissect.Options, popt profile.Options) (*profile.Doc, error) {
	var br *bufio.Reader
	if name == "-" {
		br = bufio.NewReader(s.in)
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		br = bufio.NewReader(f)
	}
	if isJSONDoc(br) {
		d, err := profile.ReadDoc(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sourceName(name), err)
		}
		return d, nil
	}
	p := profile.New(popt)
	in := *s
	in.in = br
	if name != "-" {
		in.in = nil // decodeCapture opens the file by name
	}
	if _, err := profileOne(&in, name, dopt, p, nil, nil); err != nil {
		return nil, err
	}
	return p.Doc(false), nil
}

// isJSONDoc peeks at the first non-space byte.
func isJSONDoc(br *bufio.Reader) bool {
	for n := 1; n <= 4096; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			if err != nil {
				return false
			}
			continue
		default:
			return c == '{'
		}
	}
	return false
}

// runProfileDiffCmd is `diff --profile`, with diff's shared flags.
func runProfileDiffCmd(s *streams, o *diffOptions, oldName, newName string, fl *pflag.FlagSet) error {
	if oldName == "-" && newName == "-" {
		return fmt.Errorf("diff: only one side can be read from stdin")
	}
	if err := s.reading(oldName, newName); err != nil {
		return err
	}
	if o.prof.baseline != "" {
		if err := s.reading(o.prof.baseline); err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
	}
	dopt, err := o.options(s)
	if err != nil {
		return err
	}
	if dopt.MaxFlowBytes, err = parseByteSize(o.memory); err != nil {
		return fmt.Errorf("--flow-memory %w", err)
	}
	width, err := o.columns(fl, s.out)
	if err != nil {
		return err
	}
	return runProfileDiff(s, &o.prof, o.format, o.ignore, dopt, width, oldName, newName)
}
