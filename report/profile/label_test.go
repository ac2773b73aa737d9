package profile

import (
	"strings"
	"testing"
)

func TestMetricLabel(t *testing.T) {
	tests := []struct{ key, want string }{
		{"c2s.opcode.0x21.size_p50", "c2s.opcode.ChecksumResp(0x21).size_p50"},
		{"s2c.opcode.0x1C.rate_per_s", "s2c.opcode.StateUpdate(0x1C).rate_per_s"},
		{"c2s.acks.delay_p50_ms", "c2s.acks.delay_p50_ms"},
		{"c2s.opcode.0xZZ.size_p50", "c2s.opcode.0xZZ.size_p50"},
		{"c2s.opcode.0x2", "c2s.opcode.0x2"},
	}
	for _, tt := range tests {
		if got := metricLabel(tt.key); got != tt.want {
			t.Errorf("metricLabel(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// A label only ever adds an opcode's name to a key.
func FuzzMetricLabel(f *testing.F) {
	for _, s := range []string{"c2s.opcode.0x21.size_p50", "s2c.opcode.0xFF.per_flow", ".opcode.0x", "pair.connect.p50_ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := metricLabel(key)
		if got != key && (!strings.Contains(got, "(0x") || len(got) <= len(key)) {
			t.Errorf("metricLabel(%q) = %q", key, got)
		}
	})
}
