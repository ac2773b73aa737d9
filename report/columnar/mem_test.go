package columnar

import (
	"fmt"
	"runtime"
	"testing"
)

// synthRows appends n rows shaped like a game's messages (a few thousand
// flows, typed fields, fields_json, the odd anomaly) to c, as Datagram
// would, with values that vary from row to row.
func synthRows(c *Writer, from, n int) error {
	for i := from; i < from+n; i++ {
		flow := i % 5000
		src := fmt.Sprintf("10.%d.%d.%d:%d", flow>>16&255, flow>>8&255, flow&255, 1024+flow%40000)
		row := Row{File: c.file, Kind: KindMessage, Frame: int64(i + 1), Time: 1.7e18 + int64(i)*1e6,
			Flow: src + " 192.0.2.1:22101", Direction: "c2s", Src: src, Dst: "192.0.2.1:22101", Len: int32(40 + i%200)}
		row.Peer = c.vals.i32(int32(flow % 16))
		row.Index = c.vals.i32(int32(i % 3))
		row.Type, row.TypeName = c.vals.i32(0x32), c.vals.str("Reliable")
		row.Seq = c.vals.i32(int32(i & 0xffff))
		row.Reliable, row.Ordered = true, i%2 == 0
		row.PayloadLen = c.vals.i32(int32(20 + i%100))
		row.Opcode, row.OpcodeName = c.vals.i32(int32(i%40)), c.vals.str(fmt.Sprintf("Op%d", i%40))
		switch i % 4 {
		case 0:
			row.Fields.GameTime = c.vals.f64(float64(i) / 30)
			pos := c.vals.floats(3)
			pos[0], pos[1], pos[2] = float64(i%1000), float64(i%777)/3, -float64(i%555)
			row.Fields.Position = pos
		case 1:
			row.Fields.Text = c.vals.str(fmt.Sprintf("chat line %d from player %d", i, flow))
		case 2:
			row.Fields.Health = c.vals.i64(int64(i % 1000))
		}
		row.FieldsJSON = c.vals.str(fmt.Sprintf(`{"object":"0x%08x","value":%d}`, i*2654435761&0xffffffff, i%9973))
		row.Anomalies = []string{}
		if i%97 == 0 {
			row.Anomalies = []string{"retransmit-gap"}
		}
		c.rows = append(c.rows, row)
		if len(c.rows) >= batch {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestWriterMemoryBounded: what the writer holds while rows stream
// through it is its buffers (the row group being built, the page buffers,
// one zstd encoder), which do not grow with the row count; what does is
// the file's footer metadata (a column chunk per column and row group, a
// page index entry per page), which it must keep until Close. Issue 38:
// with row groups of 8,192 rows, pages of 8 KiB and parquet-go's zstd
// defaults the writer held 7 MiB after 100,000 rows of session 3 and
// 20 MiB after 400,000 (about 33 bytes a row), and some 60 MB more than
// `read -F json` in the million-flow export.
func TestWriterMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 655,360 rows")
	}
	if raceEnabled {
		t.Skip("the race detector's own allocations")
	}
	const n = RowGroupRows // one row group
	base := liveHeap()
	var w countWriter
	c := NewWriter(&w, "x.pcap")
	if err := synthRows(c, 0, n); err != nil {
		t.Fatal(err)
	}
	h1 := liveHeap() - base
	if err := synthRows(c, n, 9*n); err != nil {
		t.Fatal(err)
	}
	h10 := liveHeap() - base
	runtime.KeepAlive(c)
	perRow := float64(h10-h1) / float64(9*n)
	t.Logf("%d rows: writer holds %.1f MiB; %d rows: %.1f MiB (%.2f bytes a row more); %d bytes written",
		n, float64(h1)/(1<<20), 10*n, float64(h10)/(1<<20), perRow, w.n)
	if h1 > 24<<20 {
		t.Errorf("the writer holds %.1f MiB after %d rows, want under 24 MiB", float64(h1)/(1<<20), n)
	}
	if perRow > 8 {
		t.Errorf("the writer's memory grows %.2f bytes a row from %d to %d rows, want at most 8 (its footer metadata)", perRow, n, 10*n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
