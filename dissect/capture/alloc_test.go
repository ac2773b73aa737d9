package capture

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// Next does not allocate per packet once the reader's buffers exist, on
// the fast path and on the hardened one. The one known exception is the
// hardened path on pcapng with a link type of 256 or more (SLL2, raw
// IPv4/IPv6 228/229): pcapgo boxes the link type into CaptureInfo.
// AncillaryData, which costs one 2-byte allocation per packet; the fast
// path boxes it once.
func TestNextDoesNotAllocate(t *testing.T) {
	v4, v6 := ipUDP(t, cli4, srv4, bcPl), ipUDP(t, srv6, cli6, bcPl)
	mixed := [][]byte{
		eth(0x0800, v4),
		eth(0x86dd, ip6Ext(v6, extHopByHop, extDestOpts)),
		vlan([]uint16{0x88a8, 0x8100}, 0x0800, v4),
		eth(0x0806, make([]byte, 28)),
		eth(0x0800, ip4(t, layers.IPProtocolTCP, 0, 0, make([]byte, 20))),
		eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 100, bcPl)),
		eth(0x0800, ipUDP(t, cli4, netip.AddrPortFrom(srv4.Addr(), 53), bcPl)),
	}
	// Without AllFrames fragments are reassembled, and a lost one becomes a
	// note (which allocates): the reading of whole packets must not.
	whole := slices.DeleteFunc(slices.Clone(mixed), func(b []byte) bool { return len(b) > 21 && b[12] == 0x08 && b[14+7] == 100 })
	repeat := func(list [][]byte) []frame {
		var datas [][]byte
		for len(datas) < 3000 {
			datas = append(datas, list...)
		}
		return frames(datas...)
	}
	ng := func(lt layers.LinkType, data []byte) []byte {
		n := &ngb{o: binary.LittleEndian}
		n.shb().idb(lt, 0, n.opt(2, []byte("if0")))
		for i := range 1200 {
			n.epb(0, uint64(i), data, 0, n.opt(1, []byte("comment")), n.opt(2, []byte{1, 0, 0, 0}))
		}
		return n.b
	}
	tests := []struct {
		name      string
		file      []byte
		all       bool
		maxAllocs float64
	}{
		{"pcap/ethernet-mixed-all-frames", pcapFile(t, 1, false, false, repeat(mixed)), true, 0},
		{"pcap/ethernet-mixed-matched-only", pcapFile(t, 1, true, true, repeat(whole)), false, 0},
		{"pcap/sll2-ipv6", pcapFile(t, 276, false, false, repeat([][]byte{sll2(0x86dd, v6)})), false, 0},
		{"pcap/null-ipv4", pcapFile(t, 0, false, false, repeat([][]byte{loopback(binary.LittleEndian, 2, v4)})), false, 0},
		{"pcap/gzip", gzipped(t, pcapFile(t, 1, false, false, repeat(whole))), false, 0},
		{"pcapng/ethernet-with-packet-options", ng(1, eth(0x0800, v4)), false, 0},
		{"pcapng/loop-ipv6", ng(108, loopback(binary.BigEndian, 24, v6)), false, 0},
		{"pcapng/sll2-link-type-boxed-by-pcapgo", ng(276, sll2(0x0800, v4)), false, 1},
	}
	for _, tc := range tests {
		for _, path := range paths {
			t.Run(tc.name+"/"+path.name, func(t *testing.T) { checkNoAllocs(t, tc.file, tc.all, path.hardened, tc.maxAllocs) })
		}
	}
}

// checkNoAllocs reads file and counts the allocations of Next once the
// reader's buffers have reached their size.
func checkNoAllocs(t *testing.T, file []byte, all, hardened bool, maxAllocs float64) {
	if !hardened {
		maxAllocs = 0 // the fast path boxes the link type once
	}
	r := openBytes(t, file, Options{AllFrames: all})
	r.hardened = hardened
	var p Packet
	for range 20 { // let buffers reach their size
		if err := r.Next(&p); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	allocs := testing.AllocsPerRun(500, func() { err = r.Next(&p) })
	if err != nil {
		t.Fatal(err)
	}
	if allocs > maxAllocs {
		t.Errorf("%v allocations per Next", allocs)
	}
}
