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

// Key is one key path of the records, and the field of the typed record
// (report/record) that holds it.
type Key struct {
	// Path is the dotted keys from the record's top, array levels left
	// out (messages.seq is the seq of each element of messages); <key>
	// stands for any key. In a Struct's fields it is the key in the
	// struct's own object (seq), or "" for a field no key shows.
	Path    string
	Type    filter.Type
	Records Records
	Meaning string
	// Read says when the key is there and how to read its value; keys
	// that are absent stand for false, zero or unknown.
	Read string
	// Go is the record's field for the key.
	Go Go
}

// Go is how the typed record (report/record) holds a key: the struct
// field that report/record/record_gen.go, generated from this table,
// declares for it.
type Go struct {
	// Field is the field's name. "" on a key the record holds no field
	// for (ts: the instant of time), and on a row of a Struct that embeds
	// the struct Type.
	Field string
	// Type is the field's Go type as package record writes it: int,
	// uint8, uint16, bool, string, []byte (text or hex, UTF-8 where it is
	// text), time.Time, time.Duration, netip.AddrPort, anomaly.Code; a
	// type of record written by hand (Kind, Dir, Field); a Struct of this
	// table by its name; or []T or *T of those.
	Type string
	// Has names the bool field, declared just before, that says the key
	// is there, where the field's zero value cannot say it (the Read
	// column says when the key is there).
	Has string
	// Doc says what the meaning does not about the Go value (units, what
	// zero stands for); on a field no key shows, all there is to say.
	Doc string
}

// Table returns every key path, in the order of a record. The caller may
// not change it.
func Table() []Key { return table }

// Struct is one struct type of the typed record (report/record): the
// keys of one JSON object, or of a part of one that several objects
// share, in the order the JSON writer writes them.
type Struct struct {
	Name string // the Go type's name
	Doc  string // its doc comment, without the comment marks
	// Fields are its fields, in order: the rows of its keys (Path the
	// key in the struct's object), rows of fields no key shows (Path "",
	// Go.Field set) and rows embedding another Struct (Path and Go.Field
	// "", Go.Type the struct's name).
	Fields []Key
}

// Structs returns the record's struct types, the first the record
// itself: report/record's record_gen.go is generated from them (go
// generate ./report/...), and Table is made of their keys. The caller
// may not change them.
func Structs() []Struct { return structs }

var table = buildTable()

var structs = []Struct{
	{"Datagram", `Datagram is one record. Datagram records (game, GameSpy) fill most of
it; event and summary records only Kind, File, Frame (events) and
Anomalies. Optional keys have a Has flag or are zero when absent, as
the table's Read column says.`, datagramFields},
	{"KV", "KV is one GameSpy key/value pair, as sent.", kvFields},
	{"Message", "Message is one transport message.", messageFields},
	{"Track", "Track is a message's per-flow delivery state.", trackFields},
	{"Payload", `Payload is what was decoded of a payload: a message's own or a
reassembled one.`, payloadFields},
	{"Reasm", "Reasm is a fragmented message delivered whole.", reasmFields},
	{"Cut", `Cut is the message the capture's snap length cut: its header as far as
captured.`, cutFields},
	{"Anomaly", `Anomaly is one finding: on a datagram, or an event (then with where it
points).`, anomalyFields},
}

// lookupStruct returns the struct named name.
func lookupStruct(name string) (Struct, bool) {
	for _, s := range structs {
		if s.Name == name {
			return s, true
		}
	}
	return Struct{}, false
}

// structFields returns the fields of the struct named name.
func structFields(name string) []Key {
	s, ok := lookupStruct(name)
	if !ok {
		panic("jsonkeys: no struct " + name)
	}
	return s.Fields
}

const dg = Datagram

