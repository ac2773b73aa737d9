// Package record is the typed form of the records `bcdump read -F json`
// prints: a datagram (game or GameSpy) with its transport messages, their
// decoded payloads, delivery tracking (retransmits, ACKs with the acked
// frame and RTT) and anomalies, and the event and summary records.
//
// It is for the consumers that need a decoded datagram as values rather
// than as text: diff (both sides of a comparison, a capture or a saved
// JSON trace) and the Parquet writer (report/columnar). There are exactly
// two ways to get a record:
//
//   - (*Converter).Datagram turns a dissect.Datagram into a record: the
//     one hand-written conversion from the dissector's structures;
//   - (*Decoder).Decode reads one line of a JSON trace (bcdump's own
//     `read -F json` output) into a record, without encoding/json.
//
// Both fill a record the caller owns and reuses: after the first few
// datagrams neither allocates (the record's slices and its byte arena keep
// their capacity), so a consumer streams a capture through one record.
// Byte slices in a record (texts, payloads, field values) point into the
// record's arena and are valid until the record is filled again.
//
// A record holds what the JSON shows and nothing else, so a capture and
// its saved trace give equal records (TestDecodeEqualsConvert), and
// (*Datagram).AppendJSON writes the record back byte for byte as the JSON
// writer of report/render does (TestAppendJSONIsTheWriter, on every test
// capture). The JSON writer itself stays a hand-written encoder straight
// from dissect.Datagram, for speed: it does not build records.
//
// The record's shape is the key table's (report/jsonkeys): its struct
// types (Datagram, KV, Message, Track, Payload, Reasm, Cut, Anomaly) are
// generated from the table's Structs into record_gen.go, one field per
// key with the Go name and type the table gives it, its key path in a
// `key` tag, and a Has flag before it where the table names one
// (report/internal/recordgen writes the file; go generate runs it, and
// TestRecordGenerated fails while the committed file is stale). What the
// table cannot say is written by hand beside it: the enums (Kind, Dir),
// the field tokens (Field), the methods and the storage reuse (record.go),
// the conversion (convert.go), the JSON writer (json.go) and the trace
// reader (decode.go). Tests check the tags against the flat table both
// ways (every datagram key of the table has a field, every tag is a table
// path of the table's type), and that no consumer under report/ writes a
// JSON key the table lacks (TestConsumersNameOnlyTableKeys).
//
// To add a key: add its row to the table (report/jsonkeys/keys.go, in
// the Struct whose object holds it: Path, type, records, meaning, when it
// is there, and Go: the field's name and type, its Has flag if its zero
// value cannot say it is absent), run go generate ./report/..., then
// write it in the converter, the JSON writers (report/render and
// json.go) and the decoder; the tests above say what is missing.
//
// Decoded payload fields are kept as the JSON shows them: a flat token
// stream (Field), objects and arrays opened and closed by tokens, each
// scalar with its JSON kind and text, a field's "<key>_name" label as a
// token of its own. Consumers that want them typed by the layout table
// look the name up there (report/columnar does).
//
// It imports dissect, dissect/game, transport, report/jsonkeys and
// report/render (whose value encoders write each value, so both writers
// agree on every number and string).
package record

//go:generate go run ../internal/recordgen/cmd/genrecord -o record_gen.go
