package record

import "testing"

// session3Records returns the datagrams of openbc-session-3 as records,
// one record each, and the bytes of their JSON lines.
func session3Records(t testing.TB) ([]Datagram, int) {
	lines := session3Lines(t)
	recs := make([]Datagram, len(lines))
	var dec Decoder
	size := 0
	for i, l := range lines {
		if err := dec.Decode(l, &recs[i]); err != nil {
			t.Fatal(err)
		}
		size += len(l)
	}
	return recs, size
}

// TestAppendJSONAllocs: writing a record into a buffer large enough
// allocates nothing.
func TestAppendJSONAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts: not under the race detector, which allocates")
	}
	recs, size := session3Records(t)
	out := make([]byte, 0, size)
	if a := testing.AllocsPerRun(2, func() {
		out = out[:0]
		for i := range recs {
			out = recs[i].AppendJSON(out)
		}
	}); a > 0 {
		t.Errorf("%.0f allocations writing %d records", a, len(recs))
	}
}

// BenchmarkAppendJSON: records written as JSON lines.
func BenchmarkAppendJSON(b *testing.B) {
	recs, size := session3Records(b)
	out := make([]byte, 0, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		out = out[:0]
		for i := range recs {
			out = recs[i].AppendJSON(out)
		}
	}
}
