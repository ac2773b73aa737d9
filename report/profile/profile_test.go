package profile

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// profileOf profiles sessions as `bcdump profile` does, one capture each.
func profileOf(t testing.TB, sessions ...*dissecttest.Session) *Profiler {
	t.Helper()
	p := New(Options{})
	for i, s := range sessions {
		var buf bytes.Buffer
		if err := s.WritePcap(&buf); err != nil {
			t.Fatal(err)
		}
		r, err := capture.NewReader(&buf, "session", capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		profileCapture(t, p, r, "session"+string(rune('1'+i)))
	}
	return p
}

// profileCapture adds one capture to p.
func profileCapture(t testing.TB, p *Profiler, r *capture.Reader, source string) {
	t.Helper()
	p.SetSource(source)
	s := dissect.NewSession(dissect.SessionOptions{})
	if err := s.Run(context.Background(), r, p); err != nil {
		t.Fatal(err)
	}
}

func opcode(d *DirDoc, op uint8) OpcodeDoc {
	for _, o := range d.Opcodes {
		if o.Opcode == op {
			return o
		}
	}
	return OpcodeDoc{}
}

func pair(d *Doc, key string) PairDoc {
	for _, p := range d.Pairs {
		if p.Pair == key {
			return p
		}
	}
	return PairDoc{}
}

func flagOf(list []FlagDoc, f string) FlagDoc {
	for _, x := range list {
		if x.Flags == f {
			return x
		}
	}
	return FlagDoc{}
}

func f(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestProfileHandCounted checks the profile of dissecttest.ProfileSession
// against the figures counted by hand from its script (see its comment).
func TestProfileHandCounted(t *testing.T) {
	d := profileOf(t, dissecttest.ProfileSession(dissecttest.ProfileParams{})).Doc(false)
	c, s := &d.C2S, &d.S2C
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"flows", float64(d.Flows), 1},
		{"in game ms", d.InGameMs, 10000},

		// Opcodes: 100 client updates and 4 x 100 host updates in 10 s.
		{"c2s 0x1C count", float64(opcode(c, 0x1C).Count), 100},
		{"c2s 0x1C rate", opcode(c, 0x1C).RatePerS, 10},
		{"c2s 0x1C size p50", float64(opcode(c, 0x1C).SizeP50), 25},
		{"c2s 0x1C reliable", opcode(c, 0x1C).ReliableShare, 0},
		{"s2c 0x1C count", float64(opcode(s, 0x1C).Count), 400},
		{"s2c 0x1C rate", opcode(s, 0x1C).RatePerS, 40},
		{"s2c 0x1C bytes", float64(opcode(s, 0x1C).Bytes), 300*14 + 100*27},
		{"s2c 0x1C size p50", float64(opcode(s, 0x1C).SizeP50), 14},
		{"s2c 0x1C size max", float64(opcode(s, 0x1C).SizeMax), 27},
		{"s2c 0x20 count", float64(opcode(s, 0x20).Count), 5},
		{"s2c 0x20 in game", float64(opcode(s, 0x20).InGameCount), 0},
		{"s2c 0x20 reliable", opcode(s, 0x20).ReliableShare, 1},
		{"c2s 0x2C count (retransmits not counted)", float64(opcode(c, 0x2C).Count), 1},
		{"s2c 0x35 count", float64(opcode(s, 0x35).Count), 2},
		{"s2c 0x35 rate", opcode(s, 0x35).RatePerS, 0.2},
		{"s2c 0x35 duplicates", float64(opcode(s, 0x35).Duplicates), 1},

		// Bundling: host updates go 4 to a datagram of 83 bytes.
		{"s2c datagrams", float64(s.Datagrams), 110},
		{"s2c messages p50", float64(s.Shape.MessagesP50), 4},
		{"s2c bytes p50", float64(s.Shape.BytesP50), 83},
		{"c2s datagrams", float64(c.Datagrams), 111},
		{"c2s messages p50", float64(c.Shape.MessagesP50), 1},
		{"c2s messages max", float64(c.Shape.MessagesMax), 4},
		{"c2s bytes p50", float64(c.Shape.BytesP50), 30},

		// ACKs: the client ACKs 12 host messages (7, 10, 5 x 20, 3 x 50,
		// 2 x 98 ms); the host 8 of the client's 9 (not the Connect):
		// 2, 3, 4, 4 x 7 and 2005 ms.
		{"c2s acks", float64(c.Acks.Acks), 12},
		{"c2s acks per reliable", f(c.Acks.AcksPerReliable), 1},
		{"c2s ack delay p50", f(c.Acks.DelayP50Ms), 20},
		{"c2s ack delay p95", f(c.Acks.DelayP95Ms), 98},
		{"s2c acks per reliable", f(s.Acks.AcksPerReliable), 0.889},
		{"s2c ack delay p50", f(s.Acks.DelayP50Ms), 7},
		{"s2c ack delay max", f(s.Acks.DelayMaxMs), 2005},

		// Retransmits: the chat twice, a second apart.
		{"c2s reliable", float64(c.Retransmits.Reliable), 9},
		{"c2s retransmissions", float64(c.Retransmits.Retransmissions), 2},
		{"c2s retransmit ratio", f(c.Retransmits.Ratio), 0.222},
		{"c2s retransmit interval p50", f(c.Retransmits.IntervalP50Ms), 1000},
		{"s2c retransmit ratio", f(s.Retransmits.Ratio), 0},

		// StateUpdate cadence and flags.
		{"c2s objects", float64(c.StateUpdates.Objects), 1},
		{"c2s hz p50", f(c.StateUpdates.HzP50), 10},
		{"s2c objects", float64(s.StateUpdates.Objects), 4},
		{"s2c hz p50", f(s.StateUpdates.HzP50), 10},
		{"s2c hz p95", f(s.StateUpdates.HzP95), 10},
		{"s2c interval p95", f(s.StateUpdates.IntervalP95Ms), 100},
		{"s2c flags 0x20 share", flagOf(s.StateUpdates.Flags, "0x20").Share, 0.75},
		{"s2c flags 0x3E count", float64(flagOf(s.StateUpdates.Flags, "0x3E").Count), 100},
		{"s2c bit 0x20 share", flagOf(s.StateUpdates.FlagBits, "0x20").Share, 1},
		{"s2c bit 0x02 share", flagOf(s.StateUpdates.FlagBits, "0x02").Share, 0.25},
		{"c2s bit 0x80 share", flagOf(c.StateUpdates.FlagBits, "0x80").Share, 1},

		// Duplicates: the second MissionInit, 3.5 s after the first.
		{"s2c duplicates", float64(s.Duplicates.Count), 1},
		{"s2c duplicate interval", f(s.Duplicates.IntervalP50Ms), 3500},
		{"c2s duplicates", float64(c.Duplicates.Count), 0},

		// Request/response latency.
		{"connect p50", f(pair(d, "connect").P50Ms), 5},
		{"peer_info p50", f(pair(d, "peer_info").P50Ms), 3},
		{"checksum rounds", float64(pair(d, "checksum_round").Answered), 5},
		{"checksum round p50", f(pair(d, "checksum_round").P50Ms), 20},
		{"checksum round max", f(pair(d, "checksum_round").MaxMs), 33},
		{"checksum next round", f(pair(d, "checksum_next_round").P50Ms), 7},
		{"checksum next rounds", float64(pair(d, "checksum_next_round").Answered), 4},
		{"checksum complete", f(pair(d, "checksum_complete").P50Ms), 4},
		{"checksum complete requests", float64(pair(d, "checksum_complete").Requests), 1},
		{"mission init p50", f(pair(d, "new_player_mission_init").P50Ms), 2},
		{"mission init extra", float64(pair(d, "new_player_mission_init").Extra), 1},
		{"gamespy p50", f(pair(d, "gamespy_query").P50Ms), 2},
		{"object requests", float64(pair(d, "object_request").Requests), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// Parameters move exactly what they should.
func TestProfileParams(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params dissecttest.ProfileParams
		rate   float64 // host StateUpdates per second in game
		hz     float64
		init   float64 // NewPlayerInGame -> MissionInit, ms
	}{
		{"default", dissecttest.ProfileParams{}, 40, 10, 2},
		{"7 Hz", dissecttest.ProfileParams{UpdateHz: 7}, 28, 7, 2},
		{"slow MissionInit", dissecttest.ProfileParams{MissionInitDelay: 52 * time.Millisecond}, 40, 10, 52},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := profileOf(t, dissecttest.ProfileSession(tc.params)).Doc(false)
			if got := opcode(&d.S2C, 0x1C).RatePerS; got != tc.rate {
				t.Errorf("rate %v, want %v", got, tc.rate)
			}
			if got := f(d.S2C.StateUpdates.HzP50); got != tc.hz {
				t.Errorf("hz %v, want %v", got, tc.hz)
			}
			if got := f(pair(d, "new_player_mission_init").P50Ms); got != tc.init {
				t.Errorf("MissionInit %v ms, want %v", got, tc.init)
			}
		})
	}
}

