package story

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/query"
)

// TestFieldNames: every decoded field the story looks up by name
// (intField(fs, "kills"), fs.Get("name"), ...) is a field the decoders
// append, by the field schema; a renamed field fails here, not by a
// story that silently loses it.
func TestFieldNames(t *testing.T) {
	lookups := map[string]int{"intField": 1, "uintField": 1, "strField": 1, "noteField": 1, "mustInt": 1, "limit": 1, "Get": 0}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch x := call.Fun.(type) {
			case *ast.Ident:
				fn = x.Name
			case *ast.SelectorExpr:
				fn = x.Sel.Name
			}
			arg, ok := lookups[fn]
			if !ok || len(call.Args) <= arg {
				return true
			}
			lit, ok := call.Args[arg].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			field, _ := strconv.Unquote(lit.Value)
			n++
			if _, ok := query.FieldSchema().Field("messages.fields." + field); !ok {
				t.Errorf("%s: looks up field %q, which no decoder appends", fset.Position(lit.Pos()), field)
			}
			return true
		})
	}
	if n < 30 {
		t.Errorf("found %d lookups: the test misses how the story reads fields", n)
	}
}
