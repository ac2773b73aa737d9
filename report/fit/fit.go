// Package fit lays out bcdump's plain-text tables and long lines for a
// terminal of a given width. Width 0 means no limit: the output is then
// what text/tabwriter (padding 2, spaces) gives, byte for byte, so that
// piped output and the golden files stay as they are.
//
// When a table is wider than the terminal, its columns go in the order of
// their Drop rank (the highest first; 0 is never dropped) until the rest
// fits, then the last column wraps at spaces under itself; a line that
// still does not fit is cut with an ellipsis. Widths count runes, as
// tabwriter does; colour escapes count nothing (tabwriter counts them, so
// the equality at width 0 holds for uncoloured cells, as bcdump's are).
//
// It imports only the standard library, so that any reporter may use it.
package fit

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Column is one column of a Table.
type Column struct {
	Head  string
	Drop  int  // order in which columns go when the table is too wide: highest first; 0 stays
	Right bool // right-aligned (numbers)
}

// Table is a text table: a header row, then rows of cells, columns two
// spaces apart, every line starting with Indent.
type Table struct {
	Indent string
	Cols   []Column
	rows   [][]string
	// dropped are the heads of the columns the last Write left out.
	dropped []string
}

// Dropped are the heads of the columns the last Write left out to fit
// its width, in table order; nil when every column was written. A caller
// says so under the table, so that no column goes unnoticed.
func (t *Table) Dropped() []string { return t.dropped }

// Row adds a row; missing cells are empty.
func (t *Table) Row(cells ...string) {
	t.rows = append(t.rows, cells)
}

const gap = 2

// minWrap is the narrowest the last column wraps to.
const minWrap = 12

// Write writes the table fitted to width columns (0: no limit).
func (t *Table) Write(w io.Writer, width int) error {
	return t.Stream(w, width, func(func(cells ...string)) error { return nil })
}

// Stream writes the table fitted to width columns (0: no limit) with
// the rows rows gives besides those added with Row: rows is called twice,
// once to measure the columns and once to write, and must give the same
// rows both times. None of its rows are held, so a table of millions of
// rows takes no more memory than one.
func (t *Table) Stream(w io.Writer, width int, rows func(row func(cells ...string)) error) error {
	head := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		head[i] = c.Head
	}
	colw := make([]int, len(t.Cols))
	measure := func(r ...string) {
		for i := range colw {
			colw[i] = max(colw[i], runes(cellOf(r, i)))
		}
	}
	measure(head...)
	for _, r := range t.rows {
		measure(r...)
	}
	if err := rows(measure); err != nil {
		return err
	}
	keep := t.fitColumns(colw, width)
	t.dropped = nil
	for i, c := range t.Cols {
		if !slices.Contains(keep, i) {
			t.dropped = append(t.dropped, c.Head)
		}
	}
	bw := bufio.NewWriter(w)
	last := keep[len(keep)-1]
	var b strings.Builder
	line := func(r ...string) {
		b.Reset()
		b.WriteString(t.Indent)
		for _, i := range keep[:len(keep)-1] {
			cell := cellOf(r, i)
			pad := strings.Repeat(" ", colw[i]-runes(cell))
			if t.Cols[i].Right {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
			b.WriteString("  ")
		}
		lead := runes(b.String())
		cell := cellOf(r, last)
		if width <= 0 || lead+runes(cell) <= width {
			b.WriteString(cell)
			bw.WriteString(b.String() + "\n")
			return
		}
		lines := Words(cell, max(width-lead, minWrap))
		for j, l := range lines {
			if j > 0 {
				b.Reset()
				b.WriteString(strings.Repeat(" ", lead))
			}
			b.WriteString(l)
			bw.WriteString(Cut(b.String(), width) + "\n")
		}
	}
	line(head...)
	for _, r := range t.rows {
		line(r...)
	}
	if err := rows(line); err != nil {
		return err
	}
	return bw.Flush()
}

// fitColumns is the indexes of the columns kept at width, given the
// widest cell of each column: all of them unless the table is too wide,
// then without the highest Drop ranks until it fits (the last column
// counts at no more than minWrap runes, as it wraps).
func (t *Table) fitColumns(colw []int, width int) []int {
	keep := make([]int, len(t.Cols))
	for i := range keep {
		keep[i] = i
	}
	if width <= 0 {
		return keep
	}
	for {
		if tableWidth(t.Indent, colw, keep) <= width {
			return keep
		}
		drop, rank := -1, 0
		for j, i := range keep {
			if d := t.Cols[i].Drop; d > rank {
				drop, rank = j, d
			}
		}
		if drop < 0 {
			return keep
		}
		keep = append(keep[:drop:drop], keep[drop+1:]...)
	}
}

// tableWidth is the width of the widest line with the kept columns; the
// last column at most minWrap runes, as it can wrap.
func tableWidth(indent string, colw []int, keep []int) int {
	n := runes(indent)
	for _, i := range keep[:len(keep)-1] {
		n += colw[i] + gap
	}
	return n + min(colw[keep[len(keep)-1]], minWrap)
}

func cellOf(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return ""
}

// runes is the visible width of s: its runes, colour escapes (ESC [ ...
// final byte, bcdump's own: text from captures has its controls escaped)
// not counted.
func runes(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			i = SkipEscape(s, i)
			continue
		}
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		n++
	}
	return n
}

// SkipEscape returns the index after the colour escape (ESC [ ... final
// byte) that starts at s[i].
func SkipEscape[S string | []byte](s S, i int) int {
	j := i + 1
	if j < len(s) && s[j] == '[' {
		j++
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		j++
	}
	return min(j, len(s))
}

// Words breaks s at spaces into lines of at most n runes; a longer word
// stands alone.
func Words(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case runes(line)+1+runes(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// Cut cuts s to width runes, the last one an ellipsis (0: no limit); a
// colour left open by the cut is reset.
func Cut(s string, width int) string {
	if width <= 0 || runes(s) <= width {
		return s
	}
	i, n, escaped := 0, 0, false
	for n < width-1 {
		if s[i] == 0x1b {
			i, escaped = SkipEscape(s, i), true
			continue
		}
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		n++
	}
	if escaped {
		return s[:i] + "…\x1b[0m"
	}
	return s[:i] + "…"
}

// Line writes prefix and text, the text wrapped at spaces to width with
// its continuation lines under its start (0: no limit, one line as is); a
// word longer than a line is cut.
func Line(w io.Writer, prefix, text string, width int) error {
	if width <= 0 || runes(prefix)+runes(text) <= width {
		_, err := io.WriteString(w, prefix+text+"\n")
		return err
	}
	var b strings.Builder
	lead := runes(prefix)
	for i, l := range Words(text, max(width-lead, minWrap)) {
		if i == 0 {
			l = prefix + l
		} else {
			l = strings.Repeat(" ", lead) + l
		}
		b.WriteString(Cut(l, width)) // a word longer than the line
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
