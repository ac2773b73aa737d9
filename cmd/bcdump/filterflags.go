package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
)

// filterFlag is -Y/--filter, shared by read, stats, live, diff, session
// and profile.
type filterFlag struct {
	expr string
}

func (o *filterFlag) register(f *pflag.FlagSet, what string) {
	f.StringVarP(&o.expr, "filter", "Y", "", "display filter (tshark syntax over the JSON fields; bcdump fields lists them): "+what)
}

// compile returns the compiled filter, nil when none was given. A bad
// expression is an error (exit 2) before any capture is opened; its text
// shows the expression with a caret under the fault.
func (o *filterFlag) compile() (*filter.Filter, error) {
	if o.expr == "" {
		return nil, nil
	}
	f, err := filter.Compile(o.expr, query.FieldSchema())
	return f, sessionFieldHint(err)
}

// sessionFieldHint turns "unknown field" for a session.* field into a
// pointer to the one command that has them.
func sessionFieldHint(err error) error {
	var fe *filter.Error
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Msg, "unknown field") || fe.Pos+fe.Len > len(fe.Expr) {
		return err
	}
	field := strings.TrimPrefix(fe.Expr[fe.Pos:fe.Pos+fe.Len], filter.Prefix)
	if !strings.HasPrefix(field, "session.") {
		return err
	}
	hint := *fe
	hint.Msg = "'" + field + "' is a session field: session.* fields are for `bcdump session -Y`"
	hint.Hint = "`bcdump fields` lists every field and where it applies"
	return &hint
}

// selected puts a Select with f in front of rep (rep itself when f is nil).
func selected(rep render.Reporter, f *filter.Filter) render.Reporter {
	if f == nil {
		return rep
	}
	return query.NewSelect(rep, query.SelectOptions{Filter: f})
}
