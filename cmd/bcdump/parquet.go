package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bcdump/bcdump/report/columnar"
)

// parquetOutput is read's -F parquet -o FILE: written under a temporary
// name in the file's directory and renamed into place once every input was
// read, so the file is whole or not there.
type parquetOutput struct {
	path string
	tmp  *os.File
	w    *columnar.Writer
	done bool
}

// startParquet starts the output when format is parquet (nil otherwise).
func startParquet(format, out string, inputs []string) (*parquetOutput, error) {
	if format != "parquet" {
		if out != "" {
			return nil, errors.New("-o names the file -F parquet writes; the other formats print to stdout")
		}
		return nil, nil
	}
	if out == "" || out == "-" {
		return nil, errors.New("-F parquet needs -o FILE (Parquet is not written to stdout)")
	}
	for _, in := range inputs {
		if same, _ := sameFile(in, out); same {
			return nil, fmt.Errorf("-o %s is an input", out)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", out, err)
	}
	return &parquetOutput{path: out, tmp: tmp, w: columnar.NewWriter(tmp)}, nil
}

// commit completes the file and puts it in place.
func (p *parquetOutput) commit() error {
	if p == nil {
		return nil
	}
	err := p.w.Close()
	if err == nil {
		err = p.tmp.Chmod(0o644)
	}
	if cerr := p.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.tmp.Name(), p.path)
	}
	if err != nil {
		return fmt.Errorf("-o %s: %w", p.path, err)
	}
	p.done = true
	return nil
}

// abort drops the temporary file unless commit put it in place.
func (p *parquetOutput) abort() {
	if p == nil || p.done {
		return
	}
	p.tmp.Close()
	os.Remove(p.tmp.Name())
}
