package render

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// The JSON writer formats every float as strconv and every time as the
// time package would.
func TestJSONFloatMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 26.1, 1e6, 1e7, 123456789, 1e-5, 1e-45,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e39, -1e39, math.NaN(), math.Inf(1)}
	for range 20000 {
		vals = append(vals, float64(math.Float32frombits(rng.Uint32())), float64(int8(rng.Uint32()))/127)
	}
	// With a memo too, each value twice (the second from the memo,
	// unless another value took its place).
	var m recordMemo
	for i, v := range append(vals, vals...) {
		want := strconv.FormatFloat(v, 'g', -1, 32)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			want = "null"
		}
		if got := string(appendFloat(nil, v, nil)); got != want {
			t.Fatalf("appendFloat(%v) = %s, want %s", v, got, want)
		}
		if got := string(appendFloat([]byte("x"), v, &m)); got != "x"+want {
			t.Fatalf("appendFloat(%v) with a memo, pass %d = %s, want x%s", v, i/len(vals)+1, got, want)
		}
	}
}

func TestJSONTimeMatchesFormat(t *testing.T) {
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
	for _, tm := range times {
		got := string(appendTimeUTC(nil, tm))
		want := tm.UTC().Format(TimeLayout)
		if got != want {
			t.Fatalf("%v: %s, want %s", tm, got, want)
		}
	}
}

// JSON times have a fixed number of digits, so they sort as text in time
// order (the issue: "...:00Z" sorted after "...:00.002Z"); ts is the same
// instant in epoch seconds.
func TestJSONTimeSortsAsText(t *testing.T) {
	base := time.Date(2026, 11, 24, 0, 58, 0, 0, time.UTC)
	var texts []string
	for _, d := range []time.Duration{0, 2 * time.Millisecond, 20 * time.Millisecond, time.Second - 1, time.Second, 10 * time.Second} {
		texts = append(texts, string(appendTimeUTC(nil, base.Add(d))))
	}
	if !slices.IsSorted(texts) {
		t.Errorf("not sorted as text: %q", texts)
	}
	if texts[0] != "2026-11-24T00:58:00.000000000Z" {
		t.Errorf("%s", texts[0])
	}
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{base.Add(2 * time.Millisecond), "1795481880.002000000"},
		{time.Unix(0, 0), "0.000000000"},
		{time.Unix(-1, 750000000), "-0.250000000"},
		{time.Unix(-2, 0), "-2.000000000"},
		{time.Unix(math.MinInt64, 0), "-9223372036854775808.000000000"},
		{time.Unix(math.MinInt64, 5e8), "-9223372036854775807.500000000"},
		{time.Unix(math.MaxInt64, 999999999), "9223372036854775807.999999999"},
	} {
		got := string(appendEpoch(nil, tc.t))
		if got != tc.want {
			t.Errorf("appendEpoch(%v) = %s, want %s", tc.t, got, tc.want)
		}
		want := float64(tc.t.Unix()) + float64(tc.t.Nanosecond())/1e9
		if f, err := strconv.ParseFloat(got, 64); err != nil || math.Abs(f-want) > 1e-6*max(1, math.Abs(want)) {
			t.Errorf("%s parses as %v, %v", got, f, err)
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

// appendName writes identifiers without escaping: every name it is given
// must come out exactly as the escaping writer would write it.
func TestNamesNeedNoEscape(t *testing.T) {
	var names []string
	for i := range 256 {
		names = append(names, transport.Type(i).Name(), transport.AckResult(i).String(), anomaly.Severity(i).String())
		if op := game.Lookup(byte(i)); op != nil {
			names = append(names, op.Name)
		}
	}
	for _, in := range anomaly.All() {
		names = append(names, in.Code.String(), in.Severity.String())
	}
	names = append(names, dissect.C2S.String(), dissect.S2C.String(), dissect.KindGame.String(), dissect.KindGameSpy.String())
	for _, n := range names {
		if got, want := appendName(nil, n), appendStr(nil, n); string(got) != string(want) {
			t.Errorf("name %q: appendName %s, escaped %s", n, got, want)
		}
	}
}

// appendInt and appendUint write what strconv writes, at every digit count
// and at the edges.
func TestAppendIntMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := []int64{0, 1, 9, 10, 99, 100, -1, -9, -10, math.MaxInt32, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MinInt64, math.MinInt32}
	for p := int64(1); p < math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p)
	}
	for range 20000 {
		vals = append(vals, int64(rng.Uint64()), int64(rng.Uint32()), int64(rng.IntN(100000)))
	}
	for _, v := range vals {
		if got, want := appendInt([]byte("x"), v), strconv.AppendInt([]byte("x"), v, 10); string(got) != string(want) {
			t.Errorf("appendInt(%d) = %s, want %s", v, got, want)
		}
		if got, want := appendUint(nil, uint64(v)), strconv.AppendUint(nil, uint64(v), 10); string(got) != string(want) {
			t.Errorf("appendUint(%d) = %s, want %s", uint64(v), got, want)
		}
	}
}
