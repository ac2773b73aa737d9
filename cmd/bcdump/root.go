package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/fatih/color"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/quote"
)

// Exit statuses, like diff(1): 0 fine, 1 a finding the caller asked to fail
// on, 2 trouble (bad input, bad usage).
const (
	exitOK      = 0
	exitFinding = 1
	exitTrouble = 2
)

// findingError reports a condition the user asked bcdump to fail on; it
// exits 1 instead of 2.
type findingError struct{ msg string }

func (e *findingError) Error() string { return e.msg }

// streams are the command's standard files; tests swap them for buffers.
type streams struct {
	in       io.Reader
	out, err io.Writer
	said     map[string]bool // notes already printed (noteOnce)
	// mode and workers say how every capture is decoded
	// (dissect.RunOptions): Auto and 0 pick for the input and the machine.
	mode    dissect.Mode
	workers int
	// inputs are the files the run reads (reading): no output may be one.
	inputs []string
}

// noteOnce prints a note on stderr unless this run printed it already (a
// capture read twice, as read -C does, would say it twice).
func (s *streams) noteOnce(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if s.said[msg] {
		return
	}
	if s.said == nil {
		s.said = map[string]bool{}
	}
	s.said[msg] = true
	fmt.Fprintln(s.err, quote.Escape(msg))
}

func run(args []string, in io.Reader, out, errw io.Writer) int {
	return runWith(&streams{in: in, out: out, err: errw}, args)
}

// runWith runs the command line on s; run's exit status.
func runWith(s *streams, args []string) int {
	in, out, errw := s.in, s.out, s.err
	root := newRoot(s)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errw)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var fe *findingError
	if errors.As(err, &fe) {
		if fe.msg != "" {
			fmt.Fprintln(errw, "bcdump:", quote.Escape(fe.msg))
		}
		return exitFinding
	}
	fmt.Fprintln(errw, "bcdump:", errorText(err))
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(errw, "usage:", ue.usage)
	}
	return exitTrouble
}

// errorText is err's message as printed: every rune package quote does not
// show as is escaped, so that a file name in it can neither drive the
// terminal nor forge a line; a filter error keeps the caret line under
// the expression.
func errorText(err error) string {
	var fe *filter.Error
	var pe *faultError
	if errors.As(err, &fe) || errors.As(err, &pe) {
		return quote.EscapeLines(err.Error())
	}
	if msg := err.Error(); strings.HasPrefix(msg, "unknown command ") {
		return cobraLines(msg)
	}
	return quote.Escape(err.Error())
}

// cobraLines is cobra's "unknown command" message as cobra lays it out
// ("Did you mean this?" and the names on lines of their own, indented by
// a tab): the command typed is quoted in it by cobra (%q), the rest is
// cobra's and the command names; a line's other runes are escaped still.
func cobraLines(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, l := range lines {
		rest := strings.TrimLeft(l, "\t")
		lines[i] = l[:len(l)-len(rest)] + quote.Escape(rest)
	}
	return strings.Join(lines, "\n")
}

func newRoot(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "bcdump",
		Short: "Dissect Star Trek: Bridge Commander 1.1 multiplayer traffic",
		Long: `bcdump reads packet captures (pcap, pcapng; gzip, xz or zstd compressed;
"-" for stdin) of Bridge Commander 1.1 multiplayer traffic (UDP 22101),
deciphers the AlbyRules stream cipher and decodes transport messages and
game opcodes.

Exit status: 0 success, 1 a finding you asked to fail on, 2 trouble.
Colour: --color auto|always|never; NO_COLOR disables it.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("bcdump {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newReadCmd(s), newStatsCmd(s), newLiveCmd(s), newDiffCmd(s),
		newSessionCmd(s), newProfileCmd(s), newHTMLReportCmd(s), newFieldsCmd(s), newAnomaliesCmd(s),
		newManifestCmd(s), newHashCmd(s), newDecryptCmd(s), newEncryptCmd(s), newWiresharkCmd(s), newManCmd())
	root.AddCommand(newProxyCmd(s), newReplayCmd(s))
	root.AddCommand(newConvertCmd(s), newVersionCmd())
	installHelp(root, s)
	registerCompletions(root)
	root.SetOut(s.out) // the completion scripts are bound to it when made
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			strictShells(c)
		}
	}
	withUsage(root)
	wrapFlagHelp(root)
	return root
}

var flagUsagesOnce sync.Once

// wrapFlagHelp makes --help wrap the flag descriptions at the terminal's
// width when stdout is one (piped: one line each, as pflag writes them).
func wrapFlagHelp(root *cobra.Command) {
	flagUsagesOnce.Do(func() { // cobra's template functions are one global map
		cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet) string {
			return fs.FlagUsagesWrapped(terminalWidth(os.Stdout))
		})
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages", "flagUsages .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages", "flagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}

// strictShells makes "completion SHELL" for a shell it has no script for
// an error (cobra prints the help and exits 0); without a shell it still
// prints the help.
func strictShells(c *cobra.Command) {
	var shells []string
	for _, sc := range c.Commands() {
		shells = append(shells, sc.Name())
	}
	c.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("no completion for %q; the shells are %s", args[0], strings.Join(shells, ", "))
		}
		return nil
	}
	c.Use = "completion SHELL"
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// usageError is a command line the command cannot run (wrong arguments):
// its message, then the command's usage line.
type usageError struct {
	err   error
	usage string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// withUsage makes the argument check of cmd and every command under it
// end its error with the usage line.
func withUsage(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &usageError{err: fmt.Errorf("%s: %w", c.Name(), err), usage: c.UseLine()}
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		withUsage(c)
	}
}

// useColor resolves --color (mode) for w against the terminal and NO_COLOR.
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		if f, ok := w.(*os.File); ok {
			vtReady(f) // a Windows console shows the escapes as colours if it can
		}
		return true, nil
	case "never":
		return false, nil
	}
	// auto (--color's values are checked as it is parsed: colorModes)
	if _, ok := os.LookupEnv("NO_COLOR"); ok || color.NoColor && os.Getenv("TERM") == "dumb" {
		return false, nil
	}
	return isTerminal(w) && vtReady(w.(*os.File)), nil
}
