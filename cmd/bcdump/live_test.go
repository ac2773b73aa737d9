//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// syncBuffer is a bytes.Buffer that the command writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// needLive skips unless live capture on lo is permitted; with
// BCDUMP_REQUIRE_LIVE=1 (CI, as root) it fails instead. It also takes the
// live-test lock for the rest of the test.
func needLive(t *testing.T) {
	t.Helper()
	l, err := capture.OpenLive("lo", capture.LiveOptions{Ports: []uint16{9}})
	if err != nil {
		if os.Getenv("BCDUMP_REQUIRE_LIVE") == "1" {
			t.Fatalf("BCDUMP_REQUIRE_LIVE=1 but: %v", err)
		}
		t.Skipf("live capture on lo not possible (root or CAP_NET_RAW needed): %v", err)
	}
	l.Close()
	lockLive(t)
}

// liveCLI runs bcdump live in the background; wait returns its results.
type liveCLI struct {
	out, err syncBuffer
	done     chan int
}

func startLive(t *testing.T, args ...string) *liveCLI {
	t.Helper()
	c := &liveCLI{done: make(chan int, 1)}
	go func() { c.done <- run(append([]string{"live"}, args...), nil, &c.out, &c.err) }()
	waitCapturing(t, &c.err, c.done)
	return c
}

// waitCapturing waits for live's start line on stderr: traffic sent
// before the socket is up would be missed. done reports an early exit.
func waitCapturing(t *testing.T, stderr *syncBuffer, done <-chan int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stderr.String(), "capturing on") {
		select {
		case code := <-done:
			t.Fatalf("live exited %d before capturing: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("live did not start: %q", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *liveCLI) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-c.done:
		return code
	case <-time.After(60 * time.Second):
		t.Fatalf("live did not stop; stderr %q", c.err.String())
		return -1
	}
}

// loopSession is the sample session replayed over loopback: the client and
// server sockets, and where each sits.
type loopSession struct {
	sess     *dissecttest.Session
	cli, srv *net.UDPConn
	gamePort []string // --port flag when the server could not have 22101
}

func newLoopSession(t *testing.T) *loopSession {
	t.Helper()
	ls := &loopSession{sess: dissecttest.Sample()}
	lo := netip.MustParseAddr("127.0.0.1")
	srv, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(lo, capture.DefaultPort)))
	if err != nil {
		t.Logf("port %d busy (%v); serving on another game port", capture.DefaultPort, err)
		if srv, err = net.ListenUDP("udp4", &net.UDPAddr{IP: lo.AsSlice()}); err != nil {
			t.Fatal(err)
		}
		ls.gamePort = []string{"--port", strconv.Itoa(srv.LocalAddr().(*net.UDPAddr).Port)}
	}
	cli, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(lo, ls.sess.Client.Port())))
	if err != nil {
		if cli, err = net.ListenUDP("udp4", &net.UDPAddr{IP: lo.AsSlice()}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { cli.Close(); srv.Close() })
	ls.cli, ls.srv = cli, srv
	ls.sess.Client = cli.LocalAddr().(*net.UDPAddr).AddrPort()
	ls.sess.Server = srv.LocalAddr().(*net.UDPAddr).AddrPort()
	return ls
}

