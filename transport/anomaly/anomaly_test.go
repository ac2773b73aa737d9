package anomaly

import (
	"strconv"
	"strings"
	"testing"
)

// The registry is well formed: each row sits at its code's index, names
// are unique kebab-case, and every field a reporter prints is set.
func TestRegistryRows(t *testing.T) {
	seen := map[string]bool{}
	for i, in := range registry {
		if i == 0 {
			if in != (Info{}) {
				t.Errorf("row 0 is reserved, got %+v", in)
			}
			continue
		}
		if in.Code != Code(i) {
			t.Errorf("row %d holds code %d (%s)", i, in.Code, in.Name)
		}
		if in.Name == "" || strings.Trim(in.Name, "abcdefghijklmnopqrstuvwxyz-") != "" || seen[in.Name] {
			t.Errorf("row %d: name %q empty, not kebab-case or repeated", i, in.Name)
		}
		seen[in.Name] = true
		if in.Severity < Note || in.Severity > Error || in.Group < Framing || in.Group > Limit ||
			in.Scope == 0 || in.Scope&^(OnDatagram|AsEvent) != 0 || in.Meaning == "" {
			t.Errorf("%s: incomplete row %+v", in.Name, in)
		}
		if strings.HasSuffix(in.Meaning, ".") || strings.Contains(in.Meaning, "\n") {
			t.Errorf("%s: meaning should be one line without a final period", in.Name)
		}
	}
	if len(All()) != len(registry)-1 {
		t.Errorf("All lists %d codes, registry has %d", len(All()), len(registry)-1)
	}
}

func TestCodeMethods(t *testing.T) {
	tests := []struct {
		code  Code
		name  string
		sev   Severity
		group Group
	}{
		{ShortDatagram, "short-datagram", Error, Framing},
		{Retransmit, "retransmit", Note, Delivery},
		{UnackedFragmentRetransmit, "unacked-fragment-retransmit", Warn, Delivery},
		{ChecksumFileUnknown, "checksum-file-unknown", Note, Checksum},
		{PayloadMalformed, "payload-malformed", Error, Payload},
		{TrackingLimit, "tracking-limit", Note, Limit},
		{0, "code(0)", Error, 0},
		{numCodes, "code(" + strconv.Itoa(int(numCodes)) + ")", Error, 0},
	}
	for _, tt := range tests {
		if tt.code.String() != tt.name || tt.code.Severity() != tt.sev || tt.code.Group() != tt.group {
			t.Errorf("code %d: %s %s %s, want %s %s %s", tt.code, tt.code, tt.code.Severity(), tt.code.Group(), tt.name, tt.sev, tt.group)
		}
		if c, ok := Parse(tt.name); ok != (tt.group != 0) || ok && c != tt.code {
			t.Errorf("Parse(%q) = %d, %v", tt.name, c, ok)
		}
	}
	a := New(SeqReuse, 2, 7, "seq %d", 5)
	if a.Severity() != Warn || a.Message() != "seq 5" || a.Msg != 2 || a.Offset != 7 {
		t.Errorf("New: %+v", a)
	}
}

func TestSeverityNames(t *testing.T) {
	for _, s := range []Severity{Note, Warn, Error} {
		if got, err := ParseSeverity(s.String()); err != nil || got != s {
			t.Errorf("ParseSeverity(%s) = %v, %v", s, got, err)
		}
	}
	if s, err := ParseSeverity("warning"); err != nil || s != Warn {
		t.Errorf("warning: %v %v", s, err)
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("fatal accepted")
	}
	if Severity(9).String() != "severity(9)" || Group(0).String() != "group(0)" || Scope(0).String() != "scope(0)" {
		t.Error("out-of-range names")
	}
}
