package diff

import (
	"os"
	"path/filepath"
	"testing"
)

// benchInput is openbc-session-3, a realistic mix.
func benchInput(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join(captures, "openbc-session-3.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkLoadCapture(b *testing.B) {
	data := benchInput(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := loadBytes("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadJSON(b *testing.B) {
	data := traceOf(b, benchInput(b))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := loadBytes("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	data := benchInput(b)
	c := load(b, "bench", data)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if res := Compare(c, c, Options{Context: 3}); !res.Equal() {
			b.Fatal("differs from itself")
		}
	}
}
