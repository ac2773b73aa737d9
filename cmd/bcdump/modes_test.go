package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
)

// sessionMode is one way the commands may run their Sessions.
type sessionMode struct {
	name     string
	mode     dissect.Mode
	workers  int
	maxprocs int // GOMAXPROCS during the run; 0 leaves it
}

var sessionModes = []sessionMode{
	{"auto-procs1", dissect.Auto, 0, 1},
	{"auto-procs2", dissect.Auto, 0, 2},
	{"auto-procs16", dissect.Auto, 0, 16},
	{"parallel-1", dissect.Parallel, 1, 0},
	{"parallel-2", dissect.Parallel, 2, 0},
	{"parallel-16", dissect.Parallel, 16, 0},
}

// runMode runs the command line with every capture decoded in mode m.
func runMode(t *testing.T, m sessionMode, args ...string) (int, string, string) {
	t.Helper()
	if m.maxprocs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(m.maxprocs))
	}
	var out, errb bytes.Buffer
	code := runWith(&streams{in: bytes.NewReader(nil), out: &out, err: &errb, mode: m.mode, workers: m.workers}, args)
	collectStderr(strings.Join(args, " "), errb.String())
	return code, out.String(), errb.String()
}

// runSerial runs the command line with every Session Serial.
func runSerial(t *testing.T, args ...string) (int, string, string) {
	return runMode(t, sessionMode{name: "serial", mode: dissect.Serial}, args...)
}

// Every command that decodes a capture prints exactly the same bytes
// (stdout, stderr, exit code) whatever the Session's mode and however many
// goroutines decode and render: the parallel pipeline tracks in capture
// order and renders after, and -Y, -c, -C, colour, the time formats and a
// capture broken mid-way do not change that.
func TestModesPrintTheSame(t *testing.T) {
	s3 := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	s2 := filepath.Join(testdata, "captures", "openbc-session-2.pcap")
	stock := filepath.Join(testdata, "captures", "stock-excerpts.pcap")
	data, err := os.ReadFile(s3)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(tempDir(t), "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)/5], 0o644); err != nil { // 14 batches, then a broken record
		t.Fatal(err)
	}
	small := []string{samplePcap, stock, s2, cut}
	all := append(small, s3) // 68 batches: slow under -race, so only a few
	if testing.Short() {
		// The cut capture still spans 14 batches of session 3.
		all = small
	}
	cases := []struct {
		args  []string
		files []string
	}{
		{[]string{"read", "--color", "never"}, all},
		{[]string{"read", "--color", "always"}, small},
		{[]string{"read", "-F", "json"}, all},
		{[]string{"read", "-F", "hex"}, small},
		{[]string{"read", "-F", "hex", "--cipher", "--color", "always"}, small},
		{[]string{"read", "-t", "delta"}, small},
		{[]string{"read", "-t", "abs", "-F", "hex"}, small},
		{[]string{"read", "-c", "300"}, small},
		{[]string{"read", "-F", "json", "-c", "1000"}, all},
		{[]string{"read", "-Y", "messages.retransmit"}, small},
		{[]string{"read", "-Y", "anomalies", "-F", "json", "-c", "7"}, small},
		{[]string{"read", "-Y", "messages.opcode_name == ChecksumResp", "-C", "2"}, small},
		{[]string{"read", "-Y", "anomalies", "-C", "1", "-c", "3", "-F", "hex"}, small},
		// Filters that keep few of session 3's datagrams, one with a -C
		// context window across batches.
		{[]string{"read", "-Y", "messages.opcode_name == ChecksumResp", "-C", "2"}, []string{s3}},
		{[]string{"read", "-Y", "messages.retransmit", "-F", "json"}, []string{s3}},
		{[]string{"read", "--fail-on", "warn", "-F", "json"}, small},
		{[]string{"stats"}, all},
		{[]string{"session"}, small},
		{[]string{"profile", "-F", "json"}, small},
	}
	for _, c := range cases {
		for _, f := range c.files {
			if testing.Short() && f == s3 {
				continue
			}
			args := append(append([]string(nil), c.args...), f)
			name := strings.Join(append(c.args, filepath.Base(f)), " ")
			t.Run(name, func(t *testing.T) {
				code, out, errs := runSerial(t, args...)
				for _, m := range sessionModes {
					mc, mout, merrs := runMode(t, m, args...)
					if mc != code || mout != out || merrs != errs {
						t.Errorf("%s: exit %d, %d bytes out, stderr %q; serial: exit %d, %d bytes, stderr %q (first difference at byte %d)",
							m.name, mc, len(mout), merrs, code, len(out), errs, firstDiff(mout, out))
					}
				}
			})
		}
	}
	// read -w writes the same annotated frames.
	for _, f := range []string{s2, cut} {
		dir := tempDir(t)
		ref := filepath.Join(dir, "serial.pcapng")
		code, _, errs := runSerial(t, "read", "-Y", "anomalies", "-w", ref, f)
		want, _ := os.ReadFile(ref) // none when the capture is broken
		if f == s2 && len(want) == 0 {
			t.Fatalf("serial read -w %s wrote nothing (exit %d, %s)", f, code, errs)
		}
		for _, m := range sessionModes {
			got := filepath.Join(dir, m.name+".pcapng")
			mc, _, merrs := runMode(t, m, "read", "-Y", "anomalies", "-w", got, f)
			b, _ := os.ReadFile(got)
			if mc != code || strings.ReplaceAll(merrs, got, ref) != errs || string(b) != string(want) {
				t.Errorf("%s: read -w %s: exit %d, %d bytes; serial: exit %d, %d bytes", m.name, filepath.Base(f), mc, len(b), code, len(want))
			}
		}
	}
	// Several captures in one run: headers and "file" keys between them.
	for _, format := range []string{"table", "json", "hex"} {
		args := []string{"read", "-F", format, samplePcap, cut, stock}
		code, out, errs := runSerial(t, args...)
		for _, m := range sessionModes {
			if mc, mout, merrs := runMode(t, m, args...); mc != code || mout != out || merrs != errs {
				t.Errorf("%s %v: output differs from serial at byte %d", m.name, args, firstDiff(mout, out))
			}
		}
	}
}

// firstDiff is the offset of the first byte where a and b differ.
func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
