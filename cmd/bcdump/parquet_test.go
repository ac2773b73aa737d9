package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/bcdump/bcdump/report/columnar"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// jsonTraceRow is what the tests take of read -F json, per expected row.
type jsonTraceRow struct {
	kind       string
	frame      int64
	index      int
	malformed  bool
	ack        string
	ackedFrame int64
	rtt        *float64
}

// jsonTraceRows are the rows read -F parquet must write for c, worked out
// from read -F json independently of the writer: one per message, one per
// datagram without messages; malformed where a payload anomaly of error
// severity names the message.
func jsonTraceRows(t *testing.T, c string) []jsonTraceRow {
	t.Helper()
	var rows []jsonTraceRow
	for _, line := range strings.Split(strings.TrimSpace(runOK(t, "read", "-F", "json", c)), "\n") {
		var dg struct {
			Kind     string `json:"kind"`
			Frame    int64  `json:"frame"`
			Messages []struct {
				Ack        string   `json:"ack"`
				AckedFrame int64    `json:"acked_frame"`
				RTT        *float64 `json:"rtt_ms"`
			} `json:"messages"`
			Anomalies []struct {
				Code     string `json:"code"`
				Severity string `json:"severity"`
				Msg      *int   `json:"msg"`
			} `json:"anomalies"`
		}
		if err := json.Unmarshal([]byte(line), &dg); err != nil {
			t.Fatal(err)
		}
		switch {
		case dg.Kind == "summary":
			continue
		case dg.Kind == "gamespy":
			rows = append(rows, jsonTraceRow{kind: "gamespy", frame: dg.Frame, index: -1})
			continue
		case len(dg.Messages) == 0:
			rows = append(rows, jsonTraceRow{kind: "datagram", frame: dg.Frame, index: -1})
			continue
		}
		for i, m := range dg.Messages {
			r := jsonTraceRow{kind: "message", frame: dg.Frame, index: i, ack: m.Ack, ackedFrame: m.AckedFrame, rtt: m.RTT}
			for _, a := range dg.Anomalies {
				code, _ := anomaly.Parse(a.Code)
				if a.Msg != nil && *a.Msg == i && a.Severity == "error" && code.Group() == anomaly.Payload {
					r.malformed = true
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// TestReadParquet: read -F parquet writes one row per message and one per
// datagram without messages, on every test capture; malformed rows are
// the messages with an error payload anomaly; ACK rows carry the acked
// frame and the RTT; file is set with one capture too.
func TestReadParquet(t *testing.T) {
	for _, c := range parquetCaptures(t) {
		t.Run(filepath.Base(c), func(t *testing.T) {
			out := filepath.Join(tempDir(t), "msgs.parquet")
			if code, o, errs := runCLI(t, nil, "read", "-F", "parquet", "-o", out, c); code != 0 || o != "" {
				t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
			}
			rows, err := parquet.ReadFile[columnar.Row](out)
			if err != nil {
				t.Fatal(err)
			}
			want := jsonTraceRows(t, c)
			if len(rows) != len(want) || len(rows) == 0 {
				t.Fatalf("%d rows, want %d (messages + datagrams without messages)", len(rows), len(want))
			}
			malformed, acks := 0, 0
			for i, w := range want {
				r := rows[i]
				idx := -1
				if r.Index != nil {
					idx = int(*r.Index)
				}
				if r.Kind != w.kind || r.Frame != w.frame || idx != w.index || r.Malformed != w.malformed {
					t.Fatalf("row %d: %s frame %d #%d malformed %v, want %+v", i, r.Kind, r.Frame, idx, r.Malformed, w)
				}
				if r.File != c {
					t.Fatalf("row %d: file %q, want %q", i, r.File, c)
				}
				if w.malformed {
					malformed++
				}
				if w.ack != "" {
					acks++
					if r.Ack == nil || *r.Ack != w.ack || (r.AckedFrame == nil) != (w.ackedFrame == 0) ||
						r.AckedFrame != nil && *r.AckedFrame != w.ackedFrame || (r.RTTMs == nil) != (w.rtt == nil) ||
						r.RTTMs != nil && *r.RTTMs != *w.rtt {
						t.Fatalf("row %d: ACK %v %v %v, want %+v", i, r.Ack, r.AckedFrame, r.RTTMs, w)
					}
				}
			}
			t.Logf("%d rows, %d malformed, %d ACKs", len(rows), malformed, acks)
			if strings.Contains(c, "openbc-session-3") && (malformed == 0 || acks == 0) {
				t.Errorf("session 3: %d malformed rows, %d ACK rows", malformed, acks)
			}
		})
	}
}

// TestReadParquetFolder: -o DIR/ writes one file per capture under
// DIR/file=NAME/, each with its own rows and file column, never over an
// input.
func TestReadParquetFolder(t *testing.T) {
	caps := []string{"../../testdata/sample.pcap", "../../testdata/captures/openbc-session-3.pcap"}
	dir := filepath.Join(tempDir(t), "out") + string(filepath.Separator)
	if code, o, errs := runCLI(t, nil, append([]string{"read", "-F", "parquet", "-o", dir}, caps...)...); code != 0 || o != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, o, errs)
	}
	for _, c := range caps {
		name := filepath.Base(c)
		rows, err := parquet.ReadFile[columnar.Row](filepath.Join(dir, "file="+name, "part-0.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if want := len(jsonTraceRows(t, c)); len(rows) != want {
			t.Errorf("%s: %d rows, want %d", name, len(rows), want)
		}
		for _, r := range rows {
			if r.File != name {
				t.Fatalf("%s: file column %q", name, r.File)
			}
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%d entries in the folder, want 2", len(ents))
	}
}

func TestReadParquetFlags(t *testing.T) {
	// A folder holding the capture: -o naming the capture inside it must
	// be refused (the same-file rule sees the folder's captures).
	d := tempDir(t)
	b, err := os.ReadFile("../../testdata/sample.pcap")
	if err != nil {
		t.Fatal(err)
	}
	inDir := filepath.Join(d, "game.pcap")
	if err := os.WriteFile(inDir, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"read", "-F", "parquet", "../../testdata/sample.pcap"},
		{"read", "-F", "parquet", "-o", "-", "../../testdata/sample.pcap"},
		{"read", "-o", "x.parquet", "../../testdata/sample.pcap"},
		{"read", "-F", "parquet", "-o", "../../testdata/sample.pcap", "../../testdata/sample.pcap"},
		{"read", "-F", "parquet", "-o", inDir, d},
	} {
		if code, _, _ := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
	if got, _ := os.ReadFile(inDir); string(got) != string(b) {
		t.Error("the capture in the folder was overwritten")
	}
}

// TestParquetFlowBytes: the Parquet writer's memory comes out of the flow
// bound, at most a quarter of it.
func TestParquetFlowBytes(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{0, 112 << 20},
		{144 << 20, 112 << 20},
		{1 << 30, 1<<30 - 32<<20},
		{64 << 20, 48 << 20},
		{4 << 20, 3 << 20},
	} {
		if got := parquetFlowBytes(c.in); got != c.want {
			t.Errorf("parquetFlowBytes(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
