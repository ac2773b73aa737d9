package main

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/render"
)

// widthFlags are --wide and --width: how the table fits the terminal;
// timeFmt is -t. read and live print the same formats and share them.
type widthFlags struct {
	wide    bool
	width   int
	timeFmt string
	// given: which of -t, --wide and --width the command line set
	// (recordGiven), as opposed to their defaults.
	timeGiven, wideGiven, widthGiven bool
}

// register adds -t, --wide and --width to f.
func (o *widthFlags) register(f *pflag.FlagSet) {
	f.BoolVar(&o.wide, "wide", false, "table: whole lines and addresses even on a terminal (as when piped)")
	f.IntVar(&o.width, "width", 0, "table: cut lines to N columns and show addresses as labels (c1, s) defined once (default: so on a terminal, at its width)")
	enumVarP(f, &o.timeFmt, "time-format", "t", "rel", timeChoices("since the datagram shown before"), "time column of the table and hex formats: %s")
}

// recordGiven notes which of the flags fl's command line set.
func (o *widthFlags) recordGiven(fl *pflag.FlagSet) {
	o.timeGiven, o.wideGiven, o.widthGiven = fl.Changed("time-format"), fl.Changed("wide"), fl.Changed("width")
}

// anyGiven reports whether -t, --wide or --width was given.
func (o *widthFlags) anyGiven() bool { return o.timeGiven || o.wideGiven || o.widthGiven }

// shape applies -t and the width flags given to rep.
func (o *widthFlags) shape(rep render.Reporter, format string, out io.Writer) error {
	if o.timeGiven {
		if err := setTimeFormat(rep, format, o.timeFmt); err != nil {
			return err
		}
	}
	return o.apply(rep, format, out, o.wideGiven, o.widthGiven)
}

// compactTable decides the table's form: on a terminal (and with --width)
// lines are cut to the width and addresses labelled; piped, and with
// --wide, lines are whole, as they always were.
func (o *widthFlags) apply(rep render.Reporter, format string, out io.Writer, wideGiven, widthGiven bool) error {
	if wideGiven && widthGiven {
		return fmt.Errorf("--wide and --width contradict each other: give one")
	}
	t, ok := rep.(*render.Table)
	if !ok {
		if wideGiven || widthGiven {
			return fmt.Errorf("--wide and --width shape the table's lines; --format %s has none", format)
		}
		return nil
	}
	switch {
	case widthGiven:
		if o.width < 0 {
			return fmt.Errorf("--width cannot be negative")
		}
		t.SetCompact(render.Compact{Width: o.width})
	case o.wide:
	default:
		if cols := terminalWidth(out); cols > 0 {
			t.SetCompact(render.Compact{Width: cols})
		}
	}
	return nil
}

// colorWithJSON rejects --color given with -F json: JSON has no colour.
func colorWithJSON(fl *pflag.FlagSet, format string) error {
	if fl.Changed("color") && format == "json" {
		return fmt.Errorf("--color colours the table and hex formats; -F json has no colour")
	}
	return nil
}

// isTerminal reports whether w is a terminal (a Cygwin one included).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// terminalWidth is the column count of out when it is a terminal, else 0.
// COLUMNS overrides what the terminal says; 80 when neither tells.
func terminalWidth(out io.Writer) int {
	if !isTerminal(out) {
		return 0
	}
	f := out.(*os.File)
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n := ttyColumns(f); n > 0 {
		return n
	}
	return 80
}
