package profile

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
)

// WriteJSON writes d as one indented JSON document.
func (d *Doc) WriteJSON(w io.Writer) error { return writeJSON(w, d) }

// TableOptions change how WriteTableOpts writes the tables.
type TableOptions struct {
	// Time is how the capture's and the flows' first and last times read
	// (-t): seconds since the capture's first datagram by default.
	Time  render.TimeFormat
	Color bool // bold headings
	// Width is the columns a table fits (0: no limit): a wider table
	// drops its least needed columns (the opcode table's dups, size max,
	// bytes, ...) until it fits.
	Width int
}

// WriteTable writes d as text tables that fit 100 columns, with times
// since the capture's first datagram.
func (d *Doc) WriteTable(w io.Writer) error { return d.WriteTableOpts(w, TableOptions{}) }

// WriteTableOpts is WriteTable with options.
func (d *Doc) WriteTableOpts(w io.Writer, o TableOptions) error {
	bw := bufio.NewWriter(w)
	bold := func(s string) string { return s }
	if o.Color {
		bold = func(s string) string { return "\x1b[1m" + s + "\x1b[0m" }
	}
	names := make([]string, len(d.Sources))
	for i, src := range d.Sources {
		names[i] = quote.Name(src)
	}
	fmt.Fprintf(bw, "Captures: %s\n", strings.Join(names, ", "))
	var t0 time.Time
	if d.First != nil {
		t0, _ = time.Parse(time.RFC3339Nano, *d.First)
		start := ""
		if o.Time != render.TimeAbs && o.Time != render.TimeEpoch {
			start = "; the capture starts " + *d.First
		}
		fmt.Fprintf(bw, "Time:     %s .. %s (%s%s)\n", when(*d.First, t0, o.Time), when(*d.Last, t0, o.Time), fmtMs(d.DurationMs), start)
	}
	fmt.Fprintf(bw, "Flows:    %d, in game %s in all (rates are per second of it)\n", d.Flows, fmtMs(d.InGameMs))
	if err := writeBody(bw, "", bold, o.Width, &d.C2S, &d.S2C, d.Pairs); err != nil {
		return err
	}
	for i := range d.PerFlow {
		f := &d.PerFlow[i]
		if f.Other {
			fmt.Fprintf(bw, "\n== Other flows (%d beyond the limit, summed)\n", f.FlowsIn)
		} else {
			fmt.Fprintf(bw, "\n== Flow %s -> %s (%s)\n", f.Client, f.Server, quote.Name(f.Source))
		}
		fmt.Fprintf(bw, "   %s .. %s (%s), in game %s\n", when(f.First, t0, o.Time), when(f.Last, t0, o.Time), fmtMs(f.DurationMs), fmtMs(f.InGameMs))
		if err := writeBody(bw, "   ", bold, o.Width, &f.C2S, &f.S2C, f.Pairs); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// when is a time of the document (RFC 3339) as -t asks: seconds since t0
// (rel, delta), the date and time of day in UTC (abs), or epoch seconds.
func when(s string, t0 time.Time, f render.TimeFormat) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t0.IsZero() {
		return s
	}
	switch f {
	case render.TimeAbs:
		return t.UTC().Format("2006-01-02 15:04:05.000000")
	case render.TimeEpoch:
		return strconv.FormatFloat(float64(t.UnixMicro())/1e6, 'f', 6, 64)
	}
	return strconv.FormatFloat(t.Sub(t0).Seconds(), 'f', 3, 64) + " s"
}

// tbl collects rows and keeps the first error for render. A table with
// drop ranks loses its columns in that order (highest first; 0 stays)
// while it is wider than width.
type tbl struct {
	w      io.Writer
	align  []tw.Align
	header []string
	drop   []int
	rows   [][]string
	width  int
}

func newTbl(w io.Writer, align []tw.Align, header ...string) *tbl {
	return &tbl{w: w, align: align, header: header}
}

// droppable sets the drop rank of each column (see tbl) and the width.
func (t *tbl) droppable(width int, drop ...int) *tbl {
	t.width, t.drop = width, drop
	return t
}

func (t *tbl) row(cells ...string) {
	t.rows = append(t.rows, cells)
}

func (t *tbl) render() error {
	keep := make([]int, len(t.header))
	for i := range keep {
		keep[i] = i
	}
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := t.renderCols(&buf, keep); err != nil {
			return err
		}
		next := t.nextDrop(keep)
		if t.width <= 0 || next < 0 || widest(buf.Bytes()) <= t.width {
			break
		}
		keep = slices.DeleteFunc(keep, func(i int) bool { return i == next })
	}
	_, err := t.w.Write(buf.Bytes())
	return err
}

