package endpoint

import (
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
)

// FuzzReceive hands a host and a joined client hostile datagrams (the
// input is plaintext, enciphered before it goes in, so it reaches the
// transport parser) from the joined client's address and from new ones,
// and checks that nothing panics and every per-peer state stays inside
// its bound.
func FuzzReceive(f *testing.F) {
	for _, fr := range stockFrames(f) {
		f.Add(unhex(f, fr.Plain), uint8(0))
	}
	f.Add([]byte{0x02, 0x01, 0x32, 0x0A, 0xA0, 0x05, 0x00, 0x00, 0xFF, 0xAA, 0xBB, 0xCC}, uint8(1))
	f.Add([]byte{0xFF, 0x01, 0x03, 0x0F, 0xC0, 0x00, 0x00, 0x0A, 0x0A, 0x0A, 0xEF, 0x5F, 0x0A, 0, 0, 0, 0}, uint8(2))
	f.Add([]byte(`\status\`), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, who uint8) {
		clock := NewManualClock(epoch)
		cfg := Config{Clock: clock, MaxQueue: 64, MaxAcks: 32, MaxReassemblyBytes: 4096, MaxReassemblies: 4, MaxPeers: 4}
		hc := cfg
		hc.Role = Host
		h := New(hc)
		cc := cfg
		cc.Role = Client
		c := New(cc)
		_, _ = c.Connect(hostAddr)
		var toHost, toClient [][]byte
		pump := func() {
			for i := 0; i < 4; i++ {
				c.Poll(func(_ netip.AddrPort, d []byte) { toHost = append(toHost, append([]byte(nil), d...)) })
				for _, d := range toHost {
					h.Receive(clientAddr, d)
				}
				toHost = toHost[:0]
				h.Poll(func(_ netip.AddrPort, d []byte) { toClient = append(toClient, append([]byte(nil), d...)) })
				for _, d := range toClient {
					c.Receive(hostAddr, d)
				}
				toClient = toClient[:0]
			}
		}
		pump()
		d := append([]byte(nil), b...)
		if len(d) > 0 && d[0] != '\\' {
			cipher.Encrypt(d)
		}
		for round := 0; round < 3; round++ {
			from := clientAddr
			if who&1 != 0 {
				from = netip.AddrPortFrom(clientAddr.Addr(), uint16(4000+round))
			}
			h.Receive(from, d)
			if who&2 != 0 {
				c.Receive(hostAddr, d)
			}
			clock.Advance(700 * time.Millisecond)
			pump()
		}
		for _, e := range []*Endpoint{h, c} {
			if len(e.peers) > 4 {
				t.Fatalf("%d peers", len(e.peers))
			}
			for _, p := range e.peers {
				if p.Pending() > 64+2 || len(p.acks) > 32 || len(p.reasm) > 4 || e.reasmBytes(p) > 4096 {
					t.Fatalf("peer state out of bounds: pending %d acks %d reasm %d/%dB", p.Pending(), len(p.acks), len(p.reasm), e.reasmBytes(p))
				}
			}
		}
	})
}
