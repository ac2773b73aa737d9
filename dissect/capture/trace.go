package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Trace formats: files that record BC datagrams or game messages without
// being captures. They are read by the same Reader as pcap, recognised by
// content, and handed out as synthetic raw IPv4/UDP frames, so everything
// downstream (and every writer) sees ordinary packets.
const (
	// FormatTraceLog is the stock dedicated server's packet_trace.log
	// (tracelog.go): deciphered datagrams, time of day, the remote address.
	FormatTraceLog = "packet_trace.log"
	// FormatOBCTrace is OpenBC's binary OBCTRACE (obctrace.go): game
	// messages per client slot and direction, in ticks.
	FormatOBCTrace = "OBCTRACE"
)

// Defaults for what the trace formats do not record.
var (
	// DefaultTraceServer stands for the server in trace files, which never
	// name its address: an address of TEST-NET-1 (RFC 5737) on the game port.
	DefaultTraceServer = netip.MustParseAddrPort("192.0.2.1:22101")
	// traceUnknownPeer stands for a packet_trace.log peer logged as
	// "unknown" (TEST-NET-2).
	traceUnknownPeer = netip.MustParseAddrPort("198.51.100.254:1")
)

// DefaultTraceTick is the length of an OBCTRACE tick when Options.TraceTick
// is 0.
const DefaultTraceTick = 100 * time.Millisecond

// maxTraceNotes bounds the notes a trace reader keeps between datagrams.
const maxTraceNotes = 1024

// traceSource is a trace format's parser: next fills the trace packet with
// the next datagram's addresses, time and payload.
type traceSource interface {
	next(tp *tracePacket) error
}

// tracePacket is one datagram as a trace parser returns it. payload is
// valid until the next call.
type tracePacket struct {
	src, dst netip.AddrPort
	time     time.Time
	payload  []byte
	comment  string
}

// traceState is what a Reader of a trace keeps.
type traceState struct {
	src    traceSource
	tp     tracePacket
	frame  []byte // the synthetic frame, reused
	notes  *[]Note
	lacks  string
	server netip.AddrPort
}

// traceKindOf tells a trace file by up to its first 64 bytes.
func traceKindOf(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	switch {
	case bytes.HasPrefix(head, []byte(obcMagic)):
		return FormatOBCTrace
	case bytes.HasPrefix(head, []byte("# STBC Dedicated Server")):
		return FormatTraceLog
	case len(head) > 0 && head[0] == '[':
		// A log whose header was cut off: it starts with an entry.
		if _, ok := parseTOD(string(head[1:min(len(head), 13)])); ok && len(head) > 14 && head[13] == ']' {
			return FormatTraceLog
		}
	}
	return ""
}

// openTrace sets r up to read a trace of the given kind from in.
func (r *Reader) openTrace(in *bufio.Reader, kind string) {
	r.format = kind
	// The framer's fields answer LinkType and Plaintext: the frames are raw
	// IP, and their game payloads are deciphered.
	r.fr = &framer{linkType: uint16(layers.LinkTypeRaw), haveLink: true, plainMark: true}
	server := r.opt.Trace.Server
	if !server.IsValid() || !server.Addr().Is4() {
		server = DefaultTraceServer
	}
	t := &traceState{server: server, notes: &r.notes}
	switch kind {
	case FormatOBCTrace:
		tick := r.opt.Trace.Tick
		if tick <= 0 {
			tick = DefaultTraceTick
		}
		t.src = newOBCReader(in, r.name, server, tick, t.note)
		t.lacks = "OBCTRACE holds game messages only, no transport framing, addresses or wall-clock time: " +
			"each message is shown alone in an unreliable datagram between a placeholder address per client slot and the server, " +
			"at its tick times; transport analyses (ACKs, retransmits, RTT, loss) do not apply"
	default:
		t.src = newLogReader(in, r.name, server, t.note)
	}
	r.trace = t
}

