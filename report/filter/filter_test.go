package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// testSchema is a map from path to type; keys under an entry ending in .*
// (messages.fields.*) are strings unless listed.
type testSchema map[string]Type

func (s testSchema) Field(path string) (Type, bool) {
	if t, ok := s[path]; ok {
		return t, true
	}
	for k, t := range s {
		if strings.HasSuffix(k, ".*") && strings.HasPrefix(path, k[:len(k)-1]) {
			return t, true
		}
	}
	return 0, false
}

func (s testSchema) Names() []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var schema = testSchema{
	"frame": Number, "time": String, "src": String, "dst": String, "dir": String,
	"kind": String, "len": Number, "peer_id": Number, "msg_count": Number, "text": String,
	"gamespy": Object, "gamespy.*": String,
	"messages": Object, "messages.type": Number, "messages.type_name": String,
	"messages.seq": Number, "messages.reliable": Bool, "messages.opcode": Number,
	"messages.opcode_name": String, "messages.rtt_ms": Number, "messages.retransmit": Bool,
	"messages.fields": Object, "messages.fields.round": Number, "messages.fields.peer_id": Number,
	"messages.fields.hash": Number, "messages.fields.files": Object, "messages.fields.files.name_hash": Hex, "messages.fields.*": String,
	"anomalies": Object, "anomalies.code": String, "anomalies.severity": String,
	"anomalies.message": String,
}

const (
	connect = `{"frame":3,"src":"192.168.1.20:2655","dst":"192.168.1.10:22101","dir":"c2s","kind":"game","len":17,"peer_id":255,"msg_count":1,"messages":[{"type":3,"type_name":"Connect","reliable":true,"seq":0,"fields":{"role":"request","ip":"10.10.10.239"}}]}`
	twoMsgs = `{"frame":4,"dir":"s2c","kind":"game","peer_id":1,"msg_count":2,"messages":[{"type":3,"type_name":"Connect","reliable":true,"seq":0,"fields":{"role":"assign","peer_id":2}},{"type":50,"type_name":"Data","reliable":true,"seq":7,"opcode":32,"opcode_name":"ChecksumReq","fields":{"round":0,"directory":"scripts/","recursive":false}}]}`
	ack     = `{"frame":5,"dir":"c2s","kind":"game","messages":[{"type":1,"type_name":"ACK","seq":0,"rtt_ms":15.000}],"anomalies":[{"code":"ack-unknown","severity":"note","message":"ACK for \"seq\" 0\u00e9 \\ x"}]}`
	spy     = `{"frame":2,"dir":"s2c","kind":"gamespy","len":243,"text":"\\gamename\\bcommander","gamespy":{"hostname":"Sample Host","numplayers":"0"}}`
	hashes  = `{"frame":10,"kind":"game","messages":[{"type":50,"opcode":33,"fields":{"files":[{"name_hash":"0x7E0CE243"},{"name_hash":"0x000000FF"}]}}]}`
	big     = `{"frame":9,"kind":"game","messages":[{"type":50,"opcode":33,"fields":{"hash":18446744073709551615,"nested":{"a":[1,{"b":2}]}}}]}`
)

