package game

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// cleanExamples returns the captured examples that decode without error.
func cleanExamples(t testing.TB) [][]byte {
	var f Fields
	var out [][]byte
	for _, h := range capturedExamples {
		p := mustHex(t, h)
		if _, err := Decode(p, &f); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// TestDecodeNoAllocs: decoding a well-formed payload into a reused Fields,
// and summarizing it into a reused buffer, allocates nothing. (See
// TestMalformedNoAllocs for malformed payloads.)
func TestDecodeNoAllocs(t *testing.T) {
	ps := cleanExamples(t)
	if len(ps) < 15 {
		t.Fatalf("only %d clean examples", len(ps))
	}
	var f Fields
	dst := make([]byte, 0, 256)
	for _, p := range ps {
		n := testing.AllocsPerRun(50, func() {
			op, _ := Decode(p, &f)
			dst = op.Summary(dst[:0], p, &f)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per decode+summary, want 0", Lookup(p[0]).Name, n)
		}
	}
}

// TestMalformedNoAllocs: a malformed payload decoded into a reused Fields
// allocates nothing either, its error and anomaly text included; the words
// are built only when asked for, and read as they always did.
func TestMalformedNoAllocs(t *testing.T) {
	clean := cleanExamples(t)
	tests := []struct {
		name string
		p    []byte
		want string // the reason, when the case pins it
	}{
		{"extra byte", append(append([]byte(nil), clean[0]...), 0xAA), "1 extra byte after the layout"},
		{"object id cut", []byte{0x14, 1, 2}, "object: object id needs 4 bytes, 2 left"},
		{"unknown class", []byte{0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, ""},
	}
	for i, p := range clean {
		if len(p) > 2 {
			tests = append(tests, struct {
				name string
				p    []byte
				want string
			}{Lookup(p[0]).Name + " cut " + string(rune('a'+i%26)), p[:len(p)/2], ""})
		}
	}
	var f Fields
	for _, tt := range tests {
		var err error
		n := testing.AllocsPerRun(20, func() {
			_, err = Decode(tt.p, &f)
		})
		me, ok := err.(*MalformedError)
		if !ok {
			t.Errorf("%s: error %v, want a *MalformedError", tt.name, err)
			continue
		}
		if n != 0 {
			t.Errorf("%s: %v allocations per malformed decode, want 0", tt.name, n)
		}
		op := Lookup(tt.p[0]).Name
		var txt anomaly.Text
		n = testing.AllocsPerRun(20, func() { txt = me.Text(op, false) })
		if n != 0 {
			t.Errorf("%s: %v allocations per anomaly text, want 0", tt.name, n)
		}
		if tt.want != "" && me.Reason() != tt.want {
			t.Errorf("%s: reason %q, want %q", tt.name, me.Reason(), tt.want)
		}
		if got, want := me.Error(), "payload malformed at offset "+strconv.Itoa(me.Off)+": "+me.Reason(); got != want {
			t.Errorf("%s: Error %q, want %q", tt.name, got, want)
		}
		if got, want := txt.String(), op+": "+me.Reason(); got != want {
			t.Errorf("%s: text %q, want %q", tt.name, got, want)
		}
		if got, want := me.Text(op, true).String(), op+": "+me.Reason()+" (in the reassembled payload at offset "+strconv.Itoa(me.Off)+")"; got != want {
			t.Errorf("%s: reassembled text %q, want %q", tt.name, got, want)
		}
	}
}

func benchDecode(b *testing.B, ps [][]byte) { benchDecodeHow(b, ps, true, false) }

// benchDecodeHow decodes ps, summarizing each (summary) or not, keeping
// the fields or dropping them (Fields.Drop, as for a counting sink).
func benchDecodeHow(b *testing.B, ps [][]byte, summary, drop bool) {
	var f Fields
	f.Drop(drop)
	dst := make([]byte, 0, 256)
	total := 0
	for _, p := range ps {
		total += len(p)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range ps {
			op, _ := Decode(p, &f)
			if summary && op.Summary != nil {
				dst = op.Summary(dst[:0], p, &f)
			}
		}
	}
}

// BenchmarkStateUpdate decodes and summarizes the captured 0x9D StateUpdate.
func BenchmarkStateUpdate(b *testing.B) {
	benchDecode(b, [][]byte{mustHex(b, capturedExamples[9])})
}

// BenchmarkMixed decodes the clean captured examples, one of each shape.
func BenchmarkMixed(b *testing.B) { benchDecode(b, cleanExamples(b)) }

// BenchmarkSession3 decodes every unfragmented payload of the OpenBC battle
// capture (97% StateUpdate, some OpenBC shapes that are flagged malformed).
func BenchmarkSession3(b *testing.B) { benchDecode(b, session3Payloads(b)) }

// BenchmarkSession3Decode is BenchmarkSession3 without the summaries: what
// every reporter's decoding costs.
func BenchmarkSession3Decode(b *testing.B) { benchDecodeHow(b, session3Payloads(b), false, false) }

// BenchmarkSession3Drop decodes without keeping fields: what bcdump stats
// pays (dissect.FieldBlind).
func BenchmarkSession3Drop(b *testing.B) { benchDecodeHow(b, session3Payloads(b), false, true) }

func session3Payloads(b testing.TB) [][]byte {
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	udp, err := pcapUDPPayloads(raw, 22101)
	if err != nil {
		b.Fatal(err)
	}
	var ps [][]byte
	for _, d := range udp {
		if len(d) > 0 && d[0] != '\\' {
			cipher.Decrypt(d)
			ps = append(ps, dataPayloads(d)...)
		}
	}
	return ps
}
