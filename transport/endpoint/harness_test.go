package endpoint

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport"
)

var (
	hostAddr   = netip.MustParseAddrPort("10.10.10.1:22101")
	clientAddr = netip.MustParseAddrPort("10.10.10.239:2655")
	epoch      = time.Date(2026, 2, 17, 12, 0, 0, 0, time.UTC)
)

// sent is one datagram on the simulated wire.
type sent struct {
	at       time.Duration // since epoch
	from, to netip.AddrPort
	cipher   []byte
	plain    []byte
}

// net links endpoints through a simulated wire driven by a ManualClock.
// Datagrams go out in Poll and arrive at the next deliver, unless drop
// says otherwise.
type simNet struct {
	t       *testing.T
	clock   *ManualClock
	eps     map[netip.AddrPort]*Endpoint
	queue   []sent
	log     []sent
	drop    func(s sent) bool
	events  []string
	payload map[string][][]byte // events' payloads by endpoint name
}

func newSimNet(t *testing.T) *simNet {
	return &simNet{t: t, clock: NewManualClock(epoch), eps: map[netip.AddrPort]*Endpoint{}, payload: map[string][][]byte{}}
}

// add makes an endpoint at addr; name labels its events.
func (n *simNet) add(name string, addr netip.AddrPort, cfg Config) *Endpoint {
	cfg.Clock = n.clock
	next := cfg.OnEvent
	cfg.OnEvent = func(ev Event) {
		s := fmt.Sprintf("%s: %s", name, ev.Kind)
		if ev.Peer != nil {
			s += fmt.Sprintf(" peer %d", ev.Peer.ID())
		}
		switch ev.Kind {
		case EventMessage:
			s += fmt.Sprintf(" %dB op 0x%02X", len(ev.Payload), ev.Payload[0])
			n.payload[name] = append(n.payload[name], append([]byte(nil), ev.Payload...))
		case EventPeerInfo:
			s += fmt.Sprintf(" %q", ev.Info.Name)
		case EventGaveUp:
			s += fmt.Sprintf(" %s seq %d", ev.Type.Name(), ev.Seq)
		}
		n.events = append(n.events, s)
		if next != nil {
			next(ev)
		}
	}
	e := New(cfg)
	n.eps[addr] = e
	return e
}

func (n *simNet) now() time.Duration { return n.clock.Now().Sub(epoch) }

// poll polls every endpoint, queueing what they send.
func (n *simNet) poll() {
	for _, addr := range n.order() {
		e := n.eps[addr]
		e.Poll(func(to netip.AddrPort, b []byte) {
			s := sent{at: n.now(), from: addr, to: to, cipher: append([]byte(nil), b...)}
			s.plain = append([]byte(nil), b...)
			cipher.Decrypt(s.plain)
			n.log = append(n.log, s)
			if n.drop != nil && n.drop(s) {
				return
			}
			n.queue = append(n.queue, s)
		})
	}
}

func (n *simNet) order() []netip.AddrPort {
	var v []netip.AddrPort
	for a := range n.eps {
		v = append(v, a)
	}
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j].String() < v[i].String() {
				v[i], v[j] = v[j], v[i]
			}
		}
	}
	return v
}

// deliver hands the queued datagrams to their receivers.
func (n *simNet) deliver() {
	q := n.queue
	n.queue = nil
	for _, s := range q {
		if e := n.eps[s.to]; e != nil {
			e.Receive(s.from, s.cipher)
		}
	}
}

// run polls and delivers until quiet, then advances the clock by step,
// for total time.
func (n *simNet) run(total, step time.Duration) {
	end := n.now() + total
	for {
		for i := 0; i < 50; i++ {
			n.poll()
			if len(n.queue) == 0 {
				break
			}
			n.deliver()
		}
		if n.now() >= end {
			return
		}
		n.clock.Advance(step)
	}
}

// stockFrame is one frame of testdata/captures/stock-excerpts.source.jsonl:
// datagrams of the stock game rebuilt from published decrypted dumps.
type stockFrame struct {
	Note   string `json:"note"`
	Plain  string `json:"plain_hex"`
	Cipher string `json:"cipher_hex"`
}

func stockFrames(t testing.TB) map[string]stockFrame {
	f, err := os.Open("../../testdata/captures/stock-excerpts.source.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]stockFrame{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fr stockFrame
		if err := json.Unmarshal(sc.Bytes(), &fr); err != nil {
			t.Fatal(err)
		}
		key, _, _ := strings.Cut(fr.Note, ":")
		m[key] = fr
	}
	return m
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeOK decodes a plaintext datagram and fails on any anomaly.
func decodeOK(t testing.TB, plain []byte) *transport.Datagram {
	t.Helper()
	var dg transport.Datagram
	transport.Decode(plain, &dg)
	if len(dg.Anomalies) > 0 {
		t.Fatalf("% X: %v", plain, dg.Anomalies)
	}
	return &dg
}

func netipPort(a netip.AddrPort, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr(), port)
}
