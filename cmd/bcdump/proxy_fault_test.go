package main

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/endpoint"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// faultRun joins one client through a proxy with the given faults, sends
// a 1200-byte (fragmented) and a small reliable message, waits settle,
// leaves, and returns the proxy run and its capture.
func faultRun(t *testing.T, hostCfg, clCfg endpoint.Config, settle time.Duration, args ...string) (*proxyRun, string, *testHost, *testClient) {
	t.Helper()
	host := newTestHost(t, hostCfg)
	capFile := filepath.Join(tempDir(t), "run.pcapng")
	pr := startProxy(t, append([]string{"--no-probe", "--server", host.addr, "-F", "json", "-w", capFile, "-p", portOf(host.addr)}, args...)...)
	cl := newTestClient(t, clCfg)
	cl.join(t, pr.addr)
	cl.send(bigChat(), true)
	cl.send(append([]byte{0x2C, 0x02, 0, 0, 0, 2, 0}, "hi"...), true)
	time.Sleep(settle)
	cl.node.Do(func(e *endpoint.Endpoint) { _ = e.Disconnect(e.Peers()[0]) })
	time.Sleep(200 * time.Millisecond)
	pr.finish(t)
	if pr.code != 0 {
		t.Fatalf("proxy exit %d: %s", pr.code, pr.err.String())
	}
	return pr, capFile, host, cl
}

// bigChat is a chat message (0x2C) of 1200 bytes: three fragments.
func bigChat() []byte {
	text := bytes.Repeat([]byte("Make it so. "), 100)[:1193]
	return append([]byte{0x2C, 0x02, 0, 0, 0, byte(len(text)), byte(len(text) >> 8)}, text...)
}

// TestProxyDropFragmentACKs: dropping the host's fragment ACKs (and only
// them) makes the client resend its fragments over and over; the
// capture shows the loop, every dropped ACK is a record.
func TestProxyDropFragmentACKs(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	fast := endpoint.Config{RetransmitBase: 100 * time.Millisecond, MaxRetries: -1}
	pr, capFile, host, _ := faultRun(t, endpoint.Config{}, fast, 1500*time.Millisecond,
		"--fault", `drop if dir == "s2c" && messages.ack_frag == true`)
	code, out, errs := runCLI(t, nil, "read", "-F", "json", "-p", portOf(host.addr), capFile)
	if code != 0 {
		t.Fatalf("read: exit %d %s", code, errs)
	}
	// The fragments are resent to the end; the chat (seq 1) and the
	// Disconnect are ACKed once each and never resent.
	unacked := 0
	for _, a := range findings(t, out, "retransmit-unacked") {
		unacked++
		if msg, _ := a["message"].(string); !strings.Contains(msg, "3 fragments") {
			t.Errorf("retransmit-unacked of something else than the fragments: %s", msg)
		}
	}
	if unacked != 1 {
		t.Errorf("%d retransmit-unacked events, want 1 (the fragmented message)", unacked)
	}
	_, story, _ := runCLI(t, nil, "session", "-p", portOf(host.addr), capFile)
	// The session names the host's fault: it ACKed the client's other
	// messages but never its fragments.
	if !strings.Contains(story, "finding (host fault): the host never ACKed the client's fragments (it ACKed other messages)") {
		t.Errorf("session does not name the host fault:\n%s", story)
	}
	checkFaultRecords(t, pr, capFile, 1)
}

