package main

import (
	"github.com/bcdump/bcdump/dissect"
)

// A summary is one of the commands that decode every capture they are
// given into one result and print it at the end (stats, profile, session,
// report); summarize runs their common path.
type summary struct {
	// start is called once the decoding flags are resolved and the inputs
	// listed, before any capture is read; it returns the sink every
	// capture is decoded into.
	start func(opt dissect.Options, ins []input, many bool) (dissect.Sink, error)
	// one, when set, decodes one capture instead of decodeCapture into
	// the sink (stats keeps each capture's flows).
	one func(in input, opt dissect.Options, gate *severityGate) (opened bool, err error)
	// write prints the result, once at least one capture was opened.
	write func() error
	// finding, when set, is the command's own reason to exit 1, asked
	// after the result is written and the inputs' errors reported.
	finding func() error
}

// summarize resolves d, decodes every capture files name into the
// summary's sink, writes the result and returns, in this order, the first
// input's error, the summary's finding and the --fail-on finding. When no
// capture could be opened nothing is written.
func (s *streams) summarize(d *decodeFlags, files []string, c summary) error {
	opt, gate, err := d.resolve(s)
	if err != nil {
		return err
	}
	ins, many, err := expandInputs(s, files)
	if err != nil {
		return err
	}
	sink, err := c.start(opt, ins, many)
	if err != nil {
		return err
	}
	one := c.one
	if one == nil {
		one = func(in input, opt dissect.Options, gate *severityGate) (bool, error) {
			_, opened, err := decodeCapture(s, in.name, opt, sink, gate)
			return opened, err
		}
	}
	run := &inputRun{s: s, many: many}
	err = run.each(ins, func(in input) (bool, error) { return one(in, opt, gate) })
	if err != nil {
		return err
	}
	if run.opened == 0 {
		return run.err() // nothing to summarize
	}
	if err := c.write(); err != nil {
		return err
	}
	if err := run.err(); err != nil {
		return err
	}
	if c.finding != nil {
		if err := c.finding(); err != nil {
			return err
		}
	}
	return gate.err()
}
