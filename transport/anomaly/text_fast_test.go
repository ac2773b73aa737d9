package anomaly

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"
)

// TestAppendFastMatchesFmt checks the fmt-free formatting against fmt on
// the verbs it takes and on random arguments, and that it declines the rest.
func TestAppendFastMatchesFmt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ints := []int64{0, 1, -1, 9, 10, 255, 256, 65535, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
	for range 200 {
		ints = append(ints, rng.Int64N(1<<40)-1<<39)
	}
	strs := []string{"", "a", "Bot0", `say "hi"`, "tab\there", "\x00\xff", "ünïcode", "scripts/ships"}
	addrs := []netip.AddrPort{
		netip.MustParseAddrPort("127.0.0.1:22101"), netip.MustParseAddrPort("0.0.0.0:0"),
		netip.MustParseAddrPort("255.255.255.255:65535"), netip.MustParseAddrPort("10.9.8.7:4000"),
	}
	durs := []time.Duration{0, 1, 999, time.Microsecond, 1500 * time.Microsecond, time.Second, 90 * time.Minute, -3 * time.Millisecond}
	cases := []struct {
		format string
		arg    func(v int64, s string, a netip.AddrPort, d time.Duration) (Arg, any)
		fast   bool
	}{
		{"n=%d.", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, true},
		{"n=%v", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, true},
		{"u=%d", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return U(uint64(v)), uint64(v) }, true},
		{"x=0x%08X", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return U(uint32(v)), uint32(v) }, true},
		{"x=%02x", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return U(uint8(v)), uint8(v) }, true},
		{"x=%X", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return U(uint16(v)), uint16(v) }, true},
		{"x=%x", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, false}, // negative: fmt
		{"s=%s!", func(_ int64, s string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return S(s), s }, true},
		{"q=%q", func(_ int64, s string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return S(s), s }, true},
		{"w=%8s", func(_ int64, s string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return S(s), s }, false},
		{"a=%s", func(_ int64, _ string, a netip.AddrPort, _ time.Duration) (Arg, any) { return AddrPort(a), a }, true},
		{"d=%s ago", func(_ int64, _ string, _ netip.AddrPort, d time.Duration) (Arg, any) { return D(d), d }, true},
		{"p=100%% %d", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, true},
		{"f=%.2f", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, false},
		{"e=%5d", func(v int64, _ string, _ netip.AddrPort, _ time.Duration) (Arg, any) { return I(v), v }, false},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			for i, v := range ints {
				arg, val := c.arg(v, strs[i%len(strs)], addrs[i%len(addrs)], durs[i%len(durs)])
				txt := Textf(c.format, arg)
				got, ok := txt.appendFast([]byte("prefix:"))
				if want := "prefix:" + fmt.Sprintf(c.format, val); ok && string(got) != want {
					t.Fatalf("%q with %v: got %q, want %q", c.format, val, got, want)
				}
				if !ok && string(got) != "prefix:" {
					t.Fatalf("%q: a declined format left %q", c.format, got)
				}
				if ok != c.fast && !(c.format == "x=%x" && v >= 0) {
					t.Fatalf("%q with %v: fast path taken %v, want %v", c.format, val, ok, c.fast)
				}
				if want := fmt.Sprintf(c.format, val); txt.String() != want {
					t.Fatalf("%q with %v: String %q, want %q", c.format, val, txt.String(), want)
				}
			}
		})
	}
	// Two arguments, and more arguments than verbs (fmt's %!(EXTRA ...)).
	two := Textf("round %s dir_hash 0x%08X", S("0xFF"), U(uint32(0xDEADBEEF)))
	if got, want := two.String(), "round 0xFF dir_hash 0xDEADBEEF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	extra := Textf("n=%d", I(1), I(2))
	if got, want := extra.String(), "n=1%!(EXTRA int64=2)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAppendMessageNoAllocs: printing a recorded anomaly allocates nothing.
func TestAppendMessageNoAllocs(t *testing.T) {
	a := Newf(Code(1), 0, 2, "round %s dir_hash 0x%08X, want 0x%08X = StringHash(%q) after %s", S("0xFF"), U(uint32(1)), U(uint32(2)), S("scripts"), D(1500*time.Microsecond))
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = a.AppendMessage(buf[:0]) }); n != 0 {
		t.Errorf("AppendMessage allocates %.1f times", n)
	}
}
