// Package capture reads pcap and pcapng files and hands out the UDP datagrams
// that Bridge Commander traffic travels in, and writes frames back out.
//
// Input may be pcap (either byte order, µs or ns timestamps), pcapng (either
// byte order, several interfaces with different link types, several
// sections), the stock server's packet_trace.log and OpenBC's OBCTRACE
// (trace.go), any of them compressed with gzip, xz or zstd, or "-" for
// stdin. The format is recognised by its content, never by the file name,
// in one place: Sniff (sniff.go) names pcap, pcapng, packet_trace.log,
// OBCTRACE and JSON (bcdump's own traces, which report/record reads for
// diff), after Decompress undid any compression; Open, LooksLikeCapture
// (folder expansion) and diff all ask it. A new input format goes there:
// its test in Sniff, its reader beside trace.go; a new compression in
// Decompress. The memory a
// compressed stream's header may claim is bounded: a zstd window of 128 MiB,
// an xz dictionary of 64 MiB (xz -9; xzGuard reads every block header before
// the decoder does).
//
// The hardened path leaves parsing the containers to gopacket's pure-Go
// pcapgo readers. In front of them sits a framer that checks every record
// and block length before anything is buffered, so a lying length field ends
// in an error that names the frame instead of in a huge allocation or a
// silent misparse. The framer also drops the pcapng blocks bcdump has no use
// for (name resolution, statistics, decryption secrets, custom blocks) and
// strips packet options, which keeps pcapgo's per-packet work allocation
// free. Link layers are decoded with one reused gopacket
// DecodingLayerParser per first layer: Ethernet (802.1Q, QinQ), Linux cooked
// SLL and SLL2, raw IP (LINKTYPE_RAW 101, IPV4 228, IPV6 229 and the DLT_RAW
// values 12 and 14) and BSD loopback (NULL 0 and LOOP 108, family word in
// either byte order).
//
// The fast path (fast.go) reads the common records, pcap records and pcapng
// enhanced packet blocks, straight out of the read buffer after the same
// length checks, and parses the usual headers by hand: those link layers,
// IPv4 without options or IPv6 without extension headers, not fragmented,
// then UDP whose lengths add up. Anything else, down to a single record,
// goes to the hardened path, and the Packets are the same either way (a
// differential test and fuzz target hold the two to that).
//
// Reading does not allocate per packet: Packet.Data and Packet.Payload alias
// the reader's buffer and stay valid only until the next call to Next. (One
// exception: for pcapng interfaces with a link type of 256 or more, pcapgo
// boxes the link type into CaptureInfo.AncillaryData, 2 bytes per packet
// that takes the hardened path.)
//
// Live (OpenLive) captures from a network interface. On Linux it reads an
// AF_PACKET socket, pure Go: a kernel BPF filter passes only UDP on the
// game ports, loopback's outgoing copies are dropped so each datagram is
// seen once, and "any" yields Linux cooked SLL2 frames. On Windows it is
// Npcap through gopacket's pcap package (wpcap.dll loaded at run time, no
// cgo), the same filter program given to the driver; on macOS and the BSDs
// gopacket's bsdbpf sniffer, which takes no filter, so the program runs in
// user space before decoding. Those two are a frameLive around a small
// handle interface (live_frames.go): the interface choice (name, friendly
// name, number), the filter, the link types (Ethernet; NULL on loopback),
// the error mapping and the drop count are platform-independent code,
// tested on Linux with fake handles. Every Live's Next fills the same
// Packet values the file reader does, so the decode downstream is
// identical, and Stats reports the kernel's (or driver's) drops.
//
// Writer writes frames back out as pcap or pcapng, and FixUDPChecksum
// repairs the UDP checksum after a payload was rewritten in place.
//
// It imports transport/anomaly and nothing else of bcdump.
package capture
