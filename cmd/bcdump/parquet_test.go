package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/bcdump/bcdump/report/columnar"
)

// TestReadParquet: read -F parquet writes one row per message of read -F
// json, on every test capture, with the JSON's values.
func TestReadParquet(t *testing.T) {
	for _, c := range traceCaptures {
		t.Run(filepath.Base(c), func(t *testing.T) {
			out := filepath.Join(tempDir(t), "msgs.parquet")
			if code, o, errs := runCLI(t, nil, "read", "-F", "parquet", "-o", out, c); code != 0 || o != "" {
				t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
			}
			rows, err := parquet.ReadFile[columnar.Row](out)
			if err != nil {
				t.Fatal(err)
			}
			type msg struct {
				Type       int32   `json:"type"`
				Seq        *int32  `json:"seq"`
				OpcodeName *string `json:"opcode_name"`
			}
			var want []columnar.Row
			for _, line := range strings.Split(strings.TrimSpace(runOK(t, "read", "-F", "json", c)), "\n") {
				var dg struct {
					Frame    int64     `json:"frame"`
					Time     time.Time `json:"time"`
					Dir      string    `json:"dir"`
					Messages []msg     `json:"messages"`
				}
				if err := json.Unmarshal([]byte(line), &dg); err != nil {
					t.Fatal(err)
				}
				for i, m := range dg.Messages {
					want = append(want, columnar.Row{Frame: dg.Frame, Time: dg.Time.UnixNano(), Direction: dg.Dir,
						Index: int32(i), Type: m.Type, Seq: m.Seq, OpcodeName: m.OpcodeName})
				}
			}
			if len(rows) != len(want) || len(rows) == 0 {
				t.Fatalf("%d rows, %d messages in read -F json", len(rows), len(want))
			}
			str := func(p *string) string {
				if p == nil {
					return "<nil>"
				}
				return *p
			}
			num := func(p *int32) int32 {
				if p == nil {
					return -1
				}
				return *p
			}
			typed := 0
			for _, r := range rows {
				if str(r.OpcodeName) == "StateUpdate" && r.Object != nil && r.GameTime != nil && r.Fields != nil && strings.Contains(*r.Fields, *r.Object) {
					typed++
				}
			}
			if strings.Contains(c, "openbc-session-3") && typed == 0 {
				t.Error("no StateUpdate row has its object and game time columns")
			}
			for i, w := range want {
				r := rows[i]
				if r.Frame != w.Frame || r.Time != w.Time || r.Direction != w.Direction || r.Index != w.Index ||
					r.Type != w.Type || num(r.Seq) != num(w.Seq) || (w.OpcodeName != nil || !r.Reassembled) && str(r.OpcodeName) != str(w.OpcodeName) {
					t.Fatalf("row %d: frame %d %d %s #%d type %d seq %d %s, want frame %d %d %s #%d type %d seq %d %s", i,
						r.Frame, r.Time, r.Direction, r.Index, r.Type, num(r.Seq), str(r.OpcodeName),
						w.Frame, w.Time, w.Direction, w.Index, w.Type, num(w.Seq), str(w.OpcodeName))
				}
			}
		})
	}
}

func TestReadParquetFlags(t *testing.T) {
	for _, args := range [][]string{
		{"read", "-F", "parquet", "../../testdata/sample.pcap"},
		{"read", "-F", "parquet", "-o", "-", "../../testdata/sample.pcap"},
		{"read", "-o", "x.parquet", "../../testdata/sample.pcap"},
		{"read", "-F", "parquet", "-o", "../../testdata/sample.pcap", "../../testdata/sample.pcap"},
	} {
		if code, _, _ := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}
