package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/columnar"
)

// parquetCaptures are the captures whose Parquet an independent reader
// checks: every test capture.
func parquetCaptures(t *testing.T) []string {
	t.Helper()
	caps, err := filepath.Glob("../../testdata/captures/*.pcap")
	if err != nil || len(caps) == 0 {
		t.Fatalf("no captures in testdata/captures: %v", err)
	}
	return append([]string{"../../testdata/sample.pcap", "../../testdata/unacked-fragment.pcap"}, caps...)
}

// parquetColumn is a documented column as the file's schema must have it.
type parquetColumn struct {
	path     string // the leaf's path
	phys     pq.Type
	logical  schema.LogicalType // nil: none
	optional bool
}

// parquetSchema is the schema help parquet documents, column by column;
// the members of fields (one per field name of the layouts) are checked
// against the generator's table.
var parquetSchema = func() []parquetColumn {
	str, i32, i64 := schema.StringLogicalType{}, schema.NewIntLogicalType(32, true), schema.NewIntLogicalType(64, true)
	return []parquetColumn{
		{"file", pq.Types.ByteArray, str, false},
		{"kind", pq.Types.ByteArray, str, false},
		{"frame", pq.Types.Int64, i64, false},
		{"time", pq.Types.Int64, schema.NewTimestampLogicalType(true, schema.TimeUnitNanos), false},
		{"flow", pq.Types.ByteArray, str, false},
		{"direction", pq.Types.ByteArray, str, false},
		{"src", pq.Types.ByteArray, str, false},
		{"dst", pq.Types.ByteArray, str, false},
		{"len", pq.Types.Int32, i32, false},
		{"peer", pq.Types.Int32, i32, true},
		{"msg_index", pq.Types.Int32, i32, true},
		{"type", pq.Types.Int32, i32, true},
		{"type_name", pq.Types.ByteArray, str, true},
		{"seq", pq.Types.Int32, i32, true},
		{"reliable", pq.Types.Boolean, nil, false},
		{"ordered", pq.Types.Boolean, nil, false},
		{"fragment", pq.Types.Boolean, nil, false},
		{"frag_idx", pq.Types.Int32, i32, true},
		{"frag_total", pq.Types.Int32, i32, true},
		{"retransmit", pq.Types.Boolean, nil, false},
		{"ack", pq.Types.ByteArray, str, true},
		{"acked_frame", pq.Types.Int64, i64, true},
		{"rtt_ms", pq.Types.Double, nil, true},
		{"opcode", pq.Types.Int32, i32, true},
		{"opcode_name", pq.Types.ByteArray, str, true},
		{"reassembled", pq.Types.Boolean, nil, false},
		{"payload_len", pq.Types.Int32, i32, true},
		{"fields", 0, nil, false}, // the struct's members: checkFieldsSchema
		{"fields_json", pq.Types.ByteArray, str, true},
		{"malformed", pq.Types.Boolean, nil, false},
		{"text", pq.Types.ByteArray, str, true},
		{"anomalies.list.element", pq.Types.ByteArray, str, false},
	}
}()

// TestParquetIndependentReader reads what read -F parquet writes with
// Apache Arrow's Parquet reader, an implementation independent of the
// writer's library: the schema is the documented one, the rows are those
// of read -F json with their values, and fields.text of every Chat is
// the JSON's.
func TestParquetIndependentReader(t *testing.T) {
	chats := 0
	for _, c := range parquetCaptures(t) {
		t.Run(filepath.Base(c), func(t *testing.T) {
			out := filepath.Join(tempDir(t), "msgs.parquet")
			if code, o, errs := runCLI(t, nil, "read", "-F", "parquet", "-o", out, c); code != 0 || o != "" {
				t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
			}
			want := jsonRows(t, c)
			tbl := readArrow(t, out)
			defer tbl.Release()
			if tbl.NumRows() != int64(len(want)) {
				t.Fatalf("table: %d rows, want %d", tbl.NumRows(), len(want))
			}
			got := arrowRows(t, tbl)
			for i, w := range want {
				g := got[i]
				if !reflect.DeepEqual(g.comparable(), w.comparable()) {
					t.Fatalf("row %d:\n got %+v\nwant %+v", i, g.comparable(), w.comparable())
				}
				if w.opcodeName != nil && *w.opcodeName == "Chat" && w.text != nil {
					chats++
				}
			}
		})
	}
	if chats == 0 {
		t.Error("no Chat with a text in the test captures")
	}
}

