package fieldgen

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
)

const opcodesMD = "../../../cmd/bcdump/helptopics/opcodes.md"

// TestOpcodesMarkdown: the committed field reference is what the
// generator makes of the layouts now (go generate ./report/internal/fieldgen
// rewrites it).
func TestOpcodesMarkdown(t *testing.T) {
	got, err := os.ReadFile(opcodesMD)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, OpcodesMarkdown()) {
		t.Fatal("opcodes.md is stale: the layouts changed; run go generate ./report/internal/fieldgen")
	}
}

// TestOpcodesMarkdownListsEveryField: every field name of the schema
// appears as a key in the reference.
func TestOpcodesMarkdownListsEveryField(t *testing.T) {
	md := string(OpcodesMarkdown())
	if !strings.HasPrefix(md, "# ") {
		t.Error("a help topic starts with its # title")
	}
	for _, f := range dissect.Fields() {
		if !strings.Contains(md, "`"+f.Name+"`") && !strings.Contains(md, "."+f.Name+"`") {
			t.Errorf("field %q is not in the reference", f.Name)
		}
	}
}
