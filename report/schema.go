package report

//go:generate go run ./internal/fieldgen/cmd/genfields -o gamefields_gen.go

import (
	"sort"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/report/filter"
)

// The field schema: every key path of the JSON records `read -F json`
// prints (datagram, event and summary records), with its type and
// meaning. It is what display filters are checked against and what
// `bcdump fields` lists. The keys the writer in json.go and track.go
// appends are listed here by hand; the game fields (messages.fields.<key>)
// come from gamefields_gen.go, generated from the layout table
// (dissect.Fields). Tests keep the three in step: every key the writer's source appends, and every
// path and type any test capture or golden file shows, must be here.

// Field is one entry of the schema.
type Field struct {
	Path    string // dotted JSON keys, array levels left out
	Type    filter.Type
	Records string // which records have it: datagram, event, summary
	Meaning string
}

// gameField is one generated entry: a field name the decoders append, the
// kinds (game.Kind names) they append under it, and where.
type gameField struct {
	name, kinds, in string
}

// Field roots under which the decoders' fields appear. Below them a field
// is found by its name at any depth (see Schema.Flat): files.name_hash is
// messages.fields.name_hash too.
var fieldRoots = []string{"messages.fields", "messages.reassembled.fields", "cut.fields"}

const (
	dgram   = "datagram"
	event   = "event"
	summary = "summary"
	all     = "datagram, event, summary"
)

// recordFields are the keys json.go and track.go write, in the order of a
// record.
var recordFields = buildRecordFields()

func buildRecordFields() []Field {
	fs := []Field{
		{"kind", filter.String, all, `record kind: "game" or "gamespy" (datagrams), "event" (found mid-capture, live), "summary" (end of capture)`},
		{"frame", filter.Number, dgram + ", " + event, "frame number in the capture (1-based, as Wireshark counts); for an event, the frame it points at"},
		{"time", filter.String, dgram, `capture time, RFC 3339 in UTC with nine fractional digits ("2026-11-24T00:58:06.120000000Z"), so that times sort as text`},
		{"ts", filter.Number, dgram, "capture time in seconds since 1970-01-01 UTC, nine decimals (like tcpdump -tt)"},
		{"src", filter.String, dgram, "source address:port"},
		{"dst", filter.String, dgram, "destination address:port"},
		{"dir", filter.String, dgram, `direction: "c2s" (to the game port) or "s2c"`},
		{"len", filter.Number, dgram, "UDP payload bytes captured"},
		{"context", filter.Bool, dgram, "true on a datagram shown only as context of a match (read -C)"},
		{"file", filter.String, all, "the capture the record comes from; only when one run reads several"},
		{"truncated", filter.Bool, dgram, "the capture cut the datagram short"},
		{"truncated_bytes", filter.Number, dgram, "bytes of the UDP payload the capture lacks"},
		{"text", filter.String, dgram, "GameSpy: the query or reply text"},
		{"gamespy", filter.Object, dgram, "GameSpy: the key/value pairs of the text"},
		{"gamespy.<key>", filter.String, dgram, `GameSpy: one value by its key as sent (gamespy.hostname, gamespy.numplayers, ...)`},
		{"peer_id", filter.Number, dgram, "game: sender's peer id (byte 0; 255 before one is assigned)"},
		{"msg_count", filter.Number, dgram, "game: transport messages the header announces"},
		{"messages", filter.Object, dgram, "game: the transport messages, in order"},
	}
	fs = append(fs, messageFields("messages", "")...)
	fs = append(fs,
		Field{"messages.reassembled", filter.Object, dgram, "on the fragment that completed a fragmented message: the whole message"},
		Field{"messages.reassembled.len", filter.Number, dgram, "reassembled payload bytes"},
		Field{"messages.reassembled.frags", filter.Number, dgram, "fragments joined"},
	)
	fs = append(fs, payloadFields("messages.reassembled", "reassembled ")...)
	fs = append(fs,
		Field{"cut", filter.Object, dgram, "the message the capture's snap length cut (its header as far as captured)"},
	)
	fs = append(fs, messageFields("cut", "cut message's ")...)
	fs = append(fs,
		Field{"cut.captured", filter.Number, dgram, "bytes of the cut message in the capture"},
		Field{"uncaptured_msgs", filter.Number, dgram, "messages the header announces that the capture lacks"},
		Field{"plain_hex", filter.String, dgram, "deciphered datagram as hex, where decoding could not explain it"},
		Field{"anomalies", filter.Object, dgram + ", " + summary, "findings on the datagram; in the summary record, the end-of-capture findings"},
	)
	for _, a := range anomalyFields {
		fs = append(fs, Field{"anomalies." + a.Path, a.Type, dgram + ", " + summary, a.Meaning})
	}
	// Events in the summary point at a frame; event records have it on top.
	fs = append(fs, Field{"anomalies.frame", filter.Number, summary, "frame the end-of-capture finding points at"})
	for _, a := range eventFields {
		fs = append(fs, Field{"anomalies." + a.Path, a.Type, summary, a.Meaning})
	}
	for _, a := range anomalyFields {
		fs = append(fs, Field{a.Path, a.Type, event, "event: " + a.Meaning})
	}
	for _, a := range eventFields {
		fs = append(fs, Field{a.Path, a.Type, event, "event: " + a.Meaning})
	}
	return fs
}