// Two captures add up; per flow each keeps its own figures.
func TestProfileTwoCaptures(t *testing.T) {
	s := dissecttest.ProfileSession(dissecttest.ProfileParams{})
	d := profileOf(t, s, s).Doc(true)
	if d.Flows != 2 || d.InGameMs != 20000 || len(d.PerFlow) != 2 {
		t.Fatalf("flows %d, in game %v, per flow %d", d.Flows, d.InGameMs, len(d.PerFlow))
	}
	if got := opcode(&d.S2C, 0x1C); got.Count != 800 || got.RatePerS != 40 {
		t.Errorf("s2c 0x1C %+v", got)
	}
	if p := pair(d, "checksum_round"); p.Answered != 10 || f(p.P50Ms) != 20 {
		t.Errorf("checksum_round %+v", p)
	}
	for _, fl := range d.PerFlow {
		if fl.InGameMs != 10000 || opcode(&fl.S2C, 0x1C).Count != 400 || fl.Client != "10.0.0.2:2655" {
			t.Errorf("flow %s %s: in game %v, %d updates", fl.Source, fl.Client, fl.InGameMs, opcode(&fl.S2C, 0x1C).Count)
		}
	}
}

// A capture whose clock starts at the Unix epoch (zero timestamps are
// common in synthetic captures) pairs requests like any other.
func TestProfileEpochZero(t *testing.T) {
	s := dissecttest.ProfileSession(dissecttest.ProfileParams{})
	start := s.Datagrams[0].Time
	for i := range s.Datagrams {
		s.Datagrams[i].Time = time.Unix(0, 0).Add(s.Datagrams[i].Time.Sub(start))
	}
	d := profileOf(t, s).Doc(false)
	if p := pair(d, "gamespy_query"); p.Answered != 1 || f(p.P50Ms) != 2 {
		t.Errorf("gamespy_query at the epoch: %+v", p)
	}
}
