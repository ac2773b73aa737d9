package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/render"
)

// A choice is one value of a flag that takes one of a fixed set (--format,
// --color, -t, --fail-on): its name, what it means (may be empty, shown
// in parentheses in the flag's usage) and other spellings it accepts.
type choice struct {
	name  string
	about string
	also  []string
}

// choices are the values of one enumerated flag, declared once: the
// flag's usage text, its validation (choiceValue.Set) and its shell
// completions all read them.
type choices []choice

// The enumerated flags' values.
var (
	tableOrJSON   = choices{{name: "table"}, {name: "json"}}
	textOrJSON    = choices{{name: "text", about: "unified diff"}, {name: "json"}}
	recordFormats = choices{{name: "table"}, {name: "json"}, {name: "hex"}}
	readFormats   = append(recordFormats[:len(recordFormats):len(recordFormats)], choice{name: "parquet", about: "with -o"})
	anomalyFormat = choices{{name: "table"}, {name: "json"}, {name: "markdown"}}
	colorModes    = choices{{name: "auto"}, {name: "always"}, {name: "never"}}
	severities    = choices{{name: "note"}, {name: "warn", also: []string{"warning"}}, {name: "error"}}
)

// timeChoices are the values of -t: render.TimeFormatNames, with what
// delta means for the command.
func timeChoices(delta string) choices {
	about := map[string]string{
		"rel":   "seconds since the first frame",
		"abs":   "UTC date and time",
		"delta": delta,
		"epoch": "seconds since 1970",
	}
	var cs choices
	for _, n := range render.TimeFormatNames {
		cs = append(cs, choice{name: n, about: about[n]})
	}
	return cs
}

// names are the values' names, in order.
func (cs choices) names() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// list is "a, b or c", each with what it means in parentheses when brief
// is false.
func (cs choices) list(brief bool) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.name
		if c.about != "" && !brief {
			parts[i] += " (" + c.about + ")"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// choiceValue is the pflag.Value of an enumerated flag: Set accepts the
// choices' names and other spellings in any case and stores the name.
type choiceValue struct {
	p     *string
	cs    choices
	empty bool // "" is accepted (the flag's default is "": unset)
}

func (v *choiceValue) String() string { return *v.p }

// Type is "string", as the help shows for any text flag.
func (v *choiceValue) Type() string { return "string" }

func (v *choiceValue) Set(s string) error {
	if s == "" && v.empty {
		*v.p = ""
		return nil
	}
	for _, c := range v.cs {
		if strings.EqualFold(s, c.name) {
			*v.p = c.name
			return nil
		}
		for _, a := range c.also {
			if strings.EqualFold(s, a) {
				*v.p = c.name
				return nil
			}
		}
	}
	return &choiceError{value: s, cs: v.cs}
}

// choiceError is a value that is none of the choices.
type choiceError struct {
	value string
	cs    choices
}

func (e *choiceError) Error() string { return e.cs.refuse(e.value) }

// refuse says that value is none of cs: "must be a, b or c, not "x"", and
// the nearest name when one is close.
func (cs choices) refuse(value string) string {
	msg := fmt.Sprintf("must be %s, not %q", cs.list(true), value)
	if near := filter.Closest(value, cs.names()); len(near) > 0 {
		msg += "; did you mean " + near[0] + "?"
	}
	return msg
}

// enumVarP defines an enumerated flag: usage is its description, in
// which %s stands for the list of choices.
func enumVarP(f *pflag.FlagSet, p *string, name, short, def string, cs choices, usage string) {
	*p = def
	f.VarP(&choiceValue{p: p, cs: cs, empty: def == ""}, name, short, fmt.Sprintf(usage, cs.list(false)))
}

// setChoices gives the enumerated flag name of f other choices and usage
// (session's --fail-on adds join).
func setChoices(f *pflag.FlagSet, name string, cs choices, usage string) {
	fl := f.Lookup(name)
	v := fl.Value.(*choiceValue)
	v.cs = cs
	fl.Usage = fmt.Sprintf(usage, cs.list(false))
}

// flagChoices are the choices of an enumerated flag, nil for another
// flag or none.
func flagChoices(f *pflag.Flag) choices {
	if f == nil {
		return nil
	}
	if v, ok := f.Value.(*choiceValue); ok {
		return v.cs
	}
	return nil
}
