package anomaly

// The codes, in the order `bcdump help anomalies` and `bcdump anomalies` list
// them.
const (
	_ Code = iota

	// Capture.
	Truncated
	CaplenExceedsLen
	IPFragmentIncomplete

	// Framing.
	ShortDatagram
	BadLength
	LengthOverrun
	UnknownTransportType
	NonStockDisconnect
	NonStockLength
	MsgCountMismatch
	TrailingBytes
	PeerIDMismatch

	// Payload.
	PayloadMalformed
	NonStockTorpedoFire
	NonStockObjCreate

	// Delivery.
	Retransmit
	RetransmitDiffers
	SeqReuse
	AckUnknown
	AckMismatch
	RetransmitUnacked
	UnackedFragmentRetransmit
	PeerTimeout

	// Reassembly.
	FragmentIncomplete
	ReassemblyOverflow
	FragmentBadTotal
	FragmentUnreliable

	// Checksum handshake.
	ChecksumRoundOrder
	ChecksumBitBytePlain
	ChecksumMissingComplete
	ChecksumVersion
	ChecksumDirHash
	ChecksumTreeMalformed
	ChecksumFileMismatch
	ChecksumFileUnknown

	// Limits.
	TrackingLimit

	// Capture, added after the others so that no code's number changes.
	CaptureTime

	numCodes
)

