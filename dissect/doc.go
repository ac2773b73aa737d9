// Package dissect turns captured UDP payloads on the game port into decoded
// datagrams: GameSpy text, or deciphered game datagrams with their transport
// messages, per-flow delivery state and decoded game opcodes.
//
// # Architecture
//
// The path of one datagram through bcdump:
//
//	pcap/pcapng file, pipe or interface
//	  -> dissect/capture   frames to UDP payloads on the game port (IP reassembly, snap cuts)
//	  -> cipher            AlbyRules deciphers a game datagram (GameSpy text is plain)
//	  -> transport         header and transport messages; per-flow delivery tracking
//	  -> dissect/game      game opcodes of the payloads as a flat list of fields
//	     checksum          the checksum handshake's hashes and findings
//	  -> dissect           all of the above as one Datagram, handed to a Sink in capture
//	                       order by a Session (serial, or parallel across cores)
//	  -> report/...        Sinks: render (table, JSON Lines, hex), query (display filter,
//	                       Select), stats, story, profile, diff, htmlreport, wireshark
//	  -> cmd/bcdump        flags, files and terminals
//
// Imports point one way, against the flow of the data: cmd imports
// report, report imports dissect, dissect imports transport, checksum and
// cipher, and no package imports one of a layer above its own
// (TestImportsPointOneWay). Anomalies
// found at any layer are codes of one registry, transport/anomaly.
//
// # The way in
//
// Dissect is the entry point every command that reads an input uses (read,
// stats, session, profile, report and diff): it owns what is decided about
// an input before and around decoding, so no command decides it again.
//
//   - Format: the input is opened by its content (openSource); today a
//     capture.Reader, which tells pcap and pcapng and their compressions
//     apart by their magic.
//   - A copy written by bcdump decrypt -w is recognised by its marker and
//     decoded as plaintext (Options.Plain is set for it).
//   - Options.AutoPorts (-p auto) reads the input once more first, stdin
//     kept in a temporary file for it, and adds the ports carrying BC
//     traffic. When nothing was on the game ports, Result.Unmatched says
//     what the input held instead (without AutoPorts: which other ports
//     carry BC traffic).
//   - Serial or parallel: a file is decoded on every core (Mode Auto), a
//     pipe serially; RunOptions.Follow reads a pipe like a live capture.
//   - Progress: a meter the caller supplies is kept up to date.
//   - Sinks: observers (counters, gates) and the sink are chained (Chain);
//     when the sink is a Renderer, so is the chain, and the parallel
//     pipeline renders on every core.
//
// An input format is a Source: packets (capture.Source) plus its name,
// whether it is plaintext, its progress, and Close. Another format (a stock
// server's packet_trace.log, an OpenBC OBCTRACE file) is one more Source,
// recognised in openSource by its first bytes; every command then reads it
// with nothing else changed. A Source without ports to find (a log of
// datagrams) has no AutoPorts pass to make. Live capture
// (capture.OpenLive) is a network interface, not an input: bcdump live
// runs its own Serial Session over it with the same Chain.
//
// A Session runs one capture.Source through a Dissector into a Sink;
// Dissect builds it. A Dissector decodes packets one at a time.
//
// This package owns the entry point (Dissect), the Datagram, the Session
// that decodes a capture into Sinks and the per-flow state between
// datagrams. It imports
// dissect/capture, dissect/game, transport, checksum and cipher, and no
// report package.
package dissect
