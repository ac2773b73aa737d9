package capture

import (
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Link types gopacket has no names for: DLT_RAW as written by libpcap
// versions that did not map it to LINKTYPE_RAW (12 on most systems, 14 on
// OpenBSD).
const (
	linkTypeDLTRaw12 layers.LinkType = 12
	linkTypeDLTRaw14 layers.LinkType = 14
)

// Address families in a NULL/LOOP header. IPv6 has a different value on
// every system that produced such captures.
const (
	afInet          = 2
	afInet6Linux    = 10
	afInet6Windows  = 23
	afInet6BSD      = 24
	afInet6FreeBSD  = 28
	afInet6Darwin   = 30
	loopbackHdrSize = 4
)

// udpLast is gopacket's UDP layer with decoding stopping after it, so that a
// port gopacket associates with a tunnel cannot lead the parser on and
// overwrite the layers already decoded.
type udpLast struct{ layers.UDP }

func (*udpLast) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// decoder holds the preallocated layers and one DecodingLayerParser per
// possible first layer; all parsers share the same layers.
type decoder struct {
	eth   layers.Ethernet
	dot1q layers.Dot1Q
	sll   layers.LinuxSLL
	sll2  layers.LinuxSLL2
	ip4   layers.IPv4
	ip6   layers.IPv6
	ext   layers.IPv6ExtensionSkipper
	frag  layers.IPv6Fragment
	udp   udpLast

	pEth, pSLL, pSLL2, pIP4, pIP6 *gopacket.DecodingLayerParser
	decoded                       []gopacket.LayerType
}

func (d *decoder) init() {
	mk := func(first gopacket.LayerType) *gopacket.DecodingLayerParser {
		// Layer types are small integers, so the sparse slice container
		// beats the default map. ext before frag: the skipper claims all
		// extension types, frag then takes the fragment header back so
		// fragments are recognised.
		p := gopacket.NewDecodingLayerParser(first)
		p.SetDecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
		for _, l := range []gopacket.DecodingLayer{&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.ip4, &d.ip6, &d.ext, &d.frag, &d.udp} {
			p.AddDecodingLayer(l)
		}
		p.IgnoreUnsupported = true
		return p
	}
	d.pEth = mk(layers.LayerTypeEthernet)
	d.pSLL = mk(layers.LayerTypeLinuxSLL)
	d.pSLL2 = mk(layers.LayerTypeLinuxSLL2)
	d.pIP4 = mk(layers.LayerTypeIPv4)
	d.pIP6 = mk(layers.LayerTypeIPv6)
	d.decoded = make([]gopacket.LayerType, 0, 16)
}

// parserFor picks the parser for a frame and the offset its first layer
// starts at, or returns the kind of frame when there is nothing to parse.
func (d *decoder) parserFor(lt layers.LinkType, data []byte) (*gopacket.DecodingLayerParser, int, Kind) {
	switch lt {
	case layers.LinkTypeEthernet:
		return d.pEth, 0, 0
	case layers.LinkTypeLinuxSLL:
		return d.pSLL, 0, 0
	case layers.LinkTypeLinuxSLL2:
		return d.pSLL2, 0, 0
	case layers.LinkTypeIPv4:
		return d.pIP4, 0, 0
	case layers.LinkTypeIPv6:
		return d.pIP6, 0, 0
	case layers.LinkTypeRaw, linkTypeDLTRaw12, linkTypeDLTRaw14:
		if len(data) == 0 {
			return nil, 0, KindMalformed
		}
		switch data[0] >> 4 {
		case 4:
			return d.pIP4, 0, 0
		case 6:
			return d.pIP6, 0, 0
		}
		return nil, 0, KindNonIP
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(data) < loopbackHdrSize {
			return nil, 0, KindMalformed
		}
		switch loopbackFamily(data) {
		case afInet:
			return d.pIP4, loopbackHdrSize, 0
		case afInet6Linux, afInet6Windows, afInet6BSD, afInet6FreeBSD, afInet6Darwin:
			return d.pIP6, loopbackHdrSize, 0
		}
		return nil, 0, KindNonIP
	}
	return nil, 0, KindUnsupported
}

// loopbackFamily reads the 4-byte family word of a NULL or LOOP header. NULL
// writes it in the capturing host's byte order, LOOP in network order, and
// files exist with both for both; families are below 256, so the order shows
// in which end the zero bytes are.
func loopbackFamily(b []byte) uint32 {
	if b[0] == 0 && b[1] == 0 {
		return uint32(b[2])<<8 | uint32(b[3])
	}
	return uint32(b[0]) | uint32(b[1])<<8
}

// decode classifies one frame and, for UDP, fills p's addresses, payload and
// truncation flag. It does not allocate for well-formed frames.
func (d *decoder) decode(p *Packet, lt layers.LinkType, data []byte) Kind {
	parser, off, kind := d.parserFor(lt, data)
	if parser == nil {
		return kind
	}
	err := parser.DecodeLayers(data[off:], &d.decoded)
	n := len(d.decoded)
	if n > 0 && d.decoded[n-1] == layers.LayerTypeUDP {
		d.fillUDP(p, data, parser.Truncated)
		return KindOtherPort // Reader upgrades it to KindMatched by port
	}
	if err != nil || n == 0 {
		return KindMalformed
	}
	switch last := d.decoded[n-1]; last {
	case layers.LayerTypeIPv4:
		if d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0 {
			return KindFragment
		}
		return d.nonUDP(d.ip4.Protocol)
	case layers.LayerTypeIPv6:
		if d.ip6.HopByHop != nil {
			return d.nonUDP(d.ip6.HopByHop.NextHeader)
		}
		return d.nonUDP(d.ip6.NextHeader)
	case layers.LayerTypeIPv6Fragment:
		if d.frag.MoreFragments || d.frag.FragmentOffset != 0 {
			return KindFragment
		}
		return d.nonUDP(d.frag.NextHeader)
	case layers.LayerTypeIPv6HopByHop, layers.LayerTypeIPv6Routing, layers.LayerTypeIPv6Destination:
		return d.nonUDP(d.ext.NextHeader)
	}
	return KindNonIP
}

// nonUDP classifies an IP packet whose decoding stopped before UDP: when the
// header says UDP follows, the UDP header was missing, so the frame is cut.
func (d *decoder) nonUDP(next layers.IPProtocol) Kind {
	if next == layers.IPProtocolUDP {
		return KindMalformed
	}
	return KindNonUDP
}

// fillUDP copies the addresses of the innermost IP header and the UDP ports,
// and locates the payload inside data.
func (d *decoder) fillUDP(p *Packet, data []byte, truncated bool) {
	var src, dst netip.Addr
findIP:
	for i := len(d.decoded) - 2; i >= 0; i-- {
		switch d.decoded[i] {
		case layers.LayerTypeIPv4:
			src = netip.AddrFrom4([4]byte(d.ip4.SrcIP))
			dst = netip.AddrFrom4([4]byte(d.ip4.DstIP))
		case layers.LayerTypeIPv6:
			src = netip.AddrFrom16([16]byte(d.ip6.SrcIP))
			dst = netip.AddrFrom16([16]byte(d.ip6.DstIP))
		default:
			continue
		}
		break findIP
	}
	u := &d.udp.UDP
	p.Src = netip.AddrPortFrom(src, uint16(u.SrcPort))
	p.Dst = netip.AddrPortFrom(dst, uint16(u.DstPort))
	p.Payload = u.Payload
	// Every layer slices its input without copying, so the payload shares
	// data's backing array and ends where data's capacity ends.
	p.PayloadOffset = cap(data) - cap(u.Payload)
	if u.Length >= 8 {
		p.Missing = max(int(u.Length)-8-len(u.Payload), 0)
	}
	p.Truncated = truncated || p.Missing > 0
}
