package main

import "github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"

// outputRules are the rules of package outfile for a run that reads
// inputs (names as given; "-" is stdin): the output must not be one of them.
func (s *streams) outputRules(inputs ...string) outfile.Options {
	return outfile.Options{Inputs: inputs, Stdin: s.in}
}

// inputNames are the names of the captures a run reads.
func inputNames(ins []input) []string {
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = in.name
	}
	return names
}
