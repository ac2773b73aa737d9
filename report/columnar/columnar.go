// Package columnar writes decoded traffic as Apache Parquet, one row per
// transport message, for data engines (DuckDB, Spark, pandas): a season of
// captures becomes one table to query.
//
// Rows are built from the records of `bcdump read --format json`
// (render.JSON), so the two always agree: the row count is the number of
// messages in the JSON records, and every value is the JSON one. The
// decoded fields are kept whole as JSON text (the fields column) and the
// ones most queries need have typed columns of their own. It uses
// github.com/parquet-go/parquet-go (pure Go): a Parquet writer is a
// columnar encoder with page statistics, dictionary and compression that
// is not worth writing here.
//
// It imports report/render (the JSON records) and dissect; no other
// report package.
package columnar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/render"
)

// Row is one transport message. Optional columns are null where the
// message has no such value.
type Row struct {
	File       string `parquet:"file,dict"`
	Frame      int64  `parquet:"frame"`
	Time       int64  `parquet:"time,timestamp(nanosecond:utc)"`
	Flow       string `parquet:"flow,dict"` // "client server", the flow's endpoints
	Direction  string `parquet:"direction,dict"`
	Src        string `parquet:"src,dict"`
	Dst        string `parquet:"dst,dict"`
	Peer       *int32 `parquet:"peer,optional"` // byte 0, the sender's peer id
	Index      int32  `parquet:"msg_index"`     // the message's place in its datagram
	Type       int32  `parquet:"type"`
	TypeName   string `parquet:"type_name,dict"`
	Seq        *int32 `parquet:"seq,optional"`
	Reliable   bool   `parquet:"reliable"`
	Ordered    bool   `parquet:"ordered"`
	Fragment   bool   `parquet:"fragment"`
	FragIdx    *int32 `parquet:"frag_idx,optional"`
	FragTotal  *int32 `parquet:"frag_total,optional"`
	Retransmit bool   `parquet:"retransmit"`
	// Opcode and the fields are the message's own game payload, or, on the
	// fragment that completed a message, the reassembled one's.
	Opcode      *int32   `parquet:"opcode,optional"`
	OpcodeName  *string  `parquet:"opcode_name,optional,dict"`
	Reassembled bool     `parquet:"reassembled"`
	PayloadLen  *int32   `parquet:"payload_len,optional"`
	Fields      *string  `parquet:"fields,optional"`
	Malformed   bool     `parquet:"malformed"`
	Object      *string  `parquet:"object,optional,dict"`
	ObjectName  *string  `parquet:"object_name,optional,dict"`
	GameTime    *float64 `parquet:"game_time,optional"`
	Speed       *float64 `parquet:"speed,optional"`
	Text        *string  `parquet:"text,optional"`
	// Anomalies are the codes raised on the message (those on the whole
	// datagram go with its first message).
	Anomalies []string `parquet:"anomalies,list"`
}

// Writer is a render.Reporter writing Parquet rows to w.
type Writer struct {
	w    *parquet.GenericWriter[Row]
	json *render.JSON
	buf  bytes.Buffer
	file string
	rows []Row
	n    int
}

const batch = 4096

// NewWriter starts a Parquet file on w; Close completes it (w is not
// closed). Finish, at the end of each capture, only writes the rows
// buffered, so one file holds the rows of several captures.
func NewWriter(w io.Writer) *Writer {
	c := &Writer{w: parquet.NewGenericWriter[Row](w, parquet.Compression(&zstd.Codec{}))}
	c.json = render.NewJSON(&c.buf, true)
	return c
}

var (
	_ render.Reporter   = (*Writer)(nil)
	_ render.FileMarker = (*Writer)(nil)
)

// StartFile names the capture the rows that follow come from.
func (c *Writer) StartFile(name string) error {
	c.file = name
	return nil
}

// Datagram adds a row per message of dg.
func (c *Writer) Datagram(dg *dissect.Datagram) error {
	c.buf.Reset()
	if err := c.json.Datagram(dg); err != nil {
		return err
	}
	if err := c.add(bytes.TrimSpace(c.buf.Bytes())); err != nil {
		return err
	}
	if len(c.rows) >= batch {
		return c.flush()
	}
	return nil
}

