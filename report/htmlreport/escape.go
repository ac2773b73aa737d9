package htmlreport

import (
	"reflect"

	"github.com/bcdump/bcdump/report/quote"
)

// escapeText applies package quote's rule to every string of d, in
// place: a rune quote does not show as is (C0 and C1 controls, DEL, CR,
// bidi embeddings, overrides and isolates, bytes that are not UTF-8)
// becomes its visible Go escape (\x1b, \r, \u202e, \xff). Player and map
// names, chat, mission names, anomaly messages and file names all come
// from outside; html/template escapes only what HTML would read as
// markup, so without this a name could reorder the page's text, carry an
// escape sequence into a copy-paste or put invalid UTF-8 in the title.
// Strings of bcdump's own (ids, addresses, verdict words) are printable
// and stay as they are. The embedded JSON is marshalled from the same
// escaped Data, so the rows the script draws read the same.
func escapeText(d *Data) {
	seen := map[uintptr]bool{}
	escapeValue(reflect.ValueOf(d).Elem(), seen)
}

func escapeValue(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !quote.Safe(s) && v.CanSet() {
			v.SetString(quote.Escape(s))
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		escapeValue(v.Elem(), seen)
	case reflect.Interface:
		if !v.IsNil() && v.Elem().Kind() == reflect.Pointer {
			escapeValue(v.Elem(), seen)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				escapeValue(v.Field(i), seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			escapeValue(v.Index(i), seen)
		}
	case reflect.Map:
		// Map values cannot be set in place: each is copied, escaped
		// and stored back (keys are bcdump's own: severities, "c2s").
		if v.IsNil() {
			return
		}
		it := v.MapRange()
		for it.Next() {
			e := reflect.New(it.Value().Type()).Elem()
			e.Set(it.Value())
			escapeValue(e, seen)
			v.SetMapIndex(it.Key(), e)
		}
	}
}
