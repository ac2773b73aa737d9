package capture

import (
	"errors"
	"io"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Reader returns the UDP datagrams of one capture file. It is not safe for
// concurrent use.
type Reader struct {
	name       string
	format     string
	compressed bool
	size       int64
	raw        *countingReader
	closer     io.Closer
	fr         *framer
	pcap       *pcapgo.Reader
	ng         *pcapgo.NgReader
	section    int

	opt   Options
	ports [1024]uint64 // bitmap of selected ports
	dec   decoder
	frame int
	stats Stats
	err   error // sticky: io.EOF or a *FrameError
}

// Next fills p with the next matching datagram (with Options.AllFrames, the
// next frame). It returns io.EOF at a clean end of file and a *FrameError
// when the file is damaged; every frame before the damage has been returned
// by then. After an error Next keeps returning it. p's slices alias the
// reader's buffer and are valid until the next call.
func (r *Reader) Next(p *Packet) error {
	if r.err != nil {
		return r.err
	}
	for {
		data, ci, err := r.read()
		if err != nil {
			r.err = r.frameError(err)
			return r.err
		}
		r.frame++
		lt := r.linkTypeOf(&ci)

		p.reset()
		p.Frame = r.frame
		p.Time = ci.Timestamp
		p.Data = data
		p.LinkType = lt
		p.InterfaceIndex = ci.InterfaceIndex
		p.CaptureInfo = ci
		p.section = r.section
		p.Kind = r.dec.decode(p, lt, data)
		if p.Kind == KindOtherPort && (r.hasPort(p.Src.Port()) || r.hasPort(p.Dst.Port())) {
			p.Kind = KindMatched
		}
		r.stats.count(p.Kind)
		if p.Kind == KindMatched && p.Truncated {
			r.stats.Truncated++
		}
		if p.Kind == KindMatched || r.opt.AllFrames {
			return nil
		}
	}
}

func (r *Reader) read() ([]byte, gopacket.CaptureInfo, error) {
	if r.ng != nil {
		return r.ng.ZeroCopyReadPacketData()
	}
	return r.pcap.ZeroCopyReadPacketData()
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

// Format is "pcap" or "pcapng".
func (r *Reader) Format() string { return r.format }

// Compressed reports whether the input was gzip-compressed.
func (r *Reader) Compressed() bool { return r.compressed }

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
	// The gzip reader holds no resources; its Close would only repeat a
	// stream error that Next has already reported.
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