// note records a trace parser's finding: it goes with the next datagram
// (Packet.Lost), or after the last one to TakeNotes.
func (t *traceState) note(n Note) {
	if len(*t.notes) < maxTraceNotes {
		*t.notes = append(*t.notes, n)
	}
}

// traceNote is a note about a trace file; src and dst are the datagram's
// addresses when known (its flows may then have lost messages).
func traceNote(src, dst netip.AddrPort, format string, args ...any) Note {
	return Note{Src: src, Dst: dst,
		Anomaly: anomaly.New(anomaly.Truncated, anomaly.NoMsg, anomaly.NoOffset, format, args...)}
}

// nextTrace is Next for a trace file.
func (r *Reader) nextTrace(p *Packet) error {
	t := r.trace
	for {
		if r.err != nil {
			return r.err
		}
		if err := t.src.next(&t.tp); err != nil {
			if err != io.EOF {
				err = &FrameError{File: r.name, Frame: r.frame + 1, Err: err}
			}
			for i := range r.notes { // after the last datagram: TakeNotes
				r.notes[i].Frame = r.frame
			}
			r.err = err
			continue
		}
		r.frame++
		p.reset()
		p.Frame = r.frame
		p.Time, p.TimeNote = saturateTime(t.tp.time)
		t.frame = buildUDP4(t.frame[:0], t.tp.src, t.tp.dst, uint16(r.frame), t.tp.payload)
		p.Data = t.frame
		p.LinkType = layers.LinkTypeRaw
		p.CaptureInfo = gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(p.Data), Length: len(p.Data)}
		p.InterfaceIndex, p.section = 0, 0
		p.Src, p.Dst = t.tp.src, t.tp.dst
		p.PayloadOffset = udp4Header
		p.Payload = p.Data[udp4Header:]
		p.Comment = t.tp.comment
		p.Kind = KindOtherPort
		r.classify(p)
		r.stats.count(p.Kind)
		if p.Kind == KindMatched || r.opt.AllFrames {
			for i := range r.notes {
				r.notes[i].Frame = p.Frame
			}
			p.Lost, r.notes = r.notes, nil
			return nil
		}
	}
}

// Lacks says, for a trace format, what commands cannot have from it ("" when
// nothing is missing): print it once.
func (r *Reader) Lacks() string {
	if r.trace == nil {
		return ""
	}
	return r.trace.lacks
}

// IsTrace reports whether the input is a trace file (packet_trace.log or
// OBCTRACE) rather than a capture.
func (r *Reader) IsTrace() bool { return r.trace != nil }

// udp4Header is the length of the synthetic IPv4 and UDP headers.
const udp4Header = 20 + 8

// maxTracePayload is the longest payload a synthetic IPv4 datagram holds.
const maxTracePayload = 65535 - udp4Header

// buildUDP4 appends a raw IPv4/UDP frame carrying payload to b. The UDP
// checksum is 0 (not computed, RFC 768), the IP header's is valid.
func buildUDP4(b []byte, src, dst netip.AddrPort, id uint16, payload []byte) []byte {
	n := udp4Header + len(payload)
	s, d := src.Addr().As4(), dst.Addr().As4()
	b = append(b, 0x45, 0, byte(n>>8), byte(n), byte(id>>8), byte(id), 0x40, 0, 64, 17, 0, 0)
	b = append(b, s[:]...)
	b = append(b, d[:]...)
	binary.BigEndian.PutUint16(b[10:12], gopacket.FoldChecksum(gopacket.ComputeChecksum(b[:20], 0)))
	ul := 8 + len(payload)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = append(b, byte(ul>>8), byte(ul), 0, 0)
	return append(b, payload...)
}

// UDP4Frame returns a raw IPv4/UDP frame (link type Raw) carrying payload,
// built in b's storage: what bcdump writes for datagrams it sent or
// received itself (replay -w). Both addresses must be IPv4.
func UDP4Frame(b []byte, src, dst netip.AddrPort, id uint16, payload []byte) []byte {
	return buildUDP4(b[:0], src, dst, id, payload)
}
