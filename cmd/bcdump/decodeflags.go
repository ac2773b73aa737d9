package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// decodeFlags are the options every command that decodes traffic shares
// (read, stats, session, profile, live; diff has all but --fail-on), so
// they spell and behave the same everywhere.
type decodeFlags struct {
	ports    []string
	manifest string
	failOn   string
	plain    bool
	trace    traceFlags
	// flowMemory bounds the tracked flows' state (--flow-memory).
	flowMemory string
}

// register adds the registerInput flags, --flow-memory and --fail-on to
// f. (diff has no --fail-on, and its own --flow-memory, which sets no soft
// memory limit: see diffOptions.memory.)
func (o *decodeFlags) register(f *pflag.FlagSet) {
	o.registerInput(f)
	f.StringVar(&o.flowMemory, "flow-memory", defaultFlowMemory, "bound on the estimated memory of the flows tracked at once (like 512MiB, 2GiB); past it the least recently active flow is finished early, with a tracking-limit note")
	enumVarP(f, &o.failOn, "fail-on", "", "", severities, "exit 1 when an anomaly at or above this severity (%s) occurred in the capture, whatever -Y shows")
}

// registerInput adds the flags that say how a capture is decoded: --port,
// --manifest, --plain and the trace flags.
func (o *decodeFlags) registerInput(f *pflag.FlagSet) {
	f.StringSliceVarP(&o.ports, "port", "p", nil, `additional game port (repeatable); 22101 is always included; "auto" looks for BC traffic on other ports`)
	f.StringVar(&o.manifest, "manifest", "", "manifest JSON (like vanilla-1.1.json) naming checksum hashes and checking file hashes")
	f.BoolVar(&o.plain, "plain", false, "the game payloads are deciphered already (captures marked by decrypt -w are recognised without it)")
	o.trace.register(f)
}

// gamePorts parses -p: port numbers, and "auto" (reported by auto).
func (o *decodeFlags) gamePorts() (ports []uint16, auto bool, err error) {
	ports = []uint16{dissect.DefaultPort}
	for _, s := range o.ports {
		if s == "auto" {
			auto = true
			continue
		}
		p, err := strconv.ParseUint(s, 10, 16)
		if err != nil || p == 0 {
			return nil, false, fmt.Errorf("--port %s is not a UDP port (1-65535) or auto", s)
		}
		ports = append(ports, uint16(p))
	}
	return ports, auto, nil
}

// options validates the flags and loads the manifest, an input of the run
// (streams.reading).
func (o *decodeFlags) options(s *streams) (dissect.Options, error) {
	var opt dissect.Options
	ports, auto, err := o.gamePorts()
	if err != nil {
		return opt, err
	}
	opt.Ports, opt.AutoPorts = ports, auto
	opt.Plain = o.plain
	if opt.Trace, err = o.trace.options(); err != nil {
		return opt, err
	}
	if o.flowMemory != "" {
		if opt.MaxFlowBytes, err = parseByteSize(o.flowMemory); err != nil {
			return opt, fmt.Errorf("--flow-memory %w", err)
		}
		if limitMemory != nil {
			limitMemory(int64(opt.MaxFlowBytes) + memoryHeadroom)
		}
	}
	if o.manifest != "" {
		m, err := s.loadManifest(o.manifest)
		if err != nil {
			return opt, fmt.Errorf("--manifest: %w", err)
		}
		opt.Manifest = m
	}
	return opt, nil
}

// resolve is options and gate together, for the commands that have both.
func (o *decodeFlags) resolve(s *streams) (dissect.Options, *severityGate, error) {
	opt, err := o.options(s)
	if err != nil {
		return opt, nil, err
	}
	gate, err := o.gate()
	return opt, gate, err
}

// gate returns the --fail-on threshold, or nil when the flag is unset.
func (o *decodeFlags) gate() (*severityGate, error) {
	if o.failOn == "" {
		return nil, nil
	}
	sev, err := anomaly.ParseSeverity(o.failOn)
	if err != nil {
		return nil, fmt.Errorf("--fail-on: %w", err)
	}
	return &severityGate{min: sev}, nil
}

// severityGate counts anomalies at or above a severity for --fail-on.
type severityGate struct {
	min   anomaly.Severity
	count int
	first anomaly.Code // the first anomaly counted
}

func (g *severityGate) add(a anomaly.Anomaly) {
	if g == nil || a.Severity() < g.min {
		return
	}
	if g.count == 0 {
		g.first = a.Code
	}
	g.count++
}

// The gate is a dissect.Sink: it counts the anomalies of every datagram
// and event a Session hands out.

func (g *severityGate) Datagram(d *dissect.Datagram) error {
	for _, a := range d.Anomalies {
		g.add(a)
	}
	return nil
}

func (g *severityGate) Events(ev []dissect.Event) error {
	for _, e := range ev {
		g.add(e.Anomaly)
	}
	return nil
}

func (g *severityGate) Finish(end []dissect.Event) error { return g.Events(end) }

// FieldBlind: the gate reads anomalies only (dissect.FieldBlind).
func (g *severityGate) FieldBlind() bool { return true }

// err is the findingError for exit status 1, or nil.
func (g *severityGate) err() error {
	if g == nil || g.count == 0 {
		return nil
	}
	noun := "anomalies"
	if g.count == 1 {
		noun = "anomaly"
	}
	return &findingError{msg: fmt.Sprintf("--fail-on %s: %d %s at or above %s (first: %s)", g.min, g.count, noun, g.min, g.first)}
}
