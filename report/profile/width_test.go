package profile

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// A table wider than Width drops its columns in their order (the opcode
// table's dups first, then size max, bytes ...), never opcode, name and
// count; at width 0 nothing goes.
func TestTableWidth(t *testing.T) {
	d := profileFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap")).Doc(false)
	for _, tc := range []struct {
		width      int
		keep, gone []string
	}{
		{0, []string{"| dups |", "size max", "| extra |"}, nil},
		{90, []string{"size max", "reliable"}, []string{"dups"}},
		{80, []string{"size p50", "reliable"}, []string{"dups", "size max"}},
		{50, []string{"| opcode | name", "count", "rate/s"}, []string{"dups", "size max", "bytes |", "reliable", "size p50"}},
	} {
		var buf bytes.Buffer
		if err := d.WriteTableOpts(&buf, TableOptions{Width: tc.width}); err != nil {
			t.Fatal(err)
		}
		opcodes := opcodeTable(buf.String())
		for _, s := range tc.keep {
			if !strings.Contains(opcodes, s) && !strings.Contains(buf.String(), s) {
				t.Errorf("width %d: %q gone", tc.width, s)
			}
		}
		for _, s := range tc.gone {
			if strings.Contains(opcodes, s) {
				t.Errorf("width %d: %q kept:\n%s", tc.width, s, opcodes)
			}
		}
		if tc.width > 0 {
			for _, l := range strings.Split(opcodes, "\n") {
				if n := utf8.RuneCountInString(l); n > tc.width && tc.width >= 60 {
					t.Errorf("width %d: %d columns: %q", tc.width, n, l)
				}
			}
		}
	}
}

// opcodeTable is the first opcode table of a WriteTable output.
func opcodeTable(s string) string {
	i := strings.Index(s, "Opcodes c2s")
	j := strings.Index(s[i:], "\n\n")
	return s[i : i+j]
}

// WriteTextWidth drops the tolerance column, then the change, to fit.
func TestCompareTextWidth(t *testing.T) {
	old := profileFile(t, filepath.Join(testdata, "sample.pcap")).Doc(false)
	nw := profileFile(t, filepath.Join(testdata, "captures", "openbc-session-2.pcap")).Doc(false)
	r := Compare("old", old, "new", nw, CompareOptions{})
	var whole, w0, narrow, narrower bytes.Buffer
	for _, x := range []struct {
		b     *bytes.Buffer
		width int
	}{{&w0, 0}, {&narrow, 90}, {&narrower, 75}} {
		if err := r.WriteTextWidth(x.b, x.width); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.WriteText(&whole); err != nil {
		t.Fatal(err)
	}
	if whole.String() != w0.String() || !strings.Contains(whole.String(), "(tolerance ") {
		t.Errorf("width 0 is not WriteText's output")
	}
	if strings.Contains(narrow.String(), "(tolerance ") || !strings.Contains(narrow.String(), "%") {
		t.Errorf("width 90 kept the tolerance or lost the change:\n%s", narrow.String())
	}
	if strings.Contains(narrower.String(), "-58.5%") || !strings.Contains(narrower.String(), "41 -> 17") {
		t.Errorf("width 75 kept the change or lost the values:\n%s", narrower.String())
	}
}
