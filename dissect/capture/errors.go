package capture

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gopacket/gopacket/layers"
)

// ErrNotCapture is wrapped by Open and NewReader when the input starts with
// neither a pcap nor a pcapng magic number (after gzip, if any).
var ErrNotCapture = errors.New("not a pcap or pcapng file")

// ErrTruncated is wrapped in the FrameError for a file that ends inside a
// record or block. errors.Is(err, io.ErrUnexpectedEOF) holds for it too.
var ErrTruncated = fmt.Errorf("truncated record (%w)", io.ErrUnexpectedEOF)

// FrameError reports a damaged file. Frame is the 1-based number the frame
// being read would have had; every frame before it was delivered.
type FrameError struct {
	File  string
	Frame int
	Err   error
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("%s: frame %d: %v", e.File, e.Frame, e.Err)
}

func (e *FrameError) Unwrap() error { return e.Err }

// LinkTypeError ends a capture none of whose frames could be decoded
// because of their link type (Frames of them; none in a pcap file whose
// header names the link type).
type LinkTypeError struct {
	File     string
	LinkType layers.LinkType
	Frames   int
}

func (e *LinkTypeError) Error() string {
	frames := ""
	switch {
	case e.Frames == 1:
		frames = "; its one frame has it"
	case e.Frames > 1:
		frames = fmt.Sprintf("; all %d frames have it", e.Frames)
	}
	return fmt.Sprintf("%s: link type %s (%d) is not supported "+
		"(bcdump reads Ethernet, Linux cooked SLL and SLL2, raw IP and BSD loopback)%s",
		e.File, linkTypeName(e.LinkType), int(e.LinkType), frames)
}

// linkTypeName is gopacket's name of a link type, or "unknown".
func linkTypeName(lt layers.LinkType) string {
	s := lt.String()
	if strings.HasPrefix(s, "UnknownLinkType") {
		return "unknown"
	}
	return s
}

// Limits on lengths taken from the file. They are checked before a byte is
// buffered, so memory stays bounded whatever the input claims.
const (
	// MaxFrameLen is the longest frame accepted: libpcap's and Wireshark's
	// maximum snap length for ordinary link types.
	MaxFrameLen = 262144
	// maxBlockLen bounds pcapng blocks other than packets (Wireshark's limit).
	maxBlockLen = 16 << 20
	// maxIDBLen bounds an interface description block; real ones are tiny,
	// and pcapgo keeps every interface of a section in memory.
	maxIDBLen = 16 << 10
	// maxInterfaces bounds the interfaces of one pcapng section for the same reason.
	maxInterfaces = 1024
)
