package transport

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// flowTableRun tracks one small datagram per step on a tracker with cfg:
// client cl at sec seconds (sec < 0: Advance to -sec without a packet).
// It returns the tracker (before Finish) and the events, as
// "code:client".
type ftStep struct {
	sec float64
	cl  int
}

func ftClient(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 7, byte(i >> 8), byte(i)}), 4000)
}

func flowTableRun(t *testing.T, cfg Config, steps []ftStep) (*Tracker, []string) {
	t.Helper()
	tr := NewTracker(cfg)
	var dg Datagram
	info := make([]MsgInfo, 4)
	var events []string
	for i, s := range steps {
		if s.sec < 0 {
			tr.Advance(trkAt(-s.sec))
		} else {
			Decode(trkDG(2, trkUnrel("x")), &dg)
			tr.Track(Packet{Frame: i + 1, Time: trkAt(s.sec), Client: ftClient(s.cl), Server: trkServers[0], Size: 8}, &dg, info, nil)
		}
		for _, e := range tr.Events() {
			events = append(events, fmt.Sprintf("%s:%d", e.Code, e.Client.Addr().As4()[3]))
		}
		if err := tr.checkTable(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return tr, events
}

// active lists the clients of the active flows, by flow id.
func ftActive(tr *Tracker) string {
	var out []string
	for _, s := range tr.Flows() {
		if !s.Finished {
			out = append(out, fmt.Sprint(s.Client.Addr().As4()[3]))
		}
	}
	return strings.Join(out, " ")
}

// A flow ends by its own idle timeout, found by the sweep whether packets
// (of other flows) or Advance ticks (a live capture on a quiet wire) move
// the clock; an active flow lives on however many others come and go; and
// over MaxFlowBytes the least recently active flow is evicted (not the
// oldest), with a tracking-limit note.
func TestFlowTableLifecycle(t *testing.T) {
	idle := Config{FlowIdle: 10 * time.Second}
	tests := []struct {
		name       string
		cfg        Config
		steps      []ftStep
		active     string // clients of the active flows at the end
		events     []string
		finished   int // flow records finished
		flowsTotal int
	}{
		{
			name:   "idle flow ends on a packet of another flow",
			cfg:    idle,
			steps:  []ftStep{{0, 1}, {5, 2}, {9, 2}, {14, 2}},
			active: "2", finished: 1, flowsTotal: 2,
		},
		{
			name:   "idle flows end on Advance ticks alone",
			cfg:    idle,
			steps:  []ftStep{{0, 1}, {5, 2}, {-8, 0}, {-10.5, 0}, {-14, 0}, {-15.5, 0}},
			active: "", finished: 2, flowsTotal: 2,
		},
		{
			name:   "not idle at exactly the limit",
			cfg:    idle,
			steps:  []ftStep{{0, 1}, {-10, 0}},
			active: "1", flowsTotal: 1,
		},
		{
			name:   "a busy flow outlives many short ones",
			cfg:    idle,
			steps:  []ftStep{{0, 1}, {1, 2}, {4, 1}, {8, 3}, {12, 1}, {16, 4}, {20, 1}, {24, 5}, {28, 1}, {-30, 0}},
			active: "1 5", finished: 3, flowsTotal: 5,
		},
		{
			name:     "over the byte bound the least recently active flow goes",
			cfg:      Config{MaxFlowBytes: roomFor(3)},
			steps:    []ftStep{{0, 1}, {1, 2}, {2, 3}, {3, 1}, {4, 4}, {5, 1}, {6, 5}},
			active:   "1 4 5",
			events:   []string{"tracking-limit:2", "tracking-limit:3"},
			finished: 2, flowsTotal: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, events := flowTableRun(t, tt.cfg, tt.steps)
			if got := ftActive(tr); got != tt.active {
				t.Errorf("active flows of clients %q, want %q", got, tt.active)
			}
			if !slices.Equal(events, tt.events) {
				t.Errorf("events %q, want %q", events, tt.events)
			}
			finished := 0
			for _, s := range tr.Flows() {
				if s.Finished {
					finished++
				}
			}
			if finished != tt.finished || len(tr.Flows()) != tt.flowsTotal || tr.ActiveFlows() != tt.flowsTotal-tt.finished {
				t.Errorf("%d flows, %d finished, %d active; want %d, %d", len(tr.Flows()), finished, tr.ActiveFlows(), tt.flowsTotal, tt.finished)
			}
		})
	}
}

// Many concurrent flows: every one is tracked from its first datagram to
// the end of the capture, whatever the count (the old table held 256).
func TestFlowTableManyFlows(t *testing.T) {
	for _, n := range []int{3, 257, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tr := NewTracker(Config{MaxFinishedFlows: n})
			var dg Datagram
			info := make([]MsgInfo, 4)
			frame := 0
			for round := range 4 {
				for i := range n {
					frame++
					at := trkEpoch.Add(time.Duration(round)*time.Second + time.Duration(i)*time.Microsecond)
					Decode(trkDG(2, trkData(uint16(round), "x")), &dg)
					tr.Track(Packet{Frame: frame, Time: at, Client: ftClient(i), Server: trkServers[0], Size: 10}, &dg, info, nil)
					Decode(trkDG(1, trkAck(uint16(round))), &dg)
					tr.Track(Packet{Frame: frame, Time: at.Add(time.Millisecond), Client: ftClient(i), Server: trkServers[0], Dir: S2C, Size: 6}, &dg, info, nil)
				}
			}
			if ev := tr.Events(); len(ev) != 0 {
				t.Errorf("%d events, first %s", len(ev), ev[0].Message())
			}
			if err := tr.checkTable(); err != nil {
				t.Fatal(err)
			}
			if tr.ActiveFlows() != n {
				t.Errorf("%d active flows, want %d", tr.ActiveFlows(), n)
			}
			tr.Finish()
			flows := tr.Flows()
			if len(flows) != n {
				t.Fatalf("%d flow records, want %d", len(flows), n)
			}
			for _, s := range flows {
				if s.Datagrams != [2]uint64{4, 4} || s.Reliable[C2S] != 4 || s.RTT[C2S].Count+s.RTT[S2C].Count != 4 || len(s.Anomalies) != 0 {
					t.Fatalf("flow %d: %+v", s.ID, s)
				}
			}
		})
	}
}