func TestMatch(t *testing.T) {
	tests := []struct {
		expr string
		rec  string
		want bool
	}{
		// presence
		{"peer_id", connect, true},
		{"peer_id", spy, false},
		{"bc.peer_id", connect, true},
		{"gamespy", spy, true},
		{"anomalies", ack, true},
		{"anomalies", connect, false},
		{"messages.opcode", twoMsgs, true},
		{"messages.opcode", connect, false},
		// numbers, every operator and its keyword form
		{"frame == 3", connect, true},
		{"frame eq 3", connect, true},
		{"frame == 0x3", connect, true},
		{"frame != 3", connect, false},
		{"frame ne 4", connect, true},
		{"frame < 4", connect, true},
		{"frame lt 3", connect, false},
		{"frame <= 3", connect, true},
		{"frame le 2", connect, false},
		{"frame > 2", connect, true},
		{"frame gt 3", connect, false},
		{"frame >= 3", connect, true},
		{"frame ge 4", connect, false},
		{"messages.rtt_ms > 14.5", ack, true},
		{"messages.rtt_ms == 15", ack, true},
		{"messages.rtt_ms < 15", ack, false},
		{"peer_id > -1", connect, true},
		{"messages.fields.hash == 0xFFFFFFFFFFFFFFFF", big, true},
		{"messages.fields.hash == 18446744073709551614", big, false},
		// hex text fields compare as numbers, case-insensitively
		{"messages.fields.files.name_hash == 0x7e0ce243", hashes, true},
		{"messages.fields.files.name_hash == 0x7E0CE243", hashes, true},
		{`messages.fields.files.name_hash == "0x7e0ce243"`, hashes, true},
		{"messages.fields.files.name_hash == 255", hashes, true},
		{"messages.fields.files.name_hash == 0x7e0ce244", hashes, false},
		{"messages.fields.files.name_hash > 0x7E000000", hashes, true},
		{"messages.fields.files.name_hash < 0xFF", hashes, false},
		{"messages.fields.files.name_hash in {0x1..0x100}", hashes, true},
		{"messages.fields.files.name_hash in {0x1 0x2}", hashes, false},
		{"messages.fields.files.name_hash != 0xFF", hashes, false}, // one element is 0xFF
		{"messages.fields.files.name_hash != 0x1", hashes, true},
		{"messages.fields.files.name_hash contains 7e0c", hashes, true},
		{`messages.fields.files.name_hash matches "^0x7E"`, hashes, true},
		{"messages.fields.files.name_hash == 1", big, false},
		// any-element semantics through arrays
		{"messages.type_name == Data", twoMsgs, true},
		{"messages.type_name == Connect", twoMsgs, true},
		{"messages.seq == 7", twoMsgs, true},
		{"messages.seq != 7", twoMsgs, false}, // present and no element equal
		{"messages.seq != 8", twoMsgs, true},
		{"!(messages.seq == 7)", twoMsgs, false},
		{"messages.type_name == Data and messages.type_name == Connect", twoMsgs, true},
		{"messages.fields.peer_id == 2", twoMsgs, true},
		{"peer_id == 2", twoMsgs, false}, // top-level peer_id is 1
		// a relation on a missing field is false, != included
		{"peer_id != 3", spy, false},
		{"not peer_id == 3", spy, true},
		{"messages.opcode != 5", connect, false},
		// strings
		{`dir == "c2s"`, connect, true},
		{"dir == c2s", connect, true},
		{"dir != c2s", connect, false},
		{"src == 192.168.1.20:2655", connect, true},
		{`src contains ":2655"`, connect, true},
		{"src contains 22101", connect, false},
		{`messages.opcode_name matches "^Checksum"`, twoMsgs, true},
		{`messages.opcode_name matches "^checksum"`, twoMsgs, false},
		{`messages.opcode_name matches "(?i)^checksum"`, twoMsgs, true},
		{"messages.fields.directory == scripts/", twoMsgs, true},
		{`gamespy.hostname contains "Sample"`, spy, true},
		{`text contains "\\gamename"`, spy, true},
		{`anomalies.message contains "\"seq\" 0é \\"`, ack, true},
		{"dir > c2r", connect, true},
		{"anomalies.code == ack-unknown", ack, true},
		// booleans
		{"messages.reliable == true", connect, true},
		{"messages.reliable == 1", connect, true},
		{"messages.reliable == false", connect, false},
		{"messages.reliable != true", connect, false},
		{"messages.reliable", ack, false},
		// in: sets and ranges
		{"frame in {1 2 3}", connect, true},
		{"frame in {1, 2}", connect, false},
		{"frame in {1..2 3..9}", connect, true},
		{"frame in {4..9}", connect, false},
		{"messages.opcode_name in {ChecksumReq ChecksumResp}", twoMsgs, true},
		{`dir in {"s2c"}`, connect, false},
		{"messages.reliable in {true}", connect, true},
		// boolean structure and precedence
		{"frame == 3 and dir == c2s", connect, true},
		{"frame == 3 && dir == s2c", connect, false},
		{"frame == 9 or dir == c2s", connect, true},
		{"frame == 9 || dir == s2c", connect, false},
		{"not frame == 3", connect, false},
		{"!frame == 4", connect, true},
		{"frame == 9 or frame == 3 and dir == s2c", connect, false}, // and binds tighter
		{"(frame == 9 or frame == 3) and dir == c2s", connect, true},
		{"not not frame", connect, true},
		// values inside nested objects skipped or read
		{"messages.fields.round == 0", twoMsgs, true},
		{"messages.fields.recursive", twoMsgs, true},
	}
	for _, tc := range tests {
		f, err := Compile(tc.expr, schema)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.expr, err)
			continue
		}
		if got := f.Match([]byte(tc.rec)); got != tc.want {
			t.Errorf("%q on %.40s...: got %v, want %v", tc.expr, tc.rec, got, tc.want)
		}
		// A filter is reusable: a second match gives the same answer.
		if got := f.Match([]byte(tc.rec)); got != tc.want {
			t.Errorf("%q second Match: got %v", tc.expr, got)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		expr string
		pos  int
		msg  string // substring of Msg
		hint string // substring of Hint
	}{
		{"", 0, "empty filter", ""},
		{"   ", 3, "empty filter", ""},
		{"mesages.opcode == 1", 0, `unknown field 'mesages.opcode'`, "did you mean messages.opcode"},
		{"opcode_name == X", 0, "unknown field", "messages.opcode_name"},
		{"zzzzzz", 0, "unknown field", "bcdump fields"},
		{"peer_id contains 3", 8, "type mismatch: peer_id is a number", "contains and matches need a string"},
		{"peer_id matches x", 8, "type mismatch", ""},
		{"frame == abc", 9, "frame is a number; 'abc' is not", ""},
		{`frame == "3"`, 9, "is a number, not a string", ""},
		{"messages.reliable > true", 18, "is a boolean", ""},
		{"messages.reliable == yes", 21, "is a boolean", "true or false"},
		{"messages == 1", 9, "messages is a object", "presence"},
		{"frame = 3", 6, "'=' is not an operator", "=="},
		{"frame == ", 9, "expected a value", ""},
		{"frame ==", 8, "expected a value", ""},
		{"(frame == 3", 11, "expected ')'", "not closed"},
		{"frame == 3)", 10, "unexpected ')'", ""},
		{"frame == 3 dir", 11, "unexpected 'dir'", "and, or"},
		{"3 == frame", 0, "a field name must come first", ""},
		{"and frame", 0, "unexpected 'and'", ""},
		{"frame ==", 8, "expected a value", ""},
		{`dir == "c2s`, 7, "string not closed", ""},
		{`dir == "a\q"`, 9, "bad escape", ""},
		{"frame in 3", 9, "expected '{'", ""},
		{"messages.fields.files.name_hash == foo", 35, "is a hex number", "0x7E0CE243"},
		{"frame in {}", 10, "empty set", ""},
		{"frame in {1 2", 13, "expected a value or '}'", ""},
		{"dir in {a..b}", 9, "a range needs a number", ""},
		{"frame in {1..}", 13, "end of the range", ""},
		{`dir matches "("`, 12, "bad regular expression", "RE2"},
		{"frame == 3 or", 13, "ends too early", ""},
		{"frame # 3", 6, "unexpected character '#'", ""},
		{"not", 3, "ends too early", ""},
	}
	for _, tc := range tests {
		_, err := Compile(tc.expr, schema)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("Compile(%q) = %v, want *Error", tc.expr, err)
			continue
		}
		if fe.Pos != tc.pos || !strings.Contains(fe.Msg, tc.msg) || !strings.Contains(fe.Hint, tc.hint) {
			t.Errorf("Compile(%q):\n%v\n(pos %d), want pos %d, msg ~%q, hint ~%q", tc.expr, err, fe.Pos, tc.pos, tc.msg, tc.hint)
		}
	}
}

