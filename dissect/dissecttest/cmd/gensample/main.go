// Command gensample writes the bundled sample capture, testdata/sample.pcap:
// the session dissecttest.Sample builds, byte for byte reproducible. Run it
// through go generate:
//
//	go generate ./dissect/dissecttest
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func main() {
	out := flag.String("o", "", "output capture (required)")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gensample -o sample.pcap")
		os.Exit(2)
	}
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gensample:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := dissecttest.Sample().WritePcap(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
