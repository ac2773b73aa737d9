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
	if err := r.edits.spillFailed(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "--- %s (%s, %d datagrams)\n", quote.Name(r.Old.Name), r.Old.Format, r.Old.Datagrams)
	fmt.Fprintf(bw, "+++ %s (%s, %d datagrams)\n", quote.Name(r.New.Name), r.New.Format, r.New.Datagrams)
	width := len(strconv.Itoa(max(r.Old.maxFrame, r.New.maxFrame)))
	ctx := max(r.Opt.Context, 0)
	er := r.reader()
	for _, fd := range r.Flows {
		if len(fd.Addr) > 0 {
			fmt.Fprintf(bw, "@@ %s addresses @@\n", fd.label())
			fmt.Fprintf(bw, "-%s client %s server %s\n", strings.Repeat(" ", 2*width+2), fd.Old.Client, fd.Old.Server)
			fmt.Fprintf(bw, "+%s client %s server %s\n", strings.Repeat(" ", 2*width+2), fd.New.Client, fd.New.Server)
		}
		for d := range 2 {
			writeHunks(bw, er, fd, d, ctx, width)
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
	msg += ")"
	if r.Old.Merged > 0 || r.New.Merged > 0 {
		msg += fmt.Sprintf("; the flows past the first %d of a side were compared as one merged flow (%d old and %d new datagrams)", r.Opt.maxFlows(), r.Old.Merged, r.New.Merged)
	}
	if s.Unaligned > 0 {
		msg += fmt.Sprintf("; in %d alignment window%s of %d messages the sides had nothing in common (taken as removed and added in order)", s.Unaligned, plural(s.Unaligned), r.Opt.window())
	}
	return msg
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// label names the flow pair: "flow 2 (client #2)", "flow 2 (client #2,
// NEW #3)", "flow 4 (client #4, only in OLD)".
func (fd *FlowDiff) label() string {
	if fd.Role == RoleMerged {
		return fmt.Sprintf("flow %d (merged: the flows past the first %d of a side)", fd.Index, fd.res.Opt.maxFlows())
	}
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

// writeHunks writes the hunks of direction d from the stored edits: the
// differences, up to ctx equal edits on each side of each, and skips in
// place of longer runs of equal edits (which no hunk spans).
func writeHunks(bw *bufio.Writer, er *editReader, fd *FlowDiff, d, ctx, width int) {
	n := fd.n[d]
	op := func(k int) Op { return er.op(fd, d, k) }
	for i := 0; i < n; {
		if o := op(i); o == Equal || o == opSkip {
			i++
			continue
		}
		// A hunk: from ctx before this difference to ctx after the last
		// difference that is no more than 2*ctx equal edits further on.
		start := max(0, i-ctx)
		end := i
		for k := i; k < n && k <= end+2*ctx; k++ {
			o := op(k)
			if o == opSkip {
				break
			}
			if o != Equal {
				end = k
			}
		}
		stop := min(n, end+ctx+1)
		fmt.Fprintf(bw, "@@ %s %s @@\n", fd.label(), dirNames[d])
		for k := start; k < stop; k++ {
			if e := er.edit(fd, d, k); e.Op != opSkip {
				writeEdit(bw, &e, width)
			}
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
