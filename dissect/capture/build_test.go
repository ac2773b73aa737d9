package capture

// Builders for the small captures the tests read. Frames are serialized by
// gopacket (IP and UDP with correct lengths and checksums); link headers and
// the containers that pcapgo cannot write (big-endian pcap and pcapng) are
// laid out by hand from the format descriptions.

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

var (
	cli4 = netip.MustParseAddrPort("10.0.0.2:50000")
	srv4 = netip.MustParseAddrPort("10.0.0.1:22101")
	cli6 = netip.MustParseAddrPort("[2001:db8::2]:50000")
	srv6 = netip.MustParseAddrPort("[2001:db8::1]:22101")
	t0   = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	bcPl = []byte{0x01, 0x02, 0x03, 0x04, 0x05} // stands in for a BC datagram
)

func serialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, ls...); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(buf.Bytes())
}

// ipUDP is an IPv4 or IPv6 packet (by the address family of src) carrying UDP.
func ipUDP(t testing.TB, src, dst netip.AddrPort, payload []byte) []byte {
	udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	if src.Addr().Is4() {
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP,
			SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		_ = udp.SetNetworkLayerForChecksum(ip)
		return serialize(t, ip, udp, gopacket.Payload(payload))
	}
	ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP,
		SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	_ = udp.SetNetworkLayerForChecksum(ip)
	return serialize(t, ip, udp, gopacket.Payload(payload))
}

// ip4 is an IPv4 packet with the given protocol, flags and fragment offset
// around raw payload bytes.
func ip4(t testing.TB, proto layers.IPProtocol, flags layers.IPv4Flag, fragOff uint16, payload []byte) []byte {
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: proto, Flags: flags, FragOffset: fragOff,
		SrcIP: cli4.Addr().AsSlice(), DstIP: srv4.Addr().AsSlice()}
	return serialize(t, ip, gopacket.Payload(payload))
}

// ip6Ext inserts IPv6 extension headers (each given as next-header-less
// 8-byte units: type then body) between the IPv6 header and its payload.
func ip6Ext(pkt []byte, exts ...[]byte) []byte {
	out := bytes.Clone(pkt[:40])
	next := pkt[6]
	body := pkt[40:]
	var ext []byte
	for i, e := range exts {
		h := bytes.Clone(e[1:])
		if i == len(exts)-1 {
			h[0] = next
		} else {
			h[0] = exts[i+1][0]
		}
		ext = append(ext, h...)
	}
	out[6] = exts[0][0]
	binary.BigEndian.PutUint16(out[4:6], uint16(len(ext)+len(body)))
	return append(append(out, ext...), body...)
}

// Extension headers for ip6Ext: the first byte is the header's own type,
// the next byte is overwritten with the chained next-header value.
var (
	extHopByHop = []byte{0, 0, 0, 1, 4, 0, 0, 0, 0}  // PadN 4
	extDestOpts = []byte{60, 0, 0, 1, 4, 0, 0, 0, 0} // PadN 4
)

func extFragment(offset uint16, more bool) []byte {
	v := offset << 3
	if more {
		v |= 1
	}
	return []byte{44, 0, 0, byte(v >> 8), byte(v), 0, 0, 0x12, 0x34}
}

var (
	macA = []byte{0x02, 0, 0, 0, 0, 0x0a}
	macB = []byte{0x02, 0, 0, 0, 0, 0x0b}
)

func eth(typ uint16, payload []byte) []byte {
	b := append(append(bytes.Clone(macA), macB...), byte(typ>>8), byte(typ))
	return append(b, payload...)
}

// vlan wraps payload in 802.1Q tags: tpids are the tag protocol ids from the
// outside in; inner is the EtherType after the last tag.
func vlan(tpids []uint16, inner uint16, payload []byte) []byte {
	var tags []byte
	for i := range tpids {
		next := inner
		if i+1 < len(tpids) {
			next = tpids[i+1]
		}
		tags = append(tags, 0x20, byte(100+i), byte(next>>8), byte(next))
	}
	return eth(tpids[0], append(tags, payload...))
}

