// Package replicate builds long captures out of a short one, for benchmarks,
// soak tests and the measuring script (.ci/measure runs it as
// dissect/dissecttest/cmd/replicate): a real session played back to back
// many times, as a server that hosts one game after another would record it.
//
// Each copy follows the previous one in capture time (shifted by the source's
// duration plus Gap), and each copy's clients get fresh UDP ports, as
// reconnecting clients get new ephemeral ports: copies do not merge into the
// flows of earlier copies, so the per-flow tracker sees many sessions start,
// idle out and be freed, which is what a long real capture does.
//
// With Options.Spread and Options.ClientAddrs the copies run at the same
// time instead, each client of each copy from its own IP address: the
// many-flow capture of a busy public server or a LAN party (issue 17), on
// which every copy must decode exactly as the source does.
package replicate

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/bcdump/bcdump/dissect/capture"
)

// Options configure Write.
type Options struct {
	// Copies of the source to write (at least 1).
	Copies int
	// Gap is the capture time between the last frame of one copy and the
	// first frame of the next; zero means one second.
	Gap time.Duration
	// Ports are the server (game) ports; other ports are client ports and
	// are renumbered per copy. Empty means capture.DefaultPort.
	Ports []uint16
	// KeepPorts leaves client ports alone, so every copy continues the
	// flows of the previous one.
	KeepPorts bool
	// Spread, when positive, overlaps the copies: copy k starts
	// k*Spread/Copies after the first, so all of them run at once, and
	// their frames are merged in capture time order (Gap is unused).
	Spread time.Duration
	// ClientAddrs gives every client of every copy its own IP address
	// (ClientAddr) and keeps the client ports, instead of fresh ports.
	ClientAddrs bool
}

// frame is one frame of the source, copied.
type frame struct {
	at     time.Duration // since the first frame
	ci     gopacket.CaptureInfo
	pkt    capture.Packet // addresses and payload position, for the checksum
	data   []byte
	client int // offset of the client port (src or dst) in data, -1 when none
	addr   int // offset of the client IP address in data, -1 when not found
	ip4    int // offset of the IPv4 header in data, -1 for IPv6 or none
}

// Source is a parsed capture ready to be replicated.
type Source struct {
	format   string
	reader   *capture.Reader
	frames   []frame
	first    time.Time
	duration time.Duration
	clients  map[uint16]int // client port -> index in order of appearance
	ports    []uint16
}

// Load reads a whole capture (pcap or pcapng, any link type the capture
// package decodes) into memory.
func Load(r io.Reader, ports []uint16) (*Source, error) {
	if len(ports) == 0 {
		ports = []uint16{capture.DefaultPort}
	}
	cr, err := capture.NewReader(r, "replicate", capture.Options{Ports: ports, AllFrames: true})
	if err != nil {
		return nil, err
	}
	s := &Source{format: cr.Format(), reader: cr, clients: map[uint16]int{}, ports: ports}
	var p capture.Packet
	for {
		err := cr.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(s.frames) == 0 {
			s.first = p.Time
		}
		f := frame{at: p.Time.Sub(s.first), ci: p.CaptureInfo, data: bytes.Clone(p.Data), client: -1, addr: -1, ip4: -1}
		f.ci.AncillaryData = nil
		if (p.Kind == capture.KindMatched || p.Kind == capture.KindOtherPort) && p.PayloadOffset >= 8 {
			f.pkt = capture.Packet{Frame: p.Frame, Kind: p.Kind, Src: p.Src, Dst: p.Dst, Truncated: p.Truncated,
				PayloadOffset: p.PayloadOffset, Payload: f.data[p.PayloadOffset : p.PayloadOffset+len(p.Payload)], Missing: p.Missing}
			switch udp := p.PayloadOffset - 8; {
			case s.isServer(p.Dst.Port()) && !s.isServer(p.Src.Port()):
				f.client = udp
			case s.isServer(p.Src.Port()) && !s.isServer(p.Dst.Port()):
				f.client = udp + 2
			}
			if f.client >= 0 {
				f.addr, f.ip4 = addrOffset(f.data, p.PayloadOffset-8, f.client == p.PayloadOffset-8, p.Src.Addr().Is4())
				port := binary.BigEndian.Uint16(f.data[f.client:])
				if _, ok := s.clients[port]; !ok {
					s.clients[port] = len(s.clients)
				}
			}
		}
		s.duration = f.at
		s.frames = append(s.frames, f)
	}
	if len(s.frames) == 0 {
		return nil, errors.New("replicate: the source capture has no frames")
	}
	return s, nil
}

func (s *Source) isServer(p uint16) bool {
	for _, q := range s.ports {
		if p == q {
			return true
		}
	}
	return false
}

// Frames is the number of frames in one copy.
func (s *Source) Frames() int { return len(s.frames) }

