package transport

import (
	"cmp"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// trkSteady is a synthetic steady state: the client sends a reliable message
// and a state update, the server ACKs and sends a reliable message of its own
// that the client ACKs; every 16th client message is a 3-fragment message.
type trkSteady struct {
	tr     *Tracker
	client netip.AddrPort
	dg     Datagram
	info   []MsgInfo
	buf    []byte
	frag   []byte
	seq    uint16
	n      int
	bytes  int
}

func newTrkSteady() *trkSteady {
	return &trkSteady{tr: NewTracker(Config{}), client: trkClients[0], info: make([]MsgInfo, 16), frag: trkPayload(0x21, 300)}
}

// step tracks one round of three datagrams and returns their messages;
// s.bytes accumulates their sizes.
func (s *trkSteady) step() int {
	msgs := 0
	seq := s.seq
	s.seq++
	at := trkEpoch.Add(time.Duration(s.n) * 10 * time.Millisecond)
	s.n++
	track := func(dir Dir) {
		Decode(s.buf, &s.dg)
		s.tr.Track(Packet{Frame: s.n, Time: at, Client: s.client, Server: trkServers[0], Dir: dir, Size: len(s.buf)},
			&s.dg, s.info, nil)
		msgs += len(s.dg.Messages)
		s.bytes += len(s.buf)
	}
	fragmented := seq%16 == 0
	s.buf = transporttest.AppendHeader(s.buf[:0], 2, 2)
	if fragmented {
		s.buf[1] = 4
		s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{Reliable: true, Seq: seq, Fragment: true, FragIdx: 0, FragTotal: 3}, s.frag[:100])
		s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{Reliable: true, Seq: seq, Fragment: true, FragIdx: 2}, s.frag[200:])
		s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{Reliable: true, Seq: seq, Fragment: true, FragIdx: 1}, s.frag[100:200])
	} else {
		s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{Reliable: true, Seq: seq}, []byte("\x07\x01\x02\x03\x04\x05"))
	}
	s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{}, []byte("\x1c\xff\xff\x03\x40\x00\x00\x80\x40\x0d\xee\xd9\xb3\x41"))
	track(C2S)

	s.buf = transporttest.AppendHeader(s.buf[:0], 1, 2)
	if fragmented {
		s.buf[1] = 4
		for i := range uint8(3) {
			s.buf = transporttest.AppendACK(s.buf, seq, false, true, i)
		}
	} else {
		s.buf = transporttest.AppendACK(s.buf, seq, false, false, 0)
	}
	s.buf = transporttest.AppendData(s.buf, transporttest.DataHeader{Reliable: true, Seq: seq}, []byte("\x29\xff\xff\xff\x3f\x1d\x7a"))
	track(S2C)

	s.buf = transporttest.AppendHeader(s.buf[:0], 2, 1)
	s.buf = transporttest.AppendACK(s.buf, seq, false, false, 0)
	track(C2S)
	return msgs
}

// BenchmarkTrack reports the cost per message in the steady state.
func BenchmarkTrack(b *testing.B) {
	s := newTrkSteady()
	for range 1000 { // warm up: fill windows and pools
		s.step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	msgs := 0
	s.bytes = 0
	for msgs < b.N {
		msgs += s.step()
	}
	b.SetBytes(int64(s.bytes / max(msgs, 1)))
}

// BenchmarkTrackFlows is BenchmarkTrack over n concurrent flows of one
// tracker, a round of each in turn: the cost per message should not depend
// on how many flows are tracked (issue 17: 3,000 flows within 1.25x of 3).
func BenchmarkTrackFlows(b *testing.B) {
	for _, n := range []int{3, 300, 3000} {
		b.Run(fmt.Sprintf("flows=%d", n), func(b *testing.B) {
			tr := NewTracker(Config{})
			flows := make([]*trkSteady, n)
			for i := range flows {
				flows[i] = newTrkSteady()
				flows[i].tr = tr
				flows[i].client = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 9, byte(i >> 8), byte(i)}), 4000)
			}
			for range 300 { // warm up: fill the windows
				for _, s := range flows {
					s.step()
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			msgs, bytes := 0, 0
			for i := 0; msgs < b.N; i++ {
				s := flows[i%n]
				s.bytes = 0
				msgs += s.step()
				bytes += s.bytes
			}
			b.SetBytes(int64(bytes / max(msgs, 1)))
			b.ReportMetric(float64(tr.TrackedBytes())/float64(tr.ActiveFlows()), "B/flow")
			if tr.ActiveFlows() != n || tr.nextID != FlowID(n) {
				b.Fatalf("%d active flows of %d created, want %d", tr.ActiveFlows(), tr.nextID, n)
			}
		})
	}
}

