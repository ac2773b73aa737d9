package capture

import (
	"fmt"
	"slices"

	"golang.org/x/net/bpf"
)

// MaxLivePorts bounds the game ports of a live capture: the kernel filter
// tests each port with one conditional jump, and classic BPF jumps reach at
// most 255 instructions ahead.
const MaxLivePorts = 100

// filterLink says where a frame's network-layer protocol and header are, so
// one program text serves every framing a packet socket hands to its filter.
type filterLink struct {
	proto    bpf.Instruction // loads the network protocol into A
	l3       uint32          // offset of the IP header
	ip4, ip6 []uint32        // what proto loads for IPv4 and IPv6; nil: the EtherTypes
}

var (
	// filterEthernet: SOCK_RAW on an Ethernet or loopback device. VLAN tags
	// are already stripped into skb metadata when packet taps see a frame.
	filterEthernet = filterLink{proto: bpf.LoadAbsolute{Off: 12, Size: 2}, l3: 14}
	// filterCooked: SOCK_DGRAM (-i any, non-Ethernet devices); the data
	// starts at the IP header and the protocol comes from skb->protocol.
	filterCooked = filterLink{proto: bpf.LoadExtension{Num: bpf.ExtProto}, l3: 0}
	// filterNull: BSD loopback (lo0) and the Npcap loopback adapter, a
	// 4-byte address family in the sender's byte order; AF_INET6 differs
	// between systems, so every value of both byte orders is accepted.
	filterNull = filterLink{proto: bpf.LoadAbsolute{Off: 0, Size: 4}, l3: loopbackHdrSize,
		ip4: bothOrders(afInet),
		ip6: bothOrders(afInet6Linux, afInet6Windows, afInet6BSD, afInet6FreeBSD, afInet6Darwin)}
)

// bothOrders is each address family as a big-endian load of a host-order
// word reads it on either kind of host.
func bothOrders(af ...uint32) []uint32 {
	var out []uint32
	for _, v := range af {
		out = append(out, v, v<<24)
	}
	return out
}

const (
	etherTypeIPv4 = 0x0800
	etherTypeIPv6 = 0x86dd
	ipProtoUDP    = 17
)

// gameFilter is the classic BPF program of a live capture: accept UDP over
// IPv4 or IPv6 whose source or destination port is one of ports, keeping at
// most snap bytes, and drop everything else in the kernel. Like tcpdump's
// "udp port N", it accepts first IPv4 fragments (they carry the UDP header)
// and drops later ones, which have no ports to test; an IPv6 UDP header is
// found only directly after the fixed header (no extension headers), which
// is where every BC peer puts it.
func gameFilter(link filterLink, ports []uint16, snap uint32) ([]bpf.Instruction, error) {
	ports = slices.Clone(ports)
	if len(ports) == 0 {
		ports = []uint16{DefaultPort}
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	if len(ports) > MaxLivePorts {
		return nil, fmt.Errorf("capture: %d game ports, the live filter takes at most %d", len(ports), MaxLivePorts)
	}
	// Each block has its own return instructions so that no jump spans
	// more than one block's port tests.
	var a asm
	ip4, ip6 := link.ip4, link.ip6
	if ip4 == nil {
		ip4, ip6 = []uint32{etherTypeIPv4}, []uint32{etherTypeIPv6}
	}
	a.emit(link.proto)
	for _, v := range ip4 {
		a.jumpIf(bpf.JumpEqual, v, "ip4", "")
	}
	for _, v := range ip6 {
		a.jumpIf(bpf.JumpEqual, v, "ip6", "")
	}
	a.emit(bpf.RetConstant{Val: 0})

	a.label("ip6")
	a.emit(bpf.LoadAbsolute{Off: link.l3 + 6, Size: 1})
	a.jumpIf(bpf.JumpEqual, ipProtoUDP, "", "drop6")
	a.emit(bpf.LoadAbsolute{Off: link.l3 + 40, Size: 2})
	a.ports(ports, "accept6")
	a.emit(bpf.LoadAbsolute{Off: link.l3 + 42, Size: 2})
	a.ports(ports, "accept6")
	a.label("drop6")
	a.emit(bpf.RetConstant{Val: 0})
	a.label("accept6")
	a.emit(bpf.RetConstant{Val: snap})

	a.label("ip4")
	a.emit(bpf.LoadAbsolute{Off: link.l3 + 9, Size: 1})
	a.jumpIf(bpf.JumpEqual, ipProtoUDP, "", "drop4")
	a.emit(bpf.LoadAbsolute{Off: link.l3 + 6, Size: 2})
	a.jumpIf(bpf.JumpBitsSet, 0x1fff, "drop4", "") // fragment offset: no UDP header here
	a.emit(bpf.LoadMemShift{Off: link.l3})         // X = IPv4 header length
	a.emit(bpf.LoadIndirect{Off: link.l3, Size: 2})
	a.ports(ports, "accept4")
	a.emit(bpf.LoadIndirect{Off: link.l3 + 2, Size: 2})
	a.ports(ports, "accept4")
	a.label("drop4")
	a.emit(bpf.RetConstant{Val: 0})
	a.label("accept4")
	a.emit(bpf.RetConstant{Val: snap})
	return a.resolve()
}

// asm is a tiny assembler with forward labels for conditional jumps ("" is
// the next instruction).
type asm struct {
	ins    []bpf.Instruction
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf string
	cond   bpf.JumpTest
	val    uint32
}

func (a *asm) emit(i bpf.Instruction) { a.ins = append(a.ins, i) }

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = make(map[string]int)
	}
	a.labels[name] = len(a.ins)
}

func (a *asm) jumpIf(cond bpf.JumpTest, val uint32, jt, jf string) {
	a.fixups = append(a.fixups, fixup{at: len(a.ins), jt: jt, jf: jf, cond: cond, val: val})
	a.emit(nil)
}

// ports tests A against every port, jumping to accept on a match.
func (a *asm) ports(ports []uint16, accept string) {
	for _, p := range ports {
		a.jumpIf(bpf.JumpEqual, uint32(p), accept, "")
	}
}

func (a *asm) resolve() ([]bpf.Instruction, error) {
	skip := func(from int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := a.labels[label]
		if !ok {
			return 0, fmt.Errorf("capture: filter label %q undefined", label)
		}
		n := to - from - 1
		if n < 0 || n > 255 {
			return 0, fmt.Errorf("capture: filter jump to %q spans %d instructions", label, n)
		}
		return uint8(n), nil
	}
	for _, f := range a.fixups {
		jt, err := skip(f.at, f.jt)
		if err != nil {
			return nil, err
		}
		jf, err := skip(f.at, f.jf)
		if err != nil {
			return nil, err
		}
		a.ins[f.at] = bpf.JumpIf{Cond: f.cond, Val: f.val, SkipTrue: jt, SkipFalse: jf}
	}
	return a.ins, nil
}
