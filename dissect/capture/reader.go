package capture

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Reader returns the UDP datagrams of one capture file. It is not safe for
// concurrent use.
type Reader struct {
	name        string
	format      string
	compression string    // "gzip", "xz", "zstd" or ""
	zcloser     io.Closer // releases the decompressor
	size        int64
	raw         *countingReader
	closer      io.Closer
	fr          *framer
	pcap        *pcapgo.Reader
	ng          *pcapgo.NgReader
	section     int

	opt   Options
	ports [1024]uint64 // bitmap of selected ports
	dec   decoder
	frame int
	stats Stats
	// unsupported is the link type of the last frame that had one not
	// decoded here (LinkTypeError).
	unsupported layers.LinkType
	err         error // sticky: io.EOF, a *FrameError or a *LinkTypeError

	frag    defrag // IP reassembly (not with AllFrames)
	held    Packet // read, but returned after the datagrams frag gave up
	hasHeld bool
	lost    []Note // given up since the last datagram returned, for Packet.Lost
	notes   []Note // given up after the last datagram, for TakeNotes

	// The fast path (fast.go); hardened turns it off (tests compare both).
	hardened  bool
	nsFactor  uint32          // pcap: nanoseconds per timestamp fraction unit
	pcapLT    layers.LinkType // pcap: the file's link type
	ifaces    []fastIface     // pcapng: pcapgo's interfaces of the current section
	ifSection int             // the section ifaces belong to
	ancil     [1]any          // pcapng: CaptureInfo.AncillaryData, as pcapgo fills it
	ancilLT   layers.LinkType

	trace *traceState // set for packet_trace.log and OBCTRACE input
}

// Next fills p with the next matching datagram (with Options.AllFrames, the
// next frame). It returns io.EOF at a clean end of file and a *FrameError
// when the file is damaged; every frame before the damage has been returned
// by then. After an error Next keeps returning it. p's slices alias the
// reader's buffer and are valid until the next call.
//
// UDP datagrams split into IP fragments are reassembled (except with
// AllFrames, which returns frames as they are): the datagram is returned
// once, on the frame of the fragment that completed it (Packet.Fragments).
// One whose fragments the capture lacks is given up after DefragTimeout of
// capture time, when a later datagram between the same hosts is read
// whole or reassembled, at the limits or at the end of the file, in
// capture order: it is returned cut after the bytes received from its
// start (Packet.FragsLost), or, with its first fragment missing, becomes a
// Note in the next datagram returned (Packet.Lost) or, after the last one,
// for TakeNotes.
func (r *Reader) Next(p *Packet) error {
	if r.trace != nil {
		return r.nextTrace(p)
	}
	for {
		if len(r.frag.given) > 0 {
			if r.giveUp(p) {
				r.takeLost(p)
				return nil
			}
			continue
		}
		if r.hasHeld {
			*p, r.hasHeld = r.held, false
			r.takeLost(p)
			return nil
		}
		if r.err != nil {
			r.notes = append(r.notes, r.lost...) // no datagram follows
			r.lost = nil
			return r.err
		}
		var ci gopacket.CaptureInfo
		data, lt, err := r.read(&ci)
		if err != nil {
			r.err = r.frameError(err)
			if r.err == io.EOF && !r.opt.AllFrames { // a copy has frames to show
				r.err = r.linkTypeError()
			}
			r.frag.expire(time.Time{}) // the end: what is pending is lost
			continue
		}
		r.frame++
		var fix lenFix
		if r.pcap != nil && len(r.fr.lenFix) > 0 {
			if f, ok := r.fr.takeLenFix(r.frame); ok {
				fix = f
				if f.orig != 0 {
					ci.Length = int(f.orig) // as the file says; see Packet.LenExcess
				}
			}
		}

		timeNote := ""
		if r.pcap == nil {
			ci.Timestamp, timeNote = saturateTime(ci.Timestamp)
		} else if fix.badFrac {
			unit := "microsecond"
			if r.nsFactor == 1 {
				unit = "nanosecond"
			}
			timeNote = fmt.Sprintf("the record's %s field is %d (0x%X), a second or more: read as 0, the time is the record's second", unit, fix.frac, fix.frac)
		}
		p.reset()
		p.TimeNote = timeNote
		p.Frame = r.frame
		p.Time = ci.Timestamp
		p.Data = data
		p.LinkType = lt
		p.InterfaceIndex = ci.InterfaceIndex
		p.CaptureInfo = ci
		p.section = r.section
		p.Kind = r.decode(p, lt, data)
		if p.Kind == KindUnsupported {
			r.unsupported = lt
		}
		if p.LenExcess() > 0 {
			r.stats.LenExcess++
		}
		if p.Kind == KindFragment && !r.opt.AllFrames {
			if !r.reassemble(p) {
				r.stats.count(KindFragment)
				continue
			}
		} else if len(r.frag.pend) > 0 {
			r.frag.expire(p.Time)
			if p.Kind == KindMatched || p.Kind == KindOtherPort {
				r.frag.sameHosts(p.Src.Addr(), p.Dst.Addr(), p.Frame, "came whole")
			}
		}
		r.classify(p)
		r.stats.count(p.Kind)
		if p.Kind == KindOtherPort && r.opt.OtherPort != nil {
			r.opt.OtherPort(p)
		}
		if p.Kind == KindMatched || r.opt.AllFrames {
			if len(r.frag.given) > 0 {
				r.held, r.hasHeld = *p, true // after the datagrams given up
				continue
			}
			r.takeLost(p)
			return nil
		}
	}
}

