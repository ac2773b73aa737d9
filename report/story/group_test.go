package story

import (
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

func TestMessageKind(t *testing.T) {
	tests := []struct{ detail, want string }{
		{"payload-malformed: StateUpdate: flags: needs 1 byte", "StateUpdate"},
		{"payload-malformed: TorpedoFire: 1 extra byte after the layout", "TorpedoFire"},
		{"payload-malformed: round 2 dir_hash 0xB831D315, want 0xC017D1C4", ""},
		{"payload-malformed: no colon here", ""},
		{"payload-malformed: (x): y", ""},
	}
	for _, tt := range tests {
		code := anomaly.PayloadMalformed
		if got := messageKind(tt.detail, code); got != tt.want {
			t.Errorf("messageKind(%q) = %q, want %q", tt.detail, got, tt.want)
		}
	}
}

// The message kind is a word of the finding's text, never more.
func FuzzMessageKind(f *testing.F) {
	for _, s := range []string{"payload-malformed: StateUpdate: x", "a: b: c", ": : :", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, detail string) {
		k := messageKind(detail, anomaly.PayloadMalformed)
		if len(k) > len(detail) {
			t.Errorf("messageKind(%q) = %q", detail, k)
		}
	})
}
