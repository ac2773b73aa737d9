package columnar

import (
	"bytes"
	"os"
	"testing"

	"github.com/bcdump/bcdump/report/internal/fieldgen"
)

// TestFieldsGenerated: the committed fields struct is what the generator
// makes of the layouts now (go generate ./report/columnar rewrites it).
func TestFieldsGenerated(t *testing.T) {
	got, err := os.ReadFile("fields_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	want, err := fieldgen.GenerateParquet()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("fields_gen.go is stale: the layouts changed; run go generate ./report/columnar")
	}
}
