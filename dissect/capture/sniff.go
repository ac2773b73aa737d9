package capture

import (
	"bufio"
	"bytes"
	"io"
)

// The formats Sniff tells apart, besides FormatTraceLog and FormatOBCTrace.
const (
	FormatPcap   = "pcap"
	FormatPcapng = "pcapng"
	// FormatJSON is a JSON document or JSON Lines: bcdump's own `read -F
	// json` trace (which report/record reads, for diff) or another of its
	// JSON documents (a profile). Not a capture: Open refuses it.
	FormatJSON = "json"
)

// MagicLen is how many leading bytes LooksLikeCapture looks at.
const MagicLen = 64 // a packet_trace.log's first line is told by its start

// maxLeadingSpace is how much white space SniffReader reads past before a
// JSON document's '{'.
const maxLeadingSpace = 4096

// Sniff tells the format of an input by its first bytes (after any
// compression was undone, see Decompress): FormatPcap (either byte order
// and time resolution), FormatPcapng, FormatTraceLog, FormatOBCTrace or
// FormatJSON (the first non-blank byte is '{'); "" for anything else. It
// decides by content alone, like file(1), never by the file name: what it
// names may still turn out damaged.
//
// This is the one place input formats are told apart: every command's
// reader (Open, NewReader), the folder expansion (LooksLikeCapture) and
// diff (a capture or a JSON trace) ask it. A new input format adds its
// test here and its reader beside trace.go (a Reader fed by the format's
// records, as packet_trace.log and OBCTRACE are); a new compression goes
// into Decompress.
func Sniff(head []byte) string {
	if len(head) >= 4 {
		switch {
		case bytes.Equal(head[:4], pcapngMagic):
			return FormatPcapng
		case isPcapMagic(head[:4]):
			return FormatPcap
		}
	}
	if k := traceKindOf(head[:min(len(head), MagicLen)]); k != "" {
		return k
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return FormatJSON
	}
	return ""
}

// SniffReader is Sniff on the first bytes of br, which it peeks at without
// consuming: MagicLen bytes, more only while they are all white space (up
// to 4 KiB, for a JSON document). So a live stream is not held up waiting
// for bytes the format does not need. A read error other than EOF is
// returned; an empty input is format "" with no error.
func SniffReader(br *bufio.Reader) (string, error) {
	head, err := br.Peek(MagicLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && len(head) < MagicLen {
		return "", err
	}
	for n := MagicLen * 2; len(head) > 0 && len(bytes.TrimLeft(head, " \t\r\n")) == 0 && len(head) < maxLeadingSpace && n <= maxLeadingSpace; n *= 2 {
		more, perr := br.Peek(n)
		if len(more) == len(head) {
			if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
				return "", perr
			}
			break
		}
		head = more
	}
	return Sniff(head), nil
}

// LooksLikeCapture reports whether head, the first bytes of a file (at
// least MagicLen of them unless the file is shorter), is a capture Open
// reads (Sniff: pcap, pcapng, packet_trace.log, OBCTRACE) or starts with
// the magic number of a compressed container (gzip, xz, zstd) that may
// hold one.
func LooksLikeCapture(head []byte) bool {
	if bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, xzMagic) || bytes.HasPrefix(head, zstdMagic) {
		return true
	}
	switch Sniff(head) {
	case FormatPcap, FormatPcapng, FormatTraceLog, FormatOBCTrace:
		return true
	}
	return false
}
