package capture

import "bytes"

// MagicLen is how many leading bytes LooksLikeCapture looks at.
const MagicLen = 64 // a packet_trace.log's first line is told by its start

// LooksLikeCapture reports whether head, the first bytes of a file (at
// least MagicLen of them unless the file is shorter), starts with the
// magic number of a capture Open reads (pcap in either byte order and
// time resolution, pcapng), is a trace (packet_trace.log, OBCTRACE) or
// starts with the magic number of a compressed container (gzip, xz, zstd)
// that may hold one. It decides by content alone, like file(1): what it
// accepts may still turn out damaged.
func LooksLikeCapture(head []byte) bool {
	if len(head) >= 4 && (bytes.Equal(head[:4], pcapngMagic) || isPcapMagic(head[:4])) {
		return true
	}
	return bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, xzMagic) || bytes.HasPrefix(head, zstdMagic) ||
		traceKindOf(head) != ""
}
