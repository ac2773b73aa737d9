package story

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldNames: the story looks up every decoded field (intField(fs,
// game.FieldKills), fs.Get(game.FieldName), ...) by one of package game's
// generated constants (protocol_gen.go, from the field schema), never by a
// string of its own: a renamed field then fails to compile, not by a
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
			switch a := call.Args[arg].(type) {
			case *ast.SelectorExpr:
				if pkg, ok := a.X.(*ast.Ident); ok && pkg.Name == "game" && strings.HasPrefix(a.Sel.Name, "Field") {
					n++
					return true
				}
			case *ast.Ident:
				if a.Name == "name" {
					return true // an accessor passing its parameter on
				}
			case *ast.BasicLit:
				t.Errorf("%s: looks up field %s by a string; use its game.Field constant", fset.Position(a.Pos()), a.Value)
				return true
			}
			t.Errorf("%s: %s looks up a field by something other than a game.Field constant", fset.Position(call.Pos()), fn)
			return true
		})
	}
	if n < 30 {
		t.Errorf("found %d lookups: the test misses how the story reads fields", n)
	}
}