// readArrow reads a Parquet file whole through Arrow, checking its schema.
func readArrow(t *testing.T, path string) arrow.Table {
	t.Helper()
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	checkParquetSchema(t, rd.MetaData().Schema)
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func checkParquetSchema(t *testing.T, sc *schema.Schema) {
	t.Helper()
	members := fieldsMembers(t)
	i := 0
	for _, w := range parquetSchema {
		if w.path == "fields" {
			i = checkFieldsSchema(t, sc, i, members)
			continue
		}
		if i >= sc.NumColumns() {
			t.Fatalf("column %s is missing", w.path)
		}
		c := sc.Column(i)
		i++
		optional := c.MaxDefinitionLevel() > c.MaxRepetitionLevel()
		if w.path == "anomalies.list.element" {
			// A required list of required strings: a list's only
			// definition level is the one of its repeated group.
			optional = c.MaxDefinitionLevel() != 1 || c.MaxRepetitionLevel() != 1
			if lt := c.SchemaNode().Parent().Parent().LogicalType(); !lt.Equals(schema.ListLogicalType{}) {
				t.Errorf("anomalies: logical type %s, want List", lt)
			}
		}
		wl := w.logical
		if wl == nil {
			wl = schema.NoLogicalType{}
		}
		if c.Path() != w.path || c.PhysicalType() != w.phys || !c.LogicalType().Equals(wl) || optional != w.optional {
			t.Errorf("column %d: %s %s %s optional %v, want %s %s %s optional %v", i-1,
				c.Path(), c.PhysicalType(), c.LogicalType(), optional, w.path, w.phys, wl, w.optional)
		}
	}
	if i != sc.NumColumns() {
		t.Errorf("%d leaf columns, %d documented", sc.NumColumns(), i)
	}
}

// checkFieldsSchema checks the members of fields from leaf i on: one per
// field name, nullable, typed by the layout; it returns the next leaf.
func checkFieldsSchema(t *testing.T, sc *schema.Schema, i int, members []fieldsMember) int {
	t.Helper()
	for _, m := range members {
		if i >= sc.NumColumns() {
			t.Fatalf("fields.%s is missing", m.Name)
		}
		c := sc.Column(i)
		i++
		path := "fields." + m.Name
		var phys pq.Type
		switch m.Type {
		case "*int64":
			phys = pq.Types.Int64
		case "*float64":
			phys = pq.Types.Double
		case "*bool":
			phys = pq.Types.Boolean
		case "*string":
			phys = pq.Types.ByteArray
		case "[]float64":
			phys, path = pq.Types.Double, path+".list.element"
		}
		if c.Path() != path || c.PhysicalType() != phys || c.MaxDefinitionLevel() < 1 {
			t.Errorf("column %d: %s %s, want %s %s nullable", i-1, c.Path(), c.PhysicalType(), path, phys)
		}
	}
	return i
}

// fieldsMember is one member of the fields struct: its field name and Go
// type.
type fieldsMember struct{ Name, Type string }

// fieldsMembers lists the members of columnar.Fields, checking that there
// is one per field name of the layouts, in their order.
func fieldsMembers(t *testing.T) []fieldsMember {
	t.Helper()
	var out []fieldsMember
	typ := reflect.TypeFor[columnar.Fields]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		out = append(out, fieldsMember{name, f.Type.String()})
	}
	names := dissect.Fields()
	if len(names) != len(out) {
		t.Fatalf("fields has %d members, the layouts %d field names", len(out), len(names))
	}
	for i, f := range names {
		if out[i].Name != f.Name {
			t.Fatalf("fields member %d is %s, want %s", i, out[i].Name, f.Name)
		}
	}
	return out
}

