package story

import (
	"slices"
	"strings"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// line is a timeline line as written: one entry, or the finding lines of
// one player, code and message kind folded into their first.
type line struct {
	*entry
	count     int // lines folded in, 1 for a line alone
	lastT     time.Time
	lastFrame int
	msgKind   string // the message the findings are about ("StateUpdate"), "" when they do not say
}

// groupKey is what folds finding lines together.
type groupKey struct {
	p    *player
	code anomaly.Code
	kind string
}

// lines returns the timeline in time order; unless verbose, the finding
// lines of one player, code and message kind are folded into the first
// of them (a flood of one finding says so once, with its count and span).
func (s *server) lines(verbose bool) []line {
	es := slices.Clone(s.timeline)
	slices.SortStableFunc(es, func(x, y entry) int { return x.t.Compare(y.t) })
	out := make([]line, 0, len(es))
	var at map[groupKey]int
	for i := range es {
		e := &es[i]
		l := line{entry: e, count: 1, lastT: e.t, lastFrame: e.frame}
		if e.kind != evError && e.kind != evWarn {
			out = append(out, l)
			continue
		}
		l.msgKind = messageKind(e.detail, e.code)
		if verbose {
			out = append(out, l)
			continue
		}
		if at == nil {
			at = make(map[groupKey]int)
		}
		k := groupKey{e.p, e.code, l.msgKind}
		if j, ok := at[k]; ok {
			g := &out[j]
			g.count++
			g.lastT, g.lastFrame = e.t, e.frame
			continue
		}
		at[k] = len(out)
		out = append(out, l)
	}
	return out
}

// messageKind is the message a finding is about when its text starts with
// one word and a colon ("StateUpdate: ..."), as the payload decoders'
// findings do.
func messageKind(detail string, code anomaly.Code) string {
	msg := strings.TrimPrefix(detail, code.String()+": ")
	name, _, ok := strings.Cut(msg, ": ")
	if !ok || name == "" || strings.ContainsAny(name, " ()=,") {
		return ""
	}
	return name
}

// findingMessage is the finding's text without its code (and without the
// message kind, which a grouped line names before it).
func (l *line) findingMessage() string {
	msg := strings.TrimPrefix(l.detail, l.code.String()+": ")
	if l.msgKind != "" {
		msg = strings.TrimPrefix(msg, l.msgKind+": ")
	}
	return msg
}
