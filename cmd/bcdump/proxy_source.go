package main

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect/capture"
)

// proxySource hands the relay's records to the decoder as captured
// frames (raw IP, so the addresses are the real ones) and writes them to
// the -w file, each fault as a packet comment. It never blocks the
// relay: it only reads the queue.
type proxySource struct {
	r     *relay
	tick  *time.Ticker
	poll  *time.Timer
	frame int
	buf   []byte
	// fault is the fault record of the frame last handed out (Next's
	// caller decodes it before asking for the next one).
	fault      string
	faultFrame int

	// kept shows the fault of a datagram the proxy kept.
	kept func(frame int, t time.Time, fault string) error

	out     *outfile.File
	w       *capture.Writer
	outName string
	wErr    error
}

func newProxySource(r *relay, tick time.Duration) *proxySource {
	poll := time.NewTimer(time.Hour)
	poll.Stop()
	return &proxySource{r: r, tick: time.NewTicker(tick), poll: poll, buf: make([]byte, 0, 48+relayRecCap)}
}

func (s *proxySource) Next(p *capture.Packet) error {
	for {
		select {
		case <-s.tick.C:
			return s.flushTick()
		default:
		}
		select {
		case rec := <-s.r.queue:
			return s.take(rec, p)
		default:
		}
		// Nothing queued: look again after proxyPoll. The decoder never
		// waits on the queue itself, so the relay's send never wakes it
		// ahead of the relay's own goroutines (a woken receiver runs
		// next on that CPU): decoding keeps off the relay path.
		s.poll.Reset(proxyPoll)
		select {
		case <-s.poll.C:
		case <-s.tick.C:
			return s.flushTick()
		case <-s.r.done:
			select {
			case rec := <-s.r.queue:
				return s.take(rec, p)
			default:
				return io.EOF
			}
		}
	}
}

// proxyPoll is how long the decoder sleeps when its queue is empty.
const proxyPoll = 2 * time.Millisecond

func (s *proxySource) flushTick() error {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return s.fail(err)
		}
	}
	return capture.ErrNoPacket
}

func (s *proxySource) fail(err error) error {
	s.wErr = err
	return &writeFailure{name: s.outName, err: err}
}

type writeFailure struct {
	name string
	err  error
}

func (e *writeFailure) Error() string { return "-w " + e.name + ": " + e.err.Error() }
func (e *writeFailure) Unwrap() error { return e.err }

// linkTypeKept is the link type of the frames of datagrams the proxy did
// not pass on (drop faults): LINKTYPE_USER0, which bcdump does not decode
// and Wireshark shows as data, each with its packet comment. So the
// capture holds every record, and the conversation it decodes to is the
// one the endpoints had.
const linkTypeKept = layers.LinkType(147)

// take builds the frame of rec into p and gives rec back to the pool. A
// record of a datagram the proxy kept is written aside (linkTypeKept) and
// its fault shown, but not decoded: take then returns ErrNoPacket.
func (s *proxySource) take(rec *relayRec, p *capture.Packet) error {
	if !rec.passed {
		return s.takeKept(rec)
	}
	s.frame++
	b := appendIPUDP(s.buf[:0], rec)
	hdr := len(b)
	b = append(b, rec.data...)
	s.buf = b
	*p = capture.Packet{
		Frame: s.frame, Time: rec.t.UTC(), Kind: capture.KindMatched,
		Src: rec.src, Dst: rec.dst, Payload: b[hdr:], Data: b, PayloadOffset: hdr,
		LinkType: layers.LinkTypeRaw,
	}
	if rec.length > len(rec.data) {
		p.Truncated, p.Missing = true, rec.length-len(rec.data)
	}
	p.CaptureInfo.Timestamp = p.Time
	p.CaptureInfo.CaptureLength = len(b)
	p.CaptureInfo.Length = hdr + rec.length
	if !p.Truncated {
		_ = capture.FixUDPChecksum(p)
	}
	s.fault, s.faultFrame = rec.fault, s.frame
	s.r.pool <- rec
	if s.w != nil {
		var comments []string
		if s.fault != "" {
			comments = []string{"bcdump proxy " + s.fault}
		}
		if err := s.w.WriteComments(p, comments); err != nil {
			return s.fail(err)
		}
	}
	return nil
}

// faultOf is the fault record of frame, if it was the last one handed out.
func (s *proxySource) faultOf(frame int) string {
	if frame == s.faultFrame {
		return s.fault
	}
	return ""
}

// appendIPUDP appends the IPv4 (both ends IPv4) or IPv6 header and the
// UDP header of rec.
func appendIPUDP(b []byte, rec *relayRec) []byte {
	src, dst := rec.src.Addr(), rec.dst.Addr()
	udpLen := 8 + rec.length
	if src.Is4() && dst.Is4() {
		total := 20 + udpLen
		if total > 0xFFFF {
			total = 0xFFFF
		}
		h := len(b)
		b = append(b, 0x45, 0, byte(total>>8), byte(total), 0, 0, 0x40, 0, 64, 17, 0, 0)
		s4, d4 := src.As4(), dst.As4()
		b = append(b, s4[:]...)
		b = append(b, d4[:]...)
		var sum uint32
		for i := h; i < h+20; i += 2 {
			sum += uint32(b[i])<<8 | uint32(b[i+1])
		}
		for sum > 0xFFFF {
			sum = sum>>16 + sum&0xFFFF
		}
		binary.BigEndian.PutUint16(b[h+10:], ^uint16(sum))
	} else {
		b = append(b, 0x60, 0, 0, 0, byte(udpLen>>8), byte(udpLen), 17, 64)
		s16, d16 := src.As16(), dst.As16()
		b = append(b, s16[:]...)
		b = append(b, d16[:]...)
	}
	b = binary.BigEndian.AppendUint16(b, rec.src.Port())
	b = binary.BigEndian.AppendUint16(b, rec.dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(min(udpLen, 0xFFFF)))
	return append(b, 0, 0)
}

func (s *proxySource) takeKept(rec *relayRec) error {
	s.frame++
	b := appendIPUDP(s.buf[:0], rec)
	b = append(b, rec.data...)
	s.buf = b
	ci := gopacket.CaptureInfo{Timestamp: rec.t.UTC(), CaptureLength: len(b), Length: len(b) - len(rec.data) + rec.length}
	frame, fault := s.frame, rec.fault
	s.r.pool <- rec
	if s.w != nil {
		p := capture.Packet{Frame: frame, LinkType: linkTypeKept, CaptureInfo: ci, Data: b}
		if err := s.w.WriteComments(&p, []string{"bcdump proxy " + fault}); err != nil {
			return s.fail(err)
		}
	}
	if s.kept != nil {
		if err := s.kept(frame, ci.Timestamp, fault); err != nil {
			return err
		}
	}
	return capture.ErrNoPacket
}