// datagramFields are the record's top level: a datagram's keys, and the
// event and summary records' (kind, frame, file, anomalies).
var datagramFields = []Key{
	{Kind, filter.String, All, `record kind: "game" or "gamespy" (datagrams), "event" (found mid-capture, live), "summary" (end of capture)`, "always",
		Go{Field: "Kind", Type: "Kind"}},
	{Frame, filter.Number, dg | Event, "frame number in the capture (1-based, as Wireshark counts); for an event, the frame it points at", "always on datagrams; on events that point at a frame",
		Go{Field: "Frame", Type: "int"}},
	{Time, filter.String, dg, `capture time, RFC 3339 in UTC with nine fractional digits ("2026-11-24T00:58:06.120000000Z"), so that times sort as text`, "always",
		Go{Field: "Time", Type: "time.Time", Doc: `UTC; "ts" is the same instant`}},
	{TS, filter.Number, dg, "capture time in seconds since 1970-01-01 UTC, nine decimals (like tcpdump -tt)", "always; parse as a decimal, not a float64, to keep the nanoseconds",
		Go{}}, // Time
	{Src, filter.String, dg, "source address:port", "always; IPv6 addresses in brackets",
		Go{Field: "Src", Type: "netip.AddrPort"}},
	{Dst, filter.String, dg, "destination address:port", "always; IPv6 addresses in brackets",
		Go{Field: "Dst", Type: "netip.AddrPort"}},
	{Dir, filter.String, dg, `direction: "c2s" (to the game port) or "s2c"`, "always",
		Go{Field: "Dir", Type: "Dir"}},
	{Len, filter.Number, dg, "UDP payload bytes captured", "always",
		Go{Field: "Len", Type: "int"}},
	{Context, filter.Bool, dg, "true on a datagram shown only as context of a match (read -C)", "only when true",
		Go{Field: "Context", Type: "bool"}},
	{File, filter.String, All, "the capture the record comes from; only when one run reads several", "only when one run reads several captures",
		Go{Field: "File", Type: "string"}},
	{Truncated, filter.Bool, dg, "the capture cut the datagram short", "only when true",
		Go{Field: "Truncated", Type: "bool"}},
	{TruncatedBytes, filter.Number, dg, "bytes of the UDP payload the capture lacks", "with truncated, when the capture says how many",
		Go{Field: "TruncatedBytes", Type: "int", Doc: "0: not known"}},
	{Text, filter.String, dg, "GameSpy: the query or reply text", "on gamespy records; bytes that are not UTF-8 read as Latin-1",
		Go{Field: "Text", Type: "[]byte", Doc: "UTF-8 (stray bytes of the wire text as Latin-1)"}},
	{GameSpy, filter.Object, dg, "GameSpy: the key/value pairs of the text", "on gamespy records; keys in the order sent",
		Go{Field: "GameSpy", Type: "[]KV"}},
	{PeerID, filter.Number, dg, "game: sender's peer id (byte 0; 255 before one is assigned)", "on game records",
		Go{Field: "PeerID", Type: "int"}},
	{MsgCount, filter.Number, dg, "game: transport messages the header announces", "on game records of 2 bytes or more (a 1-byte datagram has none)",
		Go{Field: "MsgCount", Type: "int", Has: "HasMsgCount"}},
	{Messages, filter.Object, dg, "game: the transport messages, in order", "on game records; an array, empty when none was captured whole",
		Go{Field: "Messages", Type: "[]Message"}},
	{Cut, filter.Object, dg, "the message the capture's snap length cut (its header as far as captured)", "when the snap length cut a message; its keys as far as captured",
		Go{Field: "Cut", Type: "Cut", Has: "HasCut"}},
	{UncapturedMsgs, filter.Number, dg, "messages the header announces that the capture lacks", "only when some are missing",
		Go{Field: "UncapturedMsgs", Type: "int"}},
	{PlainHex, filter.String, dg, "deciphered datagram as hex, where decoding could not explain it", "on game records without messages or with anomalies; lower-case hex",
		Go{Field: "Plain", Type: "[]byte", Has: "HasPlain", Doc: "the bytes plain_hex shows"}},
	{Anomalies, filter.Object, dg | Summary, "findings on the datagram; in the summary record, the end-of-capture findings", "only when there are some; an array",
		Go{Field: "Anomalies", Type: "[]Anomaly"}},
	{Go: Go{Field: "arena", Type: "[]byte", Doc: "what the byte slices above point into"}},
	{Go: Go{Field: "pool", Type: "[]*Reasm", Doc: "Reassembled storage, reused"}},
}

var kvFields = []Key{
	{"<key>", filter.String, dg, `GameSpy: one value by its key as sent (gamespy.hostname, gamespy.numplayers, ...)`, "as sent",
		Go{Field: "Key", Type: "[]byte", Doc: "the key; Value its value"}},
	{Go: Go{Field: "Value", Type: "[]byte"}},
}