// sizedState is flow state that reports its size.
type sizedState int

func (s sizedState) StateBytes() int { return int(s) }

// A layer's Flow.State counts towards the flow's bytes (StateSizer),
// from the flow's next datagram on, and is dropped with the flow.
func TestFlowTableStateBytes(t *testing.T) {
	tr := NewTracker(Config{})
	var dg Datagram
	info := make([]MsgInfo, 4)
	track := func(sec float64) {
		Decode(trkDG(2, trkUnrel("x")), &dg)
		tr.Track(Packet{Frame: 1, Time: trkAt(sec), Client: ftClient(1), Server: trkServers[0], Size: 8}, &dg, info, nil)
	}
	track(0)
	before := tr.TrackedBytes()
	tr.Current().SetState(sizedState(1 << 20))
	track(1)
	if got := tr.TrackedBytes() - before; got != 1<<20 {
		t.Errorf("tracked bytes grew by %d with a 1 MB state, want %d", got, 1<<20)
	}
	tr.Finish()
	if tr.TrackedBytes() != 0 || tr.ActiveFlows() != 0 {
		t.Errorf("%d bytes, %d flows after Finish", tr.TrackedBytes(), tr.ActiveFlows())
	}
}

// The tracking-limit note of an evicted flow says why.
func TestFlowTableEvictionNote(t *testing.T) {
	tr := NewTracker(Config{MaxFlowBytes: roomFor(1)})
	var dg Datagram
	info := make([]MsgInfo, 4)
	for i := range 2 {
		Decode(trkDG(2, trkUnrel("x")), &dg)
		tr.Track(Packet{Frame: i + 1, Time: trkAt(float64(i)), Client: ftClient(i), Server: trkServers[0], Size: 8}, &dg, info, nil)
	}
	ev := tr.Events()
	if len(ev) != 1 || ev[0].Code != anomaly.TrackingLimit || ev[0].Frame != 1 {
		t.Fatalf("events %+v", ev)
	}
	want := "flow evicted after 1s idle: the state of the active flows reached the"
	if !strings.HasPrefix(ev[0].Message(), want) || !strings.HasSuffix(ev[0].Message(), "bound (--flow-memory; 1 flows active)") {
		t.Errorf("message %q, want %q...", ev[0].Message(), want)
	}
}

