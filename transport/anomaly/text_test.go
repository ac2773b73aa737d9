package anomaly

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// TestTextMatchesSprintf: a lazily built message reads exactly as
// fmt.Sprintf would have printed it at once.
func TestTextMatchesSprintf(t *testing.T) {
	type dir uint8 // a named type New formats at once
	tests := []struct {
		format string
		args   []any
	}{
		{"plain text", nil},
		{"100%% sure", nil},
		{"seq %d reused", []any{uint16(65535)}},
		{"%s %s seq %d fragment %d, first sent in frame %d %s earlier", []any{"c2s", "low", uint16(7), uint16(2), 12, 1500 * time.Millisecond}},
		{"byte 0x%02X claims %d bits", []any{uint8(0xE0), uint8(7)}},
		{"class_id 0x%08X", []any{uint32(0xFFFFFFFF)}},
		{"negative %d, %x", []any{int32(-5), int64(-255)}},
		{"%s %s %s %s %s", []any{"a", "b", "c", "d", "e"}}, // more strings than fit
		{"%v and %d", []any{fmt.Errorf("boom"), dir(3)}},
		{"%d %d %d %d %d %d %d %d %d", []any{1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"missing %d %s", []any{1}},
	}
	for _, tt := range tests {
		want := fmt.Sprintf(tt.format, tt.args...)
		a := New(Retransmit, 0, 0, tt.format, tt.args...)
		if got := a.Message(); got != want {
			t.Errorf("New(%q): %q, want %q", tt.format, got, want)
		}
		if got := string(a.AppendMessage([]byte("x"))); got != "x"+want {
			t.Errorf("AppendMessage(%q): %q, want %q", tt.format, got, "x"+want)
		}
	}
}

func TestNewfDoesNotAllocate(t *testing.T) {
	name := "c2s"
	ap := netip.MustParseAddrPort("10.0.0.2:50000")
	var sink Anomaly
	n := testing.AllocsPerRun(100, func() {
		sink = Newf(Retransmit, 1, 2, "retransmission %d of %s seq %d, %s earlier, from %s",
			I(3), S(name), U(uint16(9)), D(time.Second), AddrPort(ap))
	})
	if n != 0 {
		t.Errorf("Newf: %v allocations, want 0", n)
	}
	if got, want := sink.Message(), "retransmission 3 of c2s seq 9, 1s earlier, from 10.0.0.2:50000"; got != want {
		t.Errorf("Newf: %q, want %q", got, want)
	}
}

func TestAddrPortArg(t *testing.T) {
	for _, s := range []string{"0.0.0.0:0", "255.255.255.255:65535", "192.168.1.20:22101", "[::1]:22101", "[::ffff:10.0.0.1]:5", "[fe80::1%eth0]:7"} {
		ap := netip.MustParseAddrPort(s)
		if got := Newf(PeerTimeout, 0, 0, "%s", AddrPort(ap)).Message(); got != ap.String() {
			t.Errorf("AddrPort(%s): %q", s, got)
		}
	}
}
