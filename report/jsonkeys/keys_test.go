package jsonkeys_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite cmd/bcdump/helptopics/json-keys.md")

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

// TestHelpTopic: the help topic json-keys is the table's Markdown.
func TestHelpTopic(t *testing.T) {
	var b bytes.Buffer
	if err := jsonkeys.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "../../cmd/bcdump/helptopics/json-keys.md", b.Bytes(), *update, "./report/jsonkeys")
}

// TestTable: paths are unique, every parent of a path is a path of type
// object, and every key has a type, records, a meaning and a reading.
func TestTable(t *testing.T) {
	types := map[string]filter.Type{}
	for _, k := range jsonkeys.Table() {
		if _, dup := types[k.Path]; dup {
			t.Errorf("%s: listed twice", k.Path)
		}
		types[k.Path] = k.Type
		if k.Type == 0 || k.Records == 0 || k.Meaning == "" || k.Read == "" {
			t.Errorf("%s: type, records, meaning or reading missing: %+v", k.Path, k)
		}
	}
	for p := range types {
		if i := strings.LastIndexByte(p, '.'); i >= 0 && types[p[:i]] != filter.Object {
			t.Errorf("%s: its parent %s is not an object path", p, p[:i])
		}
	}
}

// TestWriterKeys: the JSON writer emits exactly the table's paths, with
// the table's types and in the records the table names, on the test
// captures and the generated anomaly sessions (events as found and at
// the end), with a file key and a context record.
func TestWriterKeys(t *testing.T) {
	table := map[string]jsonkeys.Key{}
	for _, k := range jsonkeys.Table() {
		table[k.Path] = k
	}
	seen := map[string]bool{}
	for _, src := range sources(t) {
		var out bytes.Buffer
		j := render.NewJSON(&out, false)
		if err := j.StartFile(filepath.Base(src.name)); err != nil {
			t.Fatal(err)
		}
		n := 0
		sink := dissect.SinkFuncs{
			OnDatagram: func(d *dissect.Datagram) error {
				n++
				j.MarkContext(n == 2) // the second datagram as context of a match
				return j.Datagram(d)
			},
			OnEvents: j.Events,
			OnFinish: j.Finish,
		}
		run(t, src, sink)
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 16<<20)
		for line := 1; sc.Scan(); line++ {
			var rec map[string]any
			d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			d.UseNumber()
			if err := d.Decode(&rec); err != nil {
				t.Fatalf("%s:%d: %v", src.name, line, err)
			}
			kind, _ := rec[jsonkeys.Kind].(string)
			var recs jsonkeys.Records
			switch kind {
			case jsonkeys.KindGame, jsonkeys.KindGameSpy:
				recs = jsonkeys.Datagram
			case jsonkeys.KindEvent:
				recs = jsonkeys.Event
			case jsonkeys.KindSummary:
				recs = jsonkeys.Summary
			default:
				t.Fatalf("%s:%d: kind %q", src.name, line, kind)
			}
			walk("", rec, func(path string, v any) {
				k, ok := table[path]
				if !ok {
					if !seen["?"+path] {
						t.Errorf("%s:%d: the writer emits %s, which the table lacks", src.name, line, path)
					}
					seen["?"+path] = true
					return
				}
				if k.Records&recs == 0 && !seen["!"+path+kind] {
					seen["!"+path+kind] = true
					t.Errorf("%s:%d: %s on a %s record; the table says %s", src.name, line, path, kind, k.Records)
				}
				if got := typeOf(v); got != k.Type && !(k.Type == filter.Number && v == nil) && !seen["!"+path] {
					seen["!"+path] = true
					t.Errorf("%s:%d: %s is %v, the table says %v", src.name, line, path, got, k.Type)
				}
				seen[path] = true
			})
		}
	}
	for _, k := range jsonkeys.Table() {
		if !seen[k.Path] && unseen[k.Path] == "" {
			t.Errorf("%s: no test record has it", k.Path)
		}
		if seen[k.Path] && unseen[k.Path] != "" {
			t.Errorf("%s: a test record has it now; take it off the unseen list", k.Path)
		}
	}
}

// unseen are the paths the writer's code can write that no test record
// shows, and why.
var unseen = map[string]string{
	"cut.fields":                       "the dissector does not decode a cut payload; the writer shares the payload keys",
	"cut.ack_frag":                     "an ACK cut after its header would be whole: it has no payload",
	"cut.ack_low":                      "as cut.ack_frag",
	"messages.reassembled.payload_hex": "no test capture reassembles a message its decoder rejects",
}

// walk calls fn with every path of v below prefix, array levels left
// out; below a fields object and a GameSpy object it goes no deeper
// (those keys are the decoders' and the peers').
func walk(prefix string, v any, fn func(path string, v any)) {
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			walk(prefix, e, fn)
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, e := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if prefix == jsonkeys.GameSpy {
			p = jsonkeys.GameSpy + ".<key>"
		}
		if arr, ok := e.([]any); ok && len(arr) > 0 {
			fn(p, arr[0])
		} else {
			fn(p, e)
		}
		if k != jsonkeys.Fields {
			walk(p, e, fn)
		}
	}
}

// typeOf is the table type of a JSON value (an array: its elements').
func typeOf(v any) filter.Type {
	switch v := v.(type) {
	case bool:
		return filter.Bool
	case json.Number:
		return filter.Number
	case string:
		return filter.String
	case map[string]any:
		return filter.Object
	case []any:
		if len(v) == 0 {
			return filter.Object
		}
		return typeOf(v[0])
	}
	return 0
}

// source is a capture to run, with its session options.
type source struct {
	name string
	pcap []byte
	opt  dissect.SessionOptions
}

func sources(t *testing.T) []source {
	t.Helper()
	var out []source
	caps, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	caps = append(caps, filepath.Join(testdata, "sample.pcap"))
	for _, c := range caps {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, source{name: c, pcap: data})
		f, err := pcapedit.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		// Cut by a snap length (truncated, cut, uncaptured_msgs), and
		// every datagram delivered twice (duplicate).
		for _, n := range []int{60, 72, 90, 120, 200} {
			out = append(out, source{name: c + " snap " + strconv.Itoa(n), pcap: pcapedit.Snap(f, n).Bytes()})
		}
		twice := &pcapedit.File{Header: f.Header}
		for _, r := range f.Records {
			twice.Records = append(twice.Records, r, r)
		}
		out = append(out, source{name: c + " twice", pcap: twice.Bytes()})
	}
	for _, code := range dissecttest.AnomalyCodes() {
		s, _ := dissecttest.Anomaly(code)
		var pc bytes.Buffer
		if err := s.WritePcap(&pc); err != nil {
			t.Fatal(err)
		}
		for _, asFound := range []bool{false, true} {
			out = append(out, source{name: "anomaly " + code.String(), pcap: pc.Bytes(),
				opt: dissect.SessionOptions{EventsAsFound: asFound}})
		}
	}
	return out
}

func run(t *testing.T, src source, sink dissect.Sink) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(src.pcap), src.name, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dissect.NewSession(src.opt).Run(context.Background(), r, sink); err != nil {
		t.Fatal(err)
	}
}