// nextDrop is the kept column to drop next, -1 when none may go.
func (t *tbl) nextDrop(keep []int) int {
	best, rank := -1, 0
	for _, i := range keep {
		if i < len(t.drop) && t.drop[i] > rank {
			best, rank = i, t.drop[i]
		}
	}
	return best
}

func (t *tbl) renderCols(w io.Writer, keep []int) error {
	pick := func(r []string) []any {
		out := make([]any, len(keep))
		for j, i := range keep {
			if i < len(r) {
				out[j] = r[i]
			} else {
				out[j] = ""
			}
		}
		return out
	}
	align := make([]tw.Align, len(keep))
	for j, i := range keep {
		align[j] = t.align[i]
	}
	tt := stats.NewTextTable(w, align, pick(t.header)...)
	for _, r := range t.rows {
		if err := tt.Append(pick(r)...); err != nil {
			return err
		}
	}
	return tt.Render()
}

// widest is the longest line of b in runes.
func widest(b []byte) int {
	n := 0
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		n = max(n, utf8.RuneCount(l))
	}
	return n
}

func left(n int, rest ...tw.Align) []tw.Align {
	a := make([]tw.Align, 0, n+len(rest))
	for range n {
		a = append(a, tw.AlignLeft)
	}
	return append(a, rest...)
}

func rights(n int) []tw.Align {
	a := make([]tw.Align, n)
	for i := range a {
		a[i] = tw.AlignRight
	}
	return a
}

