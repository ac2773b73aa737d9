package recordgen

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
)

// TestGenerate: the table's structs make Go source that parses, with
// one type per struct.
func TestGenerate(t *testing.T) {
	src, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "record_gen.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range jsonkeys.Structs() {
		if f.Scope.Lookup(s.Name) == nil {
			t.Errorf("no type %s", s.Name)
		}
	}
}

// TestGenerateRejects: a table the record cannot be made of is an error
// that names the row.
func TestGenerateRejects(t *testing.T) {
	key := func(path, field, typ, has string) jsonkeys.Key {
		return jsonkeys.Key{Path: path, Type: filter.Number, Go: jsonkeys.Go{Field: field, Type: typ, Has: has}}
	}
	embed := func(typ string) jsonkeys.Key { return jsonkeys.Key{Go: jsonkeys.Go{Type: typ}} }
	for _, c := range []struct {
		name  string
		table []jsonkeys.Struct
		want  string
	}{
		{"unknown type", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{key("a", "A", "float32", "")}}}, `"float32"`},
		{"unknown struct", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{key("a", "A", "[]Other", "")}}}, `"[]Other"`},
		{"field twice", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{key("a", "A", "int", ""), key("b", "A", "int", "")}}}, `"A"`},
		{"has is a field", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{key("a", "A", "int", ""), key("b", "B", "int", "A")}}}, `"A"`},
		{"not a name", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{key("a", "A b", "int", "")}}}, `"A b"`},
		{"embeds a plain type", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{embed("int")}}}, `"int"`},
		{"struct twice", []jsonkeys.Struct{{Name: "R"}, {Name: "R"}}, `"R"`},
		{"struct unexported", []jsonkeys.Struct{{Name: "r"}}, `"r"`},
		{"struct held by none", []jsonkeys.Struct{{Name: "R"}, {Name: "S"}}, "S"},
		{"type without field", []jsonkeys.Struct{{Name: "R", Fields: []jsonkeys.Key{{Path: "a", Go: jsonkeys.Go{Has: "HasA"}}}}}, "a"},
	} {
		_, err := generate(c.table)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.want)
		}
	}
}