// checkFaultRecords checks that rule n acted and shows as JSON records, as
// packet comments in the capture and in the count on stop.
func checkFaultRecords(t *testing.T, pr *proxyRun, capFile string, n int) {
	t.Helper()
	b, _ := os.ReadFile(capFile)
	tag := fmt.Sprintf("bcdump proxy fault rule %d ", n)
	comments := bytes.Count(b, []byte(tag))
	records := 0
	for _, r := range jsonRecords(t, pr.out.String()) {
		if r["kind"] == "fault" && strings.HasPrefix(r["fault"].(string), tag[len("bcdump proxy "):]) {
			records++
		}
	}
	var count int
	for _, l := range strings.Split(pr.err.String(), "\n") {
		if i := strings.Index(l, fmt.Sprintf("rule %d ", n)); i >= 0 && strings.HasPrefix(l, "bcdump: faults applied") {
			fmt.Sscanf(l[strings.LastIndex(l, ": ")+2:], "%d", &count)
		}
	}
	if comments == 0 || comments != records {
		t.Errorf("rule %d: %d packet comments, %d JSON fault records", n, comments, records)
	}
	if count == 0 || count < records {
		t.Errorf("rule %d: count on stop %d for %d records:\n%s", n, count, records, pr.err.String())
	}
}

// findings returns the anomalies with code of the event and summary
// records of a JSON output.
func findings(t *testing.T, out, code string) []map[string]any {
	var v []map[string]any
	for _, r := range jsonRecords(t, out) {
		switch r["kind"] {
		case "event":
			if r["code"] == code {
				v = append(v, r)
			}
		case "summary":
			as, _ := r["anomalies"].([]any)
			for _, a := range as {
				if m := a.(map[string]any); m["code"] == code {
					v = append(v, m)
				}
			}
		}
	}
	return v
}

// TestProxyStockFragmentBug: correct ACKs, but a client with the stock
// bug: the capture shows seed 001's finding.
func TestProxyStockFragmentBug(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	buggy := endpoint.Config{RetransmitBase: 100 * time.Millisecond, StockFragmentBug: true}
	_, capFile, host, _ := faultRun(t, endpoint.Config{}, buggy, time.Second)
	code, out, errs := runCLI(t, nil, "read", "-F", "json", "-p", portOf(host.addr), capFile)
	if code != 0 {
		t.Fatalf("read: exit %d %s", code, errs)
	}
	if n := len(findings(t, out, "unacked-fragment-retransmit")); n != 1 {
		t.Errorf("%d unacked-fragment-retransmit findings, want 1", n)
	}
	if n := len(findings(t, out, "retransmit-unacked")); n != 0 {
		t.Errorf("%d retransmit-unacked findings, want 0", n)
	}
}

// TestProxyDelay: the client's datagrams held 300 ms show in the round
// trip of the host's messages (first send to the ACK, as relayed).
func TestProxyDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	pr, capFile, host, _ := faultRun(t, endpoint.Config{}, endpoint.Config{}, 500*time.Millisecond,
		"--fault", `delay 300ms if dir == "c2s"`)
	code, out, _ := runCLI(t, nil, "read", "-F", "json", "-p", portOf(host.addr), capFile)
	if code != 0 {
		t.Fatal("read failed")
	}
	n := 0
	for _, r := range jsonRecords(t, out) {
		msgs, _ := r["messages"].([]any)
		for _, mi := range msgs {
			m := mi.(map[string]any)
			if rtt, ok := m["rtt_ms"].(float64); ok && r["dir"] == "c2s" {
				n++
				if rtt < 300 || rtt > 1000 {
					t.Errorf("frame %v: rtt %.3f ms with a 300 ms delay", r["frame"], rtt)
				}
			}
		}
	}
	if n < 2 {
		t.Errorf("%d round trips measured", n)
	}
	checkFaultRecords(t, pr, capFile, 1)
}

// TestProxyDup: every reliable message of the client three times: the
// host suppresses the copies, the capture shows them.
func TestProxyDup(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	pr, capFile, host, _ := faultRun(t, endpoint.Config{}, endpoint.Config{}, 300*time.Millisecond,
		"--fault", `dup 2 if dir == "c2s" && messages.reliable == true`)
	time.Sleep(100 * time.Millisecond)
	host.mu.Lock()
	dups, got := host.dups, len(host.got)
	host.mu.Unlock()
	if !host.real && (dups < 4 || got != 2) {
		t.Errorf("host suppressed %d duplicates and delivered %d messages", dups, got)
	}
	code, out, _ := runCLI(t, nil, "read", "-F", "json", "-p", portOf(host.addr), capFile)
	if code != 0 {
		t.Fatal("read failed")
	}
	copies := 0
	for _, r := range jsonRecords(t, out) {
		msgs, _ := r["messages"].([]any)
		for _, mi := range msgs {
			if m := mi.(map[string]any); m["retransmit"] == true && r["dir"] == "c2s" {
				copies++
			}
		}
	}
	if copies < 4 {
		t.Errorf("%d copies in the capture", copies)
	}
	checkFaultRecords(t, pr, capFile, 1)
}

