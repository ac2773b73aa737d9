package profile

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
)

// The flows, indexed addresses and followed objects stay within their
// limits however many a capture holds; what is beyond is still counted.
func TestProfileLimits(t *testing.T) {
	p := New(Options{})
	p.SetSource("many")
	server := netip.MustParseAddrPort("10.0.0.1:22101")
	now := time.Unix(1e9, 0)
	n := 2*maxIndexed + 10
	for i := 0; i < n; i++ {
		client := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), uint16(1024+i))
		d := &dissect.Datagram{Time: now, Src: client, Dst: server, Dir: dissect.C2S, Kind: dissect.KindGameSpy}
		if err := p.Datagram(d); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.flows) != MaxFlows || p.other == nil || len(p.index) > maxIndexed {
		t.Errorf("%d flows, other %v, %d indexed", len(p.flows), p.other != nil, len(p.index))
	}
	var queries uint64
	for _, f := range append(p.flows, p.other) {
		queries += f.pairs[pairGameSpy].requests
	}
	if queries != uint64(n) {
		t.Errorf("%d GameSpy queries counted, want %d", queries, n)
	}

	f := p.flows[0]
	for i := 0; i < 3*MaxObjects; i++ {
		b := make([]byte, 14)
		b[0] = 0x1C
		binary.LittleEndian.PutUint32(b[1:], uint32(i))
		b[9] = 0x20
		p.payload(f, 1, int64(i), b, false)
	}
	su := &f.dir[1].su
	if len(su.objs) != MaxObjects || su.untracked != 2*MaxObjects || su.count != 3*MaxObjects {
		t.Errorf("%d objects followed, %d untracked, %d updates", len(su.objs), su.untracked, su.count)
	}
	if d := p.Doc(true); len(d.PerFlow) != 0 || d.Flows != 0 {
		t.Errorf("GameSpy-only flows listed: %d, flows %d", len(d.PerFlow), d.Flows)
	}
}