// send sends datagrams [from, to) of the session in order, each from its
// side's socket.
func (ls *loopSession) send(t *testing.T, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		d := &ls.sess.Datagrams[i]
		var err error
		if d.C2S {
			_, err = ls.cli.WriteToUDPAddrPort(d.Wire(), ls.sess.Server)
		} else {
			_, err = ls.srv.WriteToUDPAddrPort(d.Wire(), ls.sess.Client)
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// referencePcap writes the session as a file capture (Ethernet, IPv4, UDP)
// with the given frame times at nanosecond resolution.
func (ls *loopSession) referencePcap(t *testing.T, times []time.Time) string {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for i := range ls.sess.Datagrams {
		d := ls.sess.Datagrams[i]
		d.Time = times[i]
		frame, err := ls.sess.Frame(&d)
		if err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: d.Time, CaptureLength: len(frame), Length: len(frame)}
		if err := w.WritePacket(ci, frame); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(tempDir(t), "reference.pcap")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// datagramTimes are the "time" values of the datagram lines of JSON output.
func datagramTimes(t *testing.T, out string) []time.Time {
	t.Helper()
	var times []time.Time
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var v struct {
			Kind string    `json:"kind"`
			Time time.Time `json:"time"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if v.Kind != "summary" {
			times = append(times, v.Time)
		}
	}
	return times
}

// lockLive serializes the live tests of every test process on this host:
// each captures all of lo's traffic on the game port, so two running at
// once (go test of this package from two shells) would see each other's.
func lockLive(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "bcdump-live-test.lock"), os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			t.Fatalf("live-test lock %s: %v", f.Name(), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}

// The whole sample session sent over loopback decodes live exactly as the
// same datagrams (same addresses, same times) decode from a file, and the
// -w file reads back to the same output.
// On "any" the frames are Linux cooked (SLL2), in the -w file too.
func TestLiveLoopbackSession(t *testing.T) {
	needLive(t)
	for _, iface := range []string{"lo", capture.AnyInterface} {
		t.Run(iface, func(t *testing.T) { testLiveSession(t, iface) })
	}
}

func testLiveSession(t *testing.T, iface string) {
	ls := newLoopSession(t)
	n := len(ls.sess.Datagrams)
	wfile := filepath.Join(tempDir(t), "live.pcapng")
	args := append([]string{"-i", iface, "-c", strconv.Itoa(n), "--format", "json", "-w", wfile, "--duration", "45s"}, ls.gamePort...)
	start := time.Now()
	c := startLive(t, args...)
	ls.send(t, 0, n)
	code := c.wait(t)
	live, stderr := c.out.String(), c.err.String()
	t.Logf("stderr:\n%s", stderr)
	if code != 0 {
		t.Fatalf("live: exit %d, stderr %q", code, stderr)
	}
	summary := fmt.Sprintf("bcdump: %d datagrams in %d frames captured on %s, 0 dropped by the kernel; 1 flow, ", n, n, iface)
	if !strings.Contains(stderr, summary) || strings.Contains(stderr, "Captures:") {
		t.Errorf("stderr should end with %q and have no tables:\n%s", summary, stderr)
	}

	times := datagramTimes(t, live)
	if len(times) != n {
		t.Fatalf("%d datagrams decoded live, want %d:\n%s", len(times), n, live)
	}
	for i, tm := range times {
		if tm.Before(start) || time.Since(tm) < 0 || i > 0 && tm.Before(times[i-1]) {
			t.Fatalf("datagram %d: time %v out of order or outside the test", i+1, tm)
		}
	}
	ref := ls.referencePcap(t, times)
	readArgs := append([]string{"read", "--format", "json"}, ls.gamePort...)
	code, fromFile, errs := runCLI(t, nil, append(readArgs, ref)...)
	if code != 0 {
		t.Fatalf("read reference: exit %d %s", code, errs)
	}
	if live != fromFile {
		t.Errorf("live output differs from the file decode of the same session:\n%s", lineDiff(live, fromFile))
	}
	for _, want := range []string{`"reassembled":{"len":832,"frags":3,"opcode":33,"opcode_name":"ChecksumResp"`, `"text":"hello"`, `"type_name":"Disconnect"`, `"kind":"gamespy"`} {
		if !strings.Contains(live, want) {
			t.Errorf("live output lacks %s", want)
		}
	}

	wantLink := layers.LinkTypeEthernet
	if iface == capture.AnyInterface {
		wantLink = layers.LinkTypeLinuxSLL2
	}
	r, err := capture.Open(wfile, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var p capture.Packet
	if err := r.Next(&p); err != nil || r.Format() != "pcapng" || p.LinkType != wantLink {
		t.Errorf("-w file: %s with link type %v (%v), want pcapng with %v", r.Format(), p.LinkType, err, wantLink)
	}
	r.Close()
	code, reread, errs := runCLI(t, nil, append(readArgs, wfile)...)
	if code != 0 {
		t.Fatalf("read -w file: exit %d %s", code, errs)
	}
	if reread != live {
		t.Errorf("-w file reads back differently:\n%s", lineDiff(live, reread))
	}
}

// SIGINT stops a capture cleanly: what arrived is printed, the summary
// follows on stderr, exit 0.
func TestLiveInterrupt(t *testing.T) {
	needLive(t)
	ls := newLoopSession(t)
	c := startLive(t, append([]string{"-i", "lo", "--duration", "45s"}, ls.gamePort...)...)
	const sent = 8
	ls.send(t, 0, sent)
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(c.out.String(), "\n") < sent && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := c.wait(t)
	out, stderr := c.out.String(), c.err.String()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != sent || !strings.Contains(lines[sent-1], "peer=2 ACK seq=1 low") {
		t.Errorf("table output:\n%s", out)
	}
	if !strings.Contains(stderr, fmt.Sprintf("bcdump: %d datagrams in %d frames captured on lo, 0 dropped by the kernel", sent, sent)) {
		t.Errorf("stderr lacks the summary:\n%s", stderr)
	}
}

// --duration alone ends a capture that sees no traffic.
func TestLiveDuration(t *testing.T) {
	needLive(t)
	c := startLive(t, "-i", "lo", "--port", "9", "--duration", "300ms", "-F", "json")
	if code := c.wait(t); code != 0 || c.out.String() != "" {
		t.Fatalf("exit %d, output %q, stderr %q", code, c.out.String(), c.err.String())
	}
	// One summary line; -v adds the stats tables before it.
	if errs := c.err.String(); strings.Contains(errs, "Captures:") || !strings.HasSuffix(errs, "0 dropped by the kernel; 0 flows, 0 anomalies\n") {
		t.Errorf("stop summary:\n%s", errs)
	}
	c = startLive(t, "-i", "lo", "--port", "9", "--duration", "300ms", "-v")
	if code := c.wait(t); code != 0 || !strings.Contains(c.err.String(), "Captures: lo") {
		t.Errorf("-v: exit %d, stderr %q", code, c.err.String())
	}
}

func TestLiveErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no interface flag", nil, `required flag(s) "interface" not set`},
		{"unknown interface", []string{"-i", "bcdump-nosuch0"}, `live: no interface "bcdump-nosuch0" (interfaces: `},
		{"bad format", []string{"-i", "lo", "-F", "xml"}, "--format must be table, json or hex"},
		{"negative count", []string{"-i", "lo", "-c", "-1"}, "-c -1"},
		{"bad port", []string{"-i", "lo", "--port", "70000"}, "--port 70000"},
		{"write to stdout", []string{"-i", "lo", "-w", "-"}, "-w -"},
		{"too many ports", append([]string{"-i", "lo"}, manyPorts(capture.MaxLivePorts)...), "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, append([]string{"live"}, tt.args...)...)
			if strings.Contains(errs, "CAP_NET_RAW") && tt.name == "too many ports" {
				t.Skip("not permitted; this check comes after opening the socket")
			}
			if code != exitTrouble || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, out, errs, tt.want)
			}
		})
	}
}

func manyPorts(n int) []string {
	var args []string
	for i := range n {
		args = append(args, "--port", strconv.Itoa(30000+i))
	}
	return args
}

// --fail-on judges a live capture at its end, as it does a file.
func TestLiveFailOn(t *testing.T) {
	needLive(t)
	ls := newLoopSession(t)
	c := startLive(t, append([]string{"-i", "lo", "-c", "1", "--fail-on", "warn", "-F", "json", "--duration", "45s"}, ls.gamePort...)...)
	// Not GameSpy, and no valid transport datagram: a peer id with a
	// message count the bytes do not hold.
	if _, err := ls.cli.WriteToUDPAddrPort([]byte{0x02, 0x05, 0x32}, ls.sess.Server); err != nil {
		t.Fatal(err)
	}
	code := c.wait(t)
	if code != exitFinding || !strings.Contains(c.err.String(), "bcdump: --fail-on warn: ") || strings.Count(c.out.String(), "\n") < 1 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 after the datagram", code, c.out.String(), c.err.String())
	}
}

// live -Y shows only matching datagrams (and -c counts those), while -w
// still writes every captured frame.
func TestLiveFilter(t *testing.T) {
	needLive(t)
	ls := newLoopSession(t)
	n := len(ls.sess.Datagrams)
	wfile := filepath.Join(tempDir(t), "live.pcapng")
	args := append([]string{"-i", "lo", "-Y", "kind == game and dir == s2c", "--format", "json", "-w", wfile, "--duration", "3s"}, ls.gamePort...)
	c := startLive(t, args...)
	ls.send(t, 0, n)
	code := c.wait(t)
	if code != 0 {
		t.Fatalf("live -Y: exit %d, stderr %q", code, c.err.String())
	}
	shown := 0
	for _, line := range strings.Split(strings.TrimSpace(c.out.String()), "\n") {
		var v struct{ Kind, Dir string }
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if v.Kind == "summary" {
			continue
		}
		if v.Kind != "game" || v.Dir != "s2c" {
			t.Errorf("live -Y showed a %s %s datagram", v.Kind, v.Dir)
		}
		shown++
	}
	want := 0
	for _, d := range ls.sess.Datagrams {
		if !d.C2S && !dissect.IsGameSpy(d.Wire()) {
			want++
		}
	}
	if shown != want {
		t.Errorf("live -Y showed %d datagrams, the session has %d s2c game datagrams", shown, want)
	}
	r, err := capture.Open(wfile, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var p capture.Packet
	frames := 0
	for r.Next(&p) == nil {
		frames++
	}
	if frames != n {
		t.Errorf("-w wrote %d frames, want every captured frame (%d)", frames, n)
	}
}