// registry is indexed by Code; row 0 is unused. A test checks that every
// row's Code is its index, names are unique and every field is set.
var registry = [numCodes]Info{
	Truncated: {Truncated, "truncated", Note, Capture, OnDatagram,
		"the capture holds only the first bytes of the datagram (its snap length cut it); says how many are missing",
		"the messages captured whole are decoded and tracked; the message the cut runs through is shown as cut (`cut` in JSON), not decoded and not tracked, and no framing or delivery anomaly is raised for the bytes the capture lacks: an ACK for a seq a cut or uncaptured message may have had is not `ack-unknown`, a fragment reassembly missing a cut fragment is not `fragment-incomplete`"},
	CaplenExceedsLen: {CaplenExceedsLen, "caplen-exceeds-len", Note, Capture, OnDatagram,
		"the capture record holds more bytes than the packet's original length (a broken capture writer)",
		"read as Wireshark reads it: every captured byte is kept and decoded, and reading goes on"},
	IPFragmentIncomplete: {IPFragmentIncomplete, "ip-fragment-incomplete", Note, Capture, OnDatagram | AsEvent,
		"a UDP datagram split into IP fragments of which the capture lacks some: it cannot be decoded whole",
		"found, in capture order, when a later datagram between the same hosts comes whole or reassembled, when the reassembly is 30 s old (capture time) or dropped to stay within 64 pending datagrams / 1 MiB of fragments, or at the end of the capture; the message names the fragments' frames. With its first fragment the datagram is shown cut after the bytes received from its start; without it (its ports unknown) the note is on the next datagram (an end event after the last one), and every flow between its hosts in its direction may have lost messages there: ACKs for them are `ack: cut`, not `ack-unknown`, reassemblies missing its fragments end without `fragment-incomplete`, and the checksum handshake forgets its position. No game anomaly follows from the lost datagram"},
	ShortDatagram: {ShortDatagram, "short-datagram", Error, Framing, OnDatagram,
		"fewer than the 2 header bytes", ""},
	BadLength: {BadLength, "bad-length", Error, Framing, OnDatagram,
		"a length field smaller than the message's own header (zero included)", ""},
	LengthOverrun: {LengthOverrun, "length-overrun", Error, Framing, OnDatagram,
		"a message runs past the end of the datagram", ""},
	UnknownTransportType: {UnknownTransportType, "unknown-transport-type", Error, Framing, OnDatagram,
		"a transport type byte the stock engine does not register",
		"the rest of the datagram cannot be framed"},
	NonStockDisconnect: {NonStockDisconnect, "non-stock-disconnect", Warn, Framing, OnDatagram,
		"a type 0x06 message `06 <peer id>` ending the datagram: a disconnect as some reimplementations send it (OpenBC's client)",
		"stock disconnects with type 0x05: flags_len, seq, peer id and IPv4 address (10 bytes). Reported in place of `unknown-transport-type`; the session counts the client as disconnected"},
	NonStockLength: {NonStockLength, "non-stock-length", Warn, Framing, OnDatagram,
		"a control message (types 0x00-0x05) ending the datagram whose second byte alone is its length, without the stock flags_len (OpenBC's short keepalive `00 02`, its Connect `03 08 ...`)",
		"stock writes a u16 flags_len (bit 15 reliable, bit 14 ordered, 14-bit length) and, when reliable, a seq. Reported in place of `length-overrun` or `bad-length`; the message is shown raw"},
	MsgCountMismatch: {MsgCountMismatch, "msg-count-mismatch", Error, Framing, OnDatagram,
		"the datagram ends before msg_count messages", ""},
	TrailingBytes: {TrailingBytes, "trailing-bytes", Warn, Framing, OnDatagram,
		"bytes after the messages msg_count announced", ""},
	PeerIDMismatch: {PeerIDMismatch, "peer-id-mismatch", Warn, Framing, OnDatagram,
		"byte 0 is not the peer id the host assigned to that address (or first saw from it)",
		"reported once per run of the same wrong id; later ones are counted in the flow's stats"},

	PayloadMalformed: {PayloadMalformed, "payload-malformed", Error, Payload, OnDatagram,
		"a game payload that does not fit its opcode's layout",
		"the fields before the fault are decoded and the raw bytes stay visible"},

	NonStockTorpedoFire: {NonStockTorpedoFire, "non-stock-torpedo-fire", Warn, Payload, OnDatagram,
		"a 19-byte TorpedoFire whose target is gated on flags bit 1 with a 5-byte target offset, as OpenBC's codec writes it",
		"stock gates the target on flags bit 2 clear and writes a 4-byte offset (18 bytes with a target, 10 without). Reported in place of `payload-malformed`; the fields are the stock reading up to where it fails"},
	NonStockObjCreate: {NonStockObjCreate, "non-stock-obj-create", Warn, Payload, OnDatagram,
		"an ObjCreate or ObjCreateTeam ship body without the class id: a player object id follows the owner slot (and team), as OpenBC writes it",
		"stock writes the class id (0x00008008 ship, 0x00008009 torpedo) before the object id. Reported in place of `payload-malformed`"},
	Retransmit: {Retransmit, "retransmit", Note, Delivery, OnDatagram,
		"a reliable message sent again: same direction, channel (low/high), seq and fragment index as an earlier send",
		"normal on lossy links; the copy is marked `retransmit: true` with its count, and a repeated fragment is not reassembled twice. A byte-identical repeat of a PeerInfo (type 0x00) is a keepalive, not a retransmission"},
	RetransmitDiffers: {RetransmitDiffers, "retransmit-differs", Error, Delivery, OnDatagram,
		"a retransmission whose bytes (flags_len, fragment total, payload) or fragment bit differ from the first send",
		"the sender reused a seq for other content"},
	SeqReuse: {SeqReuse, "seq-reuse", Warn, Delivery, OnDatagram,
		"a reliable message of another transport type (or, for type 0x32, another game opcode) under a seq still remembered for an earlier message of that direction and channel",
		"it cannot be a retransmission, so the earlier message's tracking ends and the new one is tracked in its place. OpenBC's host reuses low seq 0 of its Connect reply for PeerInfo. Stock excerpts frame 13 (the \"hello\" chat example stitched in after the checksum trace, high seq 1 that ChecksumReq round 1 had used) shows it too: an artefact of how the excerpts were assembled, not a stock bug; it stays a warning"},
	AckUnknown: {AckUnknown, "ack-unknown", Note, Delivery, OnDatagram,
		"an ACK for a seq nothing was sent with in that direction and channel",
		"normal when the capture starts mid-session or missed the message, and for stock \"stale\" ACKs that ride along for seconds (protocol-facts 5.3)"},
	AckMismatch: {AckMismatch, "ack-mismatch", Warn, Delivery, AsEvent,
		"ACKs for the message's seq were seen, but with the wrong fragment status or a fragment index the message does not have",
		"seed 001's \"ACK format mismatch\" hypothesis; reported once per message, in place of `retransmit-unacked`"},
	RetransmitUnacked: {RetransmitUnacked, "retransmit-unacked", Warn, Delivery, AsEvent,
		"a message (or some of its fragments) was retransmitted and no matching ACK was ever seen",
		"lost ACKs, a silent peer, or a capture that missed them; reported once per message. Not when an ACK for it may be in a datagram the capture cut (`truncated`) or lost (`ip-fragment-incomplete`) and it was not resent after that"},
	UnackedFragmentRetransmit: {UnackedFragmentRetransmit, "unacked-fragment-retransmit", Warn, Delivery, AsEvent,
		"a fragmented reliable message kept being retransmitted although every fragment was ACKed with matching fragment ACKs",
		"the stock client bug of seed 001. Reported once per message when its tracking ends, with the number of resends, their time span and the frames of the ACKs. Harmless (the receiver drops the duplicates) but it wastes bandwidth for the whole session"},
	PeerTimeout: {PeerTimeout, "peer-timeout", Warn, Delivery, AsEvent,
		"a connected peer sent nothing for more than 45 s",
		"a client with a peer id that has not disconnected, or the server towards it (protocol-facts 5.2); found when capture time passes the limit or at the end of the flow, once per silence"},

	FragmentIncomplete: {FragmentIncomplete, "fragment-incomplete", Warn, Reassembly, AsEvent,
		"a reassembly still open at the end of its flow or capture, or older than 60 s",
		"names the missing fragment indices"},
	ReassemblyOverflow: {ReassemblyOverflow, "reassembly-overflow", Warn, Reassembly, OnDatagram,
		"an older reassembly was dropped, or a new fragment not kept, to stay within the limits",
		"8 open reassemblies per flow, 64 KiB buffered per flow"},
	FragmentBadTotal: {FragmentBadTotal, "fragment-bad-total", Error, Reassembly, OnDatagram,
		"fragment 0 announces a total of 0, or a fragment index is at or past the total",
		"the message is not reassembled"},
	FragmentUnreliable: {FragmentUnreliable, "fragment-unreliable", Warn, Reassembly, OnDatagram,
		"a fragment without the reliable bit, so it has no seq to reassemble by",
		"the message is not reassembled"},

	ChecksumRoundOrder: {ChecksumRoundOrder, "checksum-round-order", Warn, Checksum, OnDatagram,
		"checksum rounds out of the stock order 0, 1, 2, 3, 0xFF",
		"a round sent before the previous answer arrived, a round skipped or repeated, 0xFF before round 3, a round byte that is not stock, an answer for a round not asked, 0x28 before round 0xFF was answered"},
	ChecksumBitBytePlain: {ChecksumBitBytePlain, "checksum-bitbyte-plain", Warn, Checksum, OnDatagram,
		"a ChecksumReq recursive flag written as a plain byte 0x00/0x01 instead of a bit group 0x20/0x21",
		"a stock client misreads it"},
	ChecksumMissingComplete: {ChecksumMissingComplete, "checksum-missing-complete", Warn, Checksum, OnDatagram,
		"Settings or GameInit from the host without a ChecksumComplete 0x28 before them", ""},
	ChecksumVersion: {ChecksumVersion, "checksum-version", Error, Checksum, OnDatagram,
		"the round 0 reference hash is not StringHash(\"60\") = 0x7E0CE243 (not a BC 1.1 client)", ""},
	ChecksumDirHash: {ChecksumDirHash, "checksum-dir-hash", Error, Checksum, OnDatagram,
		"a checksum answer's dir_hash is not StringHash of the requested directory without its trailing '/'", ""},
	ChecksumTreeMalformed: {ChecksumTreeMalformed, "checksum-tree-malformed", Error, Checksum, OnDatagram,
		"a ChecksumResp hash tree does not parse (short, counts too large, too deep, or trailing bytes)",
		"`payload-malformed` accompanies it"},
	ChecksumFileMismatch: {ChecksumFileMismatch, "checksum-file-mismatch", Note, Checksum, OnDatagram,
		"with --manifest: a file's content hash differs from the manifest",
		"a modded or different client; names the file"},
	ChecksumFileUnknown: {ChecksumFileUnknown, "checksum-file-unknown", Note, Checksum, OnDatagram,
		"with --manifest: a file or directory name hash the manifest does not list for that round", ""},

	TrackingLimit: {TrackingLimit, "tracking-limit", Note, Limit, OnDatagram | AsEvent,
		"the tracker dropped state to stay within its memory limits",
		"a flow evicted because the state of all tracked flows reached its byte bound (144 MiB by default, --flow-memory; once per evicted flow), an unACKed message pushed out of a full window (256 messages / 512 fragments per flow, direction and channel; its later summary anomalies are lost), or, on the datagram, a fragment not tracked because the window holds 512 fragments. Once per flow, direction and channel. Also one note per code at the end when a capture held more than 65,536 end-of-capture anomalies (the rest are counted by `stats`, not listed)"},
	CaptureTime: {CaptureTime, "capture-time", Note, Capture, OnDatagram,
		"the capture record's time cannot be used as written: a fraction of a second of one second or more (a pcap microsecond field of 1,000,000 or more, a nanosecond field of 10^9 or more), or a time outside the years 0000 to 9999",
		"a fraction out of range is read as 0, the record's second (not carried into the seconds: 0xFFFFFFFF microseconds would add 71 minutes); a time outside the years 0000-9999 (a pcapng if_tsoffset, an OBCTRACE tick times a long --trace-tick, a packet_trace.log rolling past 9999-12-31) is set to the nearest end, so every output writes valid RFC 3339. The message says what the record held"},
}