// BenchmarkTrackSession3 replays the OpenBC battle capture (already decoded)
// and reports the cost per message. Each replay uses fresh client ports so
// the flows are new; setup and Finish are outside the timer.
func BenchmarkTrackSession3(b *testing.B) {
	udps := trkReadPcap(b, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	frames := trkFramesFrom(udps)
	dgs := make([]Datagram, len(frames))
	msgs, bytes := 0, 0
	for i := range frames {
		Decode(frames[i].Plain, &dgs[i])
		msgs += len(dgs[i].Messages)
		bytes += len(frames[i].Plain)
	}
	info := make([]MsgInfo, 256)
	var anoms []anomaly.Anomaly
	b.ReportAllocs()
	b.SetBytes(int64(bytes / msgs))
	b.ResetTimer()
	done := 0
	for done < b.N {
		tr := NewTracker(Config{})
		for i := range frames {
			fr := &frames[i]
			anoms = tr.Track(Packet{Frame: i + 1, Time: fr.Time, Client: fr.Client, Server: fr.Server, Dir: fr.Dir,
				Size: len(fr.Plain)}, &dgs[i], info, anoms[:0])
		}
		b.StopTimer()
		tr.Finish()
		b.StartTimer()
		done += msgs
	}
}

// The steady state allocates nothing per datagram.
func TestTrackDoesNotAllocate(t *testing.T) {
	s := newTrkSteady()
	for range 1000 {
		s.step()
	}
	if n := testing.AllocsPerRun(2000, func() { s.step() }); n != 0 {
		t.Errorf("%.2f allocations per round of 3 datagrams, want 0", n)
	}
}

// BenchmarkTrackSession3Flows is the tracker's share of dissect's
// BenchmarkRunFlows: the decoded session 3 replayed BCDUMP_FLOW_COPIES
// times (default 1,000), one copy after another with fresh client ports
// ("3-flows"), or all copies started within 10 s, each client from its
// own address ("3000-flows"); Finish included. Issue 17 compares ns per
// datagram of the two.
func BenchmarkTrackSession3Flows(b *testing.B) {
	copies := 1000
	if s := os.Getenv("BCDUMP_FLOW_COPIES"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			copies = v
		}
	}
	frames := trkFramesFrom(trkReadPcap(b, filepath.Join(testdata, "captures", "openbc-session-3.pcap")))
	dgs := make([]Datagram, len(frames))
	client := make([]int, len(frames)) // index of the frame's client in order of appearance
	seen := map[netip.AddrPort]int{}
	for i := range frames {
		Decode(frames[i].Plain, &dgs[i])
		c, ok := seen[frames[i].Client]
		if !ok {
			c = len(seen)
			seen[frames[i].Client] = c
		}
		client[i] = c
	}
	start := frames[0].Time
	dur := frames[len(frames)-1].Time.Sub(start) + time.Second
	type at struct {
		ns   int64
		k, i int32
	}
	for _, spread := range []bool{false, true} {
		b.Run(fmt.Sprintf("%d-flows", map[bool]int{false: len(seen), true: len(seen) * copies}[spread]), func(b *testing.B) {
			order := make([]at, 0, copies*len(frames))
			for k := range copies {
				off := time.Duration(k) * dur
				if spread {
					off = time.Duration(k) * 10 * time.Second / time.Duration(copies)
				}
				for i := range frames {
					order = append(order, at{int64(frames[i].Time.Sub(start) + off), int32(k), int32(i)})
				}
			}
			slices.SortFunc(order, func(a, b at) int {
				return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.k, b.k), cmp.Compare(a.i, b.i))
			})
			info := make([]MsgInfo, 256)
			var anoms []anomaly.Anomaly
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tr := NewTracker(Config{})
				for _, o := range order {
					fr := &frames[o.i]
					cl := fr.Client
					if spread {
						cl = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(o.k >> 8), byte(o.k), byte(client[o.i])}), cl.Port())
					} else {
						cl = netip.AddrPortFrom(cl.Addr(), uint16(20000+int(o.k)*len(seen)+client[o.i]))
					}
					anoms = tr.Track(Packet{Frame: int(o.ns), Time: start.Add(time.Duration(o.ns)), Client: cl, Server: fr.Server,
						Dir: fr.Dir, Size: len(fr.Plain)}, &dgs[o.i], info, anoms[:0])
					tr.Events()
				}
				tr.Finish()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(order)), "ns/datagram")
		})
	}
}
