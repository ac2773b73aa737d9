// Package pcapedit rewrites classic pcap files the ways limited or broken
// capture setups do: cut to a snap length, IP-fragmented (IPv4, or IPv6
// with a Fragment extension header), a record whose captured length exceeds
// its original length. bcdump's tests build such captures from real ones
// with it; it is not used by bcdump itself.
//
// Only little-endian pcap files of Ethernet frames are handled (what the
// reference captures are); anything else is an error.
package pcapedit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
)

var le = binary.LittleEndian

// Record is one pcap record.
type Record struct {
	Sec, Frac uint32 // timestamp as stored
	Orig      uint32 // original length
	Data      []byte // captured bytes
}

// File is a parsed pcap file.
type File struct {
	Header  [24]byte
	Records []Record
}

// Parse reads a little-endian Ethernet pcap file.
func Parse(b []byte) (*File, error) {
	if len(b) < 24 || le.Uint32(b) != 0xa1b2c3d4 && le.Uint32(b) != 0xa1b23c4d {
		return nil, errors.New("pcapedit: not a little-endian pcap file")
	}
	f := &File{}
	copy(f.Header[:], b)
	if lt := le.Uint32(b[20:]); lt != 1 {
		return nil, fmt.Errorf("pcapedit: link type %d, want Ethernet (1)", lt)
	}
	for off := 24; off < len(b); {
		if off+16 > len(b) {
			return nil, errors.New("pcapedit: truncated record header")
		}
		n := int(le.Uint32(b[off+8:]))
		if off+16+n > len(b) {
			return nil, errors.New("pcapedit: truncated record")
		}
		f.Records = append(f.Records, Record{Sec: le.Uint32(b[off:]), Frac: le.Uint32(b[off+4:]),
			Orig: le.Uint32(b[off+12:]), Data: b[off+16 : off+16+n : off+16+n]})
		off += 16 + n
	}
	return f, nil
}

// Bytes writes f out.
func (f *File) Bytes() []byte {
	b := append([]byte(nil), f.Header[:]...)
	for _, r := range f.Records {
		b = le.AppendUint32(b, r.Sec)
		b = le.AppendUint32(b, r.Frac)
		b = le.AppendUint32(b, uint32(len(r.Data)))
		b = le.AppendUint32(b, r.Orig)
		b = append(b, r.Data...)
	}
	return b
}

// Snap cuts every record to n bytes and sets the file's snap length, as a
// capture with that snap length would have been written.
func Snap(f *File, n int) *File {
	out := &File{Header: f.Header}
	le.PutUint32(out.Header[16:], uint32(n))
	for _, r := range f.Records {
		r.Data = r.Data[:min(len(r.Data), n)]
		out.Records = append(out.Records, r)
	}
	return out
}

// LenBelowCaptured sets record i's original length to n bytes below its
// captured length, as broken writers do.
func LenBelowCaptured(f *File, i, n int) *File {
	out := &File{Header: f.Header, Records: append([]Record(nil), f.Records...)}
	out.Records[i].Orig = uint32(max(len(out.Records[i].Data)-n, 0))
	return out
}

const (
	ethLen = 14
	ip4Len = 20
	ip6Len = 40
	fragH  = 8 // IPv6 Fragment extension header
)

// Fragmented is a fragmented copy of a capture. Frame maps each frame
// number of the original (1-based) to the frame of the copy holding it
// whole, or, for a fragmented datagram, its last fragment in file order.
type Fragmented struct {
	*File
	Frame []int // Frame[orig] = new frame; index 0 unused
	Split int   // datagrams split
}

// FragmentIPv4 splits every IPv4 UDP packet whose IP payload exceeds
// maxPayload bytes into fragments of at most that many (rounded down to a
// multiple of 8), with the fragments of one packet in an order drawn from
// rng (nil: in order). drop, when set, says which fragments to leave out:
// drop(datagram, fragment) with datagram counting split packets from 0.
func FragmentIPv4(f *File, maxPayload int, rng *rand.Rand, drop func(dg, frag int) bool) (*Fragmented, error) {
	return fragment(f, maxPayload, rng, drop, false)
}

