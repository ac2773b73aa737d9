package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport"

	"github.com/bcdump/bcdump/report/columnar"
)

// parquetOutput is read's -F parquet -o FILE or -o DIR/, written under
// the rules of package outfile: each file is put in place once its rows
// are complete, so it is whole or not there, and never over an input.
//
// -o FILE writes one file with the rows of every capture (the file
// column tells them apart). -o DIR/ (a name ending in a separator, or an
// existing folder) writes one file per capture, DIR/file=NAME/part-0.parquet
// (Hive partitioning: DuckDB, Spark and Polars read the folder as one
// table with a file column).
//
// A file holds at most parquetMaxRows rows, so that the footer the writer
// keeps until the file is complete stays bounded: in folder mode a capture
// with more goes on in part-1.parquet, part-2.parquet and so on in its
// partition folder (each put in place whole when it is full); -o FILE
// stops with an error instead, and the file is not left behind.
type parquetOutput struct {
	s      *streams
	path   string
	dir    bool
	inputs []string

	f    *outfile.File
	w    *columnar.Writer
	cur  string // the file being written
	used map[string]bool

	// Folder mode: the partition being written, its value and the
	// number of its part file.
	sub, value string
	part       int
}

// parquetMaxRows is the most rows one Parquet file takes. The writer
// keeps each row group's footer metadata (a column chunk, column index
// and offset index for each of some 130 columns) until the file is
// complete: about 5.3 bytes a row, some 330 KiB a row group of
// columnar.RowGroupRows (report/columnar TestWriterMemoryBounded). 48 row
// groups, 3,145,728 rows (a million flows' 3 million rows still fit one
// file), bound it at about 16 MiB, which with the writer's buffers keeps
// it within parquetReserve. A variable so that the
// tests can roll over at a few rows.
var parquetMaxRows = 48 * columnar.RowGroupRows

// parquetReserve is the part of --flow-memory the Parquet writer takes
// from the flow tracker: its buffers (the row group being built, the
// column pages, the zstd encoder: about 17 MiB measured) and the file's
// footer metadata, which grows by about 5 bytes a row (issue 38) up to
// some 16 MiB at parquetMaxRows rows, where a new file starts. With the
// flows' state and the writer inside one bound, the soft memory limit
// (--flow-memory plus memoryHeadroom) holds what `read -F json` holds.
const parquetReserve = 32 << 20

// parquetFlowBytes is the flow tracker's bound when the writer's memory
// comes out of flowBytes (--flow-memory; 0 for the default): at most a
// quarter of it goes to the writer.
func parquetFlowBytes(flowBytes int) int {
	if flowBytes <= 0 {
		flowBytes = transport.DefaultMaxFlowBytes
	}
	return flowBytes - min(parquetReserve, flowBytes/4)
}

// startParquet starts the output when format is parquet (nil otherwise).
// inputs are the captures the run reads (folders expanded).
func startParquet(s *streams, format, out string, inputs []string) (*parquetOutput, error) {
	if format != "parquet" {
		if out != "" {
			return nil, errors.New("-o names the file -F parquet writes; the other formats print to stdout")
		}
		return nil, nil
	}
	if out == "" || out == "-" {
		return nil, errors.New("-F parquet needs -o FILE or -o DIR/ (Parquet is not written to stdout)")
	}
	p := &parquetOutput{s: s, path: out, inputs: inputs, used: map[string]bool{}}
	if st, err := os.Stat(out); strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) || err == nil && st.IsDir() {
		p.dir = true
		return p, nil
	}
	f, err := outfile.Create(out, s.outputRules(inputs...))
	if err != nil {
		return nil, fmt.Errorf("-o: %w", err)
	}
	p.f, p.cur = f, out
	p.w = columnar.NewWriter(f, "")
	return p, nil
}

// partName returns the Hive partition of a capture: its base name, made
// unique within the run (a second x.pcap from another folder is
// x.pcap~2), and that name as a folder, with the characters a partition
// path cannot hold escaped as Hive does (%XX).
func (p *parquetOutput) partName(name string) (value, folder string) {
	base := filepath.Base(name)
	value = base
	for i := 2; p.used[value]; i++ {
		value = fmt.Sprintf("%s~%d", base, i)
	}
	p.used[value] = true
	var b strings.Builder
	for _, c := range []byte(value) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(`"#%'*/:=?\{}[]^`, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return value, "file=" + b.String()
}

// StartFile names the capture the rows that follow come from; in folder
// mode it completes the previous capture's file and starts its own.
func (p *parquetOutput) StartFile(name string) error {
	if !p.dir {
		return p.w.StartFile(name)
	}
	if err := p.commitOne(); err != nil {
		return err
	}
	value, folder := p.partName(name)
	sub := filepath.Join(p.path, folder)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	p.sub, p.value, p.part = sub, value, 0
	return p.startPart()
}

// startPart starts the part file p.part of the partition p.sub.
func (p *parquetOutput) startPart() error {
	path := filepath.Join(p.sub, fmt.Sprintf("part-%d.parquet", p.part))
	f, err := outfile.Create(path, p.s.outputRules(p.inputs...))
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	p.f, p.cur = f, path
	// The file column holds the partition's value, so a reader that
	// takes it from the path and one that takes it from the file agree.
	p.w = columnar.NewWriter(f, p.value)
	return nil
}

func (p *parquetOutput) Datagram(dg *dissect.Datagram) error {
	if p.w == nil {
		return errors.New("parquet: a datagram before its capture was named")
	}
	if p.w.Rows() >= parquetMaxRows {
		if !p.dir {
			return fmt.Errorf("-o %s: more than %d rows, the most one Parquet file holds here (its footer is kept in memory until the end); use -o DIR/ to write the rows in part files", p.cur, parquetMaxRows)
		}
		if err := p.commitOne(); err != nil {
			return err
		}
		p.part++
		if err := p.startPart(); err != nil {
			return err
		}
	}
	return p.w.Datagram(dg)
}

func (p *parquetOutput) Events(ev []dissect.Event) error { return nil }

func (p *parquetOutput) Finish(end []dissect.Event) error {
	if p.w == nil {
		return nil
	}
	return p.w.Finish(end)
}

// commitOne completes the file being written and puts it in place.
func (p *parquetOutput) commitOne() error {
	if p.w == nil {
		return nil
	}
	err := p.w.Close()
	if err == nil {
		err = p.f.Commit()
	}
	p.w = nil
	if err != nil {
		return fmt.Errorf("-o %s: %w", p.cur, err)
	}
	return nil
}

// commit completes the last file and puts it in place.
func (p *parquetOutput) commit() error {
	if p == nil {
		return nil
	}
	return p.commitOne()
}

// abort drops the temporary file unless commit put it in place
// (outfile.File.Abort does nothing after Commit).
func (p *parquetOutput) abort() {
	if p != nil && p.f != nil {
		p.f.Abort()
	}
}