// The error text shows the expression with a caret under the fault.
func TestErrorText(t *testing.T) {
	_, err := Compile("dir == c2s and peer_id contains 3", schema)
	want := "filter: type mismatch: peer_id is a number; contains does not apply\n" +
		"  dir == c2s and peer_id contains 3\n" +
		"                         ^^^^^^^^\n" +
		"  contains and matches need a string field"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// Malformed or hostile JSON never panics and matches nothing it cannot
// read.
func TestMatchBadJSON(t *testing.T) {
	f, err := Compile("frame == 3 or messages.seq == 1 or gamespy", schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []string{
		"", "{", "[]", `{"frame"`, `{"frame":}`, `{"frame":3`, `{"frame":"3"}`, `{"frame":nul}`,
		`{"messages":[{"seq":1}`, `{"messages":[{"seq":"1"}]}`, `{"x":[[[[{"y":"}"}]]]],"frame":4}`,
		strings.Repeat(`{"messages":[`, 200), `{"frame":1e999}`, `{"frame":-}`,
	} {
		if f.Match([]byte(rec)) {
			t.Errorf("%q matched", rec)
		}
	}
	deep := `{"messages":` + strings.Repeat("[", 100) + `{"seq":1}` + strings.Repeat("]", 100) + `}`
	_ = f.Match([]byte(deep)) // deeper than maxDepth: skipped, no panic
}

// Records that only a later key makes true are matched after skipping
// unrelated values of every kind.
func TestMatchSkips(t *testing.T) {
	f, err := Compile("frame == 3", schema)
	if err != nil {
		t.Fatal(err)
	}
	rec := `{"a":{"b":[1,"x\"]}",{"c":null}]},"d":true,"e":-1.5e3,"f":"\\","frame":3}`
	if !f.Match([]byte(rec)) {
		t.Error("no match")
	}
}

// The filter reads the JSON bcdump writes for a real capture: on every
// record of the sample golden it agrees with the same predicate written by
// hand over encoding/json's decode.
func TestMatchGolden(t *testing.T) {
	data, err := os.ReadFile("../../testdata/golden/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Frame    *int   `json:"frame"`
		Kind     string `json:"kind"`
		Messages []struct {
			TypeName   string `json:"type_name"`
			OpcodeName string `json:"opcode_name"`
			Seq        *int   `json:"seq"`
		} `json:"messages"`
	}
	anyMsg := func(r rec, f func(name, opcode string, seq *int) bool) bool {
		for _, m := range r.Messages {
			if f(m.TypeName, m.OpcodeName, m.Seq) {
				return true
			}
		}
		return false
	}
	cases := []struct {
		expr string
		hand func(r rec) bool
	}{
		{"kind == gamespy", func(r rec) bool { return r.Kind == "gamespy" }},
		{"kind == game", func(r rec) bool { return r.Kind == "game" }},
		{"messages.type_name == ACK", func(r rec) bool {
			return anyMsg(r, func(n, _ string, _ *int) bool { return n == "ACK" })
		}},
		{`messages.opcode_name matches "^Checksum"`, func(r rec) bool {
			return anyMsg(r, func(_, o string, _ *int) bool { return strings.HasPrefix(o, "Checksum") })
		}},
		{"messages.seq != 1", func(r rec) bool {
			seen := anyMsg(r, func(_, _ string, s *int) bool { return s != nil })
			return seen && !anyMsg(r, func(_, _ string, s *int) bool { return s != nil && *s == 1 })
		}},
		{"frame", func(r rec) bool { return r.Frame != nil }},
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	for _, tc := range cases {
		f, err := Compile(tc.expr, schema)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, line := range lines {
			var r rec
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
			got, want := f.Match(line), tc.hand(r)
			if got != want {
				t.Errorf("%q on %.60s: got %v, hand %v", tc.expr, line, got, want)
			}
			if got {
				matched++
			}
		}
		if matched == 0 {
			t.Errorf("%q matched no record", tc.expr)
		}
	}
}

func TestMatchAllocs(t *testing.T) {
	f, err := Compile(`messages.opcode_name == ChecksumReq and messages.fields.directory contains "scripts" or anomalies.message contains "seq"`, schema)
	if err != nil {
		t.Fatal(err)
	}
	recs := [][]byte{[]byte(connect), []byte(twoMsgs), []byte(ack), []byte(spy)}
	for _, r := range recs {
		f.Match(r)
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, r := range recs {
			f.Match(r)
		}
	}); n != 0 {
		t.Errorf("Match allocates %.1f times per run", n)
	}
}

func BenchmarkMatch(b *testing.B) {
	f, err := Compile("messages.opcode_name == ChecksumReq or anomalies.severity == error", schema)
	if err != nil {
		b.Fatal(err)
	}
	rec := []byte(twoMsgs)
	b.ReportAllocs()
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		f.Match(rec)
	}
}

// flatSchema is schema with messages.fields flat (a Flattener).
type flatSchema struct{ testSchema }

func (flatSchema) Flat() []string { return []string{"messages.fields"} }

func TestFlatFields(t *testing.T) {
	s := flatSchema{schema}
	s.testSchema = testSchema{}
	for k, v := range schema {
		s.testSchema[k] = v
	}
	s.testSchema["messages.fields.name_hash"] = Hex
	s.testSchema["messages.fields.b"] = Number
	tests := []struct {
		expr string
		rec  string
		want bool
	}{
		{"messages.fields.name_hash == 0x7E0CE243", hashes, true},       // found in files[]
		{"messages.fields.files.name_hash == 0x7E0CE243", hashes, true}, // the exact path works too
		{"messages.fields.name_hash == 0x1", hashes, false},
		{"messages.fields.b == 2", big, true}, // nested.a[].b
		{"messages.fields.b", big, true},
		{"messages.fields.b == 3", big, false},
		{"messages.fields.round == 0", twoMsgs, true}, // top level as before
		{"messages.fields.name_hash", twoMsgs, false},
		{"messages.fields.b == 2 and frame == 9", big, true},
		{"not messages.fields.b", big, false},
	}
	for _, tc := range tests {
		f, err := Compile(tc.expr, s)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.expr, err)
			continue
		}
		for range 2 {
			if got := f.Match([]byte(tc.rec)); got != tc.want {
				t.Errorf("%q on %.40s...: got %v, want %v", tc.expr, tc.rec, got, tc.want)
			}
		}
	}
	// Without the Flattener, only the exact path matches.
	f, err := Compile("messages.fields.name_hash == 0x7E0CE243", s.testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if f.Match([]byte(hashes)) {
		t.Error("a nested field matched its flat name without a Flattener")
	}
}

