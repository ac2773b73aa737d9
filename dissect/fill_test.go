package dissect

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/dissect/capture"
)

// BenchmarkFill is the pipeline's in-order read step alone: session 3 read
// into batches (capture framing and the copy of each payload).
func BenchmarkFill(b *testing.B) {
	path := filepath.Join("..", "testdata", "captures", "openbc-session-3.pcap")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	bt := &batch{}
	for b.Loop() {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if err := fill(r, bt); err == io.EOF {
				break
			} else if err != nil && err != capture.ErrNoPacket {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}