// pqRow is what the test compares of a row.
type pqRow struct {
	kind       string
	frame      int64
	time       int64 // ns since the epoch
	direction  string
	index      *int32
	typ        *int32
	seq        *int32
	opcode     *int32
	opcodeName *string
	fields     *string // fields_json
	text       *string // fields.text
	anomalies  []string
}

// comparable is r with the pointers followed and the fields JSON decoded.
func (r pqRow) comparable() []any {
	deref := func(p any) any {
		v := reflect.ValueOf(p)
		if v.IsNil() {
			return nil
		}
		return v.Elem().Interface()
	}
	var fields any
	if r.fields != nil {
		if err := json.Unmarshal([]byte(*r.fields), &fields); err != nil {
			fields = "not JSON: " + *r.fields
		}
	}
	return []any{r.kind, r.frame, time.Unix(0, r.time).UTC().Format(time.RFC3339Nano), r.direction, deref(r.index), deref(r.typ),
		deref(r.seq), deref(r.opcode), deref(r.opcodeName), fields, deref(r.text), fmt.Sprint(r.anomalies)}
}

// jsonRows are the rows of read -F json on c: one per message, with the
// reassembled payload's opcode and fields on the fragment that completed
// it, a datagram's anomalies on the message they name or its first; one
// per datagram without messages.
func jsonRows(t *testing.T, c string) []pqRow {
	t.Helper()
	type payload struct {
		Opcode     *int32          `json:"opcode"`
		OpcodeName *string         `json:"opcode_name"`
		Fields     json.RawMessage `json:"fields"`
	}
	var rows []pqRow
	for _, line := range strings.Split(strings.TrimSpace(runOK(t, "read", "-F", "json", c)), "\n") {
		var dg struct {
			Kind     string    `json:"kind"`
			Frame    int64     `json:"frame"`
			Time     time.Time `json:"time"`
			Dir      string    `json:"dir"`
			Messages []struct {
				payload
				Type        int32    `json:"type"`
				Seq         *int32   `json:"seq"`
				Reassembled *payload `json:"reassembled"`
			} `json:"messages"`
			Anomalies []struct {
				Code string `json:"code"`
				Msg  *int   `json:"msg"`
			} `json:"anomalies"`
		}
		if err := json.Unmarshal([]byte(line), &dg); err != nil {
			t.Fatal(err)
		}
		if dg.Kind == "summary" {
			continue
		}
		codes := func(i int) []string {
			out := []string{}
			for _, a := range dg.Anomalies {
				if a.Msg != nil && *a.Msg == i || a.Msg == nil && i == 0 {
					out = append(out, a.Code)
				}
			}
			return out
		}
		base := pqRow{frame: dg.Frame, time: dg.Time.UnixNano(), direction: dg.Dir}
		if dg.Kind == "gamespy" || len(dg.Messages) == 0 {
			r := base
			r.kind = "datagram"
			if dg.Kind == "gamespy" {
				r.kind = "gamespy"
			}
			r.anomalies = codes(0)
			rows = append(rows, r)
			continue
		}
		for i, m := range dg.Messages {
			p := m.payload
			if m.Reassembled != nil {
				p = *m.Reassembled
			}
			r := base
			idx, typ := int32(i), m.Type
			r.kind, r.index, r.typ, r.seq, r.opcode, r.opcodeName, r.anomalies = "message", &idx, &typ, m.Seq, p.Opcode, p.OpcodeName, codes(i)
			if len(p.Fields) > 0 && string(p.Fields) != "null" {
				s := string(p.Fields)
				r.fields = &s
				var f struct {
					Text *string `json:"text"`
				}
				if err := json.Unmarshal(p.Fields, &f); err == nil {
					r.text = f.Text
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// arrowRows are the rows of tbl, read column by column through Arrow.
func arrowRows(t *testing.T, tbl arrow.Table) []pqRow {
	t.Helper()
	rows := make([]pqRow, tbl.NumRows())
	col := func(name string, set func(row int, a arrow.Array, i int)) {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			t.Fatalf("no column %s", name)
		}
		row := 0
		for _, a := range tbl.Column(idx[0]).Data().Chunks() {
			for i := 0; i < a.Len(); i++ {
				set(row, a, i)
				row++
			}
		}
	}
	i32 := func(a arrow.Array, i int) *int32 {
		if a.IsNull(i) {
			return nil
		}
		v := a.(*array.Int32).Value(i)
		return &v
	}
	str := func(a arrow.Array, i int) *string {
		if a.IsNull(i) {
			return nil
		}
		v := a.(*array.String).Value(i)
		return &v
	}
	col("kind", func(r int, a arrow.Array, i int) { rows[r].kind = *str(a, i) })
	col("frame", func(r int, a arrow.Array, i int) { rows[r].frame = a.(*array.Int64).Value(i) })
	col("time", func(r int, a arrow.Array, i int) {
		if u := a.DataType().(*arrow.TimestampType); u.Unit != arrow.Nanosecond || u.TimeZone != "UTC" {
			t.Fatalf("time is %s, want timestamp[ns, UTC]", u)
		}
		rows[r].time = int64(a.(*array.Timestamp).Value(i))
	})
	col("direction", func(r int, a arrow.Array, i int) { rows[r].direction = *str(a, i) })
	col("msg_index", func(r int, a arrow.Array, i int) { rows[r].index = i32(a, i) })
	col("type", func(r int, a arrow.Array, i int) { rows[r].typ = i32(a, i) })
	col("seq", func(r int, a arrow.Array, i int) { rows[r].seq = i32(a, i) })
	col("opcode", func(r int, a arrow.Array, i int) { rows[r].opcode = i32(a, i) })
	col("opcode_name", func(r int, a arrow.Array, i int) { rows[r].opcodeName = str(a, i) })
	col("fields_json", func(r int, a arrow.Array, i int) { rows[r].fields = str(a, i) })
	// fields.text, as SELECT fields.text reads it: the struct's member.
	col("fields", func(r int, a arrow.Array, i int) {
		s := a.(*array.Struct)
		st := s.DataType().(*arrow.StructType)
		j, ok := st.FieldIdx("text")
		if !ok {
			t.Fatal("fields has no member text")
		}
		if s.IsNull(i) {
			return
		}
		rows[r].text = str(s.Field(j), i)
	})
	col("anomalies", func(r int, a arrow.Array, i int) {
		l := a.(*array.List)
		codes := l.ListValues().(*array.String)
		from, to := l.ValueOffsets(i)
		rows[r].anomalies = []string{}
		for j := from; j < to; j++ {
			rows[r].anomalies = append(rows[r].anomalies, codes.Value(int(j)))
		}
	})
	return rows
}

// TestParquetFolderIsOneTable: the files -o DIR/ writes for two captures
// read back, through Arrow, as one Hive-partitioned table: every file
// sits at DIR/file=VALUE/, its file column holds VALUE, and the schemas
// are the same, so the tables concatenate.
func TestParquetFolderIsOneTable(t *testing.T) {
	caps := []string{"../../testdata/sample.pcap", "../../testdata/captures/conformance.pcap"}
	dir := filepath.Join(tempDir(t), "season") + "/"
	if code, o, errs := runCLI(t, nil, append([]string{"read", "-F", "parquet", "-o", dir}, caps...)...); code != 0 || o != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
	}
	parts, err := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
	if err != nil || len(parts) != len(caps) {
		t.Fatalf("%d files under %s, want %d: %v", len(parts), dir, len(caps), err)
	}
	var first *arrow.Schema
	total, want := int64(0), 0
	for _, c := range caps {
		want += len(jsonRows(t, c))
	}
	for _, p := range parts {
		part := filepath.Base(filepath.Dir(p))
		value, ok := strings.CutPrefix(part, "file=")
		if !ok {
			t.Fatalf("%s: not a Hive partition folder", part)
		}
		tbl := readArrow(t, p)
		if first == nil {
			first = tbl.Schema()
		} else if !first.Equal(tbl.Schema()) {
			t.Errorf("%s: schema differs from the first file's", p)
		}
		total += tbl.NumRows()
		idx := tbl.Schema().FieldIndices("file")
		for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
			s := ch.(*array.String)
			for i := 0; i < s.Len(); i++ {
				if s.Value(i) != value {
					t.Fatalf("%s: file column %q, partition %q", p, s.Value(i), value)
				}
			}
		}
		tbl.Release()
	}
	if total != int64(want) {
		t.Errorf("%d rows in the folder, want %d", total, want)
	}
}

// TestParquetFolderRollsOver: with -o DIR/, a capture with more rows than
// one file holds (parquetMaxRows, lowered here) goes on in part-1,
// part-2 ... of its partition folder, each a whole file of at most the
// cap and one datagram's rows, and the parts read back through Arrow, in
// order, as the capture's rows, the same as -F json's.
func TestParquetFolderRollsOver(t *testing.T) {
	defer func(n int) { parquetMaxRows = n }(parquetMaxRows)
	parquetMaxRows = 100
	caps := []string{"../../testdata/sample.pcap", "../../testdata/captures/openbc-session-3.pcap"}
	dir := filepath.Join(tempDir(t), "season") + "/"
	if code, o, errs := runCLI(t, nil, append([]string{"read", "-F", "parquet", "-o", dir}, caps...)...); code != 0 || o != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
	}
	rolled := false
	for _, c := range caps {
		want := jsonRows(t, c)
		sub := filepath.Join(dir, "file="+filepath.Base(c))
		ents, err := os.ReadDir(sub)
		if err != nil {
			t.Fatal(err)
		}
		if n := (len(want) + parquetMaxRows - 1) / parquetMaxRows; len(ents) > n || len(ents) == 0 {
			t.Errorf("%s: %d files for %d rows, want 1 to %d", sub, len(ents), len(want), n)
		}
		rolled = rolled || len(ents) > 1
		var got []pqRow
		for i := range ents {
			p := filepath.Join(sub, fmt.Sprintf("part-%d.parquet", i))
			tbl := readArrow(t, p)
			rows := arrowRows(t, tbl)
			tbl.Release()
			if len(rows) == 0 || i < len(ents)-1 && len(rows) < parquetMaxRows || len(rows) > parquetMaxRows+64 {
				t.Errorf("%s: %d rows, cap %d", p, len(rows), parquetMaxRows)
			}
			got = append(got, rows...)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows in the parts, want %d", c, len(got), len(want))
		}
		for i, w := range want {
			if !reflect.DeepEqual(got[i].comparable(), w.comparable()) {
				t.Fatalf("%s row %d:\n got %+v\nwant %+v", c, i, got[i].comparable(), w.comparable())
			}
		}
	}
	if !rolled {
		t.Error("no capture went over the cap")
	}
}

// TestParquetFileRowCap: -o FILE refuses to go past parquetMaxRows rows
// with one line naming -o DIR/, exit 2, and leaves nothing behind.
func TestParquetFileRowCap(t *testing.T) {
	defer func(n int) { parquetMaxRows = n }(parquetMaxRows)
	parquetMaxRows = 100
	dir := tempDir(t)
	out := filepath.Join(dir, "msgs.parquet")
	code, o, errs := runCLI(t, nil, "read", "-F", "parquet", "-o", out, "../../testdata/captures/openbc-session-3.pcap")
	if code != 2 || o != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
	}
	t.Log(strings.TrimSpace(errs))
	if lines := strings.Split(strings.TrimSpace(errs), "\n"); len(lines) != 1 || !strings.Contains(errs, "use -o DIR/") || !strings.Contains(errs, "more than 100 rows") {
		t.Errorf("stderr %q, want one line saying more than 100 rows and to use -o DIR/", errs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind in %s: %v", dir, ents)
	}
}