func TestClosest(t *testing.T) {
	names := []string{"Chat", "ChecksumReq", "TeamChat", "Explosion"}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"Chta", []string{"Chat"}},
		{"chat", []string{"Chat"}},
		{"Explosoin", []string{"Explosion"}},
		{"zzzzzz", nil},
	} {
		if got := Closest(tc.word, names); !slices.Equal(got, tc.want) {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// valuedSchema is testSchema with closed value sets (Valuer).
type valuedSchema struct {
	testSchema
	values map[string][]string
}

func (s valuedSchema) Values(path string) []string { return s.values[path] }

// A value a field with known values never has is refused, with the
// nearest; other operators and fields are left alone.
func TestCompileClosedValues(t *testing.T) {
	s := valuedSchema{testSchema{"opcode_name": String, "dir": String, "text": String}, map[string][]string{
		"opcode_name": {"Chat", "TeamChat", "Explosion"}, "dir": {"c2s", "s2c"}}}
	for _, tc := range []struct{ expr, hint string }{
		{"opcode_name == Chta", "did you mean Chat?"},
		{"opcode_name != chat", "did you mean Chat?"},
		{`opcode_name in {Chat Explosoin}`, "did you mean Explosion?"},
		{`dir == "up"`, "the values are c2s, s2c"},
	} {
		_, err := Compile(tc.expr, s)
		var fe *Error
		if !errors.As(err, &fe) || fe.Hint != tc.hint || !strings.Contains(fe.Msg, "never has the value") {
			t.Errorf("%s: %v", tc.expr, err)
		}
	}
	for _, expr := range []string{"opcode_name == Chat", `opcode_name contains "Cht"`, `opcode_name matches "^Ch"`, `text == "Chta"`, `dir in {c2s s2c}`} {
		if _, err := Compile(expr, s); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}
