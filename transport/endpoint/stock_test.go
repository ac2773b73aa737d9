package endpoint

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
)

// pair is a host and a client endpoint wired by hand: the test decides
// when each side polls and what it receives, to reproduce the timing of a
// recorded exchange.
type pair struct {
	t      *testing.T
	clock  *ManualClock
	host   *Endpoint
	client *Endpoint
	onHost func(Event) // the host application
	onCl   func(Event) // the client application
	hostEv []Event
	clEv   []Event
}

func newPair(t *testing.T, hostCfg, clCfg Config) *pair {
	pr := &pair{t: t, clock: NewManualClock(epoch)}
	hostCfg.Role, hostCfg.Clock = Host, pr.clock
	hostCfg.OnEvent = func(ev Event) {
		ev.Payload = append([]byte(nil), ev.Payload...)
		pr.hostEv = append(pr.hostEv, ev)
		if pr.onHost != nil {
			pr.onHost(ev)
		}
	}
	clCfg.Role, clCfg.Clock = Client, pr.clock
	clCfg.OnEvent = func(ev Event) {
		ev.Payload = append([]byte(nil), ev.Payload...)
		pr.clEv = append(pr.clEv, ev)
		if pr.onCl != nil {
			pr.onCl(ev)
		}
	}
	pr.host, pr.client = New(hostCfg), New(clCfg)
	return pr
}

func pollAll(e *Endpoint) [][]byte {
	var v [][]byte
	e.Poll(func(_ netip.AddrPort, b []byte) { v = append(v, append([]byte(nil), b...)) })
	return v
}

func plainOf(b []byte) []byte {
	p := append([]byte(nil), b...)
	cipher.Decrypt(p)
	return p
}

// want checks that got is exactly one datagram whose bytes are want.
func (pr *pair) want(step string, got [][]byte, wantPlain []byte) []byte {
	pr.t.Helper()
	if len(got) != 1 {
		pr.t.Fatalf("%s: %d datagrams, want 1", step, len(got))
	}
	if p := plainOf(got[0]); !bytes.Equal(p, wantPlain) {
		pr.t.Fatalf("%s:\n got % X\nwant % X", step, p, wantPlain)
	}
	return got[0]
}

