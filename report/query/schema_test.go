package query

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/internal/fieldgen"
	"github.com/bcdump/bcdump/report/render"
)

// TestGameFieldsGenerated: gamefields_gen.go is what the generator makes
// of the layouts now (go generate ./report/query rewrites it).
func TestGameFieldsGenerated(t *testing.T) {
	want, err := fieldgen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("gamefields_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gamefields_gen.go is stale: the layouts changed; run go generate ./report/query")
	}
}

// TestGameFieldTypes: a field name means one JSON type whatever decoder
// appends it, so a filter on it type-checks one way.
func TestGameFieldTypes(t *testing.T) {
	for _, g := range gameFields {
		if _, ok := gameFieldType(g); !ok {
			t.Errorf("game field %q is appended as %s: kinds of different JSON types under one name", g.name, g.kinds)
		}
	}
}

// writerKeys returns every key the JSON writer's source appends: the
// literal keys of appendKey calls and the "key": texts of its literals.
func writerKeys(t *testing.T) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	quoted := regexp.MustCompile(`"([a-z_]+)":`)
	fset := token.NewFileSet()
	for _, name := range []string{"../render/json.go", "../render/track.go"} {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "appendKey" && len(n.Args) == 3 {
					if lit, ok := n.Args[2].(*ast.BasicLit); ok {
						k, _ := strconv.Unquote(lit.Value)
						keys[k] = true
					} else {
						t.Errorf("%s: appendKey with a key that is not a literal; the schema test cannot see it", fset.Position(n.Pos()))
					}
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					s, _ := strconv.Unquote(n.Value)
					for _, m := range quoted.FindAllStringSubmatch(s, -1) {
						keys[m[1]] = true
					}
				}
			}
			return true
		})
	}
	return keys
}

// TestSchemaWriterKeys: every key json.go and track.go write is a leaf of
// some schema path, and every leaf of the record schema is written there,
// whether or not a test capture shows it.
func TestSchemaWriterKeys(t *testing.T) {
	keys := writerKeys(t)
	leaves := map[string]bool{}
	for _, f := range recordFields {
		leaf := f.Path[strings.LastIndexByte(f.Path, '.')+1:]
		if strings.HasPrefix(leaf, "<") {
			continue
		}
		leaves[leaf] = true
		if !keys[leaf] {
			t.Errorf("schema path %s: json.go and track.go write no key %q", f.Path, leaf)
		}
	}
	for k := range keys {
		if !leaves[k] {
			t.Errorf("the JSON writer writes key %q, which no schema path ends in", k)
		}
	}
}

// jsonType is the schema type a JSON value has; ok is false for a value
// that fits no type (a hex field must read "0x...").
func jsonType(v any, want filter.Type) (filter.Type, bool) {
	switch v := v.(type) {
	case nil:
		return want, want == filter.Number // NaN and infinite floats
	case bool:
		return filter.Bool, true
	case json.Number:
		return filter.Number, true
	case string:
		if want == filter.Hex {
			return filter.Hex, regexp.MustCompile(`^0x[0-9A-F]+$`).MatchString(v)
		}
		return filter.String, true
	case map[string]any:
		return filter.Object, true
	}
	return 0, false
}

// checkRecord walks one record and reports every path the schema lacks
// or types otherwise.
func checkRecord(t *testing.T, where string, path string, v any, seen map[string]bool) {
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			checkRecord(t, where, path, e, seen)
		}
		return
	}
	if path != "" {
		want, ok := schema.Field(path)
		if !ok {
			if !seen["?"+path] {
				seen["?"+path] = true
				t.Errorf("%s: path %s is not in the schema", where, path)
			}
			return
		}
		got, ok := jsonType(v, want)
		if !ok || got != want {
			if !seen["!"+path] {
				seen["!"+path] = true
				t.Errorf("%s: %s is %v (%T), the schema says %v", where, path, v, v, want)
			}
		}
		seen[path] = true
	}
	if m, ok := v.(map[string]any); ok {
		for k, e := range m {
			p := k
			if path != "" {
				p = path + "." + k
			}
			checkRecord(t, where, p, e, seen)
		}
	}
}

func checkJSONLines(t *testing.T, where string, data []byte, seen map[string]bool) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var rec map[string]any
		if err := d.Decode(&rec); err != nil {
			t.Fatalf("%s line %d: %v", where, n, err)
		}
		checkRecord(t, where+":"+strconv.Itoa(n), "", rec, seen)
	}
}

// TestSchemaCoversJSON: every path and type of every record the JSON
// writer makes of the test captures, and of the golden JSON files, is in
// the schema; so are the events of a live capture.
func TestSchemaCoversJSON(t *testing.T) {
	seen := map[string]bool{}
	goldens, _ := filepath.Glob(filepath.Join(testdata, "golden", "*.json"))
	for _, g := range goldens {
		// Only read's records: stats, profile (x.stats.json, x.profile.json)
		// and session (session-*.json) goldens are other documents.
		base := strings.TrimSuffix(filepath.Base(g), ".json")
		if strings.Contains(base, ".") || strings.HasPrefix(base, "session-") {
			continue
		}
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		checkJSONLines(t, g, data, seen)
	}
	// The test captures and the anomaly sessions, with events as found
	// (the event records of bcdump live) and at the end.
	for _, src := range evalSources(t) {
		var out bytes.Buffer
		runSource(t, src, render.NewJSON(&out, false))
		checkJSONLines(t, src.name, out.Bytes(), seen)
	}
	// The decoders' containers and the common record keys were all seen.
	for _, p := range []string{"messages.fields.files", "messages.fields.name_hash", "kind", "anomalies.code", "code", "anomalies.frame"} {
		if !seen[p] && !seen[strings.Replace(p, "messages.fields.", "messages.fields.files.", 1)] {
			t.Errorf("no test record has %s: the coverage test covers less than it should", p)
		}
	}
	var names []string
	for p := range seen {
		if !strings.HasPrefix(p, "?") && !strings.HasPrefix(p, "!") {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	t.Logf("%d distinct paths checked", len(names))
}

func TestSchemaField(t *testing.T) {
	tests := []struct {
		path string
		want filter.Type
		ok   bool
	}{
		{"frame", filter.Number, true},
		{"messages.opcode_name", filter.String, true},
		{"messages.fields.name_hash", filter.Hex, true},
		{"messages.fields.files.name_hash", filter.Hex, true},
		{"messages.fields.subdirs.files.content_hash", filter.Hex, true},
		{"messages.fields.event_code_name", filter.String, true},
		{"messages.fields.text", filter.String, true},
		{"messages.fields.position", filter.Number, true},
		{"messages.reassembled.fields.name_hash", filter.Hex, true},
		{"cut.fields.round", filter.Number, true},
		{"messages.fields.round.name_hash", 0, false}, // round holds nothing
		{"messages.fields.nonesuch", 0, false},
		{"gamespy.hostname", filter.String, true},
		{"gamespy.<key>", filter.String, true},
		{"anomalies.severity", filter.String, true},
		{"severity", filter.String, true},
		{"client", filter.String, true},
		{"messages.<key>", 0, false},
	}
	for _, tc := range tests {
		got, ok := schema.Field(tc.path)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Field(%q) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