// messageFields are a transport message's keys, its payload's and its
// delivery tracking's; a cut message has all but the tracking and the
// reassembly.
var messageFields = []Key{
	{Type, filter.Number, dg, "transport type byte", "always",
		Go{Field: "Type", Type: "uint8"}},
	{TypeName, filter.String, dg, "transport type: ACK, Data, Connect, PeerInfo, Disconnect, ...", "always",
		Go{Field: "TypeName", Type: "string"}},
	{Offset, filter.Number, dg, "byte offset in the deciphered datagram", "always",
		Go{Field: "Offset", Type: "int"}},
	{Len, filter.Number, dg, "declared length", "always on whole messages",
		Go{Field: "Len", Type: "int", Doc: "on a cut message's header: 0 when not captured"}},
	{Seq, filter.Number, dg, "sequence number (reliable messages; the seq an ACK acknowledges)", "on ACKs and reliable messages",
		Go{Field: "Seq", Type: "uint16", Has: "HasSeq"}},
	{AckFrag, filter.Bool, dg, "ACK: acknowledges a fragment", "on ACKs",
		Go{Field: "AckFrag", Type: "bool"}},
	{AckLow, filter.Bool, dg, "ACK: low flag", "on ACKs",
		Go{Field: "AckLow", Type: "bool"}},
	{FragIdx, filter.Number, dg, "fragment index", "on fragments and on ACKs of fragments",
		Go{Field: "FragIdx", Type: "uint8", Has: "HasFragIdx"}},
	{Reliable, filter.Bool, dg, "reliable flag", "on messages other than ACKs",
		Go{Field: "Reliable", Type: "bool"}},
	{Ordered, filter.Bool, dg, "ordered flag", "on messages other than ACKs",
		Go{Field: "Ordered", Type: "bool"}},
	{Fragment, filter.Bool, dg, "is a fragment of a larger message", "only when true",
		Go{Field: "Fragment", Type: "bool"}},
	{FragTotal, filter.Number, dg, "fragment count (on fragment 0)", "on the fragment whose header carries it",
		Go{Field: "FragTotal", Type: "uint8", Has: "HasFragTotal"}},
	{PayloadLen, filter.Number, dg, "payload bytes", "on messages other than ACKs",
		Go{Field: "PayloadLen", Type: "int"}},
	{Go: Go{Type: "Payload"}},
	{Go: Go{Type: "Track"}},
	{Reassembled, filter.Object, dg, "on the fragment that completed a fragmented message: the whole message", "on the fragment that completed one",
		Go{Field: "Reassembled", Type: "*Reasm"}},
}

// trackFields are a message's delivery tracking.
var trackFields = []Key{
	{Retransmit, filter.Bool, dg, "a resent copy of a reliable message", "only when true",
		Go{Field: "Retransmit", Type: "bool"}},
	{RetransmitCount, filter.Number, dg, "how many times it was resent so far", "with retransmit",
		Go{Field: "RetransmitCount", Type: "int"}},
	{FirstFrame, filter.Number, dg, "frame of the first send", "with retransmit",
		Go{Field: "FirstFrame", Type: "int"}},
	{Keepalive, filter.Bool, dg, "an identical repeat of a type 0x00 message", "only when true",
		Go{Field: "Keepalive", Type: "bool"}},
	{Duplicate, filter.Bool, dg, "a duplicate delivery", "only when true",
		Go{Field: "Duplicate", Type: "bool"}},
	{Ack, filter.String, dg, `ACK: what it matched: "matched", "repeat", "mismatch", "cut", "unknown"`, "on ACKs",
		Go{Field: "Ack", Type: "string", Doc: `"" on other messages`}},
	{AckedFrame, filter.Number, dg, "ACK: frame of the message it acknowledges", "on ACKs whose message was seen",
		Go{Field: "AckedFrame", Type: "int", Doc: "0: not seen"}},
	{RTTMs, filter.Number, dg, "ACK: round-trip time in milliseconds", "on ACKs with a measured round trip; three decimals",
		Go{Field: "RTT", Type: "time.Duration", Has: "HasRTT", Doc: "whole microseconds, as the JSON's three decimals of ms"}},
}

// payloadFields are what was decoded of a payload.
var payloadFields = []Key{
	{Opcode, filter.Number, dg, "game opcode (first payload byte)", "on payloads with an opcode",
		Go{Field: "Opcode", Type: "uint8", Has: "HasOpcode"}},
	{OpcodeName, filter.String, dg, "game opcode name: ChecksumReq, StateUpdate, Chat, ...", "with opcode",
		Go{Field: "OpcodeName", Type: "string"}},
	{Fields, filter.Object, dg, "decoded payload fields (bcdump fields lists them)", "on decoded payloads; the decoders' fields",
		Go{Field: "Fields", Type: "[]Field", Has: "Decoded", Doc: "as tokens, the JSON's order (Decoded: maybe none)"}},
	{PayloadHex, filter.String, dg, "payload as hex, where it was not (fully) decoded", "on payloads not decoded, or decoded with an error; lower-case hex",
		Go{Field: "Bytes", Type: "[]byte", Has: "HasHex", Doc: "the bytes payload_hex shows"}},
}

