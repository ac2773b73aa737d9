package filter

import "testing"

// FuzzCompile: any expression compiles or gives an *Error; never a panic.
// What compiles can be matched against a record.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"frame == 3", "messages.opcode_name in {A B}", `dir matches "(?i)c2s"`, "!(a or b)",
		"frame in {1..2, 3}", `text contains "\x41\u00e9"`, "bc.peer_id", "x ==", "((((",
		"messages.seq != 7 && anomalies.severity == error || not gamespy",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		flt, err := Compile(expr, schema)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			_ = err.Error()
			return
		}
		flt.Match([]byte(twoMsgs))
		flt.Match([]byte(ack))
	})
}

// FuzzMatch: any bytes as a record give an answer, never a panic or hang.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{connect, twoMsgs, ack, spy, big, "{", `{"a":[`, `{"messages":[{"seq":1}]}`} {
		f.Add([]byte(s))
	}
	flt, err := Compile(`frame == 3 or messages.seq in {1..5} or messages.fields.directory contains "s" or gamespy or anomalies.message matches "q"`, schema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		flt.Match(rec)
	})
}
