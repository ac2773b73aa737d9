package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// traceCaptures are the test captures the trace round trips run on.
var traceCaptures = []string{
	"../../testdata/sample.pcap",
	"../../testdata/captures/stock-excerpts.pcap",
	"../../testdata/captures/openbc-session-2.pcap",
	"../../testdata/captures/openbc-session-3.pcap",
}

// msCopy writes the datagrams of a capture on the game port to a pcapng,
// times cut to the millisecond (all a packet_trace.log keeps) and moved by
// shift: the reference a trace written from it must read back as.
func msCopy(t *testing.T, path, out string, shift time.Duration) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := capture.NewAnnotatedWriter(f, r, "trace test reference")
	if err != nil {
		t.Fatal(err)
	}
	var p capture.Packet
	for {
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p.CaptureInfo.Timestamp = p.Time.Add(shift).Truncate(time.Millisecond)
		if err := w.Write(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// serverOf is the address on the game port of a capture's first datagram.
func serverOf(t *testing.T, path string) netip.AddrPort {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var p capture.Packet
	if err := r.Next(&p); err != nil {
		t.Fatal(err)
	}
	if p.Src.Port() == capture.DefaultPort {
		return p.Src
	}
	return p.Dst
}

func writeLog(t *testing.T, ref, out string, opt dissecttest.TraceLogOptions) {
	t.Helper()
	r, err := capture.Open(ref, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := dissecttest.WriteTraceLog(&b, r, opt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTraceLogRoundTrip: a packet_trace.log written from each test capture
// reads back to the same messages, fields, anomalies, session and profile
// as the capture (cut to milliseconds; here moved to cross midnight).
func TestTraceLogRoundTrip(t *testing.T) {
	peers := 1
	for _, c := range traceCaptures {
		t.Run(filepath.Base(c), func(t *testing.T) {
			dir := tempDir(t)
			server := serverOf(t, c)
			// Start 2 s before midnight: the log's date rolls over.
			r0, _ := capture.Open(c, capture.Options{})
			var p capture.Packet
			r0.Next(&p)
			r0.Close()
			start := p.Time.Truncate(24 * time.Hour).Add(24*time.Hour - 2*time.Second)
			ref := filepath.Join(dir, "ref.pcapng")
			msCopy(t, c, ref, start.Sub(p.Time.Truncate(time.Millisecond)))
			log := filepath.Join(dir, "packet_trace.log")
			writeLog(t, ref, log, dissecttest.TraceLogOptions{Server: server, Peers: peers})
			peers = -peers // every other capture has no peer table
			for _, args := range [][]string{
				{"read", "-F", "json"},
				{"read"},
				{"stats"},
				{"session"},
				{"profile"},
			} {
				want := runOK(t, append(args, ref)...)
				got := runOK(t, append(args, "--trace-server", server.String(), log)...)
				want = strings.ReplaceAll(want, ref, "INPUT")
				got = strings.ReplaceAll(got, log, "INPUT")
				if got != want {
					t.Errorf("%s: the log reads differently:\n%s", strings.Join(args, " "), traceDiff(want, got))
				}
			}
			// convert makes it a capture that reads the same again.
			conv := filepath.Join(dir, "conv.pcapng")
			runOK(t, "convert", "--trace-server", server.String(), log, "-w", conv)
			for _, args := range [][]string{{"read", "-F", "json"}, {"session"}} {
				want := runOK(t, append(args, ref)...)
				got := runOK(t, append(args, conv)...)
				if got = strings.ReplaceAll(got, conv, ref); got != want {
					t.Errorf("%s: the converted log reads differently:\n%s", strings.Join(args, " "), traceDiff(want, got))
				}
			}
		})
	}
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, nil, args...)
	if code != 0 && code != 1 {
		t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// traceDiff shows the first line where two outputs differ.
func traceDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\nwant " + w + "\ngot  " + g
		}
	}
	return ""
}

// gameMessages lists what an OBCTRACE keeps of a read -F json output: per
// direction, each game message once (retransmissions left out, fragmented
// ones once reassembled) with its opcode and fields.
func gameMessages(t *testing.T, jsonl string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var dg struct {
			Dir      string           `json:"dir"`
			Kind     string           `json:"kind"`
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &dg); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if dg.Kind != "game" {
			continue
		}
		for _, m := range dg.Messages {
			if r, ok := m["reassembled"].(map[string]any); ok {
				m = r
			} else if m["type_name"] != "Data" || m["fragment"] == true || m["retransmit"] == true {
				continue
			}
			f, _ := json.Marshal(m["fields"])
			out = append(out, fmt.Sprintf("%s %v %v %s %v", dg.Dir, m["opcode_name"], m["malformed"], f, m["payload_hex"]))
		}
	}
	return out
}

// TestOBCTraceRoundTrip: an OBCTRACE written from each test capture reads
// back to the same game messages and fields.
func TestOBCTraceRoundTrip(t *testing.T) {
	for _, c := range traceCaptures {
		t.Run(filepath.Base(c), func(t *testing.T) {
			r, err := capture.Open(c, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			n, err := dissecttest.WriteOBCTrace(&b, r, dissecttest.OBCTraceOptions{Server: serverOf(t, c), Tick: 10 * time.Millisecond})
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			obc := filepath.Join(tempDir(t), "trace.obc")
			if err := os.WriteFile(obc, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			want := gameMessages(t, runOK(t, "read", "-F", "json", c))
			code, out, errs := runCLI(t, nil, "read", "-F", "json", "--trace-tick", "10ms", obc)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, "OBCTRACE holds game messages only") {
				t.Errorf("stderr does not say what OBCTRACE lacks: %q", errs)
			}
			got := gameMessages(t, out)
			if len(got) != n || len(want) != n {
				t.Errorf("%d records written, %d messages in the capture, %d read back", n, len(want), len(got))
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Errorf("game messages differ:\n%s", traceDiff(w, g))
			}
		})
	}
}

// TestConvertTshark: Wireshark reads a converted trace, with the game
// payloads enciphered (its BC dissector is not needed) and the comments.
func TestConvertTshark(t *testing.T) {
	tshark := tsharkOrSkip(t)
	conv := filepath.Join(tempDir(t), "seed003.pcapng")
	runOK(t, "convert", "../../dissect/capture/testdata/trace/seed003.log", "-w", conv)
	out, err := exec.Command(tshark, "-r", conv, "-T", "fields", "-e", "frame.comment", "-e", "udp.srcport", "-e", "udp.length").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "trace #2 [ConnectAck + ChecksumReq Round 0]\t22101\t43") {
		t.Errorf("tshark reads:\n%s", out)
	}
}

// TestDiffProfileTrace: diff --profile between a stock packet_trace.log and
// a pcap of another server prints the opcode parity table and exits 1 when
// an opcode is on one side only; the log against its own capture is 0.
func TestDiffProfileTrace(t *testing.T) {
	dir := tempDir(t)
	stock := "../../testdata/captures/stock-excerpts.pcap"
	ref := filepath.Join(dir, "ref.pcapng")
	msCopy(t, stock, ref, 0)
	log := filepath.Join(dir, "packet_trace.log")
	writeLog(t, ref, log, dissecttest.TraceLogOptions{})
	other := "../../testdata/captures/openbc-session-2.pcap"
	code, out, errs := runCLI(t, nil, "diff", "--profile", log, other)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	for _, s := range []string{"opcode parity (reference: " + log + "):",
		"c2s  0x19    TorpedoFire       only in reference  1          0",
		"s2c  0x35    MissionInit       only in other      0          5",
		"4 opcodes only in the reference"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if code, out, errs := runCLI(t, nil, "diff", log, ref); code != 0 {
		t.Errorf("diff of the log and its capture: exit %d: %s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, nil, "diff", "--profile", log, ref)
	if code != 0 || !strings.Contains(out, "0 opcodes only in the reference") {
		t.Errorf("the log against its capture: exit %d: %s%s", code, out, errs)
	}
}
