package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/endpoint"
)

// The proxy tests run on real loopback sockets: a host endpoint (package
// transport/endpoint) or, with BCDUMP_TEST_SERVER=host:port, a real
// server; bcdump proxy in between; client endpoints in front.

// proxyRun is one bcdump proxy run in the background.
type proxyRun struct {
	addr     netip.AddrPort
	stop     context.CancelFunc
	done     chan struct{}
	code     int
	out, err bytes.Buffer
}

var proxyMu sync.Mutex // proxyStarted is one hook: one proxy at a time

func startProxy(t *testing.T, args ...string) *proxyRun {
	t.Helper()
	proxyMu.Lock()
	started := make(chan struct{})
	pr := &proxyRun{done: make(chan struct{})}
	proxyStarted = func(a netip.AddrPort, stop context.CancelFunc) {
		pr.addr, pr.stop = a, stop
		close(started)
	}
	go func() {
		defer close(pr.done)
		pr.code = run(append([]string{"proxy", "--listen", "127.0.0.1:0"}, args...), nil, &pr.out, &pr.err)
	}()
	select {
	case <-started:
	case <-pr.done:
		proxyStarted = nil
		proxyMu.Unlock()
		t.Fatalf("proxy exited %d: %s", pr.code, pr.err.String())
	case <-time.After(20 * time.Second):
		t.Fatal("proxy did not start")
	}
	return pr
}

// finish stops the proxy and waits for its summary.
func (pr *proxyRun) finish(t *testing.T) {
	t.Helper()
	pr.stop()
	select {
	case <-pr.done:
	case <-time.After(30 * time.Second):
		t.Fatal("proxy did not stop")
	}
	proxyStarted = nil
	proxyMu.Unlock()
	collectStderr("proxy", pr.err.String())
}

// testHost is the server side: a host endpoint on loopback, or the real
// server of BCDUMP_TEST_SERVER (then its events are not seen).
type testHost struct {
	addr   string
	real   bool
	node   *endpoint.Node
	mu     sync.Mutex
	events []endpoint.Event
	got    [][]byte // game payloads delivered
	dups   uint64   // duplicates suppressed on links that ended
}

