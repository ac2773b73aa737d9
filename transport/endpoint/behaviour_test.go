package endpoint

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport"
)

// joined makes a host and a client on a simNet and runs the join.
func joined(t *testing.T, hostCfg, clCfg Config) (*simNet, *Endpoint, *Endpoint) {
	t.Helper()
	n := newSimNet(t)
	hostCfg.Role, clCfg.Role = Host, Client
	if clCfg.Name == "" {
		clCfg.Name = "Kirk"
	}
	h := n.add("host", hostAddr, hostCfg)
	c := n.add("client", clientAddr, clCfg)
	if _, err := c.Connect(hostAddr); err != nil {
		t.Fatal(err)
	}
	n.run(0, 0)
	if c.ID() != 2 || len(h.Peers()) != 1 || h.Peers()[0].Name() != "Kirk" {
		t.Fatalf("join failed: id %d, host peers %d, events %q", c.ID(), len(h.Peers()), n.events)
	}
	return n, h, c
}

func TestJoinChatLeave(t *testing.T) {
	n, h, c := joined(t, Config{}, Config{})
	hp, cp := h.Peers()[0], c.Peers()[0]
	chat := []byte{0x2C, 0x02, 0, 0, 0, 5, 0, 'h', 'e', 'l', 'l', 'o'}
	if err := c.Send(cp, chat, true); err != nil {
		t.Fatal(err)
	}
	state := []byte{0x1C, 1, 2, 3}
	_ = h.Send(hp, state, false)
	n.run(0, 0)
	if got := n.payload["host"]; len(got) != 1 || !bytes.Equal(got[0], chat) {
		t.Errorf("host got %q", got)
	}
	if got := n.payload["client"]; len(got) != 1 || !bytes.Equal(got[0], state) {
		t.Errorf("client got %q", got)
	}
	_ = c.Disconnect(cp)
	n.run(10*time.Second, 100*time.Millisecond)
	want := []string{
		"host: joined peer 2", "client: connected peer 1", `host: peer-info peer 2 "Kirk"`,
		`client: peer-info peer 1 "Kirk"`, "client: message peer 1 4B op 0x1C", "host: message peer 2 12B op 0x2C",
		"host: disconnected peer 2",
	}
	if got := strings.Join(n.events, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if len(h.Peers())+len(c.Peers()) != 0 {
		t.Errorf("peers left: host %d client %d", len(h.Peers()), len(c.Peers()))
	}
	// Every datagram decodes cleanly and, but for ACK repeats, nothing was
	// sent twice.
	for _, s := range n.log {
		decodeOK(t, s.plain)
	}
	if r := hp.Stats().Retransmissions + cp.Stats().Retransmissions; r != 0 {
		t.Errorf("%d retransmissions on a loss-free wire", r)
	}
}

// TestFragmentsReassembled sends payloads of every size class both ways.
func TestFragmentsReassembled(t *testing.T) {
	for _, size := range []int{1, 200, 503, 504, 505, 506, 1006, 1007, 5000, 60000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			n, h, c := joined(t, Config{}, Config{})
			p := make([]byte, size)
			for i := range p {
				p[i] = byte(i*31 + i>>8)
			}
			p[0] = 0x21
			if err := c.Send(c.Peers()[0], p, true); err != nil {
				t.Fatal(err)
			}
			if err := h.Send(h.Peers()[0], p, true); err != nil {
				t.Fatal(err)
			}
			n.run(0, 0)
			for _, who := range []string{"host", "client"} {
				if got := n.payload[who]; len(got) != 1 || !bytes.Equal(got[0], p) {
					t.Errorf("%s got %d payloads", who, len(got))
				}
			}
			for _, s := range n.log {
				if len(s.plain) > 512 {
					t.Errorf("%d-byte datagram", len(s.plain))
				}
				decodeOK(t, s.plain)
			}
			if c.Peers()[0].Pending()+h.Peers()[0].Pending() != 0 {
				t.Error("fragments still pending after their ACKs")
			}
		})
	}
	_, _, c := joined(t, Config{}, Config{})
	if err := c.Send(c.Peers()[0], make([]byte, 503+254*504+1), true); err != ErrTooLarge {
		t.Errorf("256 fragments: %v", err)
	}
}

