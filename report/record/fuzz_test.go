package record

import (
	"bytes"
	"testing"
)

// FuzzDecode: a hostile trace line is an error or a record, never a panic
// or a hang; a record it gives writes JSON that decodes to the same JSON.
func FuzzDecode(f *testing.F) {
	for i, l := range session3Lines(f) {
		if i%97 == 0 {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"kind":"event","code":"tracking-limit","severity":"note","message":"x","frame":3,"client":"1.2.3.4:5","server":"[::1]:22101"}`))
	f.Add([]byte(`{"kind":"summary","anomalies":[{"code":"x","severity":"warn","message":"\ud83d\ude00\u0085","frame":1}]}`))
	f.Add([]byte(`{"frame":1,"time":"2026-01-01T00:00:00Z","src":"1.2.3.4:5","dst":"1.2.3.4:22101","dir":"c2s","kind":"gamespy","text":"\\a\\b","gamespy":{"a":"b"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var (
			dec Decoder
			r   Datagram
		)
		if err := dec.Decode(line, &r); err != nil {
			return
		}
		a := r.AppendJSON(nil)
		var r2 Datagram
		if err := dec.Decode(a, &r2); err != nil {
			t.Fatalf("the record's own JSON does not decode: %v\n%s", err, a)
		}
		if b := r2.AppendJSON(nil); !bytes.Equal(a, b) {
			t.Fatalf("not stable:\n%s\n%s", a, b)
		}
	})
}
