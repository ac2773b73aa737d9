package main

import (
	"embed"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The reference: one Markdown file per topic. Every *.md in the directory
// is a topic, named by its file name, titled by its first "# " line, so a
// topic is added by adding a file.
//
//go:embed helptopics/*.md
var helpFiles embed.FS

// helpTopic is one reference page.
type helpTopic struct {
	Name  string // file name without .md: what bcdump help NAME takes
	Title string // the first "# " line
	Body  string // the Markdown source
}

// helpTopics returns every topic, in name order.
func helpTopics() []helpTopic {
	entries, err := helpFiles.ReadDir("helptopics")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	var out []helpTopic
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		b, err := helpFiles.ReadFile(path.Join("helptopics", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, helpTopic{Name: name, Title: topicTitle(string(b), name), Body: string(b)})
	}
	slices.SortFunc(out, func(a, b helpTopic) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// topicTitle is the text of the first "# " line; a file without one is
// titled by its name.
func topicTitle(md, name string) string {
	for l := range strings.Lines(md) {
		if t, ok := strings.CutPrefix(strings.TrimRight(l, "\r\n"), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return name
}

func findTopic(name string) (helpTopic, bool) {
	for _, t := range helpTopics() {
		if t.Name == name {
			return t, true
		}
	}
	return helpTopic{}, false
}

// writeTopicList prints the topics, one a line, for bcdump help.
func writeTopicList(w io.Writer) {
	topics := helpTopics()
	width := 0
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	fmt.Fprintln(w, "\nHelp topics (bcdump help TOPIC; also as manual pages, bcdump man DIR):")
	for _, t := range topics {
		fmt.Fprintf(w, "  %-*s  %s\n", width, t.Name, t.Title)
	}
}

func topicNames() string {
	var names []string
	for _, t := range helpTopics() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// newHelpCmd replaces cobra's help command: "help COMMAND" is the
// command's --help, followed by the topic of the same name when there is
// one; "help TOPIC" prints the topic; anything else is a usage error
// naming the topics.
func newHelpCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND|TOPIC]",
		Short: "Help about a command, or a reference topic",
		Long: `Help about a command (the same as COMMAND --help), or one of the reference
topics: without a name it lists them, with a topic's name it prints it. A command
with a topic of the same name (diff, stats, ...) prints its help and then
the topic.`,
		Example: `  bcdump help filters
  bcdump help read`,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, c := range cmd.Root().Commands() {
				if c.IsAvailableCommand() && strings.HasPrefix(c.Name(), toComplete) {
					out = append(out, c.Name()+"\t"+c.Short)
				}
			}
			for _, t := range helpTopics() {
				if strings.HasPrefix(t.Name, toComplete) && !slices.ContainsFunc(out, func(o string) bool { return strings.HasPrefix(o, t.Name+"\t") }) {
					out = append(out, t.Name+"\t"+t.Title)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			if len(args) == 0 {
				root.InitDefaultHelpFlag()
				root.InitDefaultVersionFlag()
				return root.Help()
			}
			c, rest, err := root.Find(args)
			if err == nil && c != root && len(rest) == 0 {
				c.InitDefaultHelpFlag()
				c.InitDefaultVersionFlag()
				if err := c.Help(); err != nil {
					return err
				}
				if t, ok := findTopic(strings.Join(args, "-")); ok {
					fmt.Fprintln(s.out)
					_, err := io.WriteString(s.out, renderTopicText(t.Body))
					return err
				}
				return nil
			}
			if len(args) == 1 {
				if t, ok := findTopic(args[0]); ok {
					_, err := io.WriteString(s.out, renderTopicText(t.Body))
					return err
				}
			}
			return fmt.Errorf("help: no command or topic %q (topics: %s)", strings.Join(args, " "), topicNames())
		},
	}
}

// installHelp sets the help command and makes the root's help list the
// topics and a command's --help name its topic.
func installHelp(root *cobra.Command, s *streams) {
	root.SetHelpCommand(newHelpCmd(s))
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		defaultHelp(c, args)
		w := c.OutOrStdout()
		if c == c.Root() {
			writeTopicList(w)
			return
		}
		name := strings.Join(strings.Fields(c.CommandPath())[1:], "-")
		if _, ok := findTopic(name); ok && !calledAsHelp(c) {
			fmt.Fprintf(w, "\nReference: bcdump help %s\n", name)
		}
	})
}

// calledAsHelp reports whether c's help is being printed by the help
// command, which prints the topic itself.
func calledAsHelp(c *cobra.Command) bool {
	h, _, err := c.Root().Find([]string{"help"})
	return err == nil && h.CalledAs() != ""
}

var (
	mdLink   = regexp.MustCompile(`\[([^\]]+)\]\(([^)]+)\)`)
	mdImage  = regexp.MustCompile(`^!\[([^\]]*)\]\(([^)]+)\)$`)
	mdRuleTb = regexp.MustCompile(`^\|[-:| ]+\|$`)
)

// renderTopicText renders a topic's Markdown for a terminal: headings
// underlined, code blocks indented and kept verbatim, inline marks
// dropped, tables kept as their rows, and the markers tests use
// (<!-- ... -->) left out.
func renderTopicText(md string) string {
	var b strings.Builder
	fence := false
	for l := range strings.Lines(md) {
		l = strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(l, "```") {
			fence = !fence
			continue
		}
		if fence {
			if l == "" {
				b.WriteString("\n")
			} else {
				b.WriteString("    " + l + "\n")
			}
			continue
		}
		if strings.HasPrefix(l, "<!--") && strings.HasSuffix(l, "-->") {
			continue
		}
		if h, text, ok := heading(l); ok {
			text = inlineText(text)
			b.WriteString(text + "\n")
			switch h {
			case 1:
				b.WriteString(strings.Repeat("=", len([]rune(text))) + "\n")
			case 2:
				b.WriteString(strings.Repeat("-", len([]rune(text))) + "\n")
			}
			continue
		}
		if m := mdImage.FindStringSubmatch(l); m != nil {
			b.WriteString(pictureText(m[1]) + "\n")
			continue
		}
		if mdRuleTb.MatchString(l) {
			continue
		}
		if strings.HasPrefix(l, "* ") {
			l = "- " + l[2:]
		}
		b.WriteString(inlineText(l) + "\n")
	}
	return b.String()
}

// pictureText stands for a topic's picture in a terminal and a manual
// page, which cannot show it: what it shows (its alt text), not the path
// into the repository it is drawn from.
func pictureText(alt string) string {
	return "[picture, not shown here: " + alt + "]"
}

// heading splits a Markdown heading line into its level and text.
func heading(l string) (int, string, bool) {
	n := len(l) - len(strings.TrimLeft(l, "#"))
	if n == 0 || n > 6 || !strings.HasPrefix(l[n:], " ") {
		return 0, "", false
	}
	return n, strings.TrimSpace(l[n:]), true
}

// inlineText drops Markdown's inline marks: links become their text (and
// address, when it leads elsewhere), bold and code marks go.
func inlineText(s string) string {
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		if strings.HasPrefix(p[2], "http") {
			return p[1] + " (" + p[2] + ")"
		}
		return p[1]
	})
	// Code spans and bold may run over a line break: drop every mark.
	s = strings.ReplaceAll(s, "**", "")
	return strings.ReplaceAll(s, "`", "")
}