// TestStockChecksumExchange plays the join of the stock packet trace
// (testdata/captures/stock-excerpts.source.jsonl) with a host and a
// client endpoint whose applications send the recorded payloads, and
// checks that every datagram whose original was recorded is the recorded
// one byte for byte (enciphered): connect request, connect answer with
// round 0, ACK placement, fragment ACKs, seq numbering of both channels.
func TestStockChecksumExchange(t *testing.T) {
	fr := stockFrames(t)
	plain := func(key string) []byte { return unhex(t, fr[key].Plain) }
	ciph := func(key string) []byte { return unhex(t, fr[key].Cipher) }
	// The payload of the last message of a recorded datagram.
	payloadOf := func(key string, msg int) []byte {
		dg := decodeOK(t, plain(key))
		return dg.Messages[msg].Payload
	}

	pr := newPair(t,
		Config{Addr: netip.MustParseAddr("10.10.10.1")},
		Config{Name: "Cady2", Addr: netip.MustParseAddr("10.10.10.239"), Port: 2655})
	h, c := pr.host, pr.client

	// Connect request: FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00.
	if _, err := c.Connect(hostAddr); err != nil {
		t.Fatal(err)
	}
	got := pollAll(c)
	if len(got) != 1 || !bytes.Equal(got[0], ciph("C->S Connect (direction 0xFF)")) {
		t.Fatalf("connect request: % X", got)
	}

	// The host answers with the id and round 0 in one datagram (packet #2).
	pr.onHost = func(ev Event) {
		if ev.Kind == EventJoined {
			_ = h.Send(ev.Peer, payloadOf("Packet #2", 1), true)
		}
	}
	if !h.Receive(clientAddr, got[0]) {
		t.Fatal("host refused the recorded connect request")
	}
	got = pollAll(h)
	if len(got) != 1 || !bytes.Equal(got[0], ciph("Packet #2")) {
		t.Fatalf("packet #2: got % X", got)
	}
	hp := h.Peer(clientAddr)

	// The client takes id 2, ACKs both messages and sends its PeerInfo
	// record (the record of protocol-facts 4.2, "Cady2").
	c.Receive(hostAddr, got[0])
	if c.ID() != 2 {
		t.Fatalf("client id %d, want 2", c.ID())
	}
	peerInfo := unhex(t, "0016C0010002"+"0A0A0AEF"+"430061006400790032000000")
	got = pollAll(c)
	pr.want("client ACKs + PeerInfo", got, append(unhex(t, "0203"+"01000002"+"01000000"), peerInfo...))

	// The host ACKs it (low channel) and sends the record back (low seq 1).
	h.Receive(clientAddr, got[0])
	got = pollAll(h)
	pr.want("host ACK + PeerInfo echo", got, append(unhex(t, "0102"+"01010002"), peerInfo...))
	c.Receive(hostAddr, got[0])
	h.Receive(clientAddr, pr.want("client ACK of the echo", pollAll(c), unhex(t, "020101010002")))

	// Round 0 answer (packet #7), then the host ACKs it together with
	// round 1 (packet #8).
	if err := c.Send(c.Peers()[0], payloadOf("Packet #7", 0), true); err != nil {
		t.Fatal(err)
	}
	got = pollAll(c)
	if !bytes.Equal(got[0], ciph("Packet #7")) {
		t.Fatalf("packet #7: % X", plainOf(got[0]))
	}
	pr.onHost = func(ev Event) {
		if ev.Kind == EventMessage {
			_ = h.Send(ev.Peer, payloadOf("Packet #8", 1), true)
		}
	}
	h.Receive(clientAddr, got[0])
	got = pollAll(h)
	if !bytes.Equal(got[0], ciph("Packet #8")) {
		t.Fatalf("packet #8: % X", plainOf(got[0]))
	}
	pr.onHost = nil

	// The client ACKs round 1 on its own, then answers (packet #10).
	c.Receive(hostAddr, got[0])
	h.Receive(clientAddr, pr.want("client ACK of round 1", pollAll(c), unhex(t, "020101010000")))
	_ = c.Send(c.Peers()[0], payloadOf("Packet #10", 0), true)
	got = pollAll(c)
	if !bytes.Equal(got[0], ciph("Packet #10")) {
		t.Fatalf("packet #10: % X", plainOf(got[0]))
	}
	h.Receive(clientAddr, got[0])
	c.Receive(hostAddr, pr.want("host ACK of round 1", pollAll(h), unhex(t, "010101010000")))
	_ = h.Send(hp, payloadOf("Packet #11", 0), true)
	got = pollAll(h)
	if !bytes.Equal(got[0], ciph("Packet #11")) {
		t.Fatalf("packet #11: % X", plainOf(got[0]))
	}

	// Round 2's answer is too big for a datagram: three fragments of seq 2
	// (the recorded answer's bytes are not published; these are filler
	// behind the recorded opcode and round).
	c.Receive(hostAddr, got[0])
	h.Receive(clientAddr, pr.want("client ACK of round 2", pollAll(c), unhex(t, "020101020000")))
	big := make([]byte, 1100)
	big[0], big[1] = 0x21, 0x02
	for i := 2; i < len(big); i++ {
		big[i] = byte(i * 7)
	}
	_ = c.Send(c.Peers()[0], big, true)
	frags := pollAll(c)
	if len(frags) != 3 {
		t.Fatalf("round 2 answer in %d datagrams, want 3", len(frags))
	}
	for i, f := range frags {
		dg := decodeOK(t, plainOf(f))
		m := dg.Messages[0]
		if !m.Fragment || !m.Reliable || m.Seq != 2 || int(m.FragIdx) != i || (i == 0) != m.HasFragTotal || (i == 0 && m.FragTotal != 3) {
			t.Fatalf("fragment %d: %+v", i, m)
		}
	}
	// Fragment 0 is ACKed on its own; fragments 1 and 2 together with
	// round 3 (packet #21: two 5-byte fragment ACKs, then seq 3).
	h.Receive(clientAddr, frags[0])
	ack0 := pr.want("host ACK of fragment 0", pollAll(h), unhex(t, "01010102000100"))
	pr.onHost = func(ev Event) {
		if ev.Kind == EventMessage {
			if !bytes.Equal(ev.Payload, big) {
				t.Errorf("host reassembled %d bytes, not the %d sent", len(ev.Payload), len(big))
			}
			_ = h.Send(ev.Peer, payloadOf("Packet #21", 2), true)
		}
	}
	h.Receive(clientAddr, frags[1])
	h.Receive(clientAddr, frags[2])
	got = pollAll(h)
	if !bytes.Equal(got[0], ciph("Packet #21")) {
		t.Fatalf("packet #21: % X", plainOf(got[0]))
	}
	pr.onHost = nil

	// The client answers round 3 at once, with its ACK in front (packet #22).
	pr.onCl = func(ev Event) {
		if ev.Kind == EventMessage {
			_ = c.Send(ev.Peer, payloadOf("Packet #22", 1), true)
		}
	}
	c.Receive(hostAddr, ack0)
	c.Receive(hostAddr, got[0])
	if n := c.Peers()[0].Pending(); n != 1 {
		t.Errorf("client has %d messages pending after the fragment ACKs, want 1 (round 3's answer)", n)
	}
	got = pollAll(c)
	if !bytes.Equal(got[0], ciph("Packet #22")) {
		t.Fatalf("packet #22: % X", plainOf(got[0]))
	}
	pr.onCl = nil

	// The host ACKs it together with the last round (packet #23).
	pr.onHost = func(ev Event) {
		if ev.Kind == EventMessage {
			_ = h.Send(ev.Peer, payloadOf("Packet #23", 1), true)
		}
	}
	h.Receive(clientAddr, got[0])
	got = pollAll(h)
	if !bytes.Equal(got[0], ciph("Packet #23")) {
		t.Fatalf("packet #23: % X", plainOf(got[0]))
	}
	pr.onHost = nil

	// The last answer (recorded only in part: same seq 4), the host's ACK,
	// then 0x28, Settings and GameInit in one datagram (packet #25).
	c.Receive(hostAddr, got[0])
	h.Receive(clientAddr, pr.want("client ACK of round 0xFF", pollAll(c), unhex(t, "020101040000")))
	_ = c.Send(c.Peers()[0], []byte{0x21, 0xFF, 0, 0}, true)
	got = pollAll(c)
	h.Receive(clientAddr, got[0])
	c.Receive(hostAddr, pr.want("host ACK of the last answer", pollAll(h), unhex(t, "010101040000")))
	for i := 0; i < 3; i++ {
		_ = h.Send(hp, payloadOf("Packet #25", i), true)
	}
	got = pollAll(h)
	if !bytes.Equal(got[0], ciph("Packet #25")) {
		t.Fatalf("packet #25: % X", plainOf(got[0]))
	}
	c.Receive(hostAddr, got[0])
	h.Receive(clientAddr, pr.want("client ACKs of #25", pollAll(c), unhex(t, "0203010500000106000001070000")))
	_ = c.Send(c.Peers()[0], payloadOf("Packet #30 (C->S)", 0), true)
	got = pollAll(c)
	if !bytes.Equal(got[0], ciph("Packet #30 (C->S)")) {
		t.Fatalf("packet #30: % X", plainOf(got[0]))
	}
	h.Receive(clientAddr, got[0])
	// Ten quiet seconds: the ACK entries have their repeats, keepalives go
	// both ways.
	pr.settle(10 * time.Second)
	if n := c.Peers()[0].Pending() + hp.Pending(); n != 0 {
		t.Errorf("%d messages still pending after the join", n)
	}

	// Disconnect: type 0x05, low seq 2, id and address (disconnect-flow
	// 7.1 without its stale ACKs); the host's ACK is 7.2 byte for byte.
	_ = c.Disconnect(c.Peers()[0])
	got = pollAll(c)
	pr.want("disconnect", got, unhex(t, "0201050AC00200020A0A0AEF"))
	h.Receive(clientAddr, got[0])
	ack := pollAll(h)
	if len(ack) != 1 || !bytes.Equal(ack[0], ciph("7.2 Server ACK for the disconnect (sent 7 times in the original capture; included once)")) {
		t.Fatalf("disconnect ACK: % X", ack)
	}
	c.Receive(hostAddr, ack[0])
	if len(c.Peers()) != 0 {
		t.Error("client still has its host after the ACK of its Disconnect")
	}
	// The host repeats its ACK (stock: 7 times over ~4 s), then forgets the peer.
	repeats := 0
	for i := 0; i < 100; i++ {
		pr.clock.Advance(100 * time.Millisecond)
		for _, b := range pollAll(h) {
			if !bytes.Equal(b, ack[0]) {
				t.Fatalf("host sent % X after the disconnect", plainOf(b))
			}
			repeats++
		}
	}
	if repeats != DefaultConfig(Host).AckSends-1 || len(h.Peers()) != 0 {
		t.Errorf("host repeated its disconnect ACK %d times and has %d peers", repeats, len(h.Peers()))
	}
	var kinds []string
	for _, ev := range pr.hostEv {
		kinds = append(kinds, ev.Kind.String())
	}
	want := "joined peer-info message message message message message message disconnected"
	if got := join(kinds); got != want {
		t.Errorf("host events: %s\nwant %s", got, want)
	}
	if s := hp.Stats(); s.Duplicates != 0 || s.Retransmissions != 0 || s.RTT != 0 || s.RTTSamples != 10 {
		t.Errorf("host link stats %+v", s)
	}
}

// settle polls both sides every 100 ms for d, delivering everything.
func (pr *pair) settle(d time.Duration) {
	for end := pr.clock.Now().Add(d); pr.clock.Now().Before(end); pr.clock.Advance(100 * time.Millisecond) {
		for _, b := range pollAll(pr.host) {
			pr.client.Receive(hostAddr, b)
		}
		for _, b := range pollAll(pr.client) {
			pr.host.Receive(clientAddr, b)
		}
	}
}

func join(v []string) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}
