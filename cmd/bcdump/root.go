package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
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
	fmt.Fprintln(s.err, msg)
}

func run(args []string, in io.Reader, out, errw io.Writer) int {
	s := &streams{in: in, out: out, err: errw}
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
			fmt.Fprintln(errw, "bcdump:", fe.msg)
		}
		return exitFinding
	}
	fmt.Fprintln(errw, "bcdump:", err)
	return exitTrouble
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
	installHelp(root, s)
	registerCompletions(root)
	return root
}

// colorFlag resolves --color against the terminal and NO_COLOR.
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		if f, ok := w.(*os.File); ok {
			vtReady(f) // a Windows console shows the escapes as colours if it can
		}
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if _, ok := os.LookupEnv("NO_COLOR"); ok || color.NoColor && os.Getenv("TERM") == "dumb" {
			return false, nil
		}
		f, ok := w.(*os.File)
		return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) && vtReady(f), nil
	}
	return false, fmt.Errorf("--color must be auto, always or never, not %q", mode)
}
