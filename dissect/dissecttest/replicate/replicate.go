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
package replicate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
}

// frame is one frame of the source, copied.
type frame struct {
	at     time.Duration // since the first frame
	ci     gopacket.CaptureInfo
	pkt    capture.Packet // addresses and payload position, for the checksum
	data   []byte
	client int // offset of the client port (src or dst) in data, -1 when none
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
		f := frame{at: p.Time.Sub(s.first), ci: p.CaptureInfo, data: bytes.Clone(p.Data), client: -1}
		f.ci.AncillaryData = nil
		if (p.Kind == capture.KindMatched || p.Kind == capture.KindOtherPort) && p.PayloadOffset >= 8 {
			f.pkt = capture.Packet{Frame: p.Frame, Kind: p.Kind, Src: p.Src, Dst: p.Dst, Truncated: p.Truncated,
				PayloadOffset: p.PayloadOffset, Payload: f.data[p.PayloadOffset : p.PayloadOffset+len(p.Payload)]}
			switch udp := p.PayloadOffset - 8; {
			case s.isServer(p.Dst.Port()) && !s.isServer(p.Src.Port()):
				f.client = udp
			case s.isServer(p.Src.Port()) && !s.isServer(p.Dst.Port()):
				f.client = udp + 2
			}
			if f.client >= 0 {
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
// format and link type. UDP checksums of renumbered frames are cleared
// (IPv4: "not computed") or recomputed (IPv6).
func (s *Source) Write(w io.Writer, opt Options) error {
	if opt.Copies < 1 {
		return fmt.Errorf("replicate: %d copies", opt.Copies)
	}
	gap := opt.Gap
	if gap <= 0 {
		gap = time.Second
	}
	period := s.duration + gap
	cw, err := capture.NewWriterFor(w, s.reader)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 2048)
	for k := range opt.Copies {
		shift := time.Duration(k) * period
		for i := range s.frames {
			f := &s.frames[i]
			buf = append(buf[:0], f.data...)
			if f.client >= 0 && !opt.KeepPorts {
				old := binary.BigEndian.Uint16(buf[f.client:])
				binary.BigEndian.PutUint16(buf[f.client:], s.clientPort(k, old))
			}
			ci := f.ci
			ci.Timestamp = s.first.Add(f.at + shift)
			if f.client >= 0 && !opt.KeepPorts {
				p := f.pkt
				p.Data = buf
				p.Payload = buf[p.PayloadOffset : p.PayloadOffset+len(p.Payload)]
				if err := capture.FixUDPChecksum(&p); err != nil {
					return err
				}
			}
			if err := cw.WritePacket(ci, buf); err != nil {
				return err
			}
		}
	}
	return cw.Flush()
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