// Size is the number of bytes of frame data in one copy (without record headers).
func (s *Source) Size() int {
	n := 0
	for _, f := range s.frames {
		n += len(f.data)
	}
	return n
}

// Client ports of copy k are drawn from [portBase, portBase+portSpan),
// never a server port, cycling like an ephemeral port range.
const (
	portBase = 23000
	portSpan = 42000
)

// Write writes opt.Copies copies of s to w as one capture of s's container
// format and link type: one after another, or overlapping (opt.Spread).
// UDP checksums of rewritten frames are cleared (IPv4: "not computed") or
// recomputed (IPv6); IPv4 header checksums are recomputed.
func (s *Source) Write(w io.Writer, opt Options) error {
	if opt.Copies < 1 {
		return fmt.Errorf("replicate: %d copies", opt.Copies)
	}
	cw, err := capture.NewWriterFor(w, s.reader)
	if err != nil {
		return err
	}
	wr := writer{s: s, cw: cw, opt: opt, buf: make([]byte, 0, 2048)}
	if opt.Spread > 0 {
		err = wr.merged()
	} else {
		err = wr.serial()
	}
	if err != nil {
		return err
	}
	return cw.Flush()
}

// writer writes the frames of all copies.
type writer struct {
	s   *Source
	cw  *capture.Writer
	opt Options
	buf []byte
}

// serial writes the copies back to back, Gap apart.
func (w *writer) serial() error {
	gap := w.opt.Gap
	if gap <= 0 {
		gap = time.Second
	}
	period := w.s.duration + gap
	for k := range w.opt.Copies {
		for i := range w.s.frames {
			if err := w.frame(k, i, time.Duration(k)*period); err != nil {
				return err
			}
		}
	}
	return nil
}

// merged writes all copies at once, copy k shifted by start(k), merging
// their frames by capture time (ties in copy order).
func (w *writer) merged() error {
	m := newMerge(w.s, w.opt)
	for {
		k, i, shift, ok := m.next()
		if !ok {
			return nil
		}
		if err := w.frame(k, i, shift); err != nil {
			return err
		}
	}
}

// merge yields the frames of overlapping copies in capture time order.
type merge struct {
	s *Source
	h cursors
}

func newMerge(s *Source, opt Options) *merge {
	w := writer{opt: opt}
	m := &merge{s: s, h: make(cursors, opt.Copies)}
	for k := range m.h {
		m.h[k] = cursor{k: k, shift: w.start(k), at: s.frames[0].at + w.start(k)}
	}
	heap.Init(&m.h)
	return m
}

// next returns the next frame: frame i of copy k, shifted in time.
func (m *merge) next() (k, i int, shift time.Duration, ok bool) {
	if len(m.h) == 0 {
		return 0, 0, 0, false
	}
	c := &m.h[0]
	k, i, shift = c.k, c.i, c.shift
	if c.i++; c.i < len(m.s.frames) {
		c.at = m.s.frames[c.i].at + c.shift
		heap.Fix(&m.h, 0)
	} else {
		heap.Pop(&m.h)
	}
	return k, i, shift, true
}

// start is how long after the source's first frame copy k starts.
func (w *writer) start(k int) time.Duration {
	return time.Duration(int64(w.opt.Spread) * int64(k) / int64(w.opt.Copies))
}

// cursor is the next frame (i) of copy k in a merge.
type cursor struct {
	k, i  int
	shift time.Duration
	at    time.Duration
}

type cursors []cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(a, b int) bool {
	return h[a].at < h[b].at || h[a].at == h[b].at && h[a].k < h[b].k
}
func (h cursors) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// frame writes frame i of copy k, shifted in time, with its client
// renumbered.
func (w *writer) frame(k, i int, shift time.Duration) error {
	s, f := w.s, &w.s.frames[i]
	buf := append(w.buf[:0], f.data...)
	w.buf = buf
	ci := f.ci
	ci.Timestamp = s.first.Add(f.at + shift)
	if f.client >= 0 && (w.opt.ClientAddrs || !w.opt.KeepPorts) {
		p := f.pkt
		p.Data = buf
		p.Payload = buf[p.PayloadOffset : p.PayloadOffset+len(p.Payload)]
		port := binary.BigEndian.Uint16(buf[f.client:])
		switch {
		case w.opt.ClientAddrs && f.addr < 0:
			return fmt.Errorf("replicate: frame %d: no IPv4 or IPv6 header found before its UDP header", i+1)
		case w.opt.ClientAddrs:
			a := s.ClientAddr(k, s.clients[port], f.ip4 >= 0)
			copy(buf[f.addr:], a.AsSlice())
			if f.ip4 >= 0 {
				fixIPv4Checksum(buf[f.ip4:])
			}
			if f.client == p.PayloadOffset-8 {
				p.Src = netip.AddrPortFrom(a, port)
			} else {
				p.Dst = netip.AddrPortFrom(a, port)
			}
		default:
			binary.BigEndian.PutUint16(buf[f.client:], s.clientPort(k, port))
		}
		if err := capture.FixUDPChecksum(&p); err != nil {
			return err
		}
	}
	return w.cw.WritePacket(ci, buf)
}

