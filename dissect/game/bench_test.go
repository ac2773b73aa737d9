package game

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/cipher"
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
// and summarizing it into a reused buffer, allocates nothing. (A malformed
// payload allocates its one *MalformedError.)
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

func benchDecode(b *testing.B, ps [][]byte) {
	var f Fields
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
			if op.Summary != nil {
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
func BenchmarkSession3(b *testing.B) {
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
	benchDecode(b, ps)
}
