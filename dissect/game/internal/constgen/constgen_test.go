package constgen

import (
	"bytes"
	"os"
	"testing"
)

// TestConstantsGenerated: dissect/game/protocol_gen.go is what the
// generator makes of the tables now.
func TestConstantsGenerated(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../protocol_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("protocol_gen.go is stale: the tables changed; run go generate ./dissect/game")
	}
}
