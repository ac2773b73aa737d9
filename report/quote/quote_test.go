package quote

import (
	"encoding/json"
	"testing"
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
