// Package diff compares the decoded conversations of two captures or saved
// `bcdump read --format json` traces (`bcdump diff`), for regression tests
// of servers, clients and bcdump itself.
//
// Both inputs go through one path, the typed record of report/record: a
// capture is decoded by dissect.Dissect, as every command decodes one, into
// a CaptureSink, which turns each datagram into its record
// (record.Converter); a saved trace's lines are decoded into the same
// records (record.Decoder, LoadTrace). One builder turns records into the
// conversation, so a capture and its own trace are equal by construction.
// Which of the two an input is, capture.SniffReader says (IsTrace). The
// package opens no capture itself.
//
// Memory. A message is held as a fixed-size Message (64 bytes: times,
// frame, seq, type and opcode name ids, a hash of its compared content and
// where its content is). The content itself (the leaves below) is encoded
// into the side's store: in memory up to Options.SpillBytes (bcdump diff
// gives each side an eighth of --flow-memory), then in an unlinked
// temporary file, read back only for the messages shown or compared key by
// key. The alignment compares 64-bit hashes of the compared content, so
// two messages are taken as equal when those hashes are (a collision is as
// likely as 1 in 2^64 per pair). What still grows with the inputs is the
// Message per delivered message and one edit (48 bytes) per aligned pair:
// about 130 bytes per message pair, 110 MB for 600,000 messages a side.
//
// The conversation. A flow is one client endpoint with one server endpoint.
// Flows carrying game datagrams are "client" flows, flows of GameSpy
// datagrams only (server-browser queries from their own ports) "gamespy"
// flows; each role is numbered by first appearance. Within a flow, each
// direction is the sequence of delivered messages in capture order:
//
//   - an unfragmented message, on its first send;
//   - a fragmented message once, on the datagram that completed it, with
//     the reassembled payload's opcode and fields;
//   - a GameSpy datagram, with its key/value pairs as "gamespy.KEY" (its
//     text when it has no pairs).
//
// Retransmitted copies, keepalive repeats of PeerInfo, duplicate fragments,
// fragments that never completed and ACKs are not messages. ACKs only
// record, per reliable message, whether it was acknowledged.
//
// What is compared. Each message's transport type, reliable and ordered
// flags, opcode, decoded fields (as flattened JSON key paths such as
// "fields.files[3].content_hash") and raw payload where it was not decoded.
// Labels ("<key>_name" next to "<key>") are shown but never compared: they
// follow from the value and from the manifest the trace was read with.
// The reliable seq is compared relative to its channel: the advance from the
// previous message of the same direction and channel (low: types 0x00-0x05,
// high: Data) must be the same on both sides, so one added message does not
// shift every later seq. Not compared unless asked: timestamps (Timing),
// endpoints and the addresses inside Connect, PeerInfo and Disconnect
// (Addresses), resend counts and whether a message was ACKed (Retransmits),
// datagram boundaries (which messages and ACKs shared a datagram), message
// offsets and lengths, fragment counts, peer id bytes and anomalies (gate
// on those with `bcdump read --fail-on`).
//
// Alignment. Flows are paired per role by order of first appearance; a flow
// whose whole conversation equals one of the other side's is paired with it
// first, so independent flows that started in another order are no
// difference. Each direction is aligned with Myers' diff on the compared
// content; within a run of removals and additions, a removed and an added
// message of the same transport type and opcode pair up as one changed
// message, whose differing key paths are listed old -> new.
//
// It imports report/record, report/query, report/render, report/quote and
// report/filter, and dissect (with dissect/capture) below them.
package diff
