package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/render"
)

// tsharkFlags are read's flags for tcpdump's and tshark's muscle memory:
// -r FILE, -V (field tree), -x (hexdump), -T json|fields|text and -e.
type tsharkFlags struct {
	files   []string // -r
	verbose bool     // -V
	hex     bool     // -x
	output  string   // -T
	fields  []string // -e
}

// tsharkOutputs are the values of -T.
var tsharkOutputs = choices{{name: "text", about: "the table"}, {name: "json", about: "as -F json"}, {name: "fields", about: "the -e fields, tab-separated"}}

func (o *tsharkFlags) register(f *pflag.FlagSet) {
	f.StringArrayVarP(&o.files, "read-file", "r", nil, "a capture to read, as tshark -r and tcpdump -r take it (repeatable; the same as naming it)")
	f.BoolVarP(&o.verbose, "verbose", "V", false, "every message's decoded fields as a tree (tshark -V); with -x also its bytes (= -F hex)")
	f.BoolVarP(&o.hex, "hex", "x", false, "every message's bytes as a hexdump (tshark -x)")
	enumVarP(f, &o.output, "output-format", "T", "", tsharkOutputs, "output as tshark -T: %s")
	f.StringArrayVarP(&o.fields, "field", "e", nil, "-T fields: a field to print (bcdump fields lists them; repeatable), as tshark -e")
}

// resolve turns the tshark flags into read's format ("fields" for -T
// fields); formatGiven says whether -F was given.
func (o *tsharkFlags) resolve(format string, formatGiven bool) (string, error) {
	want := ""
	switch {
	case o.output == "fields":
		want = "fields"
	case o.output == "json":
		want = "json"
	case o.output == "text":
		want = "table"
	}
	if o.verbose || o.hex {
		if want != "" && want != "table" {
			return "", fmt.Errorf("-V and -x print the field tree and the bytes; -T %s prints something else", o.output)
		}
		want = "hex"
	}
	if len(o.fields) > 0 && o.output != "fields" {
		return "", fmt.Errorf("-e names the fields -T fields prints; give -T fields")
	}
	if o.output == "fields" && len(o.fields) == 0 {
		return "", fmt.Errorf("-T fields prints the fields -e names; give -e NAME (bcdump fields lists them)")
	}
	if want == "" {
		return format, nil
	}
	if formatGiven && format != want && !(want == "hex" && format == "hex") {
		return "", fmt.Errorf("-F %s and the tshark flags (-T, -V, -x) ask for different output; give one", format)
	}
	return want, nil
}

// fieldsWriter prints, for each datagram, the values of the -e fields
// tab-separated (several values of one field joined by commas), as tshark
// -T fields does; events and the summary are not printed.
type fieldsWriter struct {
	w      *bufio.Writer
	paths  []string
	flat   []string // the schema's flat roots (messages.fields, ...)
	flush  bool
	rec    []byte
	values [][]string
}

// newFieldsWriter checks the -e names against the field schema.
func newFieldsWriter(w io.Writer, names []string, flush bool) (*fieldsWriter, error) {
	s := query.FieldSchema()
	fw := &fieldsWriter{w: bufio.NewWriter(w), flat: s.Flat(), flush: flush}
	for _, n := range names {
		p := strings.TrimPrefix(n, filter.Prefix)
		if _, ok := s.Field(p); !ok {
			hint := ""
			if near := filter.Closest(p, s.Names()); len(near) > 0 {
				hint = "; did you mean " + strings.Join(near, ", ") + "?"
			}
			return nil, fmt.Errorf("-e %s: no such field (bcdump fields lists them)%s", quote.Escape(n), hint)
		}
		fw.paths = append(fw.paths, p)
	}
	fw.values = make([][]string, len(fw.paths))
	return fw, nil
}

func (f *fieldsWriter) Datagram(d *dissect.Datagram) error {
	f.rec = render.AppendDatagramJSON(f.rec[:0], d)
	dec := json.NewDecoder(bytes.NewReader(f.rec))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	for i := range f.values {
		f.values[i] = f.values[i][:0]
	}
	f.walk(v, "")
	for i, vs := range f.values {
		if i > 0 {
			f.w.WriteByte('\t')
		}
		f.w.WriteString(strings.Join(vs, ","))
	}
	f.w.WriteByte('\n')
	if f.flush {
		return f.w.Flush()
	}
	return nil
}

// walk collects the values at the -e paths: arrays are left out of paths,
// and below a flat root a field is found by its name at any depth (as -Y
// finds it).
func (f *fieldsWriter) walk(v any, path string) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) { // one order every run
			p := k
			if path != "" {
				p = path + "." + k
			}
			f.walk(v[k], p)
		}
	case []any:
		for _, x := range v {
			f.walk(x, path)
		}
	default:
		for i, want := range f.paths {
			if path == want || f.flatMatch(path, want) {
				f.values[i] = append(f.values[i], leafText(v))
			}
		}
	}
}

func (f *fieldsWriter) flatMatch(path, want string) bool {
	for _, root := range f.flat {
		if strings.HasPrefix(path, root+".") && strings.HasPrefix(want, root+".") &&
			path[strings.LastIndexByte(path, '.'):] == want[strings.LastIndexByte(want, '.'):] {
			return true
		}
	}
	return false
}

// leafText is a JSON value as tshark prints a field: text as is (escaped
// for the terminal, commas and tabs too), numbers and booleans as written.
func leafText(v any) string {
	switch v := v.(type) {
	case string:
		s := quote.Escape(v)
		return strings.NewReplacer(",", `\x2c`, "\t", `\t`).Replace(s)
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return ""
}

func (f *fieldsWriter) Events([]dissect.Event) error { return nil }

func (f *fieldsWriter) Finish([]dissect.Event) error { return f.w.Flush() }

// tsharkHints are one-line answers to the tcpdump and tshark flags read
// does not take, by their letter.
var tsharkHints = map[string]string{
	"n": "addresses are always shown as numbers; bcdump resolves no names",
	"i": "read reads files; bcdump live -i IFACE captures from an interface",
	"R": "use -Y: the display filter applies after full decoding and flow tracking",
	"2": "not needed: -Y applies after full decoding and flow tracking",
	"z": "bcdump stats summarizes captures (stats -b is like -z conv,udp)",
	"s": "bcdump reads the snap length the capture was made with",
	"v": "-V prints every message's decoded fields; -F hex adds the bytes",
	"X": "-x prints the bytes as a hexdump; -F hex adds the fields",
	"A": "-x prints the bytes as a hexdump (with their ASCII); -F hex adds the fields",
	"q": "bcdump stats prints only the summary",
	"l": "output is written as decoded when the input is a pipe (tcpdump -U -w - | bcdump read -)",
	"f": "bcdump live captures the game ports (-p adds ports); -Y filters what is shown",
	"D": "bcdump live -D lists the interfaces",
	"G": "bcdump fields lists the fields",
}
