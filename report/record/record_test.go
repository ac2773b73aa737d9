package record

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/dissect/dissecttest/pcapedit"
	"github.com/bcdump/bcdump/report/render"
)

const testdata = "../../testdata"

// testCapture is one capture of the test corpus: a file or a built session.
type testCapture struct {
	name string
	pcap []byte
}

// corpus returns every test capture: the real ones under testdata and the
// sessions dissecttest builds (the anomaly scripts reach what no real
// capture shows: cut messages, truncation, every anomaly code).
func corpus(t testing.TB) []testCapture {
	t.Helper()
	var cs []testCapture
	paths, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	paths = append(paths, filepath.Join(testdata, "sample.pcap"), filepath.Join(testdata, "unacked-fragment.pcap"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCapture{filepath.Base(p), b})
	}
	add := func(name string, ss ...*dissecttest.Session) {
		var b bytes.Buffer
		if err := dissecttest.WriteMerged(&b, ss...); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCapture{name, b.Bytes()})
	}
	add("battle", dissecttest.Battle()...)
	add("checksum-kick", dissecttest.ChecksumKick())
	add("hostile", dissecttest.Hostile("\x1b[31m\u202e\x85 é\xff")...)
	add("ship", dissecttest.ShipCreate())
	for _, code := range dissecttest.AnomalyCodes() {
		s, _ := dissecttest.Anomaly(code)
		add("anomaly-"+code.String(), s)
	}
	// Snap lengths cut messages in their header and in their payload.
	for _, n := range []int{60, 64, 90} {
		g, err := pcapedit.Parse(cs[0].pcap)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCapture{fmt.Sprintf("%s-snap%d", cs[0].name, n), pcapedit.Snap(g, n).Bytes()})
	}
	return cs
}

// sink runs fn on every datagram and event of a capture.
type sink struct {
	dg  func(*dissect.Datagram) error
	ev  func([]dissect.Event) error
	end func([]dissect.Event) error
}

func (s *sink) Datagram(d *dissect.Datagram) error { return s.dg(d) }
func (s *sink) Events(ev []dissect.Event) error {
	if s.ev != nil {
		return s.ev(ev)
	}
	return nil
}
func (s *sink) Finish(end []dissect.Event) error {
	if s.end != nil {
		return s.end(end)
	}
	return nil
}

// run decodes c into s serially: the allocation tests count every
// malloc of the process, and a parallel pipeline decodes ahead meanwhile.
func run(t testing.TB, c testCapture, s *sink) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(c.pcap), c.name, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := dissect.NewSession(dissect.SessionOptions{Mode: dissect.Serial}).Run(context.Background(), r, s); err != nil {
		t.Fatal(err)
	}
}

// TestAppendJSONIsTheWriter: on every test capture, a record converted
// from each datagram writes the JSON writer's line byte for byte, and
// decoding that line gives the same record again.
func TestAppendJSONIsTheWriter(t *testing.T) {
	var seen struct{ cut, reasm, gamespy, rtt, fields, summary, trunc int }
	for _, c := range corpus(t) {
		t.Run(c.name, func(t *testing.T) {
			var (
				conv      Converter
				dec       Decoder
				rec, back Datagram
				want, got []byte
				n         int
			)
			check := func(what string) {
				got = rec.AppendJSON(got[:0])
				if !bytes.Equal(got, want) {
					t.Fatalf("%s %d:\nwriter: %s\nrecord: %s", what, n, want, got)
				}
				if err := dec.Decode(want, &back); err != nil {
					t.Fatalf("%s %d: decode: %v\n%s", what, n, err, want)
				}
				if g := back.AppendJSON(nil); !bytes.Equal(g, want) {
					t.Fatalf("%s %d: decoded record writes\n%s\nnot\n%s", what, n, g, want)
				}
				if !equalRecords(&rec, &back) {
					t.Fatalf("%s %d: decoded record differs from the converted one:\n%+v\n%+v", what, n, norm(&rec), norm(&back))
				}
			}
			run(t, c, &sink{
				dg: func(d *dissect.Datagram) error {
					n++
					want = render.AppendDatagramJSON(want[:0], d)
					conv.Datagram(d, &rec)
					check("frame")
					if rec.HasCut {
						seen.cut++
					}
					if rec.Truncated {
						seen.trunc++
					}
					if rec.Kind == KindGameSpy {
						seen.gamespy++
					}
					for i := range rec.Messages {
						m := &rec.Messages[i]
						if m.Reassembled != nil {
							seen.reasm++
						}
						if m.HasRTT {
							seen.rtt++
						}
						if len(m.Fields) > 0 {
							seen.fields++
						}
					}
					return nil
				},
				ev: func(ev []dissect.Event) error {
					for i := range ev {
						want = render.AppendEventRecord(want[:0], &ev[i])
						conv.Event(&ev[i], &rec)
						check("event")
					}
					return nil
				},
				end: func(end []dissect.Event) error {
					if len(end) == 0 {
						return nil
					}
					seen.summary++
					var buf bytes.Buffer
					j := render.NewJSON(&buf, false)
					if err := j.Finish(end); err != nil {
						return err
					}
					want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
					conv.Summary(end, &rec)
					check("summary")
					return nil
				},
			})
		})
	}
	t.Logf("%+v", seen)
	if seen.cut == 0 || seen.reasm == 0 || seen.gamespy == 0 || seen.rtt == 0 || seen.fields == 0 || seen.summary == 0 || seen.trunc == 0 {
		t.Errorf("the corpus misses a kind of record: %+v", seen)
	}
}

// TestFileAndContext: the run's keys come last, context before file, as
// the writer adds them.
func TestFileAndContext(t *testing.T) {
	c := corpus(t)[0]
	var buf bytes.Buffer
	j := render.NewJSON(&buf, false)
	_ = j.StartFile("a b.pcap")
	j.MarkContext(true)
	var conv Converter
	var lines [][]byte
	run(t, c, &sink{dg: func(d *dissect.Datagram) error {
		var rec Datagram
		conv.Datagram(d, &rec)
		rec.File, rec.Context = "a b.pcap", true
		lines = append(lines, append(rec.AppendJSON(nil), '\n'))
		return j.Datagram(d)
	}})
	_ = j.Finish(nil)
	if want := buf.Bytes(); !bytes.Equal(bytes.Join(lines, nil), want) {
		t.Fatalf("records with file and context differ from the writer's")
	}
	var dec Decoder
	var rec Datagram
	if err := dec.Decode(bytes.TrimSpace(lines[0]), &rec); err != nil || rec.File != "a b.pcap" || !rec.Context {
		t.Fatalf("decoded %q, %v: %v", rec.File, rec.Context, err)
	}
}

// equalRecords compares two records by value: empty and nil slices are
// equal, the storage behind them is not compared.
func equalRecords(a, b *Datagram) bool { return reflect.DeepEqual(norm(a), norm(b)) }

func norm(d *Datagram) any {
	c := *d
	c.arena, c.pool = nil, nil
	return normValue(reflect.ValueOf(c)).Interface()
}

// normValue returns a deep copy of v with every empty slice nil.
func normValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(normValue(v.Index(i)))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(normValue(v.Elem()))
		return p
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(normValue(v.Field(i)))
			}
		}
		return out
	}
	return v
}
