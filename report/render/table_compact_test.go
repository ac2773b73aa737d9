package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutLine(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short\n", 10, "short\n"},
		{"exactly10!\n", 10, "exactly10!\n"},
		{"eleven cols\n", 10, "eleven co…\n"},
		{"µµµµµµµµµµµµ\n", 5, "µµµµ…\n"},
		{"\x1b[36mcoloured text here\x1b[0m\n", 8, "\x1b[36mcoloure…\x1b[0m\n"},
		{"\x1b[36mfits\x1b[0m\n", 4, "\x1b[36mfits\x1b[0m\n"},
		{"anything\n", 0, "anything\n"},
	}
	for _, tt := range tests {
		if got := string(cutLine([]byte(tt.in), tt.width)); got != tt.want {
			t.Errorf("cutLine(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

// The compact table: lines within the width, addresses as labels defined
// once; the full table is what it always was.
func TestTableCompact(t *testing.T) {
	full := string(render(t, filepath.Join(testdata, "sample.pcap"), func(w *bytes.Buffer) Reporter { return NewTable(w, NewPalette(false), false) }))
	compact := string(render(t, filepath.Join(testdata, "sample.pcap"), func(w *bytes.Buffer) Reporter {
		tb := NewTable(w, NewPalette(false), false)
		tb.SetCompact(Compact{Width: 60})
		return tb
	}))
	lines := strings.Split(strings.TrimSuffix(compact, "\n"), "\n")
	if lines[0] != "       c1 = 192.168.1.20:2655" || lines[1] != "       s = 192.168.1.10:22101" {
		t.Errorf("label lines %q", lines[:2])
	}
	if n := strings.Count(compact, " = "); n != 2 {
		t.Errorf("%d label definitions, want 2", n)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	fl := strings.Split(strings.TrimSuffix(full, "\n"), "\n")
	if len(fl) != len(lines)-2 || !strings.Contains(fl[0], "192.168.1.20:2655 -> 192.168.1.10:22101") {
		t.Errorf("full table: %d lines, first %q", len(fl), fl[0])
	}
}
