package capture

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// The fast path. Most records of a real capture are plain UDP over
// Ethernet in a packet record or enhanced packet block. For those the
// Reader takes the record straight from the framer, which has checked its
// lengths, and parses the link, IP and UDP headers by hand: no pcapgo, no
// DecodingLayerParser. Everything else (a section or interface block, a
// damaged record, an IP option, a fragment, an extension header, a length
// that does not add up) goes through the hardened path of pcapgo and
// gopacket for that record, so the Packets are exactly the same either way
// (see fast_test.go).
//
// Handing a record back to pcapgo works because the framer serves pcapgo
// one record per Read: between two packets pcapgo's own read-ahead buffer
// is empty, so a record the fast path leaves in the framer unread is the
// next thing pcapgo reads.

// fastIface is what the fast path needs of a pcapng interface, copied
// from pcapgo's, with pcapgo's timestamp arithmetic precomputed.
type fastIface struct {
	lt                           layers.LinkType
	snap                         uint32
	secondMask, scaleUp, scaleDn uint64
	offset                       uint64
}

func newFastIface(intf pcapgo.NgInterface) fastIface {
	fi := fastIface{lt: intf.LinkType, snap: intf.SnapLength, offset: intf.TimestampOffset, scaleUp: 1, scaleDn: 1}
	// As pcapgo's readInterfaceDescriptor, overflow of 10^20 and up included
	// (pcapgo refuses exponents above 63 before an interface gets here).
	res := intf.TimestampResolution
	if res.Binary() {
		fi.secondMask = 1 << res.Exponent()
	} else {
		fi.secondMask = 1
		for range res.Exponent() {
			fi.secondMask *= 10
		}
	}
	if fi.secondMask < 1e9 {
		fi.scaleUp = 1e9 / fi.secondMask
	} else {
		fi.scaleDn = fi.secondMask / 1e9
	}
	return fi
}

// time converts a pcapng timestamp as pcapgo's convertTime does.
func (fi *fastIface) time(ts uint64) time.Time {
	return time.Unix(int64(ts/fi.secondMask+fi.offset), int64(ts%fi.secondMask*fi.scaleUp/fi.scaleDn)).UTC()
}

// syncIfaces brings the fast path's copy of the pcapng interfaces up to
// date after pcapgo read blocks: interfaces are only ever appended within a
// section, and a new section starts the list again.
func (r *Reader) syncIfaces() {
	if r.ifSection != r.section {
		r.ifaces, r.ifSection = r.ifaces[:0], r.section
	}
	if n := r.ng.NInterfaces(); n < len(r.ifaces) {
		r.ifaces = r.ifaces[:0] // a section header without a new callback
	}
	for i := len(r.ifaces); i < r.ng.NInterfaces(); i++ {
		intf, err := r.ng.Interface(i)
		if err != nil {
			break
		}
		r.ifaces = append(r.ifaces, newFastIface(intf))
	}
}

// readFast reads the next record on the fast path. ok is false when the
// record (or the error the framer met) is for pcapgo to read instead; it
// is then left for pcapgo, unread.
func (r *Reader) readFast(ci *gopacket.CaptureInfo) (data []byte, lt layers.LinkType, ok bool) {
	f := r.fr
	f.consume()
	if f.off != len(f.buf) || f.err != nil {
		return nil, 0, false
	}
	// Zero copy when the record is whole in the source's buffer; else a
	// copy through the framer, which refills that buffer.
	if b := f.peek(); b != nil {
		if data, lt, ok = r.parseRecord(b, ci); !ok {
			f.unpeek()
		}
		return data, lt, ok
	}
	f.buf, f.off = f.buf[:0], 0
	var err error
	if f.ng {
		err = f.nextBlock()
	} else {
		err = f.nextRecord()
	}
	if err != nil {
		// As framer.Read: pcapgo meets the error where it would have.
		f.buf, f.err = f.buf[:0], err
		return nil, 0, false
	}
	if data, lt, ok = r.parseRecord(f.buf, ci); ok {
		f.off = len(f.buf) // else pcapgo reads the block from the framer
	}
	return data, lt, ok
}