// linkTypeError is the error a capture ends with when bcdump could decode
// none of it because of its link type: every frame had an unsupported one,
// or a pcap file of one has no frames. Otherwise it is io.EOF. With
// AllFrames every frame is returned, so the end is io.EOF.
func (r *Reader) linkTypeError() error {
	if r.stats.Frames > 0 && r.stats.Unsupported == r.stats.Frames {
		return &LinkTypeError{File: r.name, LinkType: r.unsupported, Frames: r.stats.Frames}
	}
	if r.stats.Frames == 0 && r.pcap != nil {
		if _, _, k := r.dec.parserFor(r.pcap.LinkType(), nil); k == KindUnsupported {
			return &LinkTypeError{File: r.name, LinkType: r.pcap.LinkType()}
		}
	}
	return io.EOF
}

// takeLost hands the notes of datagrams given up before p to p.
func (r *Reader) takeLost(p *Packet) {
	if len(r.lost) > 0 {
		p.Lost, r.lost = r.lost, nil
	}
}

// classify upgrades UDP on a selected port to KindMatched and counts
// truncated datagrams.
func (r *Reader) classify(p *Packet) {
	if p.Kind == KindOtherPort && (r.hasPort(p.Src.Port()) || r.hasPort(p.Dst.Port())) {
		p.Kind = KindMatched
	}
	if p.Kind == KindMatched && p.Truncated {
		r.stats.Truncated++
	}
}

// reassemble holds the fragment in p; when it completes its datagram, p
// becomes the datagram and reassemble reports true.
func (r *Reader) reassemble(p *Packet) bool {
	fr, ok := r.dec.fragmentOf()
	if !ok {
		return false
	}
	d := r.frag.add(p, fr)
	r.frag.expire(p.Time)
	if d == nil {
		return false
	}
	r.frag.sameHosts(d.key.src, d.key.dst, d.frame, "was reassembled")
	frame, t, ci := p.Frame, p.Time, p.CaptureInfo
	r.decodeDgram(p, d, d.total, false)
	p.Frame, p.Time, p.CaptureInfo = frame, t, ci
	r.stats.Reassembled++
	r.frag.free(d)
	return true
}