func sll(proto uint16, payload []byte) []byte {
	h := []byte{0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0x0a, 0, 0, byte(proto >> 8), byte(proto)}
	return append(h, payload...)
}

func sll2(proto uint16, payload []byte) []byte {
	h := []byte{byte(proto >> 8), byte(proto), 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 0x0a, 0, 0}
	return append(h, payload...)
}

func loopback(o byteOrder, family uint32, payload []byte) []byte {
	return append(o.AppendUint32(nil, family), payload...)
}

// frame is one record of a test capture.
type frame struct {
	ts   time.Time
	data []byte
	orig int // original length; 0 means len(data)
}

func (f frame) origLen() int { return max(f.orig, len(f.data)) }

func frames(datas ...[]byte) []frame {
	fs := make([]frame, len(datas))
	for i, d := range datas {
		fs[i] = frame{ts: t0.Add(time.Duration(i) * time.Millisecond), data: d}
	}
	return fs
}

// pcapFile writes a pcap file: little-endian with pcapgo, big-endian by hand.
func pcapFile(t testing.TB, lt layers.LinkType, nanos, bigEndian bool, fs []frame) []byte {
	t.Helper()
	var b bytes.Buffer
	if !bigEndian {
		w := pcapgo.NewWriter(&b)
		if nanos {
			w = pcapgo.NewWriterNanos(&b)
		}
		if err := w.WriteFileHeader(65535, lt); err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			ci := gopacket.CaptureInfo{Timestamp: f.ts, CaptureLength: len(f.data), Length: f.origLen()}
			if err := w.WritePacket(ci, f.data); err != nil {
				t.Fatal(err)
			}
		}
		return b.Bytes()
	}
	be := binary.BigEndian
	magic := uint32(0xa1b2c3d4)
	if nanos {
		magic = 0xa1b23c4d
	}
	h := be.AppendUint32(nil, magic)
	h = be.AppendUint16(h, 2)
	h = be.AppendUint16(h, 4)
	h = append(h, make([]byte, 8)...)
	h = be.AppendUint32(h, 65535)
	h = be.AppendUint32(h, uint32(lt))
	for _, f := range fs {
		frac := f.ts.Nanosecond() / 1000
		if nanos {
			frac = f.ts.Nanosecond()
		}
		h = be.AppendUint32(h, uint32(f.ts.Unix()))
		h = be.AppendUint32(h, uint32(frac))
		h = be.AppendUint32(h, uint32(len(f.data)))
		h = be.AppendUint32(h, uint32(f.origLen()))
		h = append(h, f.data...)
	}
	return h
}

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// ngb lays out pcapng blocks by hand in either byte order.
type ngb struct {
	o byteOrder
	b []byte
}

// block appends a block; body is padded to 4 bytes.
func (n *ngb) block(typ uint32, body []byte) *ngb {
	body = append(bytes.Clone(body), make([]byte, pad4(len(body))-len(body))...)
	l := uint32(12 + len(body))
	n.b = n.o.AppendUint32(n.b, typ)
	n.b = n.o.AppendUint32(n.b, l)
	n.b = append(n.b, body...)
	n.b = n.o.AppendUint32(n.b, l)
	return n
}

// opt encodes one option (code, length, value, padding).
func (n *ngb) opt(code uint16, val []byte) []byte {
	b := n.o.AppendUint16(nil, code)
	b = n.o.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	return append(b, make([]byte, pad4(len(val))-len(val))...)
}

func (n *ngb) endOpts(opts ...[]byte) []byte {
	if len(opts) == 0 {
		return nil
	}
	return append(bytes.Join(opts, nil), 0, 0, 0, 0)
}

