package quote

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"capture.pcap", "capture.pcap"},
		{"Größe é 東京", "Größe é 東京"},
		{`say "hi"`, `say "hi"`},
		{"a\x1b]0;pwned\x07", `"a\x1b]0;pwned\a"`},
		{"evil\u202Etxt.pcap", `"evil\u202etxt.pcap"`},
		{"c1\u009B2J", `"c1\u009b2J"`},
		{"latin1\x9B", `"latin1\x9b"`},
		{"del\x7F", `"del\x7f"`},
		{"two\nlines", `"two\nlines"`},
		{"iso\u2066late", `"iso\u2066late"`},
	} {
		if got := Name(tt.in); got != tt.want {
			t.Errorf("Name(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want, lines string }{
		{"open x.pcap: no such file", "open x.pcap: no such file", "open x.pcap: no such file"},
		{"open a\nb: no such file", `open a\nb: no such file`, "open a\nb: no such file"},
		{"x\x1b[2J\u202E\x9B", `x\x1b[2J\u202e\x9b`, `x\x1b[2J\u202e\x9b`},
		{"bad filter\n  a ==\n    ^\x07", `bad filter\n  a ==\n    ^\a`, "bad filter\n  a ==\n    ^\\a"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got := EscapeLines(tt.in); got != tt.lines {
			t.Errorf("EscapeLines(%q) = %s, want %s", tt.in, got, tt.lines)
		}
	}
}

func TestAppend(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\u202E\x00", `"\u202e\x00"`},
	} {
		if got := string(Append(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("Append(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":"plain é"}`, `{"a":"plain é"}`},
		{"{\"a\":\"x\u202Ey\u0085\x7F\"}", `{"a":"x\u202ey\u0085\u007f"}`},
		{"[\"\U000E0001\"]", `["\udb40\udc01"]`}, // a tag character (Cf) above U+FFFF
	} {
		got := string(JSON([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("JSON(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var a, b any
		if json.Unmarshal([]byte(tt.in), &a) != nil || json.Unmarshal([]byte(got), &b) != nil {
			t.Fatalf("not JSON: %s", got)
		}
		if ja, _ := json.Marshal(a); string(ja) != string(mustMarshal(b)) {
			t.Errorf("JSON(%q) changed the value", tt.in)
		}
	}
}

func mustMarshal(v any) []byte { b, _ := json.Marshal(v); return b }

// Whatever the input, the text forms hold no rune Printable rejects (but
// the newlines EscapeLines keeps), and JSON stays JSON of the same value.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b]0;x\x07", "\u202e\u2066\x9b\xff", "x\ny", `"\`, "\U000E0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Name": Name(s), "Escape": Escape(s), "String": String(s),
			"Append": string(Append(nil, []byte(s))), "EscapeLines": EscapeLines(s)} {
			for _, l := range strings.Split(out, "\n") {
				if name != "EscapeLines" && l != out {
					t.Fatalf("%s(%q) has a newline: %q", name, s, out)
				}
				if !Safe(l) {
					t.Fatalf("%s(%q) = %q is not safe", name, s, out)
				}
			}
		}
		if !utf8.ValidString(s) {
			return // encoding/json would write U+FFFD first
		}
		doc, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		esc := JSON(doc)
		var back string
		if err := json.Unmarshal(esc, &back); err != nil || back != s {
			t.Fatalf("JSON(%s) = %s decodes to %q, %v", doc, esc, back, err)
		}
		if bytes.ContainsRune(esc, 0x7F) || !Safe(string(esc)) {
			t.Fatalf("JSON(%s) = %s is not safe", doc, esc)
		}
	})
}

// AppendName shows a name as Name does, from bytes: a GameSpy key is bare
// when printable, quoted with escapes when not.
func TestAppendName(t *testing.T) {
	for _, s := range []string{"hostname", "", "k\x1b[2J", "k\u202e", "k\xff", "naïve", "a\"b"} {
		if got := string(AppendName([]byte("> "), []byte(s))); got != "> "+Name(s) {
			t.Errorf("AppendName(%q) = %q, want %q", s, got, "> "+Name(s))
		}
	}
}