// anomalyFields are an anomaly's keys (appendAnomalyKeys).
var anomalyFields = []Field{
	{Path: "code", Type: filter.String, Meaning: "anomaly code (bcdump anomalies lists them)"},
	{Path: "severity", Type: filter.String, Meaning: `severity: "note", "warn" or "error"`},
	{Path: "message", Type: filter.String, Meaning: "what was found, in words"},
	{Path: "offset", Type: filter.Number, Meaning: "byte offset in the deciphered datagram"},
	{Path: "msg", Type: filter.Number, Meaning: "index of the message it concerns"},
}

// eventFields are the keys an event adds to an anomaly (appendEventKeys);
// frame is the record-level frame on event records.
var eventFields = []Field{
	{Path: "client", Type: filter.String, Meaning: "client address:port of the flow"},
	{Path: "server", Type: filter.String, Meaning: "server address:port of the flow"},
}

// messageFields are a transport message's keys (appendMessageKeys) under
// prefix.
func messageFields(prefix, what string) []Field {
	p := prefix + "."
	fs := []Field{
		{p + "type", filter.Number, dgram, what + "transport type byte"},
		{p + "type_name", filter.String, dgram, what + "transport type: ACK, Data, Connect, PeerInfo, Disconnect, ..."},
		{p + "offset", filter.Number, dgram, what + "byte offset in the deciphered datagram"},
		{p + "len", filter.Number, dgram, what + "declared length"},
		{p + "seq", filter.Number, dgram, what + "sequence number (reliable messages; the seq an ACK acknowledges)"},
		{p + "ack_frag", filter.Bool, dgram, what + "ACK: acknowledges a fragment"},
		{p + "ack_low", filter.Bool, dgram, what + "ACK: low flag"},
		{p + "frag_idx", filter.Number, dgram, what + "fragment index"},
		{p + "reliable", filter.Bool, dgram, what + "reliable flag"},
		{p + "ordered", filter.Bool, dgram, what + "ordered flag"},
		{p + "fragment", filter.Bool, dgram, what + "is a fragment of a larger message"},
		{p + "frag_total", filter.Number, dgram, what + "fragment count (on fragment 0)"},
		{p + "payload_len", filter.Number, dgram, what + "payload bytes"},
	}
	fs = append(fs, payloadFields(prefix, what)...)
	if prefix != "messages" {
		return fs
	}
	return append(fs,
		Field{p + "retransmit", filter.Bool, dgram, "a resent copy of a reliable message"},
		Field{p + "retransmit_count", filter.Number, dgram, "how many times it was resent so far"},
		Field{p + "first_frame", filter.Number, dgram, "frame of the first send"},
		Field{p + "keepalive", filter.Bool, dgram, "an identical repeat of a type 0x00 message"},
		Field{p + "duplicate", filter.Bool, dgram, "a duplicate delivery"},
		Field{p + "ack", filter.String, dgram, `ACK: what it matched: "matched", "repeat", "mismatch", "cut", "unknown"`},
		Field{p + "acked_frame", filter.Number, dgram, "ACK: frame of the message it acknowledges"},
		Field{p + "rtt_ms", filter.Number, dgram, "ACK: round-trip time in milliseconds"},
	)
}

// payloadFields are the keys of what was decoded of a payload
// (appendPayloadKeys) under prefix.
func payloadFields(prefix, what string) []Field {
	p := prefix + "."
	return []Field{
		{p + "opcode", filter.Number, dgram, what + "game opcode (first payload byte)"},
		{p + "opcode_name", filter.String, dgram, what + "game opcode name: ChecksumReq, StateUpdate, Chat, ..."},
		{p + "fields", filter.Object, dgram, what + "decoded payload fields (bcdump fields lists them)"},
		{p + "payload_hex", filter.String, dgram, what + "payload as hex, where it was not (fully) decoded"},
	}
}

