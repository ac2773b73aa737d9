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
		Short: "Write the manual pages of every command and help topic to DIR",
		Long: `Write one manual page per command, bcdump.1, bcdump-read.1, bcdump-stats.1
and so on, to DIR (created if missing), from the same text as --help, and
one page per help topic in section 7 (overviews and conventions, as
git's gitcli(7)), bcdump-filters.7, bcdump-json.7 and so on. When DIR is
a man1 directory the topic pages go to the man7 directory beside it, where
man looks for them; otherwise they go to DIR too. To install them: bcdump
man /usr/local/share/man/man1 (then man bcdump-read, man 7 bcdump-filters).
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
	dir7 := dir
	if filepath.Base(filepath.Clean(dir)) == "man1" {
		dir7 = filepath.Join(filepath.Dir(filepath.Clean(dir)), "man7")
		if err := os.MkdirAll(dir7, 0o755); err != nil {
			return err
		}
	}
	for _, t := range helpTopics() {
		if err := os.WriteFile(filepath.Join(dir7, "bcdump-"+t.Name+".7"), topicManPage(t, date), 0o644); err != nil {
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
	if !c.HasParent() {
		for _, t := range helpTopics() {
			see = append(see, "bcdump-"+t.Name+" 7")
		}
	} else if _, ok := findTopic(strings.TrimPrefix(strings.ReplaceAll(c.CommandPath(), " ", "-"), "bcdump-")); ok {
		see = append(see, strings.ReplaceAll(c.CommandPath(), " ", "-")+" 7")
	}
	writeSeeAlso(&b, see)
	return b.Bytes()
}

// writeSeeAlso lists pages as "name (section)"; a name without a section
// is a command's page, section 1.
func writeSeeAlso(b *bytes.Buffer, see []string) {
	if len(see) == 0 {
		return
	}
	b.WriteString(".SH SEE ALSO\n")
	for i, s := range see {
		sep := ","
		if i == len(see)-1 {
			sep = ""
		}
		name, sec, ok := strings.Cut(s, " ")
		if !ok {
			sec = "1"
		}
		fmt.Fprintf(b, ".BR %s (%s)%s\n", roff(name), sec, sep)
	}
}

// topicManPage renders a help topic's Markdown as a section 7 page:
// headings become sections, code blocks and tables stay as they are
// (no fill), lists become tagged paragraphs.
func topicManPage(t helpTopic, date time.Time) []byte {
	var b bytes.Buffer
	name := "bcdump-" + t.Name
	fmt.Fprintf(&b, ".TH %q 7 %q bcdump \"bcdump manual\"\n.nh\n.ad l\n", strings.ToUpper(name), date.Format("2006-01-02"))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(inlineText(t.Title)))
	b.WriteString(".SH DESCRIPTION\n")
	fence, table, para := false, false, false
	for l := range strings.Lines(t.Body) {
		l = strings.TrimRight(l, "\r\n")
		switch {
		case strings.HasPrefix(l, "```"):
			if fence {
				b.WriteString(".fi\n.RE\n")
			} else {
				b.WriteString(".PP\n.RS 2\n.nf\n")
			}
			fence, para = !fence, false
			continue
		case fence:
			b.WriteString(roffLine(l) + "\n")
			continue
		}
		isRow := strings.HasPrefix(l, "|")
		if table && !isRow {
			b.WriteString(".fi\n")
			table = false
		}
		switch h, text, ok := heading(l); {
		case ok && h == 1:
			// the title, already in NAME
		case ok && h == 2:
			fmt.Fprintf(&b, ".SH %s\n", roff(strings.ToUpper(inlineText(text))))
			para = false
		case ok:
			fmt.Fprintf(&b, ".SS %s\n", roff(inlineText(text)))
			para = false
		case strings.HasPrefix(l, "<!--") && strings.HasSuffix(l, "-->"):
		case mdImage.MatchString(l):
			fmt.Fprintf(&b, ".PP\n%s\n", roffLine(pictureText(mdImage.FindStringSubmatch(l)[1])))
			para = false
		case l == "":
			para = false
		case isRow:
			if mdRuleTb.MatchString(l) {
				continue
			}
			if !table {
				b.WriteString(".PP\n.nf\n")
				table = true
			}
			b.WriteString(roffLine(inlineText(l)) + "\n")
		case strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* "):
			b.WriteString(".IP \\(bu 2\n" + roffLine(inlineText(l[2:])) + "\n")
			para = true
		default:
			if !para {
				if strings.HasPrefix(l, "  ") {
					b.WriteString(roffLine(inlineText(strings.TrimSpace(l))) + "\n")
					continue
				}
				b.WriteString(".PP\n")
				para = true
			}
			b.WriteString(roffLine(inlineText(strings.TrimSpace(l))) + "\n")
		}
	}
	if table {
		b.WriteString(".fi\n")
	}
	if fence {
		b.WriteString(".fi\n.RE\n")
	}
	writeSeeAlso(&b, []string{"bcdump"})
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
