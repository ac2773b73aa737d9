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
// Memory. What diff holds does not grow with the number of messages or
// differences; every store below keeps up to Options.SpillBytes in memory
// and the rest in one unlinked temporary file of its own (spool):
//
//   - a side's message content (the leaves below), encoded, read back only
//     for the messages shown or compared key by key (leafStore);
//   - a side's messages as fixed 64-byte records (times, frame, seq, type
//     and opcode name ids, a 64-bit hash of the compared content, where the
//     content is), the records of one flow direction chained so that it is
//     read back in order with no index in memory (msgLog); an ACK or a
//     resend patches its message's record in place;
//   - a result's edits: the differences, up to Context equal messages on
//     each side of each, and one skip record for a longer equal run; the
//     text and JSON writers read them back one at a time.
//
// Besides: per reliable channel, the deliveries of recent seqs (a resend
// or ACK more than 4,096 seqs behind the channel's latest is not joined),
// all flows' together bounded by SpillBytes (at least 1 MiB), the least
// recently active flow's dropped first; per flow a record of about 512
// bytes, for at most Options.MaxFlows flows a side, the datagrams of
// further flows going to one merged flow (RoleMerged); the alignment
// window (Options.Window messages a side). Interned names and key paths
// are bounded (maxNames, maxPaths). Two messages are taken as equal when
// their content hashes are (a collision is as likely as 1 in 2^64 per
// pair).
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
// difference. Whole conversations are compared by signature: per
// direction, a 64-bit hash of the sequence of content hashes, made while
// the side is read. Each direction is then read one message at a time:
// equal heads are matched as they come (a common prefix belongs to some
// optimal alignment), and where the sides differ a window of up to
// Options.Window messages of each is aligned with Myers' diff and
// committed up to its last match in the first half of both windows; the
// rest is aligned again with what follows. The end of a direction is no
// window edge, so a direction shorter than a window is aligned as a
// whole, as Myers' diff over all of it would. Where two full windows have
// no message in common, the first half of each is committed unmatched and
// counted (Summary.Unaligned). Within a run of removals and additions, a
// removed and an added message of the same transport type and opcode pair
// up as one changed message, whose differing key paths are listed
// old -> new.
//
// It imports report/record, report/query, report/render, report/quote and
// report/filter, and dissect (with dissect/capture) below them.
package diff