// parseRecord reads a pcap record or a pcapng packet block as pcapgo
// would, or reports false for one pcapgo is to read (or fail on).
// It fills *ci (all of it when ok), which the caller reads after.
func (r *Reader) parseRecord(b []byte, ci *gopacket.CaptureInfo) (data []byte, lt layers.LinkType, ok bool) {
	o := r.fr.order
	if !r.fr.ng {
		caplen := o.Uint32(b[8:12])
		orig := o.Uint32(b[12:16])
		// pcapgo's own checks; the framer already keeps caplen within
		// MaxFrameLen (pcapgo's minimum limit) and raises orig to it.
		if caplen > orig || caplen > max(r.pcap.Snaplen(), MaxFrameLen) {
			return nil, 0, false
		}
		ci.Timestamp = time.Unix(int64(o.Uint32(b[0:4])), int64(o.Uint32(b[4:8])*r.nsFactor)).UTC()
		ci.CaptureLength, ci.Length = int(caplen), int(orig)
		n := 16 + int(caplen)
		ci.InterfaceIndex, ci.AncillaryData = 0, nil
		return b[16:n:n], r.pcapLT, true
	}
	var ifc *fastIface
	var off int
	switch o.Uint32(b[0:4]) {
	case blockEPB:
		id := o.Uint32(b[8:12])
		if id >= uint32(len(r.ifaces)) {
			return nil, 0, false // pcapgo has the error message
		}
		ifc = &r.ifaces[id]
		ci.InterfaceIndex = int(id)
		ci.Timestamp = ifc.time(uint64(o.Uint32(b[12:16]))<<32 | uint64(o.Uint32(b[16:20])))
		ci.CaptureLength = int(o.Uint32(b[20:24]))
		ci.Length = int(o.Uint32(b[24:28]))
		off = 28
	case blockSPB:
		if len(r.ifaces) == 0 {
			return nil, 0, false
		}
		ifc = &r.ifaces[0]
		ci.Length = int(o.Uint32(b[8:12]))
		ci.CaptureLength = ci.Length
		if ifc.snap != 0 && uint32(ci.CaptureLength) > ifc.snap {
			ci.CaptureLength = int(ifc.snap)
		}
		off = 12
	default:
		return nil, 0, false
	}
	n := off + ci.CaptureLength
	if ci.CaptureLength < 0 || n > len(b) { // the framer rules it out; never trust it blindly
		return nil, 0, false
	}
	if r.ancilLT != ifc.lt || r.ancil[0] == nil {
		r.ancil[0], r.ancilLT = ifc.lt, ifc.lt // boxed once per change, not per packet
	}
	ci.AncillaryData = r.ancil[:]
	return b[off:n:n], ifc.lt, true
}

// decodeFast is decode with fastDecode in front.
func (d *decoder) decodeFast(p *Packet, lt layers.LinkType, data []byte) Kind {
	if k, ok := fastDecode(p, lt, data); ok {
		return k
	}
	return d.decode(p, lt, data)
}

