package fit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
)

var cols = []Column{{Head: "PEER"}, {Head: "NAME"}, {Head: "ADDRESS", Drop: 2}, {Head: "RTT", Drop: 1}, {Head: "NOTE"}}

var rows = [][]string{
	{"2", "Cady2", "192.168.1.20:2655", "25.0/3000.0", "joined late, left early, came back and left again for good"},
	{"3", "Größe", "10.0.0.1:1", "-", ""},
}

// Width 0 is tabwriter's layout, byte for byte.
func TestNoLimitIsTabwriter(t *testing.T) {
	var want bytes.Buffer
	tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PEER\tNAME\tADDRESS\tRTT\tNOTE")
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(r, "\t"))
	}
	tw.Flush()
	tb := Table{Indent: "  ", Cols: cols}
	for _, r := range rows {
		tb.Row(r...)
	}
	var got bytes.Buffer
	if err := tb.Write(&got, 0); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got\n%q\nwant\n%q", got.String(), want.String())
	}
}

func TestFit(t *testing.T) {
	for _, tt := range []struct {
		width int
		want  string
	}{
		{120, "" +
			"  PEER  NAME   ADDRESS            RTT          NOTE\n" +
			"  2     Cady2  192.168.1.20:2655  25.0/3000.0  joined late, left early, came back and left again for good\n" +
			"  3     Größe  10.0.0.1:1         -            \n"},
		{80, "" +
			"  PEER  NAME   ADDRESS            RTT          NOTE\n" +
			"  2     Cady2  192.168.1.20:2655  25.0/3000.0  joined late, left early, came\n" +
			"                                               back and left again for good\n" +
			"  3     Größe  10.0.0.1:1         -            \n"},
		{50, "" +
			"  PEER  NAME   RTT          NOTE\n" +
			"  2     Cady2  25.0/3000.0  joined late, left\n" +
			"                            early, came back and\n" +
			"                            left again for good\n" +
			"  3     Größe  -            \n"},
		{30, "" +
			"  PEER  NAME   NOTE\n" +
			"  2     Cady2  joined late,\n" +
			"               left early,\n" +
			"               came back and\n" +
			"               left again for\n" +
			"               good\n" +
			"  3     Größe  \n"},
	} {
		tb := Table{Indent: "  ", Cols: cols}
		for _, r := range rows {
			tb.Row(r...)
		}
		var got bytes.Buffer
		tb.Write(&got, tt.width)
		if got.String() != tt.want {
			t.Errorf("width %d: got\n%s\nwant\n%s", tt.width, got.String(), tt.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n") {
			if runes(l) > tt.width {
				t.Errorf("width %d: line %q is %d wide", tt.width, l, runes(l))
			}
		}
	}
}

func TestLineAndCut(t *testing.T) {
	var b bytes.Buffer
	Line(&b, "  Settings  ", "map Multiplayer.Episode.Mission1.Mission1, system 1, player limit 8", 40)
	want := "  Settings  map\n            Multiplayer.Episode.Mission…\n            system 1, player limit 8\n"
	if b.String() != want {
		t.Errorf("Line:\n%q\nwant\n%q", b.String(), want)
	}
	if got := Cut("abcdéfgh", 5); got != "abcd…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("ab\x1b[31mcdef\x1b[0m", 4); got != "ab\x1b[31mc…\x1b[0m" {
		t.Errorf("Cut coloured = %q", got)
	}
	if got := Cut("abc", 0); got != "abc" {
		t.Errorf("Cut no limit = %q", got)
	}
}

func TestDropped(t *testing.T) {
	tb := &Table{Cols: cols}
	tb.Row("1", "Cady2", "192.168.1.20:2655", "12/40", "a note")
	var b strings.Builder
	if err := tb.Write(&b, 0); err != nil || tb.Dropped() != nil {
		t.Errorf("no limit: dropped %q %v", tb.Dropped(), err)
	}
	b.Reset()
	if err := tb.Write(&b, 24); err != nil || !slices.Equal(tb.Dropped(), []string{"ADDRESS", "RTT"}) {
		t.Errorf("24 columns: dropped %q %v\n%s", tb.Dropped(), err, b.String())
	}
}
