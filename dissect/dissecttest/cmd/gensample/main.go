// Command gensample writes the bundled sample capture, testdata/sample.pcap:
// the session dissecttest.Sample builds, byte for byte reproducible; with
// -scenario, one of dissecttest's verdict scenarios instead
// (testdata/unacked-fragment.pcap). Run it through go generate:
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
	scenario := flag.String("scenario", "", "write this verdict scenario (dissecttest.Verdicts) instead of the sample")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gensample -o sample.pcap")
		os.Exit(2)
	}
	s := dissecttest.Sample()
	if *scenario != "" {
		var ok bool
		if s, ok = dissecttest.VerdictScenario(*scenario); !ok {
			fmt.Fprintf(os.Stderr, "gensample: no scenario %q (one of %v)\n", *scenario, dissecttest.Verdicts)
			os.Exit(2)
		}
	}
	if err := write(*out, s); err != nil {
		fmt.Fprintln(os.Stderr, "gensample:", err)
		os.Exit(1)
	}
}

func write(path string, s *dissecttest.Session) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := s.WritePcap(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
