package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Writer writes frames to a pcap or pcapng file with gopacket's pcapgo
// writers. Output is buffered: call Flush when done. The io.Writer is not
// closed.
//
// pcap holds a single link type. pcapng output gets one interface per input
// interface (per link type for WritePacket), added when its first frame is
// written, with name and description copied from the input when known.
// Timestamps are written at the input's resolution for pcap and in
// nanoseconds for pcapng (pcapgo's fixed choice).
type Writer struct {
	format   string
	linkType layers.LinkType
	bw       *bufio.Writer
	out      io.Writer
	pw       *pcapgo.Writer
	ngw      *pcapgo.NgWriter
	ifaces   map[ifaceKey]int
	src      *Reader
	comment  string // pcapng section header comment
	plain    bool   // mark the file as deciphered (pcap: PlainMarkPcap)
}

// ifaceKey identifies an input interface; section -1 is WritePacket's.
type ifaceKey struct {
	section, index int
	linkType       layers.LinkType
}

// NewWriter starts a "pcap" (microsecond timestamps) or "pcapng" file whose
// frames have the given link type, as for a live capture.
func NewWriter(w io.Writer, format string, linkType layers.LinkType) (*Writer, error) {
	return newWriter(w, format, linkType, MaxFrameLen, false, nil)
}

// Captures whose game payloads bcdump decrypt -w deciphered are marked, so
// that bcdump reads them back as plaintext (Reader.Plaintext):
//
//   - pcap: the file header's sigfigs field (bytes 12-15, which every
//     writer sets to 0 and every reader ignores) holds the 4 bytes "BCpt";
//   - pcapng: the section header's comment contains PlainMarkPcapng.
const (
	PlainMarkPcap   = "BCpt"
	PlainMarkPcapng = "bcdump-plaintext"
)

// NewPlaintextWriterFor is NewWriterFor for a copy whose game payloads are
// deciphered: the file carries the plaintext mark.
func NewPlaintextWriterFor(w io.Writer, r *Reader) (*Writer, error) {
	snap := r.Snaplen()
	if snap == 0 {
		snap = MaxFrameLen
	}
	format := r.Format()
	if r.IsTrace() {
		format = "pcapng"
	}
	wr := &Writer{format: format, linkType: r.LinkType(), out: w, src: r, plain: true,
		comment: PlainMarkPcapng + ": the game payloads on the game ports were deciphered by bcdump decrypt -w"}
	return wr, wr.start(snap, r.Nanosecond())
}

// NewWriterFor starts a file of the same kind as r reads: the same container,
// and for pcap the same link type, snap length and timestamp resolution.
// For pcapng the interfaces of the frames written are recreated.
func NewWriterFor(w io.Writer, r *Reader) (*Writer, error) {
	snap := r.Snaplen()
	if snap == 0 {
		snap = MaxFrameLen
	}
	return newWriter(w, r.Format(), r.LinkType(), snap, r.Nanosecond(), r)
}

// NewAnnotatedWriter starts a pcapng file for the frames r reads, whatever
// r's container, with comment in its section header: WriteComments then
// gives frames packet comments. Timestamps keep nanoseconds, so a pcap's
// microseconds are kept exactly.
func NewAnnotatedWriter(w io.Writer, r *Reader, comment string) (*Writer, error) {
	snap := r.Snaplen()
	if snap == 0 {
		snap = MaxFrameLen
	}
	wr, err := newWriter(w, "pcapng", r.LinkType(), snap, true, r)
	if err != nil {
		return nil, err
	}
	wr.comment = comment
	return wr, nil
}

func newWriter(w io.Writer, format string, lt layers.LinkType, snap uint32, nanos bool, src *Reader) (*Writer, error) {
	if src != nil && src.IsTrace() {
		format, nanos = "pcapng", true // a copy of a trace is a capture
	}
	wr := &Writer{format: format, linkType: lt, out: w, src: src}
	return wr, wr.start(snap, nanos)
}

// start writes a pcap file header (with the plaintext mark if w.plain);
// pcapng starts with the first frame or Flush.
func (w *Writer) start(snap uint32, nanos bool) error {
	switch w.format {
	case "pcap":
		w.bw = bufio.NewWriterSize(w.out, bufSize)
		// pcapgo's writer keeps no state past the header: write the
		// header to a buffer, mark it, then write frames straight on.
		var hdr bytes.Buffer
		pw := pcapgo.NewWriter(&hdr)
		if nanos {
			pw = pcapgo.NewWriterNanos(&hdr)
		}
		if err := pw.WriteFileHeader(snap, w.linkType); err != nil {
			return err
		}
		b := hdr.Bytes()
		if w.plain && len(b) >= 16 {
			copy(b[12:16], PlainMarkPcap)
		}
		if _, err := w.bw.Write(b); err != nil {
			return err
		}
		if nanos {
			w.pw = pcapgo.NewWriterNanos(w.bw)
		} else {
			w.pw = pcapgo.NewWriter(w.bw)
		}
	case "pcapng":
		w.ifaces = make(map[ifaceKey]int)
	default:
		return fmt.Errorf("capture: unknown output format %q (want pcap or pcapng)", w.format)
	}
	return nil
}

