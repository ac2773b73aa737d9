package query

//go:generate go run ../internal/fieldgen/cmd/genfields -o gamefields_gen.go

import (
	"sort"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
)

// The field schema: every key path of the JSON records `read -F json`
// prints (datagram, event and summary records), with its type and
// meaning. It is what display filters are checked against and what
// `bcdump fields` lists. The record keys come from report/jsonkeys; the
// game fields (messages.fields.<key>) from gamefields_gen.go, generated
// from the layout table (dissect.Fields). Tests keep them and the writer
// in step: every key the writer's source appends, and every path and type
// any test capture or golden file shows, must be here.

// Field is one entry of the schema.
type Field struct {
	Path    string // dotted JSON keys, array levels left out
	Type    filter.Type
	Records string // which records have it: datagram, event, summary
	Meaning string
}

// gameField is one generated entry: a field name the decoders append, the
// kinds (game.Kind names) they append under it, and where.
type gameField struct {
	name, kinds, in string
}

// Field roots under which the decoders' fields appear. Below them a field
// is found by its name at any depth (see Schema.Flat): files.name_hash is
// messages.fields.name_hash too.
var fieldRoots = []string{
	jsonkeys.Messages + "." + jsonkeys.Fields,
	jsonkeys.Messages + "." + jsonkeys.Reassembled + "." + jsonkeys.Fields,
	jsonkeys.Cut + "." + jsonkeys.Fields,
}

const dgram = "datagram"

// recordFields are the record keys (report/jsonkeys), in the order of a
// record.
var recordFields = func() []Field {
	keys := jsonkeys.Table()
	fs := make([]Field, len(keys))
	for i, k := range keys {
		fs[i] = Field{Path: k.Path, Type: k.Type, Records: k.Records.String(), Meaning: k.Meaning}
	}
	return fs
}()

// kindTypes maps the generated kinds to filter types (as appendValue
// writes them).
var kindTypes = map[string]filter.Type{
	"uint": filter.Number, "int": filter.Number, "float": filter.Number, "vec": filter.Number,
	"bool": filter.Bool, "string": filter.String, "bytes": filter.String,
	"hash": filter.Hex, "hex": filter.Hex, "object": filter.Object, "array": filter.Object,
}

// gameFieldType is the filter type of a generated field; ok is false for
// kinds of different types under one name.
func gameFieldType(g gameField) (filter.Type, bool) {
	var t filter.Type
	for _, k := range strings.Split(g.kinds, ",") {
		kt, ok := kindTypes[k]
		if !ok || t != 0 && kt != t {
			return 0, false
		}
		t = kt
	}
	return t, t != 0
}

// Schema is the field schema, a filter.Schema.
type Schema struct {
	fixed map[string]Field
	game  map[string]filter.Type
	names []string
}

var schema = newSchema()

// FieldSchema returns the schema of the JSON records.
func FieldSchema() *Schema { return schema }

func newSchema() *Schema {
	s := &Schema{fixed: map[string]Field{}, game: map[string]filter.Type{}}
	for _, f := range recordFields {
		s.fixed[f.Path] = f
		if !strings.Contains(f.Path, "<") {
			s.names = append(s.names, f.Path)
		}
	}
	for _, g := range gameFields {
		t, ok := gameFieldType(g)
		if !ok {
			continue // TestGameFieldTypes fails on it
		}
		s.game[g.name] = t
		s.names = append(s.names, fieldRoots[0]+"."+g.name)
	}
	sort.Strings(s.names)
	return s
}

// Field returns a path's type (filter.Schema). Under a field root, any
// chain of the decoders' container names may lead to a field name, and
// <name>_name is the label of a field that has one.
func (s *Schema) Field(path string) (filter.Type, bool) {
	if f, ok := s.fixed[path]; ok && !strings.Contains(path, "<") {
		return f.Type, true
	}
	if key, ok := strings.CutPrefix(path, "gamespy."); ok && key != "" {
		return filter.String, true
	}
	for _, root := range fieldRoots {
		rest, ok := strings.CutPrefix(path, root+".")
		if !ok {
			continue
		}
		parts := strings.Split(rest, ".")
		for _, c := range parts[:len(parts)-1] {
			if t, ok := s.game[c]; !ok || t != filter.Object {
				return 0, false
			}
		}
		leaf := parts[len(parts)-1]
		if t, ok := s.game[leaf]; ok {
			return t, true
		}
		if stem, ok := strings.CutSuffix(leaf, "_name"); ok {
			if _, ok := s.game[stem]; ok {
				return filter.String, true
			}
		}
		return 0, false
	}
	return 0, false
}

// Names lists the known paths (filter.Schema), for suggestions.
func (s *Schema) Names() []string { return s.names }

// Flat lists the paths below which a field matches by name at any depth
// (filter.Flattener): the decoders' fields.
func (s *Schema) Flat() []string { return fieldRoots }

// Fields lists every field for `bcdump fields`: the record keys, then the
// decoders' fields under messages.fields.
func (s *Schema) Fields() []Field {
	out := append([]Field(nil), recordFields...)
	for _, g := range gameFields {
		t, _ := gameFieldType(g)
		out = append(out, Field{
			Path:    fieldRoots[0] + "." + g.name,
			Type:    t,
			Records: dgram,
			Meaning: gameFieldMeaning(g),
		})
	}
	out = append(out,
		Field{fieldRoots[0] + ".<key>_name", filter.String, dgram, "label of a field that has one: enum name, resolved hash or object slot"},
		Field{fieldRoots[1] + ".<key>", filter.Object, dgram, "the fields of a reassembled message, as messages.fields.<key>"},
		Field{fieldRoots[2] + ".<key>", filter.Object, dgram, "the fields of a cut message, as messages.fields.<key>"},
	)
	return out
}

// gameFieldMeaning describes a generated field: its kinds and where the
// decoders append it.
func gameFieldMeaning(g gameField) string {
	kinds := strings.ReplaceAll(g.kinds, ",", " or ")
	in := strings.Split(g.in, ",")
	const show = 4
	where := strings.Join(in[:min(len(in), show)], ", ")
	if len(in) > show {
		where += ", +" + strconv.Itoa(len(in)-show) + " more"
	}
	return kinds + " in " + where
}