// fastDecode classifies the common frames as decoder.decode does and fills
// p likewise. ok is false for anything else, which decoder.decode is to
// handle; p is then untouched.
func fastDecode(p *Packet, lt layers.LinkType, data []byte) (k Kind, ok bool) {
	var et uint16
	off := 0
	switch lt {
	case layers.LinkTypeEthernet:
		if len(data) < 14 {
			return 0, false
		}
		et, off = be16(data[12:]), 14
		for tags := 0; et == 0x8100 || et == 0x88a8; tags++ { // 802.1Q, QinQ
			if tags == 2 || len(data) < off+4 {
				return 0, false
			}
			et, off = be16(data[off+2:]), off+4
		}
	case layers.LinkTypeLinuxSLL:
		// gopacket refuses an address length above 8.
		if len(data) < 16 || be16(data[4:]) > 8 {
			return 0, false
		}
		et, off = be16(data[14:]), 16
	case layers.LinkTypeLinuxSLL2:
		if len(data) < 20 || data[11] > 8 {
			return 0, false
		}
		switch layers.ARPHardwareType(be16(data[8:])) {
		case layers.ARPHardwareTypeFRAD, layers.ARPHardwareTypeDot11Radiotap, layers.ARPHardwareTypeIPGRE:
			return 0, false // protocol type not an EtherType
		}
		et, off = be16(data), 20
	case layers.LinkTypeIPv4:
		et = 0x0800
	case layers.LinkTypeIPv6:
		et = 0x86dd
	case layers.LinkTypeRaw, linkTypeDLTRaw12, linkTypeDLTRaw14:
		if len(data) == 0 {
			return 0, false
		}
		switch data[0] >> 4 {
		case 4:
			et = 0x0800
		case 6:
			et = 0x86dd
		default:
			return 0, false
		}
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(data) < loopbackHdrSize {
			return 0, false
		}
		switch loopbackFamily(data) {
		case afInet:
			et = 0x0800
		case afInet6Linux, afInet6Windows, afInet6BSD, afInet6FreeBSD, afInet6Darwin:
			et = 0x86dd
		default:
			return 0, false
		}
		off = loopbackHdrSize
	default:
		return 0, false
	}
	switch et {
	case 0x0800:
		return fastIPv4(p, data, off)
	case 0x86dd:
		return fastIPv6(p, data, off)
	case 0x0806: // ARP: gopacket stops after the link layer
		return KindNonIP, true
	}
	return 0, false
}

// fastIPv4 takes an IPv4 header without options, not a fragment, whose
// total length fits the frame (Ethernet padding after it is ignored).
func fastIPv4(p *Packet, data []byte, off int) (Kind, bool) {
	ip := data[off:]
	if len(ip) < 20 || ip[0] != 0x45 {
		return 0, false // not version 4 with a 5-word header: options, or garbage
	}
	total := int(be16(ip[2:]))
	if total < 20 || total > len(ip) || be16(ip[6:])&0x3fff != 0 { // MF, offset
		return 0, false
	}
	switch ip[9] {
	case 17:
		if total < 28 {
			return 0, false
		}
		return fastUDP(p, data, off+20, off+total,
			netip.AddrFrom4([4]byte(ip[12:16])), netip.AddrFrom4([4]byte(ip[16:20])))
	case 1, 2, 6: // ICMP, IGMP, TCP: gopacket stops after IP
		return KindNonUDP, true
	}
	return 0, false
}

// fastIPv6 takes an IPv6 header followed directly by UDP, TCP or ICMPv6,
// whose payload length fits the frame.
func fastIPv6(p *Packet, data []byte, off int) (Kind, bool) {
	ip := data[off:]
	if len(ip) < 40 || ip[0]>>4 != 6 {
		return 0, false
	}
	plen := int(be16(ip[4:]))
	if plen == 0 || 40+plen > len(ip) { // 0: jumbogram or garbage
		return 0, false
	}
	switch ip[6] {
	case 17:
		if plen < 8 {
			return 0, false
		}
		return fastUDP(p, data, off+40, off+40+plen,
			netip.AddrFrom16([16]byte(ip[8:24])), netip.AddrFrom16([16]byte(ip[24:40])))
	case 6, 58: // TCP, ICMPv6
		return KindNonUDP, true
	}
	return 0, false
}

// fastUDP takes a UDP header at data[off:] whose length fits the IP
// payload ending at end (0, a jumbogram's, goes to the hardened path).
func fastUDP(p *Packet, data []byte, off, end int, src, dst netip.Addr) (Kind, bool) {
	u := data[off:end]
	ulen := int(be16(u[4:]))
	if ulen < 8 || ulen > len(u) {
		return 0, false
	}
	p.Src = netip.AddrPortFrom(src, be16(u[0:]))
	p.Dst = netip.AddrPortFrom(dst, be16(u[2:]))
	p.Payload = data[off+8 : off+ulen]
	p.PayloadOffset = off + 8
	return KindOtherPort, true // Reader upgrades it to KindMatched by port
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