// TestRetransmitBackoff drops everything the host sends after the join
// and checks when the client resends its message, per backoff mode.
func TestRetransmitBackoff(t *testing.T) {
	for _, tc := range []struct {
		b    Backoff
		want string // seconds after the first send
	}{
		{Fixed, "1 2 3 4 5 6 7 8 9"},
		{Linear, "1 3 6 10 15 20 25 30 35"},
		{Exponential, "1 3 7 12 17 22 27 32 37"},
	} {
		t.Run(tc.b.String(), func(t *testing.T) {
			n, _, c := joined(t, Config{Keepalive: -1}, Config{Backoff: tc.b, Keepalive: -1, Timeout: -1})
			n.drop = func(s sent) bool { return s.from == hostAddr }
			start := n.now()
			_ = c.Send(c.Peers()[0], []byte{0x2A, 0x20}, true)
			n.run(60*time.Second, 100*time.Millisecond)
			var at []string
			for _, s := range n.log {
				dg := decodeOK(t, s.plain)
				if s.from == clientAddr && s.at > start && len(dg.Messages) > 0 && dg.Messages[0].Type == transport.TypeData {
					at = append(at, fmt.Sprint((s.at - start).Round(100*time.Millisecond).Seconds()))
				}
			}
			if got := strings.Join(at, " "); got != tc.want {
				t.Errorf("resent at %s, want %s", got, tc.want)
			}
			if !strings.Contains(strings.Join(n.events, "\n"), "client: gave-up peer 1 Data seq 0") {
				t.Errorf("no gave-up event: %q", n.events)
			}
		})
	}
}

// TestStockFragmentBug: with the option, a client never clears fragments
// on their (correct) ACKs and resends them for the life of the link;
// without it, the ACKs clear them.
func TestStockFragmentBug(t *testing.T) {
	for _, bug := range []bool{false, true} {
		t.Run(fmt.Sprint(bug), func(t *testing.T) {
			n, h, c := joined(t, Config{}, Config{StockFragmentBug: bug})
			_ = c.Send(c.Peers()[0], make([]byte, 1100), true)
			_ = c.Send(c.Peers()[0], []byte{0x2A, 0x20}, true)
			n.run(30*time.Second, 100*time.Millisecond)
			frags, acks := 0, 0
			for _, s := range n.log {
				for _, m := range decodeOK(t, s.plain).Messages {
					if s.from == clientAddr && m.Fragment {
						frags++
					}
					if s.from == hostAddr && m.Type == transport.TypeACK && m.AckFrag {
						acks++
					}
				}
			}
			hs := h.Peers()[0].Stats()
			if !bug {
				if frags != 3 || c.Peers()[0].Pending() != 0 {
					t.Errorf("fragments sent %d times, %d pending", frags, c.Peers()[0].Pending())
				}
				return
			}
			// 3 fragments, resent every second for 30 s (fixed backoff),
			// beyond MaxRetries; the unfragmented message is cleared.
			if frags < 3*25 || c.Peers()[0].Pending() != 3 {
				t.Errorf("fragments sent %d times, %d pending", frags, c.Peers()[0].Pending())
			}
			if hs.Duplicates < uint64(frags-3) || len(n.payload["host"]) != 2 || acks < frags {
				t.Errorf("host: %d duplicates, %d payloads, %d fragment ACKs for %d fragments", hs.Duplicates, len(n.payload["host"]), acks, frags)
			}
		})
	}
}

