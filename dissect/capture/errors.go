package capture

import (
	"errors"
	"fmt"
	"io"
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
