package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

func TestLinkTypes(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	v4 := ipUDP(t, cli4, srv4, bcPl)
	v6 := ipUDP(t, cli6, srv6, bcPl)
	back4 := ipUDP(t, srv4, cli4, bcPl)
	long := make([]byte, 100)
	for i := range long {
		long[i] = byte(i)
	}
	cut := eth(0x0800, ipUDP(t, cli4, srv4, long))
	icmp6 := serialize(t, &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolICMPv6,
		SrcIP: cli6.Addr().AsSlice(), DstIP: srv6.Addr().AsSlice()}, gopacket.Payload(make([]byte, 8)))
	inner := netip.MustParseAddrPort("192.168.7.7:22101")
	innerCli := netip.MustParseAddrPort("192.168.7.8:40000")

	tests := []struct {
		name     string
		lt       layers.LinkType
		data     []byte
		orig     int
		kind     Kind
		src, dst netip.AddrPort
		payload  []byte
		trunc    bool
	}{
		{name: "ethernet/ipv4", lt: 1, data: eth(0x0800, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "ethernet/ipv6", lt: 1, data: eth(0x86dd, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "ethernet/padded-to-60", lt: 1, data: append(eth(0x0800, v4), make([]byte, 13)...), kind: KindMatched, src: cli4, dst: srv4},
		{name: "ethernet/server-to-client", lt: 1, data: eth(0x0800, back4), kind: KindMatched, src: srv4, dst: cli4},
		{name: "ethernet/empty-payload", lt: 1, data: eth(0x0800, ipUDP(t, cli4, srv4, nil)), kind: KindMatched, src: cli4, dst: srv4, payload: []byte{}},
		{name: "802.1q", lt: 1, data: vlan([]uint16{0x8100}, 0x0800, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "qinq/88a8", lt: 1, data: vlan([]uint16{0x88a8, 0x8100}, 0x0800, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "qinq/8100x2-ipv6", lt: 1, data: vlan([]uint16{0x8100, 0x8100}, 0x86dd, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "ipv6/hop-by-hop+dest-opts", lt: 1, data: eth(0x86dd, ip6Ext(v6, extHopByHop, extDestOpts)), kind: KindMatched, src: cli6, dst: srv6},
		{name: "ipv6/atomic-fragment", lt: 1, data: eth(0x86dd, ip6Ext(v6, extFragment(0, false))), kind: KindMatched, src: cli6, dst: srv6},
		{name: "ipv6/first-fragment", lt: 1, data: eth(0x86dd, ip6Ext(v6, extFragment(0, true))), kind: KindFragment},
		{name: "ipv6/later-fragment", lt: 1, data: eth(0x86dd, ip6Ext(v6, extFragment(10, false))), kind: KindFragment},
		{name: "sll/ipv4", lt: 113, data: sll(0x0800, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "sll/ipv6", lt: 113, data: sll(0x86dd, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "sll2/ipv4", lt: 276, data: sll2(0x0800, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "sll2/ipv6", lt: 276, data: sll2(0x86dd, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "raw101/ipv4", lt: 101, data: v4, kind: KindMatched, src: cli4, dst: srv4},
		{name: "raw101/ipv6", lt: 101, data: v6, kind: KindMatched, src: cli6, dst: srv6},
		{name: "ipv4-228", lt: 228, data: v4, kind: KindMatched, src: cli4, dst: srv4},
		{name: "ipv6-229", lt: 229, data: v6, kind: KindMatched, src: cli6, dst: srv6},
		{name: "dlt-raw-12", lt: 12, data: v4, kind: KindMatched, src: cli4, dst: srv4},
		{name: "dlt-raw-14", lt: 14, data: v6, kind: KindMatched, src: cli6, dst: srv6},
		{name: "null/le-ipv4", lt: 0, data: loopback(le, 2, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "null/be-ipv4", lt: 0, data: loopback(be, 2, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "null/le-ipv6-darwin", lt: 0, data: loopback(le, 30, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "null/be-ipv6-bsd", lt: 0, data: loopback(be, 24, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "null/le-ipv6-freebsd", lt: 0, data: loopback(le, 28, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "null/le-ipv6-windows", lt: 0, data: loopback(le, 23, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "loop/be-ipv4", lt: 108, data: loopback(be, 2, v4), kind: KindMatched, src: cli4, dst: srv4},
		{name: "loop/le-ipv6", lt: 108, data: loopback(le, 24, v6), kind: KindMatched, src: cli6, dst: srv6},
		{name: "ip-in-ip", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolIPv4, 0, 0, ipUDP(t, innerCli, inner, bcPl))), kind: KindMatched, src: innerCli, dst: inner},
		{name: "snaplen-cut", lt: 1, data: cut[:len(cut)-90], orig: len(cut), kind: KindMatched, src: cli4, dst: srv4, payload: long[:10], trunc: true},

		{name: "other-port", lt: 1, data: eth(0x0800, ipUDP(t, cli4, netip.MustParseAddrPort("10.0.0.1:53"), bcPl)), kind: KindOtherPort,
			src: cli4, dst: netip.MustParseAddrPort("10.0.0.1:53")},
		{name: "non-udp/tcp", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolTCP, 0, 0, make([]byte, 20))), kind: KindNonUDP},
		{name: "non-udp/icmpv6", lt: 1, data: eth(0x86dd, icmp6), kind: KindNonUDP},
		{name: "non-ip/arp", lt: 1, data: eth(0x0806, make([]byte, 28)), kind: KindNonIP},
		{name: "non-ip/llc", lt: 1, data: eth(0x0030, make([]byte, 48)), kind: KindNonIP},
		{name: "non-ip/null-family-7", lt: 0, data: loopback(le, 7, v4), kind: KindNonIP},
		{name: "non-ip/raw-version-5", lt: 101, data: append([]byte{0x50}, v4[1:]...), kind: KindNonIP},
		{name: "fragment/ipv4-first", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, v4[20:])), kind: KindFragment},
		{name: "fragment/ipv4-later", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 100, bcPl)), kind: KindFragment},
		{name: "unsupported/802.11", lt: 105, data: v4, kind: KindUnsupported},
		{name: "malformed/short-ethernet", lt: 1, data: make([]byte, 10), kind: KindMalformed},
		{name: "malformed/ipv4-header-cut", lt: 1, data: eth(0x0800, v4[:12]), kind: KindMalformed},
		{name: "malformed/udp-header-missing", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 0, nil)), kind: KindMalformed},
		{name: "malformed/udp-header-cut", lt: 1, data: eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 0, []byte{1, 2, 3, 4})), kind: KindMalformed},
		{name: "malformed/empty-raw", lt: 101, data: []byte{}, kind: KindMalformed},
		{name: "malformed/short-null", lt: 0, data: []byte{2, 0, 0}, kind: KindMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := []frame{{ts: t0, data: tc.data, orig: tc.orig}}
			r := openBytes(t, pcapFile(t, tc.lt, false, false, fs), Options{AllFrames: true})
			got, err := readAll(t, r)
			if err != io.EOF || len(got) != 1 {
				t.Fatalf("got %d packets, err %v; want 1, EOF", len(got), err)
			}
			p := got[0]
			if p.Kind != tc.kind || p.Frame != 1 || p.LinkType != tc.lt {
				t.Fatalf("kind %v frame %d link %v; want %v 1 %v", p.Kind, p.Frame, p.LinkType, tc.kind, tc.lt)
			}
			if !bytes.Equal(p.Data, tc.data) {
				t.Errorf("Data differs from the frame")
			}
			if tc.kind == KindMatched || tc.kind == KindOtherPort {
				want := tc.payload
				if want == nil {
					want = bcPl
				}
				if p.Src != tc.src || p.Dst != tc.dst || !bytes.Equal(p.Payload, want) || p.Truncated != tc.trunc {
					t.Errorf("got %v > %v payload %x truncated %v; want %v > %v %x %v",
						p.Src, p.Dst, p.Payload, p.Truncated, tc.src, tc.dst, want, tc.trunc)
				}
			} else if p.Payload != nil || p.Src.IsValid() {
				t.Errorf("non-UDP frame carries payload %x / address %v", p.Payload, p.Src)
			}
			var want Stats
			want.count(tc.kind)
			if tc.trunc {
				want.Truncated = 1
			}
			if s := r.Stats(); s != want {
				t.Errorf("stats %+v, want %+v", s, want)
			}
		})
	}
}

// Without AllFrames only matching datagrams come back, with their frame
// numbers among all frames, and everything else is counted.
func TestSkipAndCount(t *testing.T) {
	v4 := ipUDP(t, cli4, srv4, bcPl)
	fs := frames(
		eth(0x0806, make([]byte, 28)), // 1 non-IP
		eth(0x0800, v4),               // 2 matched
		eth(0x0800, ip4(t, layers.IPProtocolTCP, 0, 0, make([]byte, 20))),               // 3 non-UDP
		eth(0x0800, ipUDP(t, cli4, netip.MustParseAddrPort("10.0.0.1:27900"), bcPl)),    // 4 other port
		eth(0x0800, ip4(t, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, v4[20:])), // 5 fragment
		eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 185, bcPl)),                         // 6 fragment
		make([]byte, 5),                         // 7 malformed
		eth(0x86dd, ipUDP(t, srv6, cli6, bcPl)), // 8 matched
		eth(0x0800, ipUDP(t, netip.MustParseAddrPort("10.0.0.9:22101"), cli4, []byte("x"))), // 9 matched
	)
	r := openBytes(t, pcapFile(t, layers.LinkTypeEthernet, false, false, fs), Options{})
	got, err := readAll(t, r)
	if err != io.EOF {
		t.Fatal(err)
	}
	var nums []int
	for _, p := range got {
		nums = append(nums, p.Frame)
	}
	// Frames 5 and 6 are fragments of one datagram (same addresses and id)
	// lacking the bytes between them: at the end it is returned cut after
	// what frame 5 held, on the frame of its last fragment.
	if want := []int{2, 8, 9, 6}; !equalInts(nums, want) {
		t.Errorf("frames %v, want %v", nums, want)
	}
	if p := got[3]; p.FragsLost == "" || p.Fragments != 2 || !p.Truncated {
		t.Errorf("given-up datagram: %+v", p)
	}
	want := Stats{Frames: 9, UDP: 4, Matched: 3, OtherPort: 1, NonUDP: 1, NonIP: 1, Fragments: 2, Incomplete: 1, Malformed: 1}
	if s := r.Stats(); s != want {
		t.Errorf("stats %+v\nwant  %+v", s, want)
	}

	// Another port set selects other datagrams from the same file.
	r = openBytes(t, pcapFile(t, layers.LinkTypeEthernet, false, false, fs), Options{Ports: []uint16{27900, 9}})
	got, err = readAll(t, r)
	if err != io.EOF || len(got) != 1 || got[0].Frame != 4 {
		t.Fatalf("ports {27900,9}: got %d packets (%v), want frame 4", len(got), err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
