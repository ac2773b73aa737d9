package capture

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// FixUDPChecksum makes the UDP checksum in p.Data valid again after Payload
// was changed in place (same length). Over IPv4 it sets the checksum to 0,
// which RFC 768 defines as "not computed". Over IPv6 a checksum is mandatory,
// so it is recomputed over the pseudo-header with p.Src and p.Dst; a datagram
// cut short by the snap length cannot be summed and is an error. (With an
// IPv6 routing header the pseudo-header would need the final destination;
// such captures are not expected here and get the header's destination.)
func FixUDPChecksum(p *Packet) error {
	u := p.PayloadOffset - 8
	if (p.Kind != KindMatched && p.Kind != KindOtherPort) || u < 0 || p.PayloadOffset+len(p.Payload) > len(p.Data) {
		return fmt.Errorf("capture: frame %d: no UDP header to fix", p.Frame)
	}
	hdr := p.Data[u : u+8]
	if p.Src.Addr().Is4() {
		hdr[6], hdr[7] = 0, 0
		return nil
	}
	n := int(binary.BigEndian.Uint16(hdr[4:6]))
	if n == 0 { // jumbogram: the length is in a hop-by-hop option
		n = 8 + len(p.Payload)
	}
	if p.Truncated || u+n > len(p.Data) {
		return fmt.Errorf("capture: frame %d: datagram truncated, cannot recompute its IPv6 UDP checksum", p.Frame)
	}
	hdr[6], hdr[7] = 0, 0
	src, dst := p.Src.Addr().As16(), p.Dst.Addr().As16()
	sum := gopacket.ComputeChecksum(src[:], 0)
	sum = gopacket.ComputeChecksum(dst[:], sum)
	sum += uint32(n>>16) + uint32(n&0xffff) + uint32(layers.IPProtocolUDP)
	csum := gopacket.FoldChecksum(gopacket.ComputeChecksum(p.Data[u:u+n], sum))
	if csum == 0 {
		csum = 0xffff // RFC 8200 8.1: a computed zero is sent as all ones
	}
	binary.BigEndian.PutUint16(hdr[6:8], csum)
	return nil
}
