package columnar

import (
	"context"
	"os"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/record"
)

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (w *countWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func feed(t testing.TB, c *Writer, path string) {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := dissect.NewSession(dissect.SessionOptions{}).Run(context.Background(), r, c); err != nil {
		t.Fatal(err)
	}
}

// TestRowGroupsFlushAsTheyFill: once a row group is full it is written
// out, before the file is closed (issue 38: the whole file was held in
// memory until Close).
func TestRowGroupsFlushAsTheyFill(t *testing.T) {
	const s3 = "../../testdata/captures/openbc-session-3.pcap"
	if _, err := os.Stat(s3); err != nil {
		t.Skip(err)
	}
	var w countWriter
	c := NewWriter(&w, "x")
	for c.Rows() < RowGroupRows+batch {
		feed(t, c, s3)
	}
	if w.n == 0 {
		t.Fatalf("%d rows taken, nothing written before Close", c.Rows())
	}
	before := w.n
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows: %d bytes before Close, %d after", c.Rows(), before, w.n)
}

// TestFieldsMembers: each kind of top-level field lands in its typed
// member; nested values and vectors too.
func TestFieldsMembers(t *testing.T) {
	fs := []record.Field{
		{Name: "sender", Kind: record.Number, Value: []byte("3")},
		{Name: "text", Kind: record.String, Value: []byte("hi \"x\"")},
		{Name: "game_time", Kind: record.Number, Value: []byte("12.5")},
		{Name: "cloak", Kind: record.Bool, Value: []byte("true")},
		{Name: "forward", Kind: record.Array},
		{Kind: record.Number, Value: []byte("1")},
		{Kind: record.Null},
		{Kind: record.Number, Value: []byte("-0.5")},
		{Kind: record.End},
		{Name: "files", Kind: record.Array},
		{Kind: record.Object},
		{Name: "name_hash", Kind: record.String, Value: []byte("0x01")},
		{Kind: record.End},
		{Kind: record.End},
		{Name: "not_a_field", Kind: record.Number, Value: []byte("1")},
	}
	var s Fields
	setFields(&s, fs, &slab{})
	if s.Sender == nil || *s.Sender != 3 || s.Text == nil || *s.Text != "hi \"x\"" || s.GameTime == nil || *s.GameTime != 12.5 ||
		s.Cloak == nil || !*s.Cloak || len(s.Forward) != 3 || s.Forward[0] != 1 || s.Forward[1] == s.Forward[1] || s.Forward[2] != -0.5 {
		t.Fatalf("%+v", s)
	}
	if s.Files == nil || *s.Files != `[{"name_hash":"0x01"}]` {
		t.Fatalf("files: %v", s.Files)
	}
	if s.Object != nil {
		t.Error("a field the payload lacks is not null")
	}
}