// Write writes p.Data, which may have been modified in place (keep its
// length), with p's time, link type and interface.
func (w *Writer) Write(p *Packet) error { return w.WriteComments(p, nil) }

// WriteComments is Write with pcapng packet comments (one option each);
// a pcap file cannot hold them.
func (w *Writer) WriteComments(p *Packet, comments []string) error {
	if len(comments) > 0 && w.format != "pcapng" {
		return fmt.Errorf("capture: frame %d: packet comments need pcapng", p.Frame)
	}
	if err := w.checkTime(p.CaptureInfo.Timestamp, p.Frame); err != nil {
		return err
	}
	ci := p.CaptureInfo
	ci.InterfaceIndex = 0
	if w.format == "pcapng" {
		idx, err := w.iface(ifaceKey{p.section, p.InterfaceIndex, p.LinkType}, p)
		if err != nil {
			return err
		}
		ci.InterfaceIndex = idx
	} else if p.LinkType != w.linkType {
		return fmt.Errorf("capture: frame %d has link type %v, the pcap file %v; write pcapng to mix link types", p.Frame, p.LinkType, w.linkType)
	}
	return w.write(ci, p.Data, comments)
}

// WritePacket writes one frame of the writer's link type (live capture).
func (w *Writer) WritePacket(ci gopacket.CaptureInfo, data []byte) error {
	if err := w.checkTime(ci.Timestamp, 0); err != nil {
		return err
	}
	if w.format == "pcapng" {
		idx, err := w.iface(ifaceKey{-1, 0, w.linkType}, nil)
		if err != nil {
			return err
		}
		ci.InterfaceIndex = idx
	}
	return w.write(ci, data, nil)
}

func (w *Writer) write(ci gopacket.CaptureInfo, data []byte, comments []string) error {
	ci.CaptureLength = len(data)
	ci.Length = max(ci.Length, len(data))
	ci.AncillaryData = nil
	if ci.Timestamp.IsZero() { // pcapng simple packets have no time; pcapgo would write "now" or garbage
		ci.Timestamp = time.Unix(0, 0)
	}
	if w.pw != nil {
		return w.pw.WritePacket(ci, data)
	}
	if len(comments) > 0 {
		return w.ngw.WritePacketWithOptions(ci, data, pcapgo.NgPacketOptions{Comments: comments})
	}
	return w.ngw.WritePacket(ci, data)
}

// The times the formats written here hold: pcap's unsigned 32-bit
// seconds, pcapng's unsigned 64-bit nanoseconds (the resolution every
// interface written gets).
var (
	pcapLatest   = time.Unix(1<<32-1, 999999999).UTC()
	pcapngLatest = time.Unix(0, 0).UTC().Add(time.Duration(1<<63 - 1)).Add(time.Duration(1<<63 - 1)).Add(1)
)

// checkTime refuses a time the output format cannot hold, which pcapgo
// would wrap without a word (a frame of 2600 written as 2031).
// frame is the frame's number in its input (0: none).
func (w *Writer) checkTime(t time.Time, frame int) error {
	latest := pcapngLatest
	if w.format == "pcap" {
		latest = pcapLatest
	}
	if t.IsZero() || !t.Before(time.Unix(0, 0)) && !t.After(latest) {
		return nil
	}
	what := "a frame"
	if frame > 0 {
		what = fmt.Sprintf("frame %d", frame)
	}
	return fmt.Errorf("capture: %s: its time %s is outside what %s holds (1970-01-01 to %s): not written, rather than wrapped",
		what, t.UTC().Format(time.RFC3339Nano), w.format, latest.Format(time.RFC3339Nano))
}

// iface returns the output interface for an input interface, adding it
// (and starting the file) on first use.
func (w *Writer) iface(k ifaceKey, p *Packet) (int, error) {
	if idx, ok := w.ifaces[k]; ok {
		return idx, nil
	}
	intf := pcapgo.NgInterface{LinkType: k.linkType, TimestampResolution: 9}
	if p != nil && w.src != nil {
		if in, ok := w.src.interfaceInfo(p); ok && in.LinkType == k.linkType {
			intf.Name, intf.Description, intf.SnapLength = in.Name, in.Description, in.SnapLength
		}
	}
	var idx int
	var err error
	if w.ngw == nil {
		w.ngw, err = pcapgo.NewNgWriterInterface(w.out, intf, pcapgo.NgWriterOptions{
			SectionInfo: pcapgo.NgSectionInfo{Application: "bcdump", Comment: w.comment},
		})
	} else {
		idx, err = w.ngw.AddInterface(intf)
	}
	if err != nil {
		return 0, err
	}
	w.ifaces[k] = idx
	return idx, nil
}

// Flush writes out buffered data. A pcapng file that got no frame is given
// its section header and one interface here, so it is still a valid file.
func (w *Writer) Flush() error {
	if w.pw != nil {
		return w.bw.Flush()
	}
	if w.ngw == nil {
		lt := w.linkType
		if w.src != nil {
			lt = layers.LinkTypeEthernet
			if w.src.fr.haveLink {
				lt = w.src.LinkType()
			}
		}
		if _, err := w.iface(ifaceKey{-1, 0, lt}, nil); err != nil {
			return err
		}
	}
	return w.ngw.Flush()
}
