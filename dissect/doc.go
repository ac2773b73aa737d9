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
// This package owns the Datagram, the Session that decodes a capture into
// Sinks and the per-flow state between datagrams. It imports
// dissect/capture, dissect/game, transport, checksum and cipher, and no
// report package.
package dissect
