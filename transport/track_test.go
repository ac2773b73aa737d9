package transport

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

func TestSeqDiff(t *testing.T) {
	for _, tc := range []struct {
		s, o Seq
		want int
	}{
		{5, 3, 2}, {3, 5, -2}, {0, 65535, 1}, {65535, 0, -1}, {1, 65534, 3},
		{32767, 0, 32767}, {32768, 0, -32768}, {7, 7, 0},
	} {
		if got := tc.s.Diff(tc.o); got != tc.want {
			t.Errorf("Seq(%d).Diff(%d) = %d, want %d", tc.s, tc.o, got, tc.want)
		}
	}
	if got := Seq(65535).Add(2); got != 1 {
		t.Errorf("Seq(65535).Add(2) = %d, want 1", got)
	}
	if got := Seq(65534).unwrap(65535 + 65536); got != 65534+65536 {
		t.Errorf("unwrap = %d", got)
	}
}

var (
	trkConnectReq = []byte{0x0A, 0x0A, 0x0A, 0xEF, 0x5F, 0x0A, 0, 0, 0, 0} // protocol-facts 4.1
	trkCady2      = transporttest.AppendPeerInfo(nil, 3, [4]byte{10, 10, 10, 0xEF}, "Cady2")
)

func TestTrackScripts(t *testing.T) {
	p20 := trkPayload(0x21, 20)
	p60 := trkPayload(0x22, 60)
	p90 := trkPayload(0x23, 90)
	p200 := trkPayload(0x24, 200)
	for _, tc := range []struct {
		name string
		sc   trkScript
	}{
		{"fragments out of order and duplicated", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkFrag(7, 2, 0, []byte("CC"))), want: "new"},
			{at: 0.1, dg: trkDG(2, trkFrag(7, 0, 3, []byte("AA"))), want: "new"},
			{at: 0.2, dg: trkDG(2, trkFrag(7, 2, 0, []byte("CC"))), want: "re1<f1,dup | retransmit@0"},
			{at: 0.3, dg: trkDG(2, trkFrag(7, 1, 0, []byte("BB"))), want: "new,asm3:6"},
			{at: 0.4, dg: trkDG(2, trkFrag(7, 0, 3, []byte("AA"))), want: "re1<f2,dup | retransmit@0"},
			// Two fragments of one message in one datagram, then the last.
			{at: 0.5, dg: trkDG(2, trkFrag(8, 1, 0, []byte("y")), trkFrag(8, 0, 3, []byte("x"))), want: "new new"},
			{at: 0.6, dg: trkDG(2, trkFrag(8, 2, 0, []byte("z"))), want: "new,asm3:3"},
			{at: 0.7, dir: S2C, dg: trkDG(1, trkAckFrag(7, 0), trkAckFrag(7, 1), trkAckFrag(7, 2)),
				want: "ack=matched<f2~600ms ack=matched<f4~400ms ack=matched<f1~700ms"},
		}}},

		{"seq wrap 65535 to 0", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkData(65534, "a")), want: "new"},
			{at: 0.1, dg: trkDG(2, trkFrag(65535, 0, 2, []byte("b1"))), want: "new"},
			{at: 0.2, dg: trkDG(2, trkData(0, "c"), trkFrag(65535, 1, 0, []byte("b2"))), want: "new new,asm2:4"},
			{at: 0.3, dir: S2C, dg: trkDG(1, trkAck(65534), trkAckFrag(65535, 0), trkAckFrag(65535, 1), trkAck(0)),
				want: "ack=matched<f1~300ms ack=matched<f2~200ms ack=matched<f3~100ms ack=matched<f3~100ms"},
			{at: 0.4, dg: trkDG(2, trkData(1, "d")), want: "new"},
			{at: 0.5, dir: S2C, dg: trkDG(1, trkAck(1), trkAck(2), trkAck(65535)),
				want: "ack=matched<f5~100ms ack=unknown ack=mismatch<f2 | ack-unknown@1"},
		}, events: []string{"ack-mismatch@2.0"}}},

		{"reassembly limits", trkScript{cfg: Config{MaxOpenReassemblies: 2, MaxReassemblyBytes: 100}, steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkFrag(1, 0, 2, p20)), want: "new"},
			{at: 0.1, dg: trkDG(2, trkFrag(2, 0, 2, p20)), want: "new"},
			{at: 0.2, dg: trkDG(2, trkFrag(3, 0, 2, p20)), want: "new | reassembly-overflow@0"},
			{at: 0.3, dg: trkDG(2, trkFrag(1, 1, 0, p20)), want: "new"}, // seq 1 was dropped
			{at: 0.4, dg: trkDG(2, trkFrag(2, 1, 0, p60)), want: "new,asm2:80"},
			{at: 0.5, dg: trkDG(2, trkFrag(4, 0, 2, p90)), want: "new | reassembly-overflow@0"},
			{at: 0.6, dg: trkDG(2, trkFrag(5, 1, 0, p200)), want: "new | reassembly-overflow@0"},
		}, events: []string{"fragment-incomplete@6.0"}}},

		{"fragment totals", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkFrag(5, 0, 0, []byte("a"))), want: "new | fragment-bad-total@0"},
			{at: 0.1, dg: trkDG(2, trkFrag(5, 1, 0, []byte("b"))), want: "new"},
			{at: 0.2, dg: trkDG(2, trkFrag(6, 0, 2, []byte("a"))), want: "new"},
			{at: 0.3, dg: trkDG(2, trkFrag(6, 5, 0, []byte("x"))), want: "new | fragment-bad-total@0"},
			{at: 0.4, dg: trkDG(2, trkFrag(6, 1, 0, []byte("b"))), want: "new,asm2:2"},
			{at: 0.5, dg: trkDG(2, trkFrag(7, 3, 0, []byte("x"))), want: "new"},
			{at: 0.6, dg: trkDG(2, trkFrag(7, 0, 2, []byte("a"))), want: "new | fragment-bad-total@0"},
			{at: 0.7, dg: trkDG(2, trkFrag(7, 1, 0, []byte("b"))), want: "new,asm2:2"},
			{at: 0.8, dg: trkDG(2, trkFrag(8, 0, 1, []byte("solo"))), want: "new,asm1:4"},
			{at: 0.9, dg: trkDG(2, transporttest.AppendData(nil, transporttest.DataHeader{Fragment: true, FragTotal: 2}, []byte("u"))),
				want: "- | fragment-unreliable@0"},
		}}},

		{"peer id from the connect exchange, name, mismatch", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(0xFF, trkLow(TypeConnect, 0, trkConnectReq)), want: "new"},
			{at: 0.1, dir: S2C, dg: trkDG(1, trkLow(TypeConnect, 0, []byte{3}), trkData(0, "\x20\x00")), want: "new new"},
			{at: 0.2, dg: trkDG(3, trkAckLow(0), trkAck(0), trkLow(TypePeerInfo, 1, trkCady2)),
				want: "ack=matched<f2~100ms ack=matched<f2~100ms new"},
			{at: 0.3, dir: S2C, dg: trkDG(1, trkAckLow(0), trkAckLow(1), trkLow(TypePeerInfo, 1, trkCady2)),
				want: "ack=matched<f1~300ms ack=matched<f3~100ms new"},
			{at: 0.4, dg: trkDG(4, trkData(0, "x")), want: "new | peer-id-mismatch@-1"},
			{at: 0.5, dg: trkDG(4, trkData(1, "x")), want: "new"},
			{at: 0.6, dg: trkDG(3, trkData(2, "x")), want: "new"},
			{at: 0.7, dg: trkDG(4, trkData(3, "x")), want: "new | peer-id-mismatch@-1"},
			{at: 0.8, dir: S2C, dg: trkDG(7, trkUnrel("\x1c")), want: "- | peer-id-mismatch@-1"},
		}}},

		{"ack unknown, channels kept apart", trkScript{steps: []trkStep{
			{at: 0.0, dir: S2C, dg: trkDG(1, trkAck(9)), want: "ack=unknown | ack-unknown@0"},
			{at: 0.1, dg: trkDG(2, trkData(0, "x")), want: "new"},
			{at: 0.2, dir: S2C, dg: trkDG(1, trkAckLow(0)), want: "ack=unknown | ack-unknown@0"},
			{at: 0.3, dir: S2C, dg: trkDG(1, trkAckFrag(0, 0)), want: "ack=mismatch<f2"},
			{at: 0.4, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f2~300ms"},
			{at: 0.5, dg: trkDG(2, trkAck(0)), want: "ack=unknown | ack-unknown@0"}, // nothing sent s2c
		}, events: []string{"ack-mismatch@2.0"}}},

		{"retransmit differs", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkData(4, "abc")), want: "new"},
			{at: 1.0, dg: trkDG(2, trkData(4, "abd")), want: "re1!=f1 | retransmit@0 | retransmit-differs@0"},
			{at: 2.0, dg: trkDG(2, trkData(4, "abc")), want: "re2<f1 | retransmit@0"},
			{at: 3.0, dg: trkDG(2, trkFrag(5, 0, 2, []byte("a"))), want: "new"},
			{at: 4.0, dg: trkDG(2, trkData(5, "a")), want: "re1!=f4 | retransmit@0 | retransmit-differs@0"},
			{at: 5.0, dg: trkDG(2, transporttest.AppendData(nil, transporttest.DataHeader{Reliable: true, Ordered: true, Seq: 4}, []byte("abc"))),
				want: "re3!=f1 | retransmit@0 | retransmit-differs@0"},
		}, events: []string{"retransmit-unacked@1.0", "fragment-incomplete@4.0"}}},

		{"keepalives and seq reuse (OpenBC style)", trkScript{steps: []trkStep{
			{at: 0.0, dir: S2C, dg: trkDG(1, trkLow(TypeConnect, 0, []byte{2})), want: "new"},
			{at: 1.0, dir: S2C, dg: trkDG(1, transporttest.AppendLow(nil, TypePeerInfo, true, false, 0, trkCady2)), want: "new | seq-reuse@0"},
			{at: 2.0, dir: S2C, dg: trkDG(1, transporttest.AppendLow(nil, TypePeerInfo, true, false, 0, trkCady2)), want: "ka<f2"},
			{at: 3.0, dir: S2C, dg: trkDG(1, transporttest.AppendLow(nil, TypePeerInfo, true, false, 0, trkCady2)), want: "ka<f2"},
			{at: 4.0, dir: S2C, dg: trkDG(1, transporttest.AppendLow(nil, TypePeerInfo, true, false, 0, trkCady2[:7])),
				want: "re1!=f2 | retransmit@0 | retransmit-differs@0"},
			{at: 4.1, dg: trkDG(2, trkAckLow(0)), want: "ack=matched<f2~3.1s"},
		}}},

		{"window of tracked messages", trkScript{cfg: Config{MaxTrackedMessages: 2}, steps: []trkStep{
			{at: 0.0, dg: trkDG(2, trkData(1, "a")), want: "new"},
			{at: 0.1, dg: trkDG(2, trkData(2, "b")), want: "new"},
			{at: 0.2, dg: trkDG(2, trkData(3, "c")), want: "new"},
			{at: 0.3, dir: S2C, dg: trkDG(1, trkAck(1)), want: "ack=unknown | ack-unknown@0"},
			{at: 1.0, dg: trkDG(2, trkData(2, "b")), want: "re1<f2 | retransmit@0"},
			{at: 1.1, dg: trkDG(2, trkData(4, "d")), want: "new"},
			{at: 1.2, dg: trkDG(2, trkData(5, "e")), want: "new"},
		}, events: []string{"tracking-limit@1.0", "retransmit-unacked@2.0"}}},

		{"several clients and servers, IPv6", trkScript{steps: []trkStep{
			{at: 0.0, cl: 0, sv: 0, dg: trkDG(2, trkData(0, "a")), want: "new"},
			{at: 0.1, cl: 1, sv: 0, dg: trkDG(3, trkData(0, "b")), want: "new"},
			{at: 0.2, cl: 2, sv: 1, dg: trkDG(2, trkData(0, "c")), want: "new"},
			{at: 0.3, cl: 2, sv: 0, dg: trkDG(4, trkData(0, "d")), want: "new"},
			{at: 0.4, cl: 1, sv: 0, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f2~300ms"},
			{at: 0.5, cl: 2, sv: 1, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f3~300ms"},
			{at: 0.6, cl: 0, sv: 0, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f1~600ms"},
			{at: 0.7, cl: 2, sv: 0, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f4~400ms"},
			{at: 0.8, cl: 2, sv: 1, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=repeat<f3"},
		}}},

		{"reconnect starts a new session", trkScript{steps: []trkStep{
			{at: 0.0, dg: trkDG(0xFF, trkLow(TypeConnect, 0, trkConnectReq)), want: "new"},
			{at: 1.0, dg: trkDG(0xFF, trkLow(TypeConnect, 0, trkConnectReq)), want: "re1<f1 | retransmit@0"},
			{at: 1.1, dir: S2C, dg: trkDG(1, trkLow(TypeConnect, 0, []byte{2})), want: "new"},
			{at: 1.2, dg: trkDG(2, trkAckLow(0), trkData(0, "a")), want: "ack=matched<f3~100ms new"},
			{at: 2.0, dg: trkDG(2, trkData(0, "a")), want: "re1<f4 | retransmit@0"},
			{at: 5.0, dg: trkDG(0xFF, trkLow(TypeConnect, 0, trkConnectReq)), want: "new"},
			{at: 5.1, dir: S2C, dg: trkDG(1, trkLow(TypeConnect, 0, []byte{5})), want: "new"},
			{at: 5.2, dg: trkDG(5, trkAckLow(0), trkData(0, "b")), want: "ack=matched<f7~100ms new"},
			{at: 5.3, dir: S2C, dg: trkDG(1, trkAckLow(0), trkAck(0)), want: "ack=matched<f6~300ms ack=matched<f8~100ms"},
		}, events: []string{"retransmit-unacked@1.0", "retransmit-unacked@4.1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { trkRun(t, tc.sc) })
	}
}

func TestPeerIdentity(t *testing.T) {
	sc := trkScript{steps: []trkStep{
		{at: 0.0, dg: trkDG(0xFF, trkLow(TypeConnect, 0, trkConnectReq)), want: "new"},
		{at: 0.1, dir: S2C, dg: trkDG(1, trkLow(TypeConnect, 0, []byte{3})), want: "new"},
		{at: 0.2, dg: trkDG(3, trkLow(TypePeerInfo, 1, trkCady2)), want: "new"},
		{at: 0.3, dg: trkDG(4, trkData(0, "x")), want: "new | peer-id-mismatch@-1"},
		{at: 0.4, dg: trkDG(4, trkData(1, "x")), want: "new"},
		// Mid-session flow: id from byte 0, name from the host's PeerInfo about it.
		{at: 0.5, cl: 1, dg: trkDG(5, trkData(9, "x")), want: "new"},
		{at: 0.6, cl: 1, dir: S2C, dg: trkDG(1,
			trkLow(TypePeerInfo, 4, transporttest.AppendPeerInfo(nil, 7, [4]byte{1, 2, 3, 4}, "Other")),
			trkLow(TypePeerInfo, 5, transporttest.AppendPeerInfo(nil, 5, [4]byte{1, 2, 3, 5}, "Bob"))), want: "new new"},
	}}
	tr, _ := trkRun(t, sc)
	s := trkStats(t, tr, 0, 0)
	if !s.HasPeerID || s.PeerID != 3 || s.PeerIDFrom != "connect" || s.PlayerName != "Cady2" ||
		s.PeerIDMismatches[C2S] != 2 || s.Anomalies[anomaly.PeerIDMismatch] != 2 {
		t.Errorf("flow 1: %+v", s)
	}
	s = trkStats(t, tr, 1, 0)
	if !s.HasPeerID || s.PeerID != 5 || s.PeerIDFrom != "byte0" || s.PlayerName != "Bob" {
		t.Errorf("flow 2: %+v", s)
	}
}

func TestPeerTimeout(t *testing.T) {
	steps := []trkStep{
		{at: 0.0, cl: 0, dg: trkDG(2, trkData(0, "a")), want: "new"},
		{at: 0.1, cl: 0, dir: S2C, dg: trkDG(1, trkAck(0)), want: "ack=matched<f1~100ms"},
		// Client 1 disconnects gracefully: no timeout for it.
		{at: 0.2, cl: 1, dg: trkDG(3, trkLow(TypeDisconnect, 2, []byte{3, 10, 0, 0, 3})), want: "new"},
	}
	for i := 1; i <= 6; i++ { // client 2 keeps the capture going
		at := float64(10 * i)
		steps = append(steps,
			trkStep{at: at, cl: 2, sv: 1, dg: trkDG(4, trkUnrel("\x1c")), want: "-"},
			trkStep{at: at + 0.5, cl: 2, sv: 1, dir: S2C, dg: trkDG(1, trkUnrel("\x1c")), want: "-"})
	}
	// Client 0 comes back after 70 s, then the server goes quiet towards it
	// until the end of the capture (found by Finish, not a sweep).
	steps = append(steps,
		trkStep{at: 70, cl: 0, dg: trkDG(2, trkUnrel("\x1c")), want: "-"},
		trkStep{at: 70.1, cl: 0, dir: S2C, dg: trkDG(1, trkUnrel("\x1c")), want: "-"},
		trkStep{at: 115.0, cl: 0, dg: trkDG(2, trkUnrel("\x1c")), want: "-"},
		trkStep{at: 115.5, cl: 0, dg: trkDG(2, trkUnrel("\x1c")), want: "-"},
	)
	tr, events := trkRun(t, trkScript{steps: steps, events: []string{
		"peer-timeout@1.-1", "peer-timeout@2.-1", // client 0 both ways: found by the sweep at 50 s
		"peer-timeout@14.-1", "peer-timeout@15.-1", // client 2 stopped at 60 s: found by the sweep at 115 s
		"peer-timeout@17.-1", // server silent towards client 0 since 70.1 s: found by Finish
	}})
	wantTimes := []float64{45, 45.1, 105, 105.5, 115.1}
	for i, e := range events {
		if got := e.Time.Sub(trkEpoch).Seconds(); fmt.Sprintf("%.3f", got) != fmt.Sprintf("%.3f", wantTimes[i]) {
			t.Errorf("event %d at %.3f s, want %.3f", i, got, wantTimes[i])
		}
	}
	if want := "client 10.0.0.2:50000 (peer 2) sent nothing for more than the 45s peer timeout after frame 1"; events[0].Message() != want {
		t.Errorf("message %q, want %q", events[0].Message(), want)
	}
	if s := trkStats(t, tr, 0, 0); s.Anomalies[anomaly.PeerTimeout] != 3 {
		t.Errorf("flow 1 peer timeouts %d, want 3", s.Anomalies[anomaly.PeerTimeout])
	}
}

func TestFlowLifecycle(t *testing.T) {
	// Idle flows end; a returning client gets a new flow.
	tr, _ := trkRun(t, trkScript{cfg: Config{FlowIdle: 10e9, PeerTimeout: 60e9}, steps: []trkStep{
		{at: 0, cl: 0, dg: trkDG(2, trkData(0, "a")), want: "new"},
		{at: 20, cl: 1, dg: trkDG(3, trkData(0, "b")), want: "new"},
		{at: 21, cl: 0, dg: trkDG(2, trkData(0, "a")), want: "new"},
	}})
	var got []string
	for _, s := range tr.Flows() {
		got = append(got, fmt.Sprintf("%d:%v:%v", s.ID, s.Client, s.Finished))
	}
	if want := "1:10.0.0.2:50000:true 2:10.0.0.3:50001:true 3:10.0.0.2:50000:true"; strings.Join(got, " ") != want {
		t.Errorf("flows %v, want %s", got, want)
	}

	// MaxFlowBytes evicts the least recently active flow; MaxFinishedFlows sums the rest.
	tr, _ = trkRun(t, trkScript{cfg: Config{MaxFlowBytes: roomFor(2), MaxFinishedFlows: 1}, steps: []trkStep{
		{at: 0, cl: 0, dg: trkDG(2, trkData(0, "a")), want: "new"},
		{at: 1, cl: 1, dg: trkDG(3, trkData(0, "b")), want: "new"},
		{at: 2, cl: 2, sv: 1, dg: trkDG(4, trkData(0, "c")), want: "new"},
	}, events: []string{"tracking-limit@1.-1"}})
	flows := tr.Flows()
	if len(flows) != 2 || flows[0].ID != 1 || !flows[1].Other || flows[1].Flows != 2 ||
		flows[1].Datagrams[C2S] != 2 || flows[1].Reliable[C2S] != 2 {
		t.Errorf("flows %+v", flows)
	}
}

// Seq reuse after the counter came round: a seq far behind the newest one
// is a new message, not a retransmission (the sender's counter moved on by
// more than half the space since the old message).
func TestSeqReuseAfterWrap(t *testing.T) {
	trkRun(t, trkScript{steps: []trkStep{
		{at: 0, dg: trkDG(2, trkData(10, "old")), want: "new"},
		{at: 1, dg: trkDG(2, trkData(10, "old")), want: "re1<f1 | retransmit@0"},
		{at: 2, dg: trkDG(2, trkData(20000, "a")), want: "new"},
		{at: 3, dg: trkDG(2, trkData(40000, "b")), want: "new"},
		{at: 4, dg: trkDG(2, trkData(60000, "c")), want: "new"},
		{at: 5, dg: trkDG(2, trkData(14464, "d")), want: "new"}, // 80000: the counter wrapped
		{at: 6, dg: trkDG(2, trkData(10, "new bytes")), want: "new"},
		{at: 7, dir: S2C, dg: trkDG(1, trkAck(10), trkAck(14464)), want: "ack=matched<f7~1s ack=matched<f6~2s"},
	}, events: []string{"retransmit-unacked@1.0"}})
}

// Track never panics when info is shorter than the message list.
func TestTrackShortInfo(t *testing.T) {
	tr := NewTracker(Config{})
	var dg Datagram
	Decode(trkDG(2, trkData(1, "a"), trkData(2, "b"), trkFrag(3, 0, 1, []byte("c"))), &dg)
	tr.Track(Packet{Frame: 1, Time: trkEpoch, Client: trkClients[0], Server: trkServers[0]}, &dg, nil, nil)
	if s := tr.Flows()[0]; s.Reliable[C2S] != 3 || s.Reassembled[C2S] != 1 {
		t.Errorf("%+v", s)
	}
}

// A layer's per-flow state (Flow.State) lives and dies with the flow: kept
// across its datagrams, gone when the flow ends idle or is evicted, and
// anomalies counted through the handle appear in the flow's statistics.
func TestFlowState(t *testing.T) {
	tr := NewTracker(Config{FlowIdle: 10e9, MaxFlowBytes: roomFor(2)})
	cl := func(i int) netip.AddrPort {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(2 + i)}), 50000)
	}
	srv := netip.MustParseAddrPort("10.0.0.1:22101")
	var dg Datagram
	info := make([]MsgInfo, 4)
	track := func(frame int, sec float64, client int) Flow {
		Decode(trkDG(2, trkUnrel("x")), &dg)
		tr.Track(Packet{Frame: frame, Time: trkAt(sec), Client: cl(client), Server: srv, Dir: C2S, Size: 8}, &dg, info, nil)
		return tr.Current()
	}
	if tr.Current().Valid() {
		t.Fatal("a flow before the first datagram")
	}
	fl := track(1, 0, 0)
	if !fl.Valid() || fl.Key().Client != cl(0) || fl.State() != nil {
		t.Fatalf("new flow %+v", fl)
	}
	fl.SetState("handshake")
	fl.Count(anomaly.PayloadMalformed)
	if st := track(2, 1, 0).State(); st != "handshake" {
		t.Errorf("state on the next datagram %v", st)
	}
	if st := track(3, 30, 0).State(); st != nil {
		t.Errorf("state %v survived the idle timeout", st)
	}
	track(4, 31, 0).SetState("again")
	track(5, 32, 1)
	track(6, 33, 2) // evicts client 0 (room for 2 flows)
	if st := track(7, 34, 0).State(); st != nil {
		t.Errorf("state %v survived eviction", st)
	}
	if n := tr.Flows()[0].Anomalies[anomaly.PayloadMalformed]; n != 1 {
		t.Errorf("flow 1 counts %d payload-malformed, want 1", n)
	}
}
