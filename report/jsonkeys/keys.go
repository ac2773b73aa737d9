package jsonkeys

import (
	"strings"

	"github.com/bcdump/bcdump/report/filter"
)

// The keys, by name. A name can sit at several paths (len is a
// datagram's, a message's and a reassembled message's); Table gives
// each path.
const (
	Kind            = "kind"
	Frame           = "frame"
	Time            = "time"
	TS              = "ts"
	Src             = "src"
	Dst             = "dst"
	Dir             = "dir"
	Len             = "len"
	Context         = "context"
	File            = "file"
	Truncated       = "truncated"
	TruncatedBytes  = "truncated_bytes"
	Text            = "text"
	GameSpy         = "gamespy"
	PeerID          = "peer_id"
	MsgCount        = "msg_count"
	Messages        = "messages"
	Type            = "type"
	TypeName        = "type_name"
	Offset          = "offset"
	Seq             = "seq"
	AckFrag         = "ack_frag"
	AckLow          = "ack_low"
	FragIdx         = "frag_idx"
	Reliable        = "reliable"
	Ordered         = "ordered"
	Fragment        = "fragment"
	FragTotal       = "frag_total"
	PayloadLen      = "payload_len"
	Opcode          = "opcode"
	OpcodeName      = "opcode_name"
	Fields          = "fields"
	PayloadHex      = "payload_hex"
	Retransmit      = "retransmit"
	RetransmitCount = "retransmit_count"
	FirstFrame      = "first_frame"
	Keepalive       = "keepalive"
	Duplicate       = "duplicate"
	Ack             = "ack"
	AckedFrame      = "acked_frame"
	RTTMs           = "rtt_ms"
	Reassembled     = "reassembled"
	Frags           = "frags"
	Cut             = "cut"
	Captured        = "captured"
	UncapturedMsgs  = "uncaptured_msgs"
	PlainHex        = "plain_hex"
	Anomalies       = "anomalies"
	Code            = "code"
	Severity        = "severity"
	Message         = "message"
	Msg             = "msg"
	Client          = "client"
	Server          = "server"
)

// The kinds of record, the values of "kind".
const (
	KindGame    = "game"
	KindGameSpy = "gamespy"
	KindEvent   = "event"
	KindSummary = "summary"
)

// Records says which kinds of record carry a key.
type Records uint8

const (
	Datagram Records = 1 << iota // "game" and "gamespy" records
	Event                        // events found mid-capture (bcdump live)
	Summary                      // the end-of-capture record
	All      = Datagram | Event | Summary
)

func (r Records) String() string {
	var s []string
	for i, n := range []string{"datagram", "event", "summary"} {
		if r&(1<<i) != 0 {
			s = append(s, n)
		}
	}
	return strings.Join(s, ", ")
}

// Key is one key path of the records.
type Key struct {
	// Path is the dotted keys from the record's top, array levels left
	// out (messages.seq is the seq of each element of messages); <key>
	// stands for any key.
	Path    string
	Type    filter.Type
	Records Records
	Meaning string
	// Read says when the key is there and how to read its value; keys
	// that are absent stand for false, zero or unknown.
	Read string
}

// Table returns every key path, in the order of a record. The caller may
// not change it.
func Table() []Key { return table }

var table = buildTable()

