package render

import (
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/fatih/color"
)

// appendFloat32, with and without a memo, is strconv's float32 %g byte for
// byte: the cv3 table's texts, and the memo's remembered ones.
func TestAppendFloat32MatchesStrconv(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.1, 26.1, 1e6, 999999, 1e7, 123456,
		1e-4, 1e-5, 1e-45, math.MaxFloat32, float32(math.Inf(1)), float32(math.NaN())}
	for k := -128; k <= 128; k++ { // the cv3 values and their neighbours
		f := float32(k) / 127
		vals = append(vals, f, math.Nextafter32(f, 2), math.Nextafter32(f, -2))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		vals = append(vals, math.Float32frombits(rng.Uint32()),
			float32(rng.Uint32()%1000000)/float32(1+rng.IntN(1000))) // game times, speeds
	}
	var m recordMemo
	for pass := range 2 { // the second pass reads the memo
		for _, v := range vals {
			want := "x" + strconv.FormatFloat(float64(v), 'g', -1, 32)
			if got := string(appendFloat32([]byte("x"), v)); got != want {
				t.Fatalf("%#08x: %s, want %s", math.Float32bits(v), got, want)
			}
			if got := string(m.appendFloat32([]byte("x"), v)); got != want {
				t.Fatalf("memo pass %d: %#08x: %s, want %s", pass, math.Float32bits(v), got, want)
			}
		}
	}
}

// appendDateClock is package time's formatting, where it answers.
func TestAppendDateClock(t *testing.T) {
	secs := []int64{-1, 0, 1, 86399, 86400, 951782400, 951868800, 4107542400, 253402300799, 253402300800}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		secs = append(secs, rng.Int64N(253402300800), 1.7e9+rng.Int64N(1e9))
	}
	for _, sec := range secs {
		tm := time.Unix(sec, 0).UTC()
		for _, tc := range []struct {
			sep    byte
			layout string
		}{{'T', "2006-01-02T15:04:05"}, {' ', "2006-01-02 15:04:05"}} {
			got, ok := appendDateClock([]byte("x"), sec, tc.sep)
			if want := tm.Year() >= 1970 && tm.Year() <= 9999; ok != want {
				t.Fatalf("%d: ok %v, want %v", sec, ok, want)
			}
			if want := "x" + tm.Format(tc.layout); ok && string(got) != want {
				t.Fatalf("%d: %s, want %s", sec, got, want)
			}
		}
	}
}

// appendQuote is strconv.AppendQuote.
func TestAppendQuote(t *testing.T) {
	ins := []string{"", "scripts/mainmenu", `a"b`, `a\b`, "tab\there", "caf\xe9", "ok \u00e9", "\x7f", "~ !"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(0x1e + rng.IntN(0x64))
		}
		ins = append(ins, string(b))
	}
	for _, s := range ins {
		if got, want := string(appendQuote(nil, []byte(s))), strconv.Quote(s); got != want {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}

// The pre-built escape codes are what fatih/color writes.
func TestInkMatchesColor(t *testing.T) {
	for _, attrs := range [][]color.Attribute{
		{color.Faint}, {color.FgCyan}, {color.FgGreen}, {color.FgBlue, color.Bold},
		{color.FgYellow, color.Bold}, {color.FgRed, color.Bold}, {color.FgMagenta},
	} {
		c := color.New(attrs...)
		c.EnableColor()
		p := Palette{on: true}
		for _, s := range []string{"", "text", "42 !code@7"} {
			if got, want := string(p.paint(nil, newInk(attrs...), []byte(s))), c.Sprint(s); got != want {
				t.Errorf("%v %q: %q, want %q", attrs, s, got, want)
			}
		}
	}
}

// Once warm, every renderer formats a record without allocating, so that
// rendering costs no garbage collection and can run on any goroutine.
func TestRenderAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("dissects a capture")
	}
	dgs := session3Datagrams(t)
	table := func(pal Palette, tf TimeFormat, compact bool) Reporter {
		r := NewTable(io.Discard, pal, false)
		r.SetTimeFormat(tf)
		if compact {
			r.SetCompact(Compact{Width: 80})
		}
		return r
	}
	hex := func(pal Palette, cipher bool, tf TimeFormat) Reporter {
		r := NewHex(io.Discard, pal, cipher, false)
		r.SetTimeFormat(tf)
		return r
	}
	for _, tc := range []struct {
		name string
		rep  Reporter
	}{
		{"json", NewJSON(io.Discard, false)},
		{"table", table(NewPalette(false), TimeRel, false)},
		{"table colour abs", table(NewPalette(true), TimeAbs, false)},
		{"table epoch", table(NewPalette(false), TimeEpoch, false)},
		{"table delta compact", table(NewPalette(true), TimeDelta, true)},
		{"hex", hex(NewPalette(false), false, TimeRel)},
		{"hex colour cipher abs", hex(NewPalette(true), true, TimeAbs)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := func() {
				for i := range dgs {
					if err := tc.rep.Datagram(&dgs[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			all() // buffers grow, compact labels are defined
			if n := testing.AllocsPerRun(2, all); n != 0 {
				t.Errorf("%v allocations per %d records", n, len(dgs))
			}
		})
	}
}