// The fields every datagram touches stay in the cache lines flow's comment
// names (a flow is allocated 64-byte aligned: its size class is a multiple
// of 64).
func TestFlowLayout(t *testing.T) {
	var f flow
	lines := []struct {
		name     string
		off, end uintptr
		line     uintptr
	}{
		{"key", unsafe.Offsetof(f.key), unsafe.Offsetof(f.key) + unsafe.Sizeof(f.key), 0},
		{"first", unsafe.Offsetof(f.first), unsafe.Offsetof(f.badID) + unsafe.Sizeof(f.badID), 1},
		{"peerID", unsafe.Offsetof(f.peerID), unsafe.Offsetof(f.chBytes) + unsafe.Sizeof(f.chBytes), 2},
		{"state", unsafe.Offsetof(f.state), unsafe.Offsetof(f.bytes) + unsafe.Sizeof(f.bytes), 3},
		{"st.datagrams", unsafe.Offsetof(f.st) + unsafe.Offsetof(f.st.datagrams), unsafe.Offsetof(f.st) + unsafe.Offsetof(f.st.rttKept) + unsafe.Sizeof(f.st.rttKept), 4},
	}
	for _, l := range lines {
		if l.off/64 != l.line || (l.end-1)/64 != l.line {
			t.Errorf("%s: bytes %d-%d, want them in line %d", l.name, l.off, l.end, l.line)
		}
	}
}

// A Packet's KeyHash is the hash the flow cache files its key under: given
// or computed by Track, the same flow is found, and it is never 0 (0 says
// "not given").
func TestKeyHash(t *testing.T) {
	keys := []FlowKey{
		{netip.MustParseAddrPort("127.0.0.1:58732"), netip.MustParseAddrPort("127.0.0.1:22101")},
		{netip.MustParseAddrPort("127.0.0.1:22101"), netip.MustParseAddrPort("127.0.0.1:58732")},
		{netip.MustParseAddrPort("[fe80::1%eth0]:1"), netip.MustParseAddrPort("[fe80::1]:1")},
		{},
	}
	for _, k := range keys {
		h := KeyHash(k.Client, k.Server)
		if h == 0 {
			t.Errorf("%v: KeyHash 0", k)
		}
		s1, t1 := cacheSlot(&k)
		s2, t2 := slotOf(h)
		if s1 != s2 || t1 != t2 {
			t.Errorf("%v: cacheSlot %d/%d, slotOf(KeyHash) %d/%d", k, s1, t1, s2, t2)
		}
	}
	// Tracking with the hash given finds the flows tracking without it made.
	tr := NewTracker(DefaultConfig())
	var dg Datagram
	Decode([]byte{0x02, 0x01, 0x01, 0x05, 0x00, 0x00}, &dg)
	for i, k := range keys[:3] {
		for _, given := range []bool{false, true} {
			p := Packet{Frame: i + 1, Time: time.Unix(int64(i), 0), Client: k.Client, Server: k.Server, Dir: C2S, Size: 6}
			if given {
				p.KeyHash = KeyHash(k.Client, k.Server)
			}
			tr.Track(p, &dg, nil, nil)
		}
	}
	if n := len(tr.flows); n != 3 {
		t.Errorf("%d flows, want 3", n)
	}
	// Prefetch changes nothing, for a flow it holds or not.
	for _, k := range keys {
		tr.Prefetch(KeyHash(k.Client, k.Server))
	}
	NewTracker(DefaultConfig()).Prefetch(1)
	if n := len(tr.flows); n != 3 {
		t.Errorf("%d flows after Prefetch, want 3", n)
	}
}
