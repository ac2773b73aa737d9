package main

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// traceFlags fill in what the trace formats (packet_trace.log, OBCTRACE)
// do not record; `bcdump help traces` documents them.
type traceFlags struct {
	server string
	tick   time.Duration
}

func (o *traceFlags) register(f *pflag.FlagSet) {
	f.StringVar(&o.server, "trace-server", capture.DefaultTraceServer.String(), "the server's IPv4 address:port in packet_trace.log and OBCTRACE inputs, which do not record it")
	f.DurationVar(&o.tick, "trace-tick", capture.DefaultTraceTick, "the length of an OBCTRACE tick")
}

func (o *traceFlags) options() (capture.TraceOptions, error) {
	var t capture.TraceOptions
	if o.server != "" {
		a, err := netip.ParseAddrPort(o.server)
		if err != nil || !a.Addr().Is4() || a.Port() == 0 {
			return t, fmt.Errorf("--trace-server %s is not an IPv4 address:port", o.server)
		}
		t.Server = a
	}
	if o.tick < 0 {
		return t, fmt.Errorf("--trace-tick %v is negative", o.tick)
	}
	t.Tick = o.tick
	return t, nil
}

// sayLacks prints once what a trace input cannot give the commands.
func sayLacks(s *streams, src dissect.Source) {
	r, ok := src.(interface{ Lacks() string })
	if !ok {
		return
	}
	if l := r.Lacks(); l != "" {
		s.noteOnce("bcdump: %s: %s", src.Name(), l)
	}
}
