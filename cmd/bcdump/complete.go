package main

import (
	"net"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/diff"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/story"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// registerCompletions gives the flags that take one of a few values their
// completions, on every command that has them: every enumerated flag
// (--format, --color, --fail-on, -t: their choices), -Y (filter fields, and
// anomaly codes after anomalies.code ==) and -i (interface names).
func registerCompletions(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		var fn cobra.CompletionFunc
		switch f.Name {
		case "filter":
			fn = completeFilter
		case "interface":
			fn = completeInterface
		case "ignore":
			if cmd.Name() != "diff" {
				return
			}
			fn = completeIgnore
		default:
			cs := flagChoices(f)
			if cs == nil {
				return
			}
			fn = cobra.FixedCompletions(cs.names(), cobra.ShellCompDirectiveNoFileComp)
		}
		_ = cmd.RegisterFlagCompletionFunc(f.Name, fn)
	})
	for _, c := range cmd.Commands() {
		registerCompletions(c)
	}
}

// codeContext is the end of a filter expression after which an anomaly
// code (quoted) comes next.
var codeContext = regexp.MustCompile(`anomalies\.code\s*(==|!=|eq|ne)\s*$`)

// completeFilter completes the last word of a -Y expression: a field name
// (bcdump fields; the session.* fields too for session), or an anomaly
// code after "anomalies.code ==". Each
// completion is the whole expression, as the shell matches it against the
// word being completed.
func completeFilter(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	i := strings.LastIndexAny(toComplete, " !()") + 1
	prefix, word := toComplete[:i], toComplete[i:]
	var out []cobra.Completion
	if codeContext.MatchString(prefix) {
		for _, in := range anomaly.All() {
			if c := `"` + in.Name + `"`; strings.HasPrefix(c, word) || strings.HasPrefix(in.Name, word) {
				out = append(out, prefix+c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	var schema filter.Schema = query.FieldSchema()
	if cmd.Name() == "session" {
		schema = story.Schema{Schema: schema}
	}
	for _, name := range schema.Names() {
		if strings.HasPrefix(name, word) {
			out = append(out, prefix+name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeIgnore lists what diff --ignore accepts: the compared paths and
// fields.<key> for every decoder field.
func completeIgnore(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	add := func(p string) {
		if strings.HasPrefix(p, toComplete) {
			out = append(out, p)
		}
	}
	for _, p := range diff.Compared {
		add(p)
	}
	add("fields")
	for _, name := range query.FieldSchema().Names() {
		if rest, ok := strings.CutPrefix(name, "messages.fields."); ok {
			add("fields." + rest)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeInterface lists the network interfaces and "any".
func completeInterface(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := []cobra.Completion{"any"}
	ifs, err := net.Interfaces()
	if err != nil {
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, in := range ifs {
		out = append(out, in.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