// reasmFields are a reassembled message's.
var reasmFields = []Key{
	{Len, filter.Number, dg, "reassembled payload bytes", "always in reassembled",
		Go{Field: "Len", Type: "int"}},
	{Frags, filter.Number, dg, "fragments joined", "always in reassembled",
		Go{Field: "Frags", Type: "int"}},
	{Go: Go{Type: "Payload"}},
}

// cutFields are a cut message's: a message's keys as far as captured
// (without tracking and reassembly).
var cutFields = []Key{
	{Go: Go{Field: "HeaderOnly", Type: "bool", Doc: "the cut ran through the header: only type, type_name, offset and (when captured, > 0) len are known"}},
	{Go: Go{Type: "Message"}},
	{Captured, filter.Number, dg, "bytes of the cut message in the capture", "always in cut",
		Go{Field: "Captured", Type: "int"}},
}

// anomalyFields are an anomaly's keys and an event's: a datagram's
// anomalies have code to msg, the summary's findings all, and an event
// record holds its one anomaly's at its top.
var anomalyFields = []Key{
	{Go: Go{Field: "Code", Type: "anomaly.Code", Doc: "0 when the name is not a code this bcdump knows"}},
	{Code, filter.String, dg | Summary, "anomaly code (bcdump anomalies lists them)", "always",
		Go{Field: "CodeName", Type: "string"}},
	{Severity, filter.String, dg | Summary, `severity: "note", "warn" or "error"`, "always",
		Go{Field: "Severity", Type: "string"}},
	{Message, filter.String, dg | Summary, "what was found, in words", "always; for people, its wording may change",
		Go{Field: "Message", Type: "[]byte"}},
	{Offset, filter.Number, dg | Summary, "byte offset in the deciphered datagram", "when it points at a byte",
		Go{Field: "Offset", Type: "int", Doc: "anomaly.NoOffset: none"}},
	{Msg, filter.Number, dg | Summary, "index of the message it concerns", "when it concerns one message",
		Go{Field: "Msg", Type: "int", Doc: "anomaly.NoMsg: none"}},
	// Events in the summary point at a frame; event records have it on top.
	{Frame, filter.Number, Summary, "frame the end-of-capture finding points at", "when it points at one",
		Go{Field: "Frame", Type: "int"}},
	{Client, filter.String, Summary, "client address:port of the flow", "when the event belongs to a flow",
		Go{Field: "Client", Type: "netip.AddrPort"}},
	{Server, filter.String, Summary, "server address:port of the flow", "when the event belongs to a flow",
		Go{Field: "Server", Type: "netip.AddrPort"}},
}

// buildTable makes the table of the structs' keys: the record's own,
// each followed by the keys of the struct it holds under its path, then
// the keys of an event record's one anomaly at its top.
func buildTable() []Key {
	ks := appendKeys(nil, "", datagramFields, "", "", false)
	for _, a := range anomalyFields {
		if a.Path == "" || a.Path == Frame {
			continue // frame is the record's own
		}
		a.Records, a.Meaning = Event, "event: "+a.Meaning
		ks = append(ks, a)
	}
	return ks
}

// whatUnder names the message whose keys stand under a path, for the
// meanings of the keys of the structs that the struct under the path
// embeds.
var whatUnder = map[string]string{
	Messages + "." + Reassembled: "reassembled ",
	Cut:                          "cut message's ",
}

// appendKeys appends the keys of a struct's fields under prefix: each
// row's key, its meaning prefixed with own, then the keys of the struct
// it holds under its path; an embedded struct's keys as the struct's
// own, their meanings prefixed with what. A cut message's keys (cut)
// leave out the tracking and the reassembly: nothing delivered the
// message the capture lacks.
func appendKeys(ks []Key, prefix string, fields []Key, own, what string, cut bool) []Key {
	for _, f := range fields {
		switch {
		case f.Path == "" && f.Go.Field == "": // embedded
			if !(cut && f.Go.Type == "Track") {
				ks = appendKeys(ks, prefix, structFields(f.Go.Type), what, what, cut)
			}
		case f.Path == "": // a field no key shows
		case cut && f.Path == Reassembled:
		default:
			path := prefix + f.Path
			f.Path, f.Meaning = path, own+f.Meaning
			ks = append(ks, f)
			if s, ok := lookupStruct(strings.TrimLeft(f.Go.Type, "[]*")); ok {
				ks = appendKeys(ks, path+".", s.Fields, "", whatUnder[path], cut || path == Cut)
			}
		}
	}
	return ks
}