func buildTable() []Key {
	const dg = Datagram
	ks := []Key{
		{Kind, filter.String, All, `record kind: "game" or "gamespy" (datagrams), "event" (found mid-capture, live), "summary" (end of capture)`, "always"},
		{Frame, filter.Number, dg | Event, "frame number in the capture (1-based, as Wireshark counts); for an event, the frame it points at", "always on datagrams; on events that point at a frame"},
		{Time, filter.String, dg, `capture time, RFC 3339 in UTC with nine fractional digits ("2026-11-24T00:58:06.120000000Z"), so that times sort as text`, "always"},
		{TS, filter.Number, dg, "capture time in seconds since 1970-01-01 UTC, nine decimals (like tcpdump -tt)", "always; parse as a decimal, not a float64, to keep the nanoseconds"},
		{Src, filter.String, dg, "source address:port", "always; IPv6 addresses in brackets"},
		{Dst, filter.String, dg, "destination address:port", "always; IPv6 addresses in brackets"},
		{Dir, filter.String, dg, `direction: "c2s" (to the game port) or "s2c"`, "always"},
		{Len, filter.Number, dg, "UDP payload bytes captured", "always"},
		{Context, filter.Bool, dg, "true on a datagram shown only as context of a match (read -C)", "only when true"},
		{File, filter.String, All, "the capture the record comes from; only when one run reads several", "only when one run reads several captures"},
		{Truncated, filter.Bool, dg, "the capture cut the datagram short", "only when true"},
		{TruncatedBytes, filter.Number, dg, "bytes of the UDP payload the capture lacks", "with truncated, when the capture says how many"},
		{Text, filter.String, dg, "GameSpy: the query or reply text", "on gamespy records; bytes that are not UTF-8 read as Latin-1"},
		{GameSpy, filter.Object, dg, "GameSpy: the key/value pairs of the text", "on gamespy records; keys in the order sent"},
		{GameSpy + ".<key>", filter.String, dg, `GameSpy: one value by its key as sent (gamespy.hostname, gamespy.numplayers, ...)`, "as sent"},
		{PeerID, filter.Number, dg, "game: sender's peer id (byte 0; 255 before one is assigned)", "on game records"},
		{MsgCount, filter.Number, dg, "game: transport messages the header announces", "on game records of 2 bytes or more (a 1-byte datagram has none)"},
		{Messages, filter.Object, dg, "game: the transport messages, in order", "on game records; an array, empty when none was captured whole"},
	}
	ks = append(ks, messageKeys(Messages, "")...)
	ks = append(ks,
		Key{Messages + "." + Reassembled, filter.Object, dg, "on the fragment that completed a fragmented message: the whole message", "on the fragment that completed one"},
		Key{Messages + "." + Reassembled + "." + Len, filter.Number, dg, "reassembled payload bytes", "always in reassembled"},
		Key{Messages + "." + Reassembled + "." + Frags, filter.Number, dg, "fragments joined", "always in reassembled"},
	)
	ks = append(ks, payloadKeys(Messages+"."+Reassembled, "reassembled ")...)
	ks = append(ks,
		Key{Cut, filter.Object, dg, "the message the capture's snap length cut (its header as far as captured)", "when the snap length cut a message; its keys as far as captured"},
	)
	ks = append(ks, messageKeys(Cut, "cut message's ")...)
	ks = append(ks,
		Key{Cut + "." + Captured, filter.Number, dg, "bytes of the cut message in the capture", "always in cut"},
		Key{UncapturedMsgs, filter.Number, dg, "messages the header announces that the capture lacks", "only when some are missing"},
		Key{PlainHex, filter.String, dg, "deciphered datagram as hex, where decoding could not explain it", "on game records without messages or with anomalies; lower-case hex"},
		Key{Anomalies, filter.Object, dg | Summary, "findings on the datagram; in the summary record, the end-of-capture findings", "only when there are some; an array"},
	)
	for _, a := range anomalyKeys {
		a.Path, a.Records = Anomalies+"."+a.Path, dg|Summary
		ks = append(ks, a)
	}
	// Events in the summary point at a frame; event records have it on top.
	ks = append(ks, Key{Anomalies + "." + Frame, filter.Number, Summary, "frame the end-of-capture finding points at", "when it points at one"})
	for _, a := range eventKeys {
		a.Path, a.Records = Anomalies+"."+a.Path, Summary
		ks = append(ks, a)
	}
	for _, list := range [][]Key{anomalyKeys, eventKeys} {
		for _, a := range list {
			a.Records, a.Meaning = Event, "event: "+a.Meaning
			ks = append(ks, a)
		}
	}
	return ks
}

// anomalyKeys are an anomaly's keys.
var anomalyKeys = []Key{
	{Path: Code, Type: filter.String, Meaning: "anomaly code (bcdump anomalies lists them)", Read: "always"},
	{Path: Severity, Type: filter.String, Meaning: `severity: "note", "warn" or "error"`, Read: "always"},
	{Path: Message, Type: filter.String, Meaning: "what was found, in words", Read: "always; for people, its wording may change"},
	{Path: Offset, Type: filter.Number, Meaning: "byte offset in the deciphered datagram", Read: "when it points at a byte"},
	{Path: Msg, Type: filter.Number, Meaning: "index of the message it concerns", Read: "when it concerns one message"},
}

