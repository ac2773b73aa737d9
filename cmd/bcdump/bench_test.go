package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/capture/replicate"
	"github.com/bcdump/bcdump/report"
)

// End-to-end benchmarks on openbc-session-3.pcap (4325 datagrams of a
// three-bot battle) replicated to about a million datagrams: copies follow
// each other one second apart and each copy's clients get fresh ports, as on
// a server hosting game after game, so flows start, idle out and are freed
// as in a long real capture. BCDUMP_BENCH_COPIES overrides the 232 copies.
// Each op is one pass over the whole file; datagrams/s is the figure the
// issue 7 targets are stated in (.ci/measure prints them as a table).

var benchData struct {
	once      sync.Once
	file      []byte
	datagrams int
	err       error
}

// benchCapture returns the replicated capture and its datagram count.
func benchCapture(b *testing.B) ([]byte, int) {
	b.Helper()
	src := filepath.Join(benchSharedDir(b), "captures", "openbc-session-3.pcap")
	benchData.once.Do(func() {
		copies := 232
		if s := os.Getenv("BCDUMP_BENCH_COPIES"); s != "" {
			if copies, benchData.err = strconv.Atoi(s); benchData.err != nil {
				return
			}
		}
		raw, err := os.ReadFile(src)
		if err != nil {
			benchData.err = err
			return
		}
		s, err := replicate.Load(bytes.NewReader(raw), nil)
		if err != nil {
			benchData.err = err
			return
		}
		var out bytes.Buffer
		out.Grow(copies * (s.Size() + 16*s.Frames()))
		if benchData.err = s.Write(&out, replicate.Options{Copies: copies}); benchData.err != nil {
			return
		}
		benchData.file = out.Bytes()
		benchData.datagrams = copies * s.Frames()
	})
	if benchData.err != nil {
		b.Fatal(benchData.err)
	}
	return benchData.file, benchData.datagrams
}

// benchFile writes the replicated capture to a temporary file, for the
// benchmarks that go through the command line (file I/O from page cache).
func benchFile(b *testing.B) (string, int) {
	data, n := benchCapture(b)
	path := filepath.Join(b.TempDir(), "session3-replicated.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path, n
}

func reportRate(b *testing.B, datagrams int, start time.Time) {
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(datagrams)*float64(b.N)/el, "datagrams/s")
	b.ReportMetric(0, "ns/op") // one op is a whole file; the rate says it better
}

// BenchmarkStats is the `bcdump stats` path: reading, deciphering, framing,
// opcode decoding, per-flow tracking and reassembly, counted by report.Stats;
// no per-datagram output.
func BenchmarkStats(b *testing.B) {
	data, n := benchCapture(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		r, err := capture.NewReader(bytes.NewReader(data), "bench", capture.Options{})
		if err != nil {
			b.Fatal(err)
		}
		st := report.NewStats()
		d := dissect.New(dissect.Options{})
		if err := d.Run(r, st.Datagram); err != nil {
			b.Fatal(err)
		}
		if err := st.Finish(d.Finish()); err != nil {
			b.Fatal(err)
		}
		st.AddFlows("bench", d.Flows())
	}
	reportRate(b, n, start)
}

// BenchmarkDissect is BenchmarkStats without the collector: the dissector
// alone.
func BenchmarkDissect(b *testing.B) {
	data, n := benchCapture(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		r, err := capture.NewReader(bytes.NewReader(data), "bench", capture.Options{})
		if err != nil {
			b.Fatal(err)
		}
		d := dissect.New(dissect.Options{})
		if err := d.Run(r, func(*dissect.Datagram) error { return nil }); err != nil {
			b.Fatal(err)
		}
		d.Finish()
	}
	reportRate(b, n, start)
}

// benchCLI runs the command line on the replicated file, output discarded.
func benchCLI(b *testing.B, args ...string) {
	path, n := benchFile(b)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	args = append(args, path)
	var errb bytes.Buffer
	start := time.Now()
	for b.Loop() {
		errb.Reset()
		if code := run(args, nil, io.Discard, &errb); code != exitOK {
			b.Fatalf("bcdump %v: exit %d: %s", args, code, errb.String())
		}
	}
	reportRate(b, n, start)
}

// BenchmarkReadJSON is `bcdump read --format json FILE > /dev/null`.
func BenchmarkReadJSON(b *testing.B) { benchCLI(b, "read", "--format", "json") }

// BenchmarkReadTable is `bcdump read FILE > /dev/null` (one line per datagram).
func BenchmarkReadTable(b *testing.B) { benchCLI(b, "read", "--color", "never") }

// BenchmarkStatsCLI is `bcdump stats FILE > /dev/null`, once the command exists.
func BenchmarkStatsCLI(b *testing.B) {
	path, _ := benchFile(b)
	if code := run([]string{"stats", path}, nil, io.Discard, io.Discard); code != exitOK {
		b.Skip("bcdump stats does not run yet")
	}
	benchCLI(b, "stats")
}

// benchSharedDir locates ../shared beside the repository root (see
// helper-rules: skip without it unless BCDUMP_REQUIRE_SHARED=1).
func benchSharedDir(b testing.TB) string {
	b.Helper()
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			dir = ""
			break
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if fi, err := os.Stat(shared); dir == "" || err != nil || !fi.IsDir() {
		if os.Getenv("BCDUMP_REQUIRE_SHARED") == "1" {
			b.Fatalf("shared reference tree not found at %s; BCDUMP_REQUIRE_SHARED=1", shared)
		}
		b.Skipf("shared reference tree not found at %s", shared)
	}
	return shared
}