// decodeDgram fills p with the first n payload bytes of datagram d, rebuilt
// (given: d was given up).
func (r *Reader) decodeDgram(p *Packet, d *pendingDgram, n int, given bool) {
	data := r.frag.rebuild(d, n, given)
	p.reset()
	p.Frame, p.Time = d.last, d.lastTime
	p.Data, p.LinkType = data, layers.LinkTypeRaw
	p.CaptureInfo = gopacket.CaptureInfo{Timestamp: d.lastTime, CaptureLength: len(data), Length: len(data)}
	p.InterfaceIndex, p.section = 0, r.section
	p.Kind = r.dec.decode(p, layers.LinkTypeRaw, data)
	p.Fragments = d.frags
	p.FragFrames = r.frag.frameList(d, given)
}

// giveUp reports the first datagram given up: as a cut datagram in p
// (true) when its first fragment, with the ports, was held and it is on a
// selected port, as a Note when the ports are unknown.
func (r *Reader) giveUp(p *Packet) bool {
	d := r.frag.given[0]
	r.frag.given = r.frag.given[1:]
	defer r.frag.free(d)
	r.stats.Incomplete++
	msg := d.incomplete()
	if d.hdr == nil {
		if len(r.lost)+len(r.notes) < maxNotes {
			r.lost = append(r.lost, Note{Frame: d.frame, Time: d.first,
				Src: netip.AddrPortFrom(d.key.src, 0), Dst: netip.AddrPortFrom(d.key.dst, 0),
				Anomaly: anomaly.New(anomaly.IPFragmentIncomplete, anomaly.NoMsg, anomaly.NoOffset, "%s", msg)})
		}
		return false
	}
	r.decodeDgram(p, d, d.prefix(), true)
	r.classify(p)
	if p.Kind != KindMatched {
		return false
	}
	p.FragsLost = msg
	p.Truncated = true
	return true
}

// TakeNotes returns the notes found after the last datagram Next returned
// (the others came in Packet.Lost) and forgets them (at most a few
// thousand are kept between calls).
func (r *Reader) TakeNotes() []Note {
	n := r.notes
	r.notes = nil
	return n
}

// read returns the next record, from the fast path when it can take it.
// It fills *ci (pointers spare copying it up the calls per record).
func (r *Reader) read(ci *gopacket.CaptureInfo) ([]byte, layers.LinkType, error) {
	if !r.hardened {
		if data, lt, ok := r.readFast(ci); ok {
			return data, lt, nil
		}
	}
	var data []byte
	var err error
	if r.ng != nil {
		data, *ci, err = r.ng.ZeroCopyReadPacketData()
		r.syncIfaces()
	} else {
		data, *ci, err = r.pcap.ZeroCopyReadPacketData()
	}
	if err != nil {
		return nil, 0, err
	}
	return data, r.linkTypeOf(ci), nil
}

// decode classifies a frame, by hand when fastDecode knows its kind.
func (r *Reader) decode(p *Packet, lt layers.LinkType, data []byte) Kind {
	if r.hardened {
		return r.dec.decode(p, lt, data)
	}
	return r.dec.decodeFast(p, lt, data)
}

// linkTypeOf is the link type of a frame: per interface in pcapng, where
// pcapgo puts it in AncillaryData[0], and per file in pcap.
func (r *Reader) linkTypeOf(ci *gopacket.CaptureInfo) layers.LinkType {
	if r.ng == nil {
		return r.pcap.LinkType()
	}
	if len(ci.AncillaryData) > 0 {
		if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
			return lt
		}
	}
	return layers.LinkType(r.fr.linkType)
}

// frameError turns a read error into io.EOF or a *FrameError naming the
// frame that could not be read. The framer's own error wins over what pcapgo
// made of it (pcapgo may turn a failed read at a block start into io.EOF).
func (r *Reader) frameError(err error) error {
	if ferr := r.fr.failed(); ferr != nil && (err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, ferr)) {
		err = ferr
	}
	if err == io.EOF {
		return io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		err = ErrTruncated
	}
	return &FrameError{File: r.name, Frame: r.frame + 1, Err: err}
}

// setPorts fills the port bitmap; no ports means DefaultPort.
func (r *Reader) setPorts(ports []uint16) {
	if len(ports) == 0 {
		ports = []uint16{DefaultPort}
	}
	for _, p := range ports {
		r.ports[p>>6] |= 1 << (p & 63)
	}
}

