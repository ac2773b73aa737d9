package main

import (
	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
)

// reading records files the run reads: the captures of its arguments as
// expanded (a folder's captures), a --manifest, the game files manifest
// generate hashes, a baseline. Every output of the run is checked against
// all of them (outputRules), standard output at once: a run whose stdout
// is one of them is refused before it writes anything (bcdump read x.pcap
// -w - >> x.pcap). "-" is stdin.
func (s *streams) reading(names ...string) error {
	s.inputs = append(s.inputs, names...)
	return outfile.CheckStdout(s.out, outfile.Options{Inputs: names, Stdin: s.in})
}

// loadManifest loads the manifest file name (--manifest, manifest
// verify's), an input of the run (reading).
func (s *streams) loadManifest(name string) (*checksum.Manifest, error) {
	if err := s.reading(name); err != nil {
		return nil, err
	}
	return checksum.LoadFile(name)
}

// outputRules are the rules of package outfile for an output of this run:
// it must not be a file the run reads, whether recorded by reading or
// named here (names as given; "-" is stdin).
func (s *streams) outputRules(inputs ...string) outfile.Options {
	all := make([]string, 0, len(s.inputs)+len(inputs))
	all = append(append(all, s.inputs...), inputs...)
	return outfile.Options{Inputs: all, Stdin: s.in}
}

// inputNames are the names of the captures a run reads.
func inputNames(ins []input) []string {
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.name
	}
	return names
}
