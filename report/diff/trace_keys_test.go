package diff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
)

// TestTraceReaderKeys: every key the trace reader's structs read is a
// path of the record key table (report/jsonkeys), of the table's type.
func TestTraceReaderKeys(t *testing.T) {
	table := map[string]filter.Type{}
	for _, k := range jsonkeys.Table() {
		table[k.Path] = k.Type
	}
	n := 0
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				walk(prefix, f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			path := prefix + name
			want, ok := table[path]
			if !ok {
				t.Errorf("%s.%s reads %s, which is not a record key", typ.Name(), f.Name, path)
				continue
			}
			n++
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice && ft != reflect.TypeFor[json.RawMessage]() {
				ft = ft.Elem()
			}
			var got filter.Type
			switch ft.Kind() {
			case reflect.String:
				got = filter.String
			case reflect.Bool:
				got = filter.Bool
			case reflect.Int, reflect.Uint32, reflect.Uint64, reflect.Int64, reflect.Float64:
				got = filter.Number
			case reflect.Struct:
				got = filter.Object
				walk(path+".", ft)
			default: // json.RawMessage: any value
				got = want
			}
			if got != want {
				t.Errorf("%s.%s reads %s as %v; the table says %v", typ.Name(), f.Name, path, got, want)
			}
		}
	}
	walk("", reflect.TypeFor[record]())
	if n < 20 {
		t.Errorf("checked %d keys: the walk missed the reader's structs", n)
	}
}