// Events are not messages.
func (c *Writer) Events([]dissect.Event) error { return nil }

// Finish writes the rows buffered.
func (c *Writer) Finish([]dissect.Event) error { return c.flush() }

// Close writes the rows left and the file's footer.
func (c *Writer) Close() error {
	if err := c.flush(); err != nil {
		return err
	}
	return c.w.Close()
}

// Rows is the number of rows written so far.
func (c *Writer) Rows() int { return c.n }

func (c *Writer) flush() error {
	if len(c.rows) == 0 {
		return nil
	}
	if _, err := c.w.Write(c.rows); err != nil {
		return err
	}
	c.n += len(c.rows)
	c.rows = c.rows[:0]
	return nil
}

// record is what a row takes from a JSON datagram record.
type record struct {
	Frame     int64       `json:"frame"`
	Time      time.Time   `json:"time"`
	Src       string      `json:"src"`
	Dst       string      `json:"dst"`
	Dir       string      `json:"dir"`
	PeerID    *int32      `json:"peer_id"`
	Messages  []message   `json:"messages"`
	Anomalies []anomalyJS `json:"anomalies"`
}

type message struct {
	payload
	Type        int32    `json:"type"`
	TypeName    string   `json:"type_name"`
	Seq         *int32   `json:"seq"`
	Reliable    bool     `json:"reliable"`
	Ordered     bool     `json:"ordered"`
	Fragment    bool     `json:"fragment"`
	FragIdx     *int32   `json:"frag_idx"`
	FragTotal   *int32   `json:"frag_total"`
	Retransmit  bool     `json:"retransmit"`
	Reassembled *payload `json:"reassembled"`
}

type payload struct {
	Opcode     *int32          `json:"opcode"`
	OpcodeName *string         `json:"opcode_name"`
	PayloadLen *int32          `json:"payload_len"`
	Len        *int32          `json:"len"`
	Fields     json.RawMessage `json:"fields"`
}

type anomalyJS struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Msg      *int   `json:"msg"`
}

// common are the fields with typed columns.
type common struct {
	Object     *string  `json:"object"`
	ObjectName *string  `json:"object_name"`
	GameTime   *float64 `json:"game_time"`
	Speed      *float64 `json:"speed"`
	Text       *string  `json:"text"`
}

func (c *Writer) add(line []byte) error {
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		return fmt.Errorf("parquet: a record bcdump rendered does not parse: %w", err)
	}
	flow := r.Src + " " + r.Dst
	if r.Dir == "s2c" {
		flow = r.Dst + " " + r.Src
	}
	for i := range r.Messages {
		m := &r.Messages[i]
		row := Row{File: c.file, Frame: r.Frame, Time: r.Time.UnixNano(), Flow: flow, Direction: r.Dir,
			Src: r.Src, Dst: r.Dst, Peer: r.PeerID, Index: int32(i), Type: m.Type, TypeName: m.TypeName,
			Seq: m.Seq, Reliable: m.Reliable, Ordered: m.Ordered, Fragment: m.Fragment, FragIdx: m.FragIdx,
			FragTotal: m.FragTotal, Retransmit: m.Retransmit, Anomalies: []string{}}
		p := &m.payload
		if m.Reassembled != nil {
			p, row.Reassembled = m.Reassembled, true
			p.PayloadLen = p.Len
		}
		row.Opcode, row.OpcodeName, row.PayloadLen = p.Opcode, p.OpcodeName, p.PayloadLen
		if len(p.Fields) > 0 && string(p.Fields) != "null" {
			s := string(p.Fields)
			row.Fields = &s
			var f common
			if json.Unmarshal(p.Fields, &f) == nil {
				row.Object, row.ObjectName, row.GameTime, row.Speed, row.Text = f.Object, f.ObjectName, f.GameTime, f.Speed, f.Text
			}
		}
		for _, a := range r.Anomalies {
			if a.Msg != nil && *a.Msg == i || a.Msg == nil && i == 0 {
				row.Anomalies = append(row.Anomalies, a.Code)
			}
			if a.Msg != nil && *a.Msg == i && a.Severity == "error" && strings.HasPrefix(a.Code, "payload-") {
				row.Malformed = true
			}
		}
		c.rows = append(c.rows, row)
	}
	return nil
}
