package dissect_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest/replicate"
	"github.com/bcdump/bcdump/report/render"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../testdata"

// runMode is a way to run a Session; runCapture gives everything its sink saw,
// the end events and the flows as bytes.
type runMode struct {
	name string
	opt  dissect.SessionOptions
}

var runModes = []runMode{
	{"serial", dissect.SessionOptions{Mode: dissect.Serial}},
	{"auto", dissect.SessionOptions{}},
	{"parallel-1", dissect.SessionOptions{Mode: dissect.Parallel, Workers: 1}},
	{"parallel-3", dissect.SessionOptions{Mode: dissect.Parallel, Workers: 3}},
}

func runCapture(t *testing.T, path string, m runMode) ([]byte, error) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := dissect.NewSession(m.opt)
	var out []byte
	runErr := s.Run(context.Background(), r, dissect.SinkFuncs{
		OnDatagram: func(dg *dissect.Datagram) error {
			out = render.AppendDatagramJSON(out, dg)
			out = append(out, '\n')
			return nil
		},
		OnFinish: func(end []dissect.Event) error {
			for _, e := range end {
				out = append(out, e.Code.String()...)
				out = append(out, ' ')
				out = strconv.AppendInt(out, int64(e.Frame), 10)
				out = append(out, ' ')
				out = e.AppendMessage(out)
				out = append(out, '\n')
			}
			return nil
		},
	})
	for _, f := range s.Flows() {
		out = fmt.Appendf(out, "%+v\n", f)
	}
	return out, runErr
}

// The parallel pipeline gives the sink exactly what the serial loop gives
// it, on every real capture and on a replicated capture long enough for many
// batches.
func TestParallelMatchesSerial(t *testing.T) {
	paths := []string{filepath.Join(testdata, "sample.pcap")}
	for _, c := range []string{"stock-excerpts", "openbc-session-2", "openbc-session-3"} {
		paths = append(paths, filepath.Join(testdata, "captures", c+".pcap"))
	}
	paths = append(paths, replicated(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"), 3))
	// A truncated file: the reader's error comes after the same datagrams.
	raw, err := os.ReadFile(paths[3])
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(tempDir(t), "cut.pcap")
	if err := os.WriteFile(cut, raw[:len(raw)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, cut)

	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, wantErr := runCapture(t, path, runModes[0])
			for _, m := range runModes[1:] {
				got, gotErr := runCapture(t, path, m)
				if !sameErr(gotErr, wantErr) {
					t.Errorf("%s: error %v, serial %v", m.name, gotErr, wantErr)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: output differs from serial (%d bytes vs %d)", m.name, len(got), len(want))
				}
			}
			if path == cut && wantErr == nil {
				t.Error("the cut file read without error")
			}
		})
	}
}

// When Auto's pipeline finds it gets too few cores (another process is
// busy), it hands the rest of the capture to Serial: the sink sees the
// same, whether the switch falls mid-capture, at the very end or not at all.
func TestCrowdedAutoMatchesSerial(t *testing.T) {
	path := replicated(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"), 2) // 271 batches
	want, wantErr := runCapture(t, path, runModes[0])
	for _, every := range []int{1, 5, 100, 270, 1000} {
		calls, restore := dissect.CrowdedAfter(every)
		got, gotErr := runCapture(t, path, runMode{"auto", dissect.SessionOptions{Workers: 2}})
		n := calls()
		restore()
		if !sameErr(gotErr, wantErr) || !bytes.Equal(got, want) {
			t.Errorf("switch after %d batches: error %v, %d bytes; serial: error %v, %d bytes", every, gotErr, len(got), wantErr, len(want))
		}
		if wantChecks := min(5, 1+270/every); n != wantChecks {
			t.Errorf("switch after %d batches: %d core checks, want %d", every, n, wantChecks)
		}
	}
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// replicated writes copies of src back to back into a temporary file.
func replicated(t testing.TB, src string, copies int) string {
	t.Helper()
	return writeReplica(t, loadSource(t, src), replicate.Options{Copies: copies})
}

// loadSource reads the capture at path for replicating.
func loadSource(t testing.TB, path string) *replicate.Source {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := replicate.Load(bytes.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeReplica writes src replicated with opt to a temporary file.
func writeReplica(t testing.TB, src *replicate.Source, opt replicate.Options) string {
	t.Helper()
	path := filepath.Join(tempDir(t), "replicated.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = src.Write(w, opt)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

var parallel2 = dissect.SessionOptions{Mode: dissect.Parallel, Workers: 2}

// The sink stopping early stops the pipeline: its error comes back, no datagram
// after it is delivered, and no goroutine is left behind.
func TestParallelEarlyStop(t *testing.T) {
	path := replicated(t, filepath.Join(testdata, "sample.pcap"), 40)
	stop := errors.New("stop")
	before := runtime.NumGoroutine()
	for _, at := range []int{1, 2, 127, 128, 129, 1000} {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = dissect.NewSession(parallel2).Run(context.Background(), r, dissect.SinkFuncs{OnDatagram: func(dg *dissect.Datagram) error {
			n++
			if dg.Frame != n {
				t.Fatalf("datagram %d is frame %d", n, dg.Frame)
			}
			if n == at {
				return stop
			}
			return nil
		}})
		r.Close()
		if err != stop || n != at {
			t.Errorf("stop at %d: err %v after %d datagrams", at, err, n)
		}
	}
	// Everything has ended when Run returns; a goroutine that called
	// wg.Done may still be unwinding, so allow it a moment to disappear.
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines left behind", g-before)
	}
}

// An empty capture and one whose first record is broken.
func TestParallelEdges(t *testing.T) {
	hdr := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0}
	broken := append(bytes.Clone(hdr), 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0)
	for _, tt := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{"empty", hdr, false},
		{"broken first record", broken, true},
	} {
		path := filepath.Join(tempDir(t), "f.pcap")
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = dissect.NewSession(parallel2).Run(context.Background(), r, dissect.SinkFuncs{OnDatagram: func(*dissect.Datagram) error { n++; return nil }})
		r.Close()
		if (err != nil) != tt.wantErr || n != 0 || errors.Is(err, io.EOF) {
			t.Errorf("%s: err %v, %d datagrams", tt.name, err, n)
		}
	}
}

// Workers left to Auto: one per core, Run's goroutine included, up to eight
// (past that the ordered steps are the bound and waits would outlast the
// spin); Workers set says exactly.
func TestHelpersFor(t *testing.T) {
	for _, c := range []struct{ workers, cores, want int }{
		{0, 1, 0}, {0, 2, 1}, {0, 4, 3}, {0, 8, 7}, {0, 16, 7}, {0, 128, 7},
		{3, 1, 3}, {15, 16, 15}, {1, 64, 1},
	} {
		if got := dissect.HelpersFor(c.workers, c.cores); got != c.want {
			t.Errorf("Workers %d on %d cores: %d helpers, want %d", c.workers, c.cores, got, c.want)
		}
	}
}