func (r *Reader) hasPort(p uint16) bool { return r.ports[p>>6]&(1<<(p&63)) != 0 }

// Stats returns the counts so far.
func (r *Reader) Stats() Stats { return r.stats }

// Name is the file name used in errors ("stdin" for "-").
func (r *Reader) Name() string { return r.name }

// Format is "pcap", "pcapng", FormatTraceLog or FormatOBCTrace.
func (r *Reader) Format() string { return r.format }

// Plaintext reports whether the capture carries bcdump's plaintext mark
// (written by bcdump decrypt -w; see PlainMarkPcap): its game payloads are
// deciphered already.
func (r *Reader) Plaintext() bool {
	return r.fr.plainMark
}

// Compressed reports whether the input was compressed (gzip, xz or zstd).
func (r *Reader) Compressed() bool { return r.compression != "" }

// Compression is "gzip", "xz" or "zstd" for compressed input, else "".
func (r *Reader) Compression() string { return r.compression }

// LinkType is the link type of a pcap file, or of the first interface of a
// pcapng file (0 before one was read). Per-frame link types are in Packet.
func (r *Reader) LinkType() layers.LinkType {
	if r.pcap != nil {
		return r.pcap.LinkType()
	}
	return layers.LinkType(r.fr.linkType)
}

// Snaplen is the snap length of a pcap file (0 for pcapng).
func (r *Reader) Snaplen() uint32 {
	if r.pcap != nil {
		return r.pcap.Snaplen()
	}
	return 0
}

// Nanosecond reports whether a pcap file stores nanosecond timestamps.
func (r *Reader) Nanosecond() bool {
	return r.pcap != nil && r.pcap.Resolution() == gopacket.TimestampResolutionNanosecond
}

// Progress returns how many bytes of the file have been read (compressed
// bytes for gzip input) and the file size, or -1 when it is unknown (stdin).
// Read-ahead makes done run up to 128 KiB early. Unlike the other methods,
// Progress may be called while another goroutine is in Next.
func (r *Reader) Progress() (done, total int64) { return r.raw.n.Load(), r.size }

// Close releases the file if Open opened it.
func (r *Reader) Close() error {
	// The gzip and xz readers hold no resources; zstd's decoder does.
	if r.zcloser != nil {
		r.zcloser.Close()
		r.zcloser = nil
	}
	var err error
	if r.closer != nil {
		err = r.closer.Close()
		r.closer = nil
	}
	if r.err == nil {
		r.err = errors.New("capture: reader closed")
	}
	return err
}

// interfaceInfo describes the pcapng interface of a packet just read, for
// the writer. ok is false for pcap or when the interface is unknown.
func (r *Reader) interfaceInfo(p *Packet) (pcapgo.NgInterface, bool) {
	if r.ng == nil || p.section != r.section {
		return pcapgo.NgInterface{}, false
	}
	intf, err := r.ng.Interface(p.InterfaceIndex)
	return intf, err == nil
}

// Capture times are kept within the years 0000 to 9999, which every
// output writes in its fixed form: a pcapng timestamp with if_tsoffset
// (signed seconds) can claim any second in 2^64, beyond what time.Time
// even formats. Times outside are set to the nearest end.
var (
	earliestTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// The ends in Unix seconds.
const earliestUnix, latestUnix = -62167219200, 253402300799

// saturateTime returns t within the years 0000-9999 and, when it moved t,
// the note that says so (Packet.TimeNote).
func saturateTime(t time.Time) (time.Time, string) {
	if sec := t.Unix(); sec < earliestUnix {
		return earliestTime, fmt.Sprintf("the record's time is %d s before 1970, before the year 0000: set to %s", uint64(-(sec+1))+1, earliestTime.Format(time.RFC3339Nano))
	} else if sec > latestUnix {
		return latestTime, fmt.Sprintf("the record's time is %d s after 1970, after the year 9999: set to %s", sec, latestTime.Format(time.RFC3339Nano))
	}
	return t, ""
}