// TestProxyReorderCorrupt: the other actions run and are recorded; the
// endpoints survive them.
func TestProxyReorderCorrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	pr, capFile, _, _ := faultRun(t, endpoint.Config{}, endpoint.Config{RetransmitBase: 100 * time.Millisecond}, 800*time.Millisecond,
		"--fault", `reorder 50% if dir == "c2s" && msg_count > 1`,
		"--fault", `corrupt 30% if dir == "s2c"`, "--seed", "7")
	checkFaultRecords(t, pr, capFile, 2)
}

func TestProxyErrors(t *testing.T) {
	transporttest.NeedUDP(t)
	busy, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	closed, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.LocalAddr().String()
	closed.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", busy.LocalAddr().String(), "--server", "127.0.0.1:22101"}, "the port is in use"},
		{[]string{"--listen", "127.0.0.1:0", "--server", closedAddr}, "unreachable: nothing listens on that UDP port"},
		{[]string{"--listen", "127.0.0.1:0", "--server", "127.0.0.1:22101", "--fault", "drop if messages.typo == 1"},
			"--fault: unknown field 'messages.typo'\n  drop if messages.typo == 1\n          ^^^^^^^^^^^^^"},
		{[]string{"--listen", "127.0.0.1:0", "--server", "127.0.0.1:22101", "--fault", `explode if dir == "c2s"`},
			"--fault: unknown action 'explode'\n  explode if dir == \"c2s\"\n  ^^^^^^^"},
		{[]string{"--listen", "127.0.0.1:0", "--server", "127.0.0.1:22101", "--fault", "dup 100"},
			"dup takes a count from 1 to 8"},
		{[]string{"--listen", "127.0.0.1:0", "--server", "127.0.0.1:22101", "--fault", "drop 150% if dir == \"c2s\""},
			"a probability is a percentage"},
	} {
		code, _, errs := runCLI(t, nil, append([]string{"proxy"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant %q", tc.args, code, errs, tc.want)
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 3 {
			t.Errorf("%v: more than the error:\n%s", tc.args, errs)
		}
	}
}

// TestProxyHeldBound: with maxHeld datagrams held already, a delay or
// reorder fault sends the datagram on at once and its record says why.
func TestProxyHeldBound(t *testing.T) {
	transporttest.NeedUDP(t)
	// A server that never answers: the test's datagrams are the only
	// traffic.
	silent, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	r := testRelay(t, silent.LocalAddr().String(), []string{"delay 1s", "reorder"})
	r.opt.maxHeld = 0
	c := r.client(netip.MustParseAddrPort("127.0.0.1:9"))
	judge := newFaultJudge(r.opt.rules, r.opt.dissect, 1)
	for ri, want := range []string{
		`fault rule 1 "delay 1s": delay: not delayed, too many datagrams held`,
		`fault rule 2 "reorder": reorder: not held, too many datagrams held`,
	} {
		r.applyWhole(c, dissect.C2S, benchDatagram, judge, ri, "")
		select {
		case rec := <-r.queue:
			if rec.fault != want || !rec.passed {
				t.Errorf("rule %d: fault %q (passed %v), want %q, passed", ri+1, rec.fault, rec.passed, want)
			}
			r.pool <- rec
		default:
			t.Fatalf("rule %d: the datagram was not sent on", ri+1)
		}
	}
	if n := r.heldOverflow.Load(); n != 2 {
		t.Errorf("heldOverflow %d, want 2", n)
	}
	if n := r.held.Load(); n != 0 {
		t.Errorf("%d datagrams held, want 0", n)
	}
}
