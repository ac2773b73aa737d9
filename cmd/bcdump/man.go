package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
)

func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages (section 1) of every command to DIR",
		Long: `Write one manual page per command, bcdump.1, bcdump-read.1, bcdump-stats.1
and so on, to DIR (created if missing), from the same text as --help. To
install them: bcdump man /usr/local/share/man/man1 (then man bcdump-read).
The page date is SOURCE_DATE_EPOCH when set (reproducible builds), else
today.`,
		Example: `  bcdump man ~/.local/share/man/man1 && man bcdump-read`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			date := time.Now().UTC()
			if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
				sec, err := strconv.ParseInt(e, 10, 64)
				if err != nil {
					return fmt.Errorf("SOURCE_DATE_EPOCH %q is not a number of seconds", e)
				}
				date = time.Unix(sec, 0).UTC()
			}
			return writeManPages(cmd.Root(), args[0], date)
		},
	}
}

// writeManPages writes the page of root and of each of its commands to
// dir, named as git names its pages (bcdump-read.1 for "bcdump read").
func writeManPages(root *cobra.Command, dir string, date time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root.InitDefaultCompletionCmd() // added only when a command runs
	for _, c := range manCommands(root) {
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		// bcdump chose the names: a link there is replaced, not written
		// through.
		rules := outfile.Options{ReplaceLink: true}
		if err := outfile.WriteFile(filepath.Join(dir, name), manPage(c, date), rules); err != nil {
			return err
		}
	}
	return nil
}

// manCommands is root and every command below it that help lists.
func manCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			out = append(out, manCommands(c)...)
		}
	}
	return out
}

// manPage renders one command as man(7) roff: the text of --help in the
// sections a manual page has.
func manPage(c *cobra.Command, date time.Time) []byte {
	var b bytes.Buffer
	title := strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-"))
	fmt.Fprintf(&b, ".TH %q 1 %q bcdump \"bcdump manual\"\n.nh\n.ad l\n", title, date.Format("2006-01-02"))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(strings.ReplaceAll(c.CommandPath(), " ", "-")), roff(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n", roff(c.UseLine()))
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, ".br\n.B %s COMMAND\n", roff(c.CommandPath()))
	}
	b.WriteString(".SH DESCRIPTION\n")
	long := c.Long
	if long == "" {
		long = c.Short
	}
	writeParagraphs(&b, long)
	if c.HasAvailableLocalFlags() {
		b.WriteString(".SH OPTIONS\n")
		writeFlags(&b, c.NonInheritedFlags())
	}
	if c.HasAvailableInheritedFlags() {
		b.WriteString(".SH OPTIONS INHERITED FROM bcdump\n")
		writeFlags(&b, c.InheritedFlags())
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(roffLine(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".fi\n")
	}
	var see []string
	if c.HasParent() {
		see = append(see, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			see = append(see, strings.ReplaceAll(sub.CommandPath(), " ", "-"))
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			sep := ","
			if i == len(see)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, ".BR %s (1)%s\n", roff(s), sep)
		}
	}
	return b.Bytes()
}

// writeParagraphs writes text split at blank lines; lines that start with
// spaces (examples, lists) are kept as they are.
func writeParagraphs(b *bytes.Buffer, text string) {
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		pre := strings.HasPrefix(para, " ")
		if pre {
			b.WriteString(".nf\n")
		}
		for _, l := range strings.Split(para, "\n") {
			b.WriteString(roffLine(l) + "\n")
		}
		if pre {
			b.WriteString(".fi\n")
		}
	}
}

func writeFlags(b *bytes.Buffer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		varname, usage := pflag.UnquoteUsage(f)
		if varname != "" {
			name += " " + varname
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(name), roffLine(usage))
	})
}

// roff escapes text for a roff argument or line.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLine escapes a text line: a leading dot or apostrophe would start a
// request.
func roffLine(s string) string {
	s = roff(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
