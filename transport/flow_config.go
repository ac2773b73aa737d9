package transport

import "time"

// Config bounds the tracker's state. Zero fields take the DefaultConfig value.
//
// Memory per active flow is at most about MaxReassemblyBytes + 18 KB of
// reassembly state, plus per direction and channel (4 of them)
// MaxTrackedMessages x 416 B + MaxTrackedFragments x 72 B, plus
// 2 x MaxRTTSamples x 4 B of RTT samples: about 700 KB with the defaults if a flow is hostile.
// A busy real session stays near 100 KB per flow (256 remembered messages
// of about 200 B on each busy channel); a short one (the 27 datagrams of
// testdata/sample.pcap) about 8 KB, with the layers above about 9.5 KB of
// heap. MaxFlowBytes bounds the sum over all active flows of an estimate
// of their state (Tracker.TrackedBytes): the 144 MiB default holds about
// 65,000 flows of a connect request and its answer (2.2 KB each), or the
// 3,000 flows of the many-flow benchmark (session 3 replicated, about
// 45 KB each); the process would need up to twice the bound with the
// garbage collector's headroom, so bcdump sets a soft memory limit of the
// bound plus 112 MiB. With both, bcdump read, stats and report of a
// million such flows at once stay under 300 MB of RSS (measured with
// dissecttest.ManyFlows; bcdump --flow-memory raises the bound). Finished
// flows keep a stats record of about 400 B plus names and anomaly counts
// (at most MaxFinishedFlows of them).
type Config struct {
	// Reassemblies older than this (since their first fragment, in capture
	// time) are dropped as fragment-incomplete.
	ReassemblyTimeout time.Duration
	// Open reassemblies per flow (both directions); the oldest is dropped
	// (reassembly-overflow) to open one more.
	MaxOpenReassemblies int
	// Fragment bytes buffered per flow; the oldest reassembly is dropped
	// (reassembly-overflow) to buffer more.
	MaxReassemblyBytes int
	// Reliable messages remembered per flow, direction and channel, and
	// fragments/pieces among them. The least recently active message is
	// finished (its summary anomalies reported) to make room.
	MaxTrackedMessages  int
	MaxTrackedFragments int
	// A connected peer silent this long (capture time) is a peer-timeout.
	PeerTimeout time.Duration
	// A flow without any datagram for this long is finished and freed.
	FlowIdle time.Duration
	// Estimated bytes of state of all active flows together (windows,
	// reassembly buffers, RTT samples, a layer's Flow.State); beyond it the
	// least recently active flow is finished early (tracking-limit). There
	// is no limit on the number of flows as such.
	MaxFlowBytes int
	// Stats records of finished flows kept individually; the rest are summed
	// into one "other" record.
	MaxFinishedFlows int
	// RTT samples kept per flow and direction for the percentiles (count
	// and max are exact beyond it).
	MaxRTTSamples int
}

// Defaults. The peer timeout is the 45 s of protocol-facts 5.2; the flow idle
// limit is longer so a silent peer is reported before its flow is freed.
const (
	DefaultReassemblyTimeout   = 60 * time.Second
	DefaultMaxOpenReassemblies = 8
	DefaultMaxReassemblyBytes  = 64 << 10
	DefaultMaxTrackedMessages  = 256
	DefaultMaxTrackedFragments = 512
	DefaultPeerTimeout         = 45 * time.Second
	DefaultFlowIdle            = 120 * time.Second
	DefaultMaxFlowBytes        = 144 << 20
	DefaultMaxFinishedFlows    = 4096
	DefaultMaxRTTSamples       = 4096
)

// sweepInterval is how often (capture time) the tracker looks for timeouts
// and idle flows; reported times are exact, only detection is this coarse.
const sweepInterval = time.Second

// DefaultConfig returns the default limits.
func DefaultConfig() Config {
	return Config{
		ReassemblyTimeout:   DefaultReassemblyTimeout,
		MaxOpenReassemblies: DefaultMaxOpenReassemblies,
		MaxReassemblyBytes:  DefaultMaxReassemblyBytes,
		MaxTrackedMessages:  DefaultMaxTrackedMessages,
		MaxTrackedFragments: DefaultMaxTrackedFragments,
		PeerTimeout:         DefaultPeerTimeout,
		FlowIdle:            DefaultFlowIdle,
		MaxFlowBytes:        DefaultMaxFlowBytes,
		MaxFinishedFlows:    DefaultMaxFinishedFlows,
		MaxRTTSamples:       DefaultMaxRTTSamples,
	}
}

// withDefaults fills zero (or negative) fields.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	pickD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pickI := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pickD(&c.ReassemblyTimeout, d.ReassemblyTimeout)
	pickI(&c.MaxOpenReassemblies, d.MaxOpenReassemblies)
	pickI(&c.MaxReassemblyBytes, d.MaxReassemblyBytes)
	pickI(&c.MaxTrackedMessages, d.MaxTrackedMessages)
	pickI(&c.MaxTrackedFragments, d.MaxTrackedFragments)
	pickD(&c.PeerTimeout, d.PeerTimeout)
	pickD(&c.FlowIdle, d.FlowIdle)
	pickI(&c.MaxFlowBytes, d.MaxFlowBytes)
	pickI(&c.MaxFinishedFlows, d.MaxFinishedFlows)
	pickI(&c.MaxRTTSamples, d.MaxRTTSamples)
	return c
}
