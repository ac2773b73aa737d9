package decodergen

import (
	"bytes"
	"os"
	"testing"
)

// TestDecodersGenerated: dissect/game/decoders_gen.go is what the generator
// makes of the layout table now.
func TestDecodersGenerated(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../decoders_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("decoders_gen.go is stale: the layouts changed; run go generate ./dissect/game")
	}
}
