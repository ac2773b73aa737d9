package record

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/netip"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
)

// recordPaths walks the record's struct tags: every key path the record
// holds, with the Go type holding it.
func recordPaths() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var walk func(prefix string, typ reflect.Type, cut bool)
	walk = func(prefix string, typ reflect.Type, cut bool) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Anonymous {
				if cut && (f.Type == reflect.TypeFor[Track]()) {
					continue // a cut message is not tracked
				}
				walk(prefix, f.Type, cut)
				continue
			}
			key := f.Tag.Get("key")
			if key == "" || cut && key == jsonkeys.Reassembled {
				continue
			}
			path := prefix + key
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 {
				ft = ft.Elem()
			}
			out[path] = ft
			if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]() && ft != reflect.TypeFor[netip.AddrPort]() && ft != reflect.TypeFor[Field]() {
				walk(path+".", ft, cut || key == jsonkeys.Cut)
			}
		}
	}
	walk("", reflect.TypeFor[Datagram](), false)
	return out
}

// TestRecordKeysAreTheTable: every key the record holds is a path of the
// key table (report/jsonkeys) of the table's type, and every key of the
// table's datagram, event and summary records has a place in the record.
func TestRecordKeysAreTheTable(t *testing.T) {
	table := map[string]filter.Type{}
	for _, k := range jsonkeys.Table() {
		table[k.Path] = k.Type
	}
	paths := recordPaths()
	for path, typ := range paths {
		want, ok := table[path]
		if !ok {
			t.Errorf("the record holds %s, which is not a key of the table", path)
			continue
		}
		var got filter.Type
		switch typ.Kind() {
		case reflect.String, reflect.Slice: // []byte: text or hex
			got = filter.String
		case reflect.Bool:
			got = filter.Bool
		case reflect.Int, reflect.Int64, reflect.Uint8, reflect.Uint16:
			got = filter.Number
		case reflect.Struct:
			got = filter.Object
			switch typ {
			case reflect.TypeFor[time.Time](), reflect.TypeFor[netip.AddrPort]():
				got = filter.String
			}
		}
		if typ == reflect.TypeFor[Dir]() || typ == reflect.TypeFor[Kind]() {
			got = filter.String
		}
		if path == jsonkeys.Messages+"."+jsonkeys.Fields || strings.HasSuffix(path, "."+jsonkeys.Fields) || path == jsonkeys.GameSpy+".<key>" {
			got = want // tokens and pairs: any value
		}
		if got != want {
			t.Errorf("the record holds %s as %v (%v); the table says %v", path, got, typ, want)
		}
	}
	for _, k := range jsonkeys.Table() {
		if k.Path == jsonkeys.TS {
			continue // the same instant as time
		}
		path := k.Path
		if k.Records == jsonkeys.Event && !strings.Contains(path, ".") {
			path = jsonkeys.Anomalies + "." + path // an event's keys: its one anomaly's
		}
		if _, ok := paths[path]; !ok {
			t.Errorf("table key %s has no place in the record", k.Path)
		}
	}
}

// jsonKeyInText finds the keys a JSON text in Go source writes:
// `"name":` inside a string literal.
var jsonKeyInText = regexp.MustCompile(`"([a-z][a-z0-9_]*)":`)

// TestConsumersNameOnlyTableKeys: no non-test source under report/ that
// reads or writes the records (the JSON writer, the filter's evaluator,
// diff, Parquet, this package) names a JSON key the table lacks: in JSON
// text written into a string literal (`,"peer_id":`), as the key of an
// appendKey call, or in a `json:"..."` struct tag.
func TestConsumersNameOnlyTableKeys(t *testing.T) {
	names := map[string]bool{}
	for _, k := range jsonkeys.Table() {
		for _, p := range strings.Split(k.Path, ".") {
			names[p] = true
		}
	}
	for _, f := range dissect.Fields() {
		names[f.Name] = true // keys inside "fields", and their labels
		names[f.Name+"_name"] = true
	}
	// Files that write a JSON document of their own, not the records.
	ownDocument := map[string]bool{
		filepath.Join("..", "diff", "json.go"):        true, // diff -F json (help diff)
		filepath.Join("..", "diff", "compare.go"):     true, // diff's summary counts
		filepath.Join("..", "render", "anomalies.go"): true, // bcdump anomalies -F json
	}
	consumers := []string{"render", "query", "diff", "columnar", "record"}
	n := 0
	for _, dir := range consumers {
		err := filepath.WalkDir(filepath.Join("..", dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || ownDocument[path] {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			check := func(pos token.Pos, key string) {
				n++
				if !names[key] {
					t.Errorf("%s: names JSON key %q, which the key table (report/jsonkeys) lacks", fset.Position(pos), key)
				}
			}
			ast.Inspect(f, func(node ast.Node) bool {
				switch x := node.(type) {
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "appendKey" && len(x.Args) == 3 {
						if lit, ok := x.Args[2].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							check(lit.Pos(), s)
						}
					}
				case *ast.BasicLit:
					if x.Kind != token.STRING {
						return true
					}
					s, err := strconv.Unquote(x.Value)
					if err != nil {
						return true
					}
					for _, m := range jsonKeyInText.FindAllStringSubmatch(s, -1) {
						check(x.Pos(), m[1])
					}
				case *ast.Field:
					if x.Tag != nil {
						tag, _ := strconv.Unquote(x.Tag.Value)
						if js, ok := reflect.StructTag(tag).Lookup("json"); ok {
							name, _, _ := strings.Cut(js, ",")
							if name != "" && name != "-" {
								check(x.Tag.Pos(), name)
							}
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 40 {
		t.Errorf("checked %d key names: the walk missed the consumers", n)
	}
}