func newTestHost(t *testing.T, cfg endpoint.Config) *testHost {
	t.Helper()
	if s := os.Getenv("BCDUMP_TEST_SERVER"); s != "" {
		return &testHost{addr: s, real: true}
	}
	h := &testHost{}
	cfg.Role = endpoint.Host
	cfg.OnEvent = func(ev endpoint.Event) {
		h.mu.Lock()
		defer h.mu.Unlock()
		ev.Payload = append([]byte(nil), ev.Payload...)
		h.events = append(h.events, ev)
		if ev.Kind == endpoint.EventMessage {
			h.got = append(h.got, ev.Payload)
		}
		if ev.Kind == endpoint.EventDisconnected {
			h.dups += ev.Peer.Stats().Duplicates
		}
	}
	n, err := endpoint.Listen(endpoint.New(cfg), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	h.node, h.addr = n, n.Addr().String()
	return h
}

func (h *testHost) kinds() []endpoint.EventKind {
	h.mu.Lock()
	defer h.mu.Unlock()
	var v []endpoint.EventKind
	for _, e := range h.events {
		if e.Kind != endpoint.EventGameSpy { // the proxy's start-up probe
			v = append(v, e.Kind)
		}
	}
	return v
}

// testClient is a client endpoint on loopback.
type testClient struct {
	node   *endpoint.Node
	mu     sync.Mutex
	events []endpoint.Event
	got    [][]byte
}

func newTestClient(t *testing.T, cfg endpoint.Config) *testClient {
	t.Helper()
	c := &testClient{}
	cfg.Role = endpoint.Client
	cfg.OnEvent = func(ev endpoint.Event) {
		c.mu.Lock()
		defer c.mu.Unlock()
		ev.Payload = append([]byte(nil), ev.Payload...)
		c.events = append(c.events, ev)
		if ev.Kind == endpoint.EventMessage {
			c.got = append(c.got, ev.Payload)
		}
	}
	n, err := endpoint.Listen(endpoint.New(cfg), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	c.node = n
	return c
}

func (c *testClient) has(k endpoint.EventKind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.events {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func (c *testClient) join(t *testing.T, proxy netip.AddrPort) *endpoint.Peer {
	t.Helper()
	c.node.Do(func(e *endpoint.Endpoint) {
		if _, err := e.Connect(proxy); err != nil {
			t.Error(err)
		}
	})
	waitFor(t, "the join", func() bool { return c.has(endpoint.EventConnected) })
	var p *endpoint.Peer
	c.node.Do(func(e *endpoint.Endpoint) { p = e.Peers()[0] })
	return p
}

func (c *testClient) send(payload []byte, reliable bool) {
	c.node.Do(func(e *endpoint.Endpoint) {
		if ps := e.Peers(); len(ps) > 0 {
			_ = e.Send(ps[0], payload, reliable)
		}
	})
}

func (c *testClient) pending() int {
	n := 0
	c.node.Do(func(e *endpoint.Endpoint) {
		for _, p := range e.Peers() {
			n += p.Pending()
		}
	})
	return n
}

func (c *testClient) peers() int {
	n := 0
	c.node.Do(func(e *endpoint.Endpoint) { n = len(e.Peers()) })
	return n
}

// jsonRecords reads JSON lines.
func jsonRecords(t *testing.T, s string) []map[string]any {
	t.Helper()
	var v []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		v = append(v, m)
	}
	return v
}

// dataMessages lists the game messages of JSON datagram records as
// "dir opcode len", first sends only, fragmented ones once reassembled.
func dataMessages(recs []map[string]any) []string {
	var v []string
	for _, r := range recs {
		if r["kind"] != "game" {
			continue
		}
		msgs, _ := r["messages"].([]any)
		for _, mi := range msgs {
			m := mi.(map[string]any)
			if m["type"] != float64(0x32) || m["retransmit"] == true || m["duplicate"] == true {
				continue
			}
			if m["fragment"] == true {
				re, ok := m["reassembled"].(map[string]any)
				if !ok {
					continue
				}
				v = append(v, fmt.Sprintf("%s 0x%02X %v", r["dir"], int(re["opcode"].(float64)), re["len"]))
				continue
			}
			v = append(v, fmt.Sprintf("%s 0x%02X %v", r["dir"], int(m["opcode"].(float64)), m["payload_len"]))
		}
	}
	return v
}

func TestProxyJoinChatLeave(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets, a few seconds")
	}
	host := newTestHost(t, endpoint.Config{})
	dir := tempDir(t)
	capFile := filepath.Join(dir, "run.pcapng")
	pr := startProxy(t, "--server", host.addr, "-F", "json", "-w", capFile, "-p", portOf(host.addr))
	cl := newTestClient(t, endpoint.Config{Name: "Picard"})
	cl.join(t, pr.addr)
	chat := append([]byte{0x2C, 0x02, 0, 0, 0, 5, 0}, "hello"...)
	cl.send(chat, true)
	cl.send(bigChat(), true) // three fragments
	cl.send(chat, false)
	if !host.real {
		waitFor(t, "the host to get 3 messages", func() bool { host.mu.Lock(); defer host.mu.Unlock(); return len(host.got) == 3 })
		host.node.Do(func(e *endpoint.Endpoint) { _ = e.Send(e.Peers()[0], chat, true) })
		waitFor(t, "the chat back", func() bool { cl.mu.Lock(); defer cl.mu.Unlock(); return len(cl.got) == 1 })
	}
	waitFor(t, "all ACKed", func() bool { return cl.pending() == 0 })
	cl.node.Do(func(e *endpoint.Endpoint) { _ = e.Disconnect(e.Peers()[0]) })
	waitFor(t, "the leave", func() bool { return cl.peers() == 0 })
	time.Sleep(300 * time.Millisecond) // the last ACK through the decoder
	pr.finish(t)
	if pr.code != 0 {
		t.Fatalf("proxy exit %d: %s", pr.code, pr.err.String())
	}
	if host.real {
		t.Logf("against %s:\n%s", host.addr, pr.err.String())
	}
	// What the endpoints logged, as the capture should show it.
	var want []string
	if !host.real {
		for _, p := range host.got {
			want = append(want, fmt.Sprintf("c2s 0x%02X %d", p[0], len(p)))
		}
		for _, p := range cl.got {
			want = append(want, fmt.Sprintf("s2c 0x%02X %d", p[0], len(p)))
		}
	}
	code, out, errs := runCLI(t, nil, "read", "-F", "json", "-p", portOf(host.addr), capFile)
	if code != 0 {
		t.Fatalf("read the capture: exit %d: %s", code, errs)
	}
	got := dataMessages(jsonRecords(t, out))
	if !host.real && strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("capture decodes to:\n%s\nthe endpoints logged:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The proxy's own JSON shows the same.
	if live := dataMessages(jsonRecords(t, pr.out.String())); strings.Join(live, "\n") != strings.Join(got, "\n") {
		t.Errorf("proxy output decodes to:\n%s\nthe capture to:\n%s", strings.Join(live, "\n"), strings.Join(got, "\n"))
	}
	for _, f := range []string{"table", "hex"} {
		code, out, errs := runCLI(t, nil, "read", "-F", f, "-p", portOf(host.addr), capFile)
		if code != 0 || !strings.Contains(out, "Chat") && !strings.Contains(out, "0x2C") {
			t.Errorf("read -F %s: exit %d, %s\n%s", f, code, errs, out)
		}
	}
	if !strings.Contains(pr.err.String(), "Picard") {
		t.Errorf("the session story on stop does not name the player:\n%s", pr.err.String())
	}
	if !host.real {
		ks := host.kinds()
		if ks[0] != endpoint.EventJoined || ks[len(ks)-1] != endpoint.EventDisconnected {
			t.Errorf("host events %v", ks)
		}
	}
}

func portOf(hostport string) string {
	i := strings.LastIndexByte(hostport, ':')
	return hostport[i+1:]
}