// kindTypes maps the generated kinds to filter types (as appendValue
// writes them).
var kindTypes = map[string]filter.Type{
	"uint": filter.Number, "int": filter.Number, "float": filter.Number, "vec": filter.Number,
	"bool": filter.Bool, "string": filter.String, "bytes": filter.String,
	"hash": filter.Hex, "hex": filter.Hex, "object": filter.Object, "array": filter.Object,
}

// gameFieldType is the filter type of a generated field; ok is false for
// kinds of different types under one name.
func gameFieldType(g gameField) (filter.Type, bool) {
	var t filter.Type
	for _, k := range strings.Split(g.kinds, ",") {
		kt, ok := kindTypes[k]
		if !ok || t != 0 && kt != t {
			return 0, false
		}
		t = kt
	}
	return t, t != 0
}

// Schema is the field schema, a filter.Schema.
type Schema struct {
	fixed map[string]Field
	game  map[string]filter.Type
	names []string
}

var schema = newSchema()

// FieldSchema returns the schema of the JSON records.
func FieldSchema() *Schema { return schema }

func newSchema() *Schema {
	s := &Schema{fixed: map[string]Field{}, game: map[string]filter.Type{}}
	for _, f := range recordFields {
		s.fixed[f.Path] = f
		if !strings.Contains(f.Path, "<") {
			s.names = append(s.names, f.Path)
		}
	}
	for _, g := range gameFields {
		t, ok := gameFieldType(g)
		if !ok {
			continue // TestGameFieldTypes fails on it
		}
		s.game[g.name] = t
		s.names = append(s.names, fieldRoots[0]+"."+g.name)
	}
	sort.Strings(s.names)
	return s
}

// Field returns a path's type (filter.Schema). Under a field root, any
// chain of the decoders' container names may lead to a field name, and
// <name>_name is the label of a field that has one.
func (s *Schema) Field(path string) (filter.Type, bool) {
	if f, ok := s.fixed[path]; ok && !strings.Contains(path, "<") {
		return f.Type, true
	}
	if key, ok := strings.CutPrefix(path, "gamespy."); ok && key != "" {
		return filter.String, true
	}
	for _, root := range fieldRoots {
		rest, ok := strings.CutPrefix(path, root+".")
		if !ok {
			continue
		}
		parts := strings.Split(rest, ".")
		for _, c := range parts[:len(parts)-1] {
			if t, ok := s.game[c]; !ok || t != filter.Object {
				return 0, false
			}
		}
		leaf := parts[len(parts)-1]
		if t, ok := s.game[leaf]; ok {
			return t, true
		}
		if stem, ok := strings.CutSuffix(leaf, "_name"); ok {
			if _, ok := s.game[stem]; ok {
				return filter.String, true
			}
		}
		return 0, false
	}
	return 0, false
}

// Names lists the known paths (filter.Schema), for suggestions.
func (s *Schema) Names() []string { return s.names }

// Flat lists the paths below which a field matches by name at any depth
// (filter.Flattener): the decoders' fields.
func (s *Schema) Flat() []string { return fieldRoots }

// Fields lists every field for `bcdump fields`: the record keys, then the
// decoders' fields under messages.fields.
func (s *Schema) Fields() []Field {
	out := append([]Field(nil), recordFields...)
	for _, g := range gameFields {
		t, _ := gameFieldType(g)
		out = append(out, Field{
			Path:    fieldRoots[0] + "." + g.name,
			Type:    t,
			Records: dgram,
			Meaning: gameFieldMeaning(g),
		})
	}
	out = append(out,
		Field{fieldRoots[0] + ".<key>_name", filter.String, dgram, "label of a field that has one: enum name, resolved hash or object slot"},
		Field{fieldRoots[1] + ".<key>", filter.Object, dgram, "the fields of a reassembled message, as messages.fields.<key>"},
		Field{fieldRoots[2] + ".<key>", filter.Object, dgram, "the fields of a cut message, as messages.fields.<key>"},
	)
	return out
}

// gameFieldMeaning describes a generated field: its kinds and where the
// decoders append it.
func gameFieldMeaning(g gameField) string {
	kinds := strings.ReplaceAll(g.kinds, ",", " or ")
	in := strings.Split(g.in, ",")
	const show = 4
	where := strings.Join(in[:min(len(in), show)], ", ")
	if len(in) > show {
		where += ", +" + strconv.Itoa(len(in)-show) + " more"
	}
	return kinds + " in " + where
}
