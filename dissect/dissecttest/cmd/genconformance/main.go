// Command genconformance writes the conformance capture and its truth,
// conformance.pcap and conformance.truth.jsonl, into a directory (see
// dissecttest.Conformance). Run it through go generate:
//
//	go generate ./dissect/dissecttest
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func main() {
	out := flag.String("o", "", "output directory (required)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: genconformance -o DIR")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "genconformance:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	s, truth := dissecttest.Conformance()
	var b bytes.Buffer
	if err := s.WritePcap(&b); err != nil {
		return err
	}
	if err := writeWhole(filepath.Join(dir, "conformance.pcap"), b.Bytes()); err != nil {
		return err
	}
	return writeWhole(filepath.Join(dir, "conformance.truth.jsonl"), dissecttest.WriteTruth(truth))
}

// writeWhole writes the file whole or not at all: a temporary file renamed
// over it.
func writeWhole(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
