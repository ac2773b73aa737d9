package report

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// The caches of the JSON writer change nothing in the output: every float
// (repeated, so both cache hits and misses are checked) and every time is
// formatted as strconv and time format them.
func TestFloatCacheIdentical(t *testing.T) {
	var c floatCache
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 26.1, 1e6, 1e7, 123456789, 1e-5, 1e-45,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e39, -1e39, math.NaN(), math.Inf(1)}
	for range 20000 {
		vals = append(vals, float64(math.Float32frombits(rng.Uint32())), float64(int8(rng.Uint32()))/127)
	}
	for round := range 2 {
		for _, v := range vals {
			got := string(appendFloatC(nil, v, &c))
			want := string(appendFloat(nil, v))
			if want != "null" && want != strconv.FormatFloat(v, 'g', -1, 32) {
				t.Fatalf("appendFloat(%v) = %s", v, want)
			}
			if got != want {
				t.Fatalf("round %d: cached %v = %s, want %s", round, v, got, want)
			}
		}
	}
}

func TestClockCacheIdentical(t *testing.T) {
	var c clockCache
	base := time.Date(2026, 11, 21, 17, 12, 18, 0, time.UTC)
	times := []time.Time{
		{}, time.Unix(0, 0), time.Unix(-1, 5), base, base.Add(time.Nanosecond), base.Add(587374 * time.Microsecond),
		base.Add(999999999), base.Add(time.Second), time.Date(12345, 1, 2, 3, 4, 5, 6, time.UTC),
		time.Date(-5, 1, 2, 3, 4, 5, 600, time.UTC), base.In(time.FixedZone("x", 3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	for i := range 5000 {
		times = append(times, base.Add(time.Duration(i)*1234567*time.Nanosecond))
	}
	for round := range 2 {
		for _, tm := range times {
			got := string(appendTimeUTC(nil, tm, &c))
			want := tm.UTC().Format(time.RFC3339Nano)
			if got != want {
				t.Fatalf("round %d: %v: %s, want %s", round, tm, got, want)
			}
		}
	}
}

// appendString copies plain runs in bulk; the escapes are unchanged.
func TestAppendStringEscapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"plain text", `"plain text"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\r\t\x00\x1f\x7f", `"\n\r\t\u0000\u001f\u007f"`},
		{"caf\xe9", "\"caf\u00e9\""},
		{"ok \u00e9 utf8", "\"ok \u00e9 utf8\""},
		{"end\x01", `"end\u0001"`},
	} {
		if got := string(appendString(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.in, got, tt.want)
		}
	}
}