// Stream returns the UDP datagrams of the capture Write would write with
// opt (opt.Spread > 0 and opt.ClientAddrs: overlapping copies, clients on
// their own addresses) as a capture.Source, without writing a file: for
// tests and benchmarks of many flows that should not hold the capture in
// memory. Only the UDP datagrams are returned (Frame counts them), without
// Data; each payload is a fresh copy, valid until the next call of Next.
func (s *Source) Stream(opt Options) (capture.Source, error) {
	if opt.Copies < 1 || opt.Spread <= 0 || !opt.ClientAddrs {
		return nil, fmt.Errorf("replicate: Stream needs copies (%d), a spread (%s) and client addresses", opt.Copies, opt.Spread)
	}
	return &stream{s: s, m: newMerge(s, opt)}, nil
}

type stream struct {
	s     *Source
	m     *merge
	frame int
	buf   []byte
}

func (st *stream) Next(p *capture.Packet) error {
	for {
		k, i, shift, ok := st.m.next()
		if !ok {
			return io.EOF
		}
		f := &st.s.frames[i]
		if f.pkt.Kind != capture.KindMatched && f.pkt.Kind != capture.KindOtherPort {
			continue
		}
		st.frame++
		*p = f.pkt
		p.Frame = st.frame
		p.Time = st.s.first.Add(f.at + shift)
		p.CaptureInfo = f.ci
		p.CaptureInfo.Timestamp = p.Time
		st.buf = append(st.buf[:0], f.pkt.Payload...)
		p.Payload = st.buf
		if f.client >= 0 {
			port := binary.BigEndian.Uint16(f.data[f.client:])
			a := st.s.ClientAddr(k, st.s.clients[port], f.ip4 >= 0)
			if f.client == f.pkt.PayloadOffset-8 {
				p.Src = netip.AddrPortFrom(a, port)
			} else {
				p.Dst = netip.AddrPortFrom(a, port)
			}
		}
		return nil
	}
}

// Clients is the number of distinct client endpoints (by port) in the source.
func (s *Source) Clients() int { return len(s.clients) }

// ClientAddr is the address Options.ClientAddrs gives client c (in order of
// first appearance in the source) of copy k: number k*Clients()+c+1 in
// 10.0.0.0/8, or in fd00::/8 for IPv6.
func (s *Source) ClientAddr(k, c int, is4 bool) netip.Addr {
	n := uint32(k*len(s.clients) + c + 1)
	if is4 {
		return netip.AddrFrom4([4]byte{10, byte(n >> 16), byte(n >> 8), byte(n)})
	}
	return netip.AddrFrom16([16]byte{0: 0xfd, 12: byte(n >> 24), 13: byte(n >> 16), 14: byte(n >> 8), 15: byte(n)})
}

// addrOffset finds the IP header in front of the UDP header at udp: the
// offset of the client's address (source when src) and of the IPv4 header
// (-1 for IPv6). Both are -1 when no header without IPv6 extension headers
// is found.
func addrOffset(data []byte, udp int, src, is4 bool) (addr, ip4 int) {
	if is4 {
		for ihl := 5; ihl <= 15 && udp-4*ihl >= 0; ihl++ {
			h := udp - 4*ihl
			if data[h] == byte(0x40|ihl) && data[h+9] == 17 && int(binary.BigEndian.Uint16(data[h+2:])) >= 4*ihl+8 {
				if src {
					return h + 12, h
				}
				return h + 16, h
			}
		}
		return -1, -1
	}
	if h := udp - 40; h >= 0 && data[h]>>4 == 6 && data[h+6] == 17 {
		if src {
			return h + 8, -1
		}
		return h + 24, -1
	}
	return -1, -1
}

// fixIPv4Checksum recomputes the header checksum of the IPv4 header at h[0].
func fixIPv4Checksum(h []byte) {
	n := int(h[0]&0x0f) * 4
	h[10], h[11] = 0, 0
	var sum uint32
	for i := 0; i+1 < n; i += 2 {
		sum += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	binary.BigEndian.PutUint16(h[10:], ^uint16(sum))
}

// clientPort renumbers a client port for copy k: distinct for every
// (copy, client) pair until the range wraps, far apart in time by then.
func (s *Source) clientPort(k int, old uint16) uint16 {
	n := (k*len(s.clients) + s.clients[old]) % portSpan
	p := uint16(portBase + n)
	if s.isServer(p) {
		p = uint16(portBase + portSpan + s.clients[old]%1000)
	}
	return p
}