// TestDuplicateSuppressed delivers every datagram twice.
func TestDuplicateSuppressed(t *testing.T) {
	n, h, c := joined(t, Config{}, Config{})
	n.drop = func(s sent) bool {
		n.queue = append(n.queue, s) // one extra copy
		return false
	}
	for i := 0; i < 5; i++ {
		_ = c.Send(c.Peers()[0], []byte{0x2C, byte(i)}, true)
	}
	_ = c.Send(c.Peers()[0], make([]byte, 1500), true)
	n.run(0, 0)
	if got := len(n.payload["host"]); got != 6 {
		t.Errorf("host delivered %d messages, want 6", got)
	}
	if d := h.Peers()[0].Stats().Duplicates; d != 5+3 {
		t.Errorf("host suppressed %d duplicates, want 8", d)
	}
}

func TestKeepaliveAndTimeout(t *testing.T) {
	n, h, c := joined(t, Config{Timeout: 20 * time.Second}, Config{})
	var info []byte
	for _, s := range n.log {
		for _, m := range decodeOK(t, s.plain).Messages {
			if s.from == clientAddr && m.Type == transport.TypePeerInfo {
				info = s.plain[m.Offset : m.Offset+m.Len]
			}
		}
	}
	mark := len(n.log)
	// ACK repeats end about 5.3 s after the join; keepalives follow
	// each 5 s of silence.
	n.run(17*time.Second, 100*time.Millisecond)
	ka := 0
	for _, s := range n.log[mark:] {
		for _, m := range decodeOK(t, s.plain).Messages {
			if s.from == clientAddr && m.Type == transport.TypePeerInfo {
				if !bytes.Equal(s.plain[m.Offset:m.Offset+m.Len], info) {
					t.Errorf("keepalive % X differs from the PeerInfo % X", s.plain[m.Offset:m.Offset+m.Len], info)
				}
				ka++
			}
		}
	}
	// ACK repeats are sends too: the peer's keepalive makes this side
	// repeat its ACK of it for ~5.3 s, so keepalives come about every
	// 10 s on an idle link.
	if ka != 1 {
		t.Errorf("%d keepalives in 17 s, want 1", ka)
	}
	// The client goes silent: the host drops it after 20 s.
	n.drop = func(s sent) bool { return s.from == clientAddr }
	n.run(25*time.Second, 100*time.Millisecond)
	if len(h.Peers()) != 0 || !strings.Contains(strings.Join(n.events, "\n"), "host: timeout peer 2") {
		t.Errorf("host peers %d, events %q", len(h.Peers()), n.events)
	}
	_ = c
}

func TestWindow(t *testing.T) {
	var w window
	for _, s := range []uint16{0, 2, 1, 5} {
		w.set(s)
	}
	if w.base != 3 || !w.has(5) || w.has(4) || !w.has(0) {
		t.Errorf("base %d", w.base)
	}
	w.set(3 + 5000) // far ahead: the old ones are forgotten as delivered
	if !w.has(4) || !w.has(3+5000) || w.has(3+4999) {
		t.Error("far jump")
	}
	w = window{base: 65534}
	w.set(65534)
	w.set(65535)
	w.set(0)
	if w.base != 1 || !w.has(65535) {
		t.Errorf("wrap: base %d", w.base)
	}
}

func TestHostLimits(t *testing.T) {
	n := newSimNet(t)
	h := n.add("host", hostAddr, Config{Role: Host, MaxPeers: 2})
	for i := 0; i < 3; i++ {
		c := n.add(fmt.Sprint("c", i), clientAddr, Config{Role: Client})
		delete(n.eps, clientAddr)
		addr := clientAddr
		addr = netipPort(addr, uint16(3000+i))
		n.eps[addr] = c
		_, _ = c.Connect(hostAddr)
	}
	n.run(0, 0)
	if len(h.Peers()) != 2 || h.Stats().Refused == 0 {
		t.Errorf("host has %d peers, refused %d", len(h.Peers()), h.Stats().Refused)
	}
}
