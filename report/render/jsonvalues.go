package render

import (
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
)

// The JSON writer's records and value texts, for the filter evaluator
// (report/query), which feeds a filter the values a record would show
// without rendering it, and so must write each value as the writer does.

// AppendEventJSON appends an event as the summary record lists it.
func AppendEventJSON(b []byte, e *dissect.Event) []byte { return appendEventJSON(b, e) }

// AppendEventRecord appends an event's own record, {"kind":"event",...}
// (JSON.Events), without file key or newline.
func AppendEventRecord(b []byte, e *dissect.Event) []byte {
	first := true
	b = append(b, '{')
	b = appendKey(b, &first, "kind")
	b = appendStr(b, "event")
	b = appendEventKeys(b, &first, e)
	return append(b, '}')
}

// AppendFileKey adds "file": name to a rendered record, as JSON.StartFile
// makes the writer do ("" adds nothing).
func AppendFileKey(rec []byte, name string) []byte {
	j := JSON{file: name}
	return j.appendFileKey(rec)
}

// AppendJSONBytes appends s as a JSON string: as it is when valid UTF-8,
// else with each stray byte taken as Latin-1.
func AppendJSONBytes(b, s []byte) []byte { return appendString(b, s) }

// AppendTimeJSON appends a capture time as the "time" key shows it
// (TimeLayout), unquoted.
func AppendTimeJSON(b []byte, t time.Time) []byte { return appendTimeUTC(b, t) }

// AppendEpochJSON appends a capture time as the "ts" key shows it.
func AppendEpochJSON(b []byte, t time.Time) []byte { return appendEpoch(b, t) }

// AppendHexJSON appends p as the quoted hex string the writer shows for
// payloads.
func AppendHexJSON(b, p []byte) []byte { return appendHexBytes(b, p) }

// AppendValueJSON appends a decoded field's value as the writer shows it.
func AppendValueJSON(b []byte, f *game.Field) []byte { return appendValue(b, f, nil) }

// AppendFloatJSON appends a float as the writer shows it: its shortest
// float32 text, or null.
func AppendFloatJSON(b []byte, f float64) []byte { return appendFloat(b, f, nil) }
