package main

import (
	"context"
	"encoding/json"
	"fmt"
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

// parquetSchema is the schema help traces documents, column by column.
var parquetSchema = func() []parquetColumn {
	str, i32, i64 := schema.StringLogicalType{}, schema.NewIntLogicalType(32, true), schema.NewIntLogicalType(64, true)
	return []parquetColumn{
		{"file", pq.Types.ByteArray, str, false},
		{"frame", pq.Types.Int64, i64, false},
		{"time", pq.Types.Int64, schema.NewTimestampLogicalType(true, schema.TimeUnitNanos), false},
		{"flow", pq.Types.ByteArray, str, false},
		{"direction", pq.Types.ByteArray, str, false},
		{"src", pq.Types.ByteArray, str, false},
		{"dst", pq.Types.ByteArray, str, false},
		{"peer", pq.Types.Int32, i32, true},
		{"msg_index", pq.Types.Int32, i32, false},
		{"type", pq.Types.Int32, i32, false},
		{"type_name", pq.Types.ByteArray, str, false},
		{"seq", pq.Types.Int32, i32, true},
		{"reliable", pq.Types.Boolean, nil, false},
		{"ordered", pq.Types.Boolean, nil, false},
		{"fragment", pq.Types.Boolean, nil, false},
		{"frag_idx", pq.Types.Int32, i32, true},
		{"frag_total", pq.Types.Int32, i32, true},
		{"retransmit", pq.Types.Boolean, nil, false},
		{"opcode", pq.Types.Int32, i32, true},
		{"opcode_name", pq.Types.ByteArray, str, true},
		{"reassembled", pq.Types.Boolean, nil, false},
		{"payload_len", pq.Types.Int32, i32, true},
		{"fields", pq.Types.ByteArray, str, true},
		{"malformed", pq.Types.Boolean, nil, false},
		{"object", pq.Types.ByteArray, str, true},
		{"object_name", pq.Types.ByteArray, str, true},
		{"game_time", pq.Types.Double, nil, true},
		{"speed", pq.Types.Double, nil, true},
		{"text", pq.Types.ByteArray, str, true},
		{"anomalies.list.element", pq.Types.ByteArray, str, false},
	}
}()

// TestParquetIndependentReader reads what read -F parquet writes with
// Apache Arrow's Parquet reader, an implementation independent of the
// writer's library: the schema is the documented one, and the rows are
// the messages of read -F json with their values.
func TestParquetIndependentReader(t *testing.T) {
	for _, c := range parquetCaptures(t) {
		t.Run(filepath.Base(c), func(t *testing.T) {
			out := filepath.Join(tempDir(t), "msgs.parquet")
			if code, o, errs := runCLI(t, nil, "read", "-F", "parquet", "-o", out, c); code != 0 || o != "" {
				t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
			}
			want := jsonMessages(t, c)
			rd, err := file.OpenParquetFile(out, false)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if rd.NumRows() != int64(len(want)) || len(want) == 0 {
				t.Fatalf("footer: %d rows, %d messages in read -F json", rd.NumRows(), len(want))
			}
			checkParquetSchema(t, rd.MetaData().Schema)
			fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			if tbl.NumRows() != int64(len(want)) {
				t.Fatalf("table: %d rows, want %d", tbl.NumRows(), len(want))
			}
			got := arrowRows(t, tbl)
			for i, w := range want {
				g := got[i]
				if g.fields != nil && !json.Valid([]byte(*g.fields)) {
					t.Fatalf("row %d: fields is not JSON: %s", i, *g.fields)
				}
				if !reflect.DeepEqual(g.comparable(), w.comparable()) {
					t.Fatalf("row %d:\n got %+v\nwant %+v", i, g.comparable(), w.comparable())
				}
			}
		})
	}
}

func checkParquetSchema(t *testing.T, sc *schema.Schema) {
	t.Helper()
	if sc.NumColumns() != len(parquetSchema) {
		t.Errorf("%d leaf columns, %d documented", sc.NumColumns(), len(parquetSchema))
	}
	for i, c := range sc.Columns() {
		if i >= len(parquetSchema) {
			t.Errorf("column %s is not documented", c.Path())
			continue
		}
		w := parquetSchema[i]
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
			t.Errorf("column %d: %s %s %s optional %v, want %s %s %s optional %v", i,
				c.Path(), c.PhysicalType(), c.LogicalType(), optional, w.path, w.phys, wl, w.optional)
		}
	}
}

// pqRow is what the test compares of a row.
type pqRow struct {
	frame      int64
	time       int64 // ns since the epoch
	direction  string
	index      int32
	typ        int32
	seq        *int32
	opcode     *int32
	opcodeName *string
	fields     *string
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
	return []any{r.frame, time.Unix(0, r.time).UTC().Format(time.RFC3339Nano), r.direction, r.index, r.typ,
		deref(r.seq), deref(r.opcode), deref(r.opcodeName), fields, fmt.Sprint(r.anomalies)}
}

// jsonMessages are the messages of read -F json on c as rows: the
// reassembled payload's opcode and fields on the fragment that completed
// it, a datagram's anomalies on the message they name or its first.
func jsonMessages(t *testing.T, c string) []pqRow {
	t.Helper()
	type payload struct {
		Opcode     *int32          `json:"opcode"`
		OpcodeName *string         `json:"opcode_name"`
		Fields     json.RawMessage `json:"fields"`
	}
	var rows []pqRow
	for _, line := range strings.Split(strings.TrimSpace(runOK(t, "read", "-F", "json", c)), "\n") {
		var dg struct {
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
		for i, m := range dg.Messages {
			p := m.payload
			if m.Reassembled != nil {
				p = *m.Reassembled
			}
			r := pqRow{frame: dg.Frame, time: dg.Time.UnixNano(), direction: dg.Dir, index: int32(i), typ: m.Type,
				seq: m.Seq, opcode: p.Opcode, opcodeName: p.OpcodeName, anomalies: []string{}}
			if len(p.Fields) > 0 && string(p.Fields) != "null" {
				s := string(p.Fields)
				r.fields = &s
			}
			for _, a := range dg.Anomalies {
				if a.Msg != nil && *a.Msg == i || a.Msg == nil && i == 0 {
					r.anomalies = append(r.anomalies, a.Code)
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
	col("frame", func(r int, a arrow.Array, i int) { rows[r].frame = a.(*array.Int64).Value(i) })
	col("time", func(r int, a arrow.Array, i int) {
		if u := a.DataType().(*arrow.TimestampType); u.Unit != arrow.Nanosecond || u.TimeZone != "UTC" {
			t.Fatalf("time is %s, want timestamp[ns, UTC]", u)
		}
		rows[r].time = int64(a.(*array.Timestamp).Value(i))
	})
	col("direction", func(r int, a arrow.Array, i int) { rows[r].direction = *str(a, i) })
	col("msg_index", func(r int, a arrow.Array, i int) { rows[r].index = *i32(a, i) })
	col("type", func(r int, a arrow.Array, i int) { rows[r].typ = *i32(a, i) })
	col("seq", func(r int, a arrow.Array, i int) { rows[r].seq = i32(a, i) })
	col("opcode", func(r int, a arrow.Array, i int) { rows[r].opcode = i32(a, i) })
	col("opcode_name", func(r int, a arrow.Array, i int) { rows[r].opcodeName = str(a, i) })
	col("fields", func(r int, a arrow.Array, i int) { rows[r].fields = str(a, i) })
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
