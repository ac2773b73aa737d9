package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/fit"
)

// fitFlags are --wide and --width for the commands whose tables fit the
// terminal (session, stats, fields, anomalies, diff, profile): on a
// terminal the tables fit its width (COLUMNS overrides what it says);
// piped, or with --wide, they are whole (the golden files' form); --width N
// fits N columns anywhere. See the help topic "terminal".
type fitFlags struct {
	wide  bool
	width int
}

func (o *fitFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&o.wide, "wide", false, "tables: whole lines even on a terminal (as when piped)")
	f.IntVar(&o.width, "width", 0, "tables: fit N columns (default: the terminal's width on a terminal, no limit when piped)")
}

// text rejects --wide and --width with a format other than text, the
// text formats (table, text) and "" (read's default): as read does, so
// that a flag that would do nothing says so.
func (o *fitFlags) text(fl *pflag.FlagSet, format string) error {
	switch format {
	case "table", "text", "":
		return nil
	}
	if fl.Changed("wide") || fl.Changed("width") {
		return fmt.Errorf("--wide and --width shape the text tables; --format %s has none", format)
	}
	return nil
}

// columns is the width the tables fit on out; 0 is no limit.
func (o *fitFlags) columns(fl *pflag.FlagSet, out io.Writer) (int, error) {
	wide, width := fl.Changed("wide") && o.wide, fl.Changed("width")
	switch {
	case wide && width:
		return 0, fmt.Errorf("--wide and --width contradict each other: give one")
	case width && o.width < 0:
		return 0, fmt.Errorf("--width cannot be negative")
	case width:
		return o.width, nil
	case wide:
		return 0, nil
	}
	return terminalWidth(out), nil
}

// lineFitter fits the text written through it to width columns, line by
// line: lines that start with one of cutMarks are cut with an ellipsis
// (diff lines, so that their markers stay in the first column; table
// borders and rows), other lines wrap at spaces, under the text after
// their label ("  time    ...") when they have one. Close writes a last
// line without a newline.
type lineFitter struct {
	w        io.Writer
	width    int
	cutMarks string
	partial  []byte
}

// The cutMarks of diff and of stats.
const (
	diffMarks  = " -+~@"
	tableMarks = "+|"
)

func newLineFitter(w io.Writer, width int, cutMarks string) *lineFitter {
	return &lineFitter{w: w, width: width, cutMarks: cutMarks}
}

func (f *lineFitter) Write(p []byte) (int, error) {
	if f.width <= 0 {
		return f.w.Write(p)
	}
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := f.line(string(f.partial[:i])); err != nil {
			return 0, err
		}
		f.partial = f.partial[i+1:]
	}
}

func (f *lineFitter) line(s string) error {
	if s != "" && strings.ContainsRune(f.cutMarks, rune(s[0])) {
		_, err := io.WriteString(f.w, fit.Cut(s, f.width)+"\n")
		return err
	}
	label := labelOf(s)
	return fit.Line(f.w, label, s[len(label):], f.width)
}

// labelOf is the "  time    " of "  time    2026-...": indentation, one
// word and the two or more spaces after it; "" when s has no such label.
func labelOf(s string) string {
	i := len(s) - len(strings.TrimLeft(s, " "))
	j := strings.IndexByte(s[i:], ' ')
	if j <= 0 || !strings.HasPrefix(s[i+j:], "  ") {
		return ""
	}
	k := i + j
	for k < len(s) && s[k] == ' ' {
		k++
	}
	return s[:k]
}

// Close writes what is left.
func (f *lineFitter) Close() error {
	if len(f.partial) == 0 {
		return nil
	}
	_, err := f.w.Write(f.partial)
	f.partial = nil
	return err
}
