package main

import (
	"errors"
	"fmt"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"

	"github.com/bcdump/bcdump/report/columnar"
)

// parquetOutput is read's -F parquet -o FILE, written under the rules of
// package outfile: put in place once every input was read, so the file is
// whole or not there, and never over an input.
type parquetOutput struct {
	path string
	f    *outfile.File
	w    *columnar.Writer
}

// startParquet starts the output when format is parquet (nil otherwise).
func startParquet(s *streams, format, out string, inputs []string) (*parquetOutput, error) {
	if format != "parquet" {
		if out != "" {
			return nil, errors.New("-o names the file -F parquet writes; the other formats print to stdout")
		}
		return nil, nil
	}
	if out == "" || out == "-" {
		return nil, errors.New("-F parquet needs -o FILE (Parquet is not written to stdout)")
	}
	f, err := outfile.Create(out, s.outputRules(inputs...))
	if err != nil {
		return nil, fmt.Errorf("-o: %w", err)
	}
	return &parquetOutput{path: out, f: f, w: columnar.NewWriter(f)}, nil
}

// commit completes the file and puts it in place.
func (p *parquetOutput) commit() error {
	if p == nil {
		return nil
	}
	err := p.w.Close()
	if err == nil {
		err = p.f.Commit()
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", p.path, err)
	}
	return nil
}

// abort drops the temporary file unless commit put it in place
// (outfile.File.Abort does nothing after Commit).
func (p *parquetOutput) abort() {
	if p != nil {
		p.f.Abort()
	}
}