// FragmentIPv6 is FragmentIPv4 for IPv6: every IPv4 UDP packet is first
// turned into IPv6 (addresses mapped into 2001:db8::/96, the UDP checksum
// recomputed), and packets whose IP payload exceeds maxPayload are split
// with a Fragment extension header.
func FragmentIPv6(f *File, maxPayload int, rng *rand.Rand, drop func(dg, frag int) bool) (*Fragmented, error) {
	return fragment(f, maxPayload, rng, drop, true)
}

// ToIPv6 turns every IPv4 UDP packet into IPv6 without fragmenting.
func ToIPv6(f *File) (*File, error) {
	fr, err := fragment(f, 1<<20, nil, nil, true)
	if err != nil {
		return nil, err
	}
	return fr.File, nil
}

func fragment(f *File, maxPayload int, rng *rand.Rand, drop func(dg, frag int) bool, v6 bool) (*Fragmented, error) {
	chunk := maxPayload &^ 7
	if chunk < 8 {
		return nil, errors.New("pcapedit: fragments must hold at least 8 bytes")
	}
	out := &Fragmented{File: &File{Header: f.Header}, Frame: make([]int, len(f.Records)+1)}
	for i, r := range f.Records {
		d := r.Data
		isUDP4 := len(d) >= ethLen+ip4Len && d[12] == 0x08 && d[13] == 0x00 && d[ethLen]>>4 == 4 &&
			d[ethLen]&0x0F == 5 && d[ethLen+9] == 17 && int(r.Orig) == len(d)
		if !isUDP4 {
			out.Records = append(out.Records, r)
			out.Frame[i+1] = len(out.Records)
			continue
		}
		ip := d[ethLen:]
		total := int(binary.BigEndian.Uint16(ip[2:]))
		if total > len(ip) || total < ip4Len {
			return nil, fmt.Errorf("pcapedit: record %d: bad IPv4 total length", i+1)
		}
		payload := ip[ip4Len:total] // UDP header and data
		var hdr []byte              // link + IP header without the fragment part
		if v6 {
			payload = udp6(ip, payload)
			hdr = ip6Header(d[:ethLen], ip)
		} else {
			hdr = append([]byte(nil), d[:ethLen+ip4Len]...)
		}
		if len(payload) <= chunk {
			out.Records = append(out.Records, Record{r.Sec, r.Frac, 0, packet(hdr, payload, 0, false, v6, false, uint32(i+1))})
			out.Records[len(out.Records)-1].Orig = uint32(len(out.Records[len(out.Records)-1].Data))
			out.Frame[i+1] = len(out.Records)
			continue
		}
		var frags [][]byte
		for off := 0; off < len(payload); off += chunk {
			end := min(off+chunk, len(payload))
			frags = append(frags, packet(hdr, payload[off:end], off, end < len(payload), v6, true, uint32(i+1)))
		}
		order := make([]int, len(frags))
		for k := range order {
			order[k] = k
		}
		if rng != nil {
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		for _, k := range order {
			if drop != nil && drop(out.Split, k) {
				continue
			}
			out.Records = append(out.Records, Record{r.Sec, r.Frac, uint32(len(frags[k])), frags[k]})
		}
		out.Frame[i+1] = len(out.Records)
		out.Split++
	}
	return out, nil
}

// packet builds one frame: hdr (link and IP header, IPv4 or IPv6 as
// ip6Header made it) around part, the bytes at off of the IP payload.
func packet(hdr, part []byte, off int, more, v6, frag bool, id uint32) []byte {
	b := append([]byte(nil), hdr...)
	if !v6 {
		ip := b[ethLen:]
		binary.BigEndian.PutUint16(ip[2:], uint16(ip4Len+len(part)))
		binary.BigEndian.PutUint16(ip[4:], uint16(id))
		fo := uint16(off / 8)
		if more {
			fo |= 0x2000
		}
		if frag {
			binary.BigEndian.PutUint16(ip[6:], fo)
		}
		ip[10], ip[11] = 0, 0
		binary.BigEndian.PutUint16(ip[10:], ^sum16(0, ip[:ip4Len]))
		return append(b, part...)
	}
	ip := b[ethLen:]
	plen := len(part)
	if frag {
		plen += fragH
		ip[6] = 44 // Fragment header follows
		fo := uint16(off/8) << 3
		if more {
			fo |= 1
		}
		b = append(b, 17, 0, byte(fo>>8), byte(fo))
		b = binary.BigEndian.AppendUint32(b, id)
	}
	binary.BigEndian.PutUint16(b[ethLen+4:], uint16(plen))
	return append(b, part...)
}

// ip6Header is the Ethernet header (type IPv6) and an IPv6 header for an
// IPv4 packet, with payload length and next header filled in by packet.
func ip6Header(eth, ip4 []byte) []byte {
	b := append([]byte(nil), eth[:12]...)
	b = append(b, 0x86, 0xDD, 0x60, 0, 0, 0, 0, 0, 17, ip4[8])
	src, dst := map6(ip4[12:16]), map6(ip4[16:20])
	b = append(b, src[:]...)
	return append(b, dst[:]...)
}

func map6(a []byte) [16]byte {
	p := netip.MustParseAddr("2001:db8::").As16()
	copy(p[12:], a)
	return p
}

// udp6 copies the UDP datagram with its checksum recomputed over the IPv6
// pseudo-header.
func udp6(ip4, udp []byte) []byte {
	u := append([]byte(nil), udp...)
	if len(u) < 8 {
		return u
	}
	src, dst := map6(ip4[12:16]), map6(ip4[16:20])
	u[6], u[7] = 0, 0
	s := sum16(0, src[:])
	s = sum16(s, dst[:])
	s = sum16(s, []byte{0, 0, byte(len(u) >> 8), byte(len(u)), 0, 0, 0, 17})
	c := ^sum16(s, u)
	if c == 0 {
		c = 0xFFFF
	}
	binary.BigEndian.PutUint16(u[6:], c)
	return u
}

// sum16 adds b to the ones' complement sum s (folded).
func sum16(s uint16, b []byte) uint16 {
	x := uint32(s)
	for i := 0; i+1 < len(b); i += 2 {
		x += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		x += uint32(b[len(b)-1]) << 8
	}
	for x > 0xFFFF {
		x = x&0xFFFF + x>>16
	}
	return uint16(x)
}

// MovePort moves the UDP traffic on port from to port to, as if the game
// had been hosted there: every IPv4 UDP source or destination port equal to
// from is rewritten, the UDP checksum updated incrementally (RFC 1624).
// IP fragments after the first carry no ports and are left alone.
func MovePort(f *File, from, to uint16) *File {
	out := &File{Header: f.Header}
	for _, r := range f.Records {
		r.Data = append([]byte(nil), r.Data...)
		d := r.Data
		if len(d) >= ethLen+ip4Len && binary.BigEndian.Uint16(d[12:]) == 0x0800 && d[ethLen+9] == 17 &&
			binary.BigEndian.Uint16(d[ethLen+6:])&0x1FFF == 0 {
			u := ethLen + int(d[ethLen]&0x0F)*4
			if u+8 <= len(d) {
				for _, off := range []int{u, u + 2} {
					if binary.BigEndian.Uint16(d[off:]) != from {
						continue
					}
					binary.BigEndian.PutUint16(d[off:], to)
					if c := binary.BigEndian.Uint16(d[u+6:]); c != 0 {
						// HC' = ~(~HC + ~m + m')
						s := sum16(sum16(^c, []byte{byte(^from >> 8), byte(^from)}), []byte{byte(to >> 8), byte(to)})
						if s = ^s; s == 0 {
							s = 0xFFFF
						}
						binary.BigEndian.PutUint16(d[u+6:], s)
					}
				}
			}
		}
		out.Records = append(out.Records, r)
	}
	return out
}
