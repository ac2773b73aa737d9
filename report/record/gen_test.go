package record

import (
	"bytes"
	"os"
	"testing"

	"github.com/bcdump/bcdump/report/internal/recordgen"
)

// TestRecordGenerated: the committed record_gen.go is what the generator
// makes of the key table now (go generate ./report/record rewrites it).
func TestRecordGenerated(t *testing.T) {
	want, err := recordgen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("record_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("record_gen.go is stale: the key table (report/jsonkeys) changed; run go generate ./report/record")
	}
}