// eventKeys are the keys an event adds to an anomaly; frame is the
// record-level frame on event records.
var eventKeys = []Key{
	{Path: Client, Type: filter.String, Meaning: "client address:port of the flow", Read: "when the event belongs to a flow"},
	{Path: Server, Type: filter.String, Meaning: "server address:port of the flow", Read: "when the event belongs to a flow"},
}

// messageKeys are a transport message's keys under prefix (what: how the
// meanings name it).
func messageKeys(prefix, what string) []Key {
	p := prefix + "."
	dg := Datagram
	ks := []Key{
		{p + Type, filter.Number, dg, what + "transport type byte", "always"},
		{p + TypeName, filter.String, dg, what + "transport type: ACK, Data, Connect, PeerInfo, Disconnect, ...", "always"},
		{p + Offset, filter.Number, dg, what + "byte offset in the deciphered datagram", "always"},
		{p + Len, filter.Number, dg, what + "declared length", "always on whole messages"},
		{p + Seq, filter.Number, dg, what + "sequence number (reliable messages; the seq an ACK acknowledges)", "on ACKs and reliable messages"},
		{p + AckFrag, filter.Bool, dg, what + "ACK: acknowledges a fragment", "on ACKs"},
		{p + AckLow, filter.Bool, dg, what + "ACK: low flag", "on ACKs"},
		{p + FragIdx, filter.Number, dg, what + "fragment index", "on fragments and on ACKs of fragments"},
		{p + Reliable, filter.Bool, dg, what + "reliable flag", "on messages other than ACKs"},
		{p + Ordered, filter.Bool, dg, what + "ordered flag", "on messages other than ACKs"},
		{p + Fragment, filter.Bool, dg, what + "is a fragment of a larger message", "only when true"},
		{p + FragTotal, filter.Number, dg, what + "fragment count (on fragment 0)", "on the fragment whose header carries it"},
		{p + PayloadLen, filter.Number, dg, what + "payload bytes", "on messages other than ACKs"},
	}
	ks = append(ks, payloadKeys(prefix, what)...)
	if prefix != Messages {
		return ks
	}
	return append(ks,
		Key{p + Retransmit, filter.Bool, dg, "a resent copy of a reliable message", "only when true"},
		Key{p + RetransmitCount, filter.Number, dg, "how many times it was resent so far", "with retransmit"},
		Key{p + FirstFrame, filter.Number, dg, "frame of the first send", "with retransmit"},
		Key{p + Keepalive, filter.Bool, dg, "an identical repeat of a type 0x00 message", "only when true"},
		Key{p + Duplicate, filter.Bool, dg, "a duplicate delivery", "only when true"},
		Key{p + Ack, filter.String, dg, `ACK: what it matched: "matched", "repeat", "mismatch", "cut", "unknown"`, "on ACKs"},
		Key{p + AckedFrame, filter.Number, dg, "ACK: frame of the message it acknowledges", "on ACKs whose message was seen"},
		Key{p + RTTMs, filter.Number, dg, "ACK: round-trip time in milliseconds", "on ACKs with a measured round trip; three decimals"},
	)
}

// payloadKeys are the keys of what was decoded of a payload under
// prefix.
func payloadKeys(prefix, what string) []Key {
	p := prefix + "."
	dg := Datagram
	return []Key{
		{p + Opcode, filter.Number, dg, what + "game opcode (first payload byte)", "on payloads with an opcode"},
		{p + OpcodeName, filter.String, dg, what + "game opcode name: ChecksumReq, StateUpdate, Chat, ...", "with opcode"},
		{p + Fields, filter.Object, dg, what + "decoded payload fields (bcdump fields lists them)", "on decoded payloads; the decoders' fields"},
		{p + PayloadHex, filter.String, dg, what + "payload as hex, where it was not (fully) decoded", "on payloads not decoded, or decoded with an error; lower-case hex"},
	}
}