func (n *ngb) shb(opts ...[]byte) *ngb {
	body := n.o.AppendUint32(nil, 0x1A2B3C4D)
	body = n.o.AppendUint16(body, 1)
	body = n.o.AppendUint16(body, 0)
	body = n.o.AppendUint64(body, ^uint64(0))
	return n.block(blockSHB, append(body, n.endOpts(opts...)...))
}

func (n *ngb) idb(lt layers.LinkType, snap uint32, opts ...[]byte) *ngb {
	body := n.o.AppendUint16(nil, uint16(lt))
	body = n.o.AppendUint16(body, 0)
	body = n.o.AppendUint32(body, snap)
	return n.block(blockIDB, append(body, n.endOpts(opts...)...))
}

// epb writes an enhanced packet block; ts is in the interface's units.
func (n *ngb) epb(iface uint32, ts uint64, data []byte, orig int, opts ...[]byte) *ngb {
	body := n.o.AppendUint32(nil, iface)
	body = n.o.AppendUint32(body, uint32(ts>>32))
	body = n.o.AppendUint32(body, uint32(ts))
	body = n.o.AppendUint32(body, uint32(len(data)))
	body = n.o.AppendUint32(body, uint32(max(orig, len(data))))
	body = append(body, data...)
	body = append(body, make([]byte, pad4(len(data))-len(data))...)
	return n.block(blockEPB, append(body, n.endOpts(opts...)...))
}

// spb writes a simple packet block; orig 0 means len(data).
func (n *ngb) spb(data []byte, orig int) *ngb {
	body := n.o.AppendUint32(nil, uint32(max(orig, len(data))))
	return n.block(blockSPB, append(body, data...))
}

// ngWriterFile writes a little-endian pcapng with pcapgo: interface 0 is
// Ethernet, interface 1 raw IP; frames alternate between them.
func ngWriterFile(t testing.TB, eths, raws [][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{Name: "eth0", LinkType: layers.LinkTypeEthernet, TimestampResolution: 9},
		pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddInterface(pcapgo.NgInterface{Name: "tun0", LinkType: layers.LinkTypeRaw, TimestampResolution: 9}); err != nil {
		t.Fatal(err)
	}
	ts := t0
	for i := range max(len(eths), len(raws)) {
		for iface, list := range [][][]byte{eths, raws} {
			if i < len(list) {
				ci := gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(list[i]), Length: len(list[i]), InterfaceIndex: iface}
				if err := w.WritePacket(ci, list[i]); err != nil {
					t.Fatal(err)
				}
				ts = ts.Add(time.Millisecond)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// readAll reads every packet Next returns (copies) and the final error.
func readAll(t testing.TB, r *Reader) ([]Packet, error) {
	t.Helper()
	var out []Packet
	for i := 0; ; i++ {
		var p Packet
		err := r.Next(&p)
		if err != nil {
			return out, err
		}
		checkPacket(t, &p)
		p.Data = bytes.Clone(p.Data)
		if p.Payload != nil {
			p.Payload = p.Data[p.PayloadOffset : p.PayloadOffset+len(p.Payload)]
		}
		out = append(out, p)
		if i > 1<<20 {
			t.Fatal("reader does not terminate")
		}
	}
}

// checkPacket asserts the invariants every returned packet keeps.
func checkPacket(t testing.TB, p *Packet) {
	t.Helper()
	if p.Frame < 1 {
		t.Fatalf("frame number %d", p.Frame)
	}
	if p.Payload == nil {
		return
	}
	if p.PayloadOffset < 0 || p.PayloadOffset+len(p.Payload) > len(p.Data) {
		t.Fatalf("frame %d: payload offset %d+%d outside %d data bytes", p.Frame, p.PayloadOffset, len(p.Payload), len(p.Data))
	}
	if len(p.Payload) > 0 && &p.Data[p.PayloadOffset] != &p.Payload[0] {
		t.Fatalf("frame %d: payload not at Data[%d:]", p.Frame, p.PayloadOffset)
	}
}

func openBytes(t testing.TB, b []byte, opt Options) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), "test.pcap", opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
