package transport

import (
	"path/filepath"
	"testing"
	"time"
)

// The summary of a set of samples: nearest-rank percentiles over the
// samples kept (rounded to microseconds), exact count and maximum.
func TestRTTSamplesSummary(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		add   []time.Duration
		limit int
		want  RTT
	}{
		{"none", nil, 4, RTT{}},
		{"one", []time.Duration{5 * ms}, 4, RTT{Count: 1, P50: 5 * ms, P95: 5 * ms, Max: 5 * ms}},
		{"negative is 0", []time.Duration{-ms}, 4, RTT{Count: 1}},
		{"nearest rank", []time.Duration{4 * ms, 1 * ms, 3 * ms, 2 * ms}, 4, RTT{Count: 4, P50: 2 * ms, P95: 4 * ms, Max: 4 * ms}},
		// Past the limit: percentiles over the first two, count and max exact.
		{"sampled", []time.Duration{1 * ms, 2 * ms, 9 * ms}, 2, RTT{Count: 3, P50: 1 * ms, P95: 2 * ms, Max: 9 * ms, Sampled: true}},
		// Kept in microseconds, rounded; the maximum to the nanosecond.
		{"microseconds", []time.Duration{1499 * time.Nanosecond, 1501 * time.Nanosecond}, 4,
			RTT{Count: 2, P50: time.Microsecond, P95: 2 * time.Microsecond, Max: 1501 * time.Nanosecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r RTTSamples
			for _, d := range tt.add {
				r.Add(d, tt.limit)
			}
			if got := r.Summary(); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if r.Kept() > tt.limit {
				t.Errorf("kept %d, limit %d", r.Kept(), tt.limit)
			}
		})
	}
	// Pooling keeps the samples of each set in order, up to the limit.
	var a, b RTTSamples
	a.Add(3*ms, 4)
	b.Add(1*ms, 4)
	b.Add(2*ms, 4)
	b.Add(8*ms, 4)
	a.Merge(&b, 3)
	if got, want := a.Summary(), (RTT{Count: 4, P50: 2 * ms, P95: 3 * ms, Max: 8 * ms, Sampled: true}); got != want {
		t.Errorf("merged %+v, want %+v", got, want)
	}
}

// rttCase counts the cases of the RTT definition a capture exercised.
type rttCase struct {
	matched, repeat, afterResend, fragment int
}

// The RTT definition on real captures, ACK by ACK: a matched ACK's sample
// is its time minus the time of the frame that first sent what it clears
// (also when that message was resent before the ACK), it belongs to the
// direction of the acknowledged message, a repeated ACK is no sample, a
// fragment ACK gives its fragment's sample; and the flow's per-direction
// count and maximum are those samples.
func TestRTTDefinitionOnCaptures(t *testing.T) {
	caps := []string{
		filepath.Join(testdata, "sample.pcap"),
		filepath.Join(testdata, "unacked-fragment.pcap"),
		filepath.Join(testdata, "captures", "conformance.pcap"),
		filepath.Join(testdata, "captures", "openbc-session-2.pcap"),
		filepath.Join(testdata, "captures", "openbc-session-3.pcap"),
		filepath.Join(testdata, "captures", "stock-excerpts.pcap"),
	}
	var all rttCase
	for _, path := range caps {
		t.Run(filepath.Base(path), func(t *testing.T) {
			frames := trkFramesFrom(trkReadPcap(t, path))
			tr := NewTracker(Config{})
			var dg Datagram
			info := make([]MsgInfo, 256)
			type dirKey struct {
				client, server string
				d              Dir
			}
			count := map[dirKey]uint64{}
			maxRTT := map[dirKey]time.Duration{}
			// resent: frames (and message index) whose message was resent,
			// by the first send's frame.
			resent := map[[2]int]bool{}
			var c rttCase
			for i, fr := range frames {
				Decode(fr.Plain, &dg)
				tr.Track(Packet{Frame: i + 1, Time: fr.Time, Client: fr.Client, Server: fr.Server,
					Dir: fr.Dir, Size: len(fr.Plain)}, &dg, info, nil)
				for mi, m := range dg.Messages {
					inf := &info[mi]
					if inf.Retransmit && !inf.Keepalive {
						resent[[2]int{inf.FirstFrame, inf.FirstMsg}] = true
					}
					if m.Type != TypeACK {
						continue
					}
					switch inf.Ack {
					case AckMatched:
						c.matched++
						if !inf.HasRTT {
							t.Fatalf("frame %d msg %d: matched ACK without RTT", i+1, mi)
						}
						first := frames[inf.AckedFrame-1]
						if first.Dir == fr.Dir {
							t.Fatalf("frame %d msg %d: ACK %v clears a message of its own direction", i+1, mi, fr.Dir)
						}
						if want := fr.Time.Sub(first.Time); inf.RTT != want {
							t.Errorf("frame %d msg %d: RTT %v, want %v since first send in frame %d", i+1, mi, inf.RTT, want, inf.AckedFrame)
						}
						if resent[[2]int{inf.AckedFrame, inf.AckedMsg}] {
							c.afterResend++
						}
						if m.AckFrag {
							c.fragment++
						}
						k := dirKey{fr.Client.String(), fr.Server.String(), fr.Dir.other()}
						count[k]++
						maxRTT[k] = max(maxRTT[k], inf.RTT)
					case AckRepeat:
						c.repeat++
						if inf.HasRTT {
							t.Errorf("frame %d msg %d: repeated ACK with an RTT", i+1, mi)
						}
					default:
						if inf.HasRTT {
							t.Errorf("frame %d msg %d: %v ACK with an RTT", i+1, mi, inf.Ack)
						}
					}
				}
			}
			tr.Finish()
			for _, s := range tr.Flows() {
				for d := range Dir(2) {
					k := dirKey{s.Client.String(), s.Server.String(), d}
					if r := s.RTT[d]; r.Count != count[k] || r.Max != maxRTT[k] {
						t.Errorf("flow %d %v: RTT %+v, ACKs give %d samples, max %v", s.ID, d, r, count[k], maxRTT[k])
					}
				}
			}
			t.Logf("%d matched ACKs, %d repeats, %d after a resend, %d fragment ACKs", c.matched, c.repeat, c.afterResend, c.fragment)
			all.matched += c.matched
			all.repeat += c.repeat
			all.afterResend += c.afterResend
			all.fragment += c.fragment
		})
	}
	// Every case of the definition occurs in the captures.
	if all.matched == 0 || all.repeat == 0 || all.afterResend == 0 || all.fragment == 0 {
		t.Errorf("cases not exercised: %+v", all)
	}
}
