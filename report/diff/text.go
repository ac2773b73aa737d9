package diff

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/report/quote"
)

// maxChangesShown bounds the "~ path: old -> new" lines under one changed
// message in the text output (the JSON output lists up to maxChangesJSON).
const maxChangesShown = 8

// WriteText writes the unified-diff style listing: "--- OLD" / "+++ NEW"
// headers, one "@@ flow N (client #K) DIR @@" hunk per stretch of
// differences with Context messages around it, message lines with the OLD
// and NEW frame numbers, then the summary line.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "--- %s (%s, %d datagrams)\n", quote.Name(r.Old.Name), r.Old.Format, r.Old.Datagrams)
	fmt.Fprintf(bw, "+++ %s (%s, %d datagrams)\n", quote.Name(r.New.Name), r.New.Format, r.New.Datagrams)
	width := len(strconv.Itoa(max(maxFrame(r.Old), maxFrame(r.New))))
	ctx := max(r.Opt.Context, 0)
	for _, fd := range r.Flows {
		if len(fd.Addr) > 0 {
			fmt.Fprintf(bw, "@@ %s addresses @@\n", fd.label())
			fmt.Fprintf(bw, "-%s client %s server %s\n", strings.Repeat(" ", 2*width+2), fd.Old.Client, fd.Old.Server)
			fmt.Fprintf(bw, "+%s client %s server %s\n", strings.Repeat(" ", 2*width+2), fd.New.Client, fd.New.Server)
		}
		for d := range 2 {
			writeHunks(bw, fd, d, ctx, width)
		}
	}
	fmt.Fprintln(bw, r.SummaryLine())
	return bw.Flush()
}

// SummaryLine is the last line of the text output.
func (r *Result) SummaryLine() string {
	s := r.Summary
	msg := fmt.Sprintf("%d flow%s", s.Flows, plural(s.Flows))
	if s.GameSpyFlows > 0 {
		msg += fmt.Sprintf(" and %d GameSpy flow%s", s.GameSpyFlows, plural(s.GameSpyFlows))
	}
	msg += fmt.Sprintf(", %d old and %d new messages compared: ", s.OldMessages, s.NewMessages)
	if s.Differences == 0 {
		return msg + "no differences"
	}
	msg += fmt.Sprintf("%d difference%s (%d changed, %d added, %d removed", s.Differences, plural(s.Differences), s.Changed, s.Added, s.Removed)
	if a := s.Differences - s.Changed - s.Added - s.Removed; a > 0 {
		msg += fmt.Sprintf(", %d flow%s with other addresses", a, plural(a))
	}
	return msg + ")"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func maxFrame(c *Conversation) int {
	m := 0
	for _, f := range c.Flows {
		for d := range 2 {
			if n := len(f.Msgs[d]); n > 0 {
				m = max(m, int(f.Msgs[d][n-1].Frame))
			}
		}
	}
	return m
}

// label names the flow pair: "flow 2 (client #2)", "flow 2 (client #2,
// NEW #3)", "flow 4 (client #4, only in OLD)".
func (fd *FlowDiff) label() string {
	var num string
	switch {
	case fd.New == nil:
		num = fmt.Sprintf("#%d, only in OLD", fd.Old.Number)
	case fd.Old == nil:
		num = fmt.Sprintf("#%d, only in NEW", fd.New.Number)
	case fd.Old.Number != fd.New.Number:
		num = fmt.Sprintf("#%d, NEW #%d", fd.Old.Number, fd.New.Number)
	default:
		num = fmt.Sprintf("#%d", fd.Old.Number)
	}
	return fmt.Sprintf("flow %d (%s %s)", fd.Index, fd.Role, num)
}

func writeHunks(bw *bufio.Writer, fd *FlowDiff, d, ctx, width int) {
	es := fd.Dirs[d]
	for i := 0; i < len(es); {
		if es[i].Op == Equal {
			i++
			continue
		}
		// A hunk: from ctx before this difference to ctx after the last
		// difference that is no more than 2*ctx equal edits further on.
		start := max(0, i-ctx)
		end := i
		for k := i; k < len(es) && k <= end+2*ctx; k++ {
			if es[k].Op != Equal {
				end = k
			}
		}
		stop := min(len(es), end+ctx+1)
		fmt.Fprintf(bw, "@@ %s %s @@\n", fd.label(), dirNames[d])
		for k := start; k < stop; k++ {
			writeEdit(bw, &es[k], width)
		}
		i = stop
	}
}

func writeEdit(bw *bufio.Writer, e *Edit, width int) {
	blank := strings.Repeat(" ", width)
	frame := func(m *Message) string {
		return fmt.Sprintf("%*d", width, m.Frame)
	}
	switch e.Op {
	case Equal:
		fmt.Fprintf(bw, " %s %s  %s\n", frame(e.Old), frame(e.New), e.Old.Summary())
	case Removed:
		fmt.Fprintf(bw, "-%s %s  %s\n", frame(e.Old), blank, e.Old.Summary())
	case Added:
		fmt.Fprintf(bw, "+%s %s  %s\n", blank, frame(e.New), e.New.Summary())
	case Changed:
		fmt.Fprintf(bw, "-%s %s  %s\n", frame(e.Old), blank, e.Old.Summary())
		fmt.Fprintf(bw, "+%s %s  %s\n", blank, frame(e.New), e.New.Summary())
		for i, c := range e.Changes {
			if i == maxChangesShown {
				fmt.Fprintf(bw, "~%s %s  … %d more changes\n", blank, blank, len(e.Changes)-i)
				break
			}
			note := ""
			if c.Note != "" {
				note = " (" + c.Note + ")"
			}
			fmt.Fprintf(bw, "~%s %s  %s: %s -> %s%s\n", blank, blank, quote.Name(c.Path), shown(c.Old), shown(c.New), note)
		}
	}
}

func shown(v string) string {
	if v == "" {
		return "(none)"
	}
	return shorten(v, 80)
}