func writeBody(w io.Writer, indent string, bold func(string) string, width int, c, s *DirDoc, pairs []PairDoc) error {
	for _, dd := range []struct {
		name string
		d    *DirDoc
	}{{"c2s", c}, {"s2c", s}} {
		fmt.Fprintf(w, "\n%s%s (rate: in-game messages per second)\n", indent, bold("Opcodes "+dd.name))
		t := newTbl(w, append(left(2), rights(7)...), "opcode", "name", "count", "rate/s", "bytes", "size p50", "size max", "reliable", "dups").
			droppable(width, 0, 0, 0, 1, 4, 3, 5, 2, 6)
		for _, o := range dd.d.Opcodes {
			t.row(o.Hex, o.Name, u(o.Count), f3(o.RatePerS), u(o.Bytes), u(o.SizeP50), u(o.SizeMax), pct(o.ReliableShare), u(o.Duplicates))
		}
		if len(dd.d.Opcodes) == 0 {
			t.row("-", "none", "", "", "", "", "", "", "")
		}
		if err := t.render(); err != nil {
			return err
		}
	}

	fmt.Fprintf(w, "\n%s%s\n", indent, bold("Transport behaviour"))
	t := newTbl(w, append(left(1), rights(2)...), "metric", "c2s", "s2c")
	both := func(label string, f func(d *DirDoc) string) { t.row(label, f(c), f(s)) }
	both("datagrams", func(d *DirDoc) string { return u(d.Datagrams) })
	both("bytes", func(d *DirDoc) string { return u(d.Bytes) })
	both("messages/datagram p50", func(d *DirDoc) string { return u(d.Shape.MessagesP50) })
	both("messages/datagram p95", func(d *DirDoc) string { return u(d.Shape.MessagesP95) })
	both("messages/datagram mean", func(d *DirDoc) string { return f3(d.Shape.MessagesMean) })
	both("messages/datagram max", func(d *DirDoc) string { return u(d.Shape.MessagesMax) })
	both("bytes/datagram p50", func(d *DirDoc) string { return u(d.Shape.BytesP50) })
	both("bytes/datagram p95", func(d *DirDoc) string { return u(d.Shape.BytesP95) })
	both("ACKs", func(d *DirDoc) string { return u(d.Acks.Acks) })
	both("ACKs per reliable (other way)", func(d *DirDoc) string { return optF(d.Acks.AcksPerReliable) })
	both("RTT samples (its messages ACKed)", func(d *DirDoc) string { return u(d.RTT.Count) })
	both("RTT p50", func(d *DirDoc) string { return optMs(d.RTT.P50Ms) })
	both("RTT p95", func(d *DirDoc) string { return optMs(d.RTT.P95Ms) })
	both("reliable first sends", func(d *DirDoc) string { return u(d.Retransmits.Reliable) })
	both("retransmissions", func(d *DirDoc) string { return u(d.Retransmits.Retransmissions) })
	both("retransmit ratio", func(d *DirDoc) string { return optF(d.Retransmits.Ratio) })
	both("retransmit interval p50", func(d *DirDoc) string { return optMs(d.Retransmits.IntervalP50Ms) })
	both("retransmit interval p95", func(d *DirDoc) string { return optMs(d.Retransmits.IntervalP95Ms) })
	both("duplicate payloads", func(d *DirDoc) string { return u(d.Duplicates.Count) })
	both("duplicate interval p50", func(d *DirDoc) string { return optMs(d.Duplicates.IntervalP50Ms) })
	both("duplicate interval max", func(d *DirDoc) string { return optMs(d.Duplicates.IntervalMaxMs) })
	both("StateUpdates", func(d *DirDoc) string { return u(d.StateUpdates.Count) })
	both("StateUpdate objects", func(d *DirDoc) string { return strconv.Itoa(d.StateUpdates.Objects) })
	both("StateUpdate Hz p50 (per object)", func(d *DirDoc) string { return optF(d.StateUpdates.HzP50) })
	both("StateUpdate Hz p95", func(d *DirDoc) string { return optF(d.StateUpdates.HzP95) })
	both("StateUpdate interval p95", func(d *DirDoc) string { return optMs(d.StateUpdates.IntervalP95Ms) })
	if err := t.render(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n%s%s\n", indent, bold("Messages per datagram"))
	t = newTbl(w, append(left(1), rights(2)...), "messages", "c2s", "s2c")
	for _, r := range mergeBuckets(c.Shape.Distribution, s.Shape.Distribution) {
		t.row(r[0], r[1], r[2])
	}
	if err := t.render(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n%s%s\n", indent, bold("StateUpdate flags (share of updates)"))
	t = newTbl(w, append(left(1), rights(2)...), "flags", "c2s", "s2c")
	for _, r := range mergeFlags(c.StateUpdates.FlagBits, s.StateUpdates.FlagBits, "bit ") {
		t.row(r[0], r[1], r[2])
	}
	for _, r := range mergeFlags(c.StateUpdates.Flags, s.StateUpdates.Flags, "") {
		t.row(r[0], r[1], r[2])
	}
	if err := t.render(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\n%s%s\n", indent, bold("Request/response latency"))
	t = newTbl(w, append(left(1), rights(6)...), "pair", "requests", "answered", "unanswered", "extra", "p50", "max").
		droppable(width, 0, 2, 0, 0, 3, 0, 1)
	for _, p := range pairs {
		t.row(p.Pair, u(p.Requests), u(p.Answered), u(p.Unanswered), u(p.Extra), optMs(p.P50Ms), optMs(p.MaxMs))
	}
	return t.render()
}

// mergeBuckets lines up two message-count distributions.
func mergeBuckets(a, b []BucketDoc) [][3]string {
	type key struct{ lo, hi uint64 }
	var keys []key
	cnt := map[key][2]uint64{}
	for side, list := range [][]BucketDoc{a, b} {
		for _, x := range list {
			k := key{x.Messages, max(x.MessagesTo, x.Messages)}
			if _, ok := cnt[k]; !ok {
				keys = append(keys, k)
			}
			v := cnt[k]
			v[side] += x.Datagrams
			cnt[k] = v
		}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Compare(x.lo, y.lo) })
	out := make([][3]string, 0, len(keys))
	for _, k := range keys {
		label := u(k.lo)
		if k.hi != k.lo {
			label += "-" + u(k.hi)
		}
		v := cnt[k]
		out = append(out, [3]string{label, u(v[0]), u(v[1])})
	}
	return out
}

// mergeFlags lines up two flag lists (each in its own order, c2s first).
func mergeFlags(a, b []FlagDoc, prefix string) [][3]string {
	var keys []string
	val := map[string][2]string{}
	for side, list := range [][]FlagDoc{a, b} {
		for _, x := range list {
			if _, ok := val[x.Flags]; !ok {
				keys = append(keys, x.Flags)
				val[x.Flags] = [2]string{"-", "-"}
			}
			v := val[x.Flags]
			v[side] = fmt.Sprintf("%s (%d)", pct(x.Share), x.Count)
			val[x.Flags] = v
		}
	}
	out := make([][3]string, 0, len(keys))
	for _, k := range keys {
		v := val[k]
		out = append(out, [3]string{prefix + k, v[0], v[1]})
	}
	return out
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func f3(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func pct(v float64) string { return strconv.FormatFloat(round3(v*100), 'f', -1, 64) + "%" }

func optF(v *float64) string {
	if v == nil {
		return "-"
	}
	return f3(*v)
}

func optMs(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmtMs(*v)
}

// fmtMs writes a duration as bcdump stats does (Go's form, to the
// microsecond: 25ms, 2.223912s), so the two read alike.
func fmtMs(v float64) string {
	return time.Duration(v * float64(time.Millisecond)).Round(time.Microsecond).String()
}
