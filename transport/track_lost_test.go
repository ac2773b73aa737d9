package transport

import (
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// A datagram lost with its ports (Tracker.Lost) marks the flows between
// its hosts in its direction, and only those: the next seqs and the open
// reassemblies may have lost messages, so the ACKs are AckCut, the
// reassembly ends without fragment-incomplete, a message of the other
// direction resent and never ACKed is no news unless resent after the
// loss, and the flow counts the note.
func TestTrackerLost(t *testing.T) {
	tr := NewTracker(Config{})
	var dg Datagram
	info := make([]MsgInfo, 8)
	frame := 0
	track := func(cl int, d Dir, b []byte) []MsgInfo {
		t.Helper()
		frame++
		Decode(b, &dg)
		if len(dg.Anomalies) > 0 {
			t.Fatalf("frame %d does not decode: %v", frame, dg.Anomalies)
		}
		p := Packet{Frame: frame, Time: trkAt(float64(frame) / 10), Client: trkClients[cl], Server: trkServers[0], Dir: d, Size: len(b)}
		tr.Track(p, &dg, info, nil)
		return info[:len(dg.Messages)]
	}
	track(0, C2S, trkDG(2, trkData(0, "\x32a")))
	track(0, C2S, trkDG(2, trkFrag(1, 0, 3, trkPayload(0x32, 20))))
	track(1, C2S, trkDG(3, trkData(0, "\x32b")))
	// The server's seq 5 and 6, resent: their ACKs may be in the lost
	// datagram. Seq 6 is resent again after it, and never ACKed.
	for range 2 {
		track(0, S2C, trkDG(1, trkData(5, "\x32c"), trkData(6, "\x32d")))
	}

	var marked []FlowKey
	tr.Lost(trkClients[0].Addr(), trkServers[0].Addr(), func(fl Flow) { marked = append(marked, fl.Key()) })
	if len(marked) != 1 || marked[0] != (FlowKey{trkClients[0], trkServers[0]}) {
		t.Fatalf("marked %v", marked)
	}
	tr.Lost(trkServers[1].Addr(), trkClients[0].Addr(), nil) // no flow between them

	track(0, S2C, trkDG(1, trkData(6, "\x32d")))
	for _, tc := range []struct {
		cl   int
		ack  []byte
		want AckResult
	}{
		{0, trkAck(2), AckCut},        // the next seq
		{0, trkAckFrag(1, 1), AckCut}, // a fragment of the open reassembly
		{0, trkAck(0), AckMatched},    // what was seen still matches
		{0, trkAck(20), AckUnknown},   // far past what the lost datagram may have held
		{1, trkAck(1), AckUnknown},    // another flow: not marked
	} {
		if mi := track(tc.cl, S2C, trkDG(1, tc.ack)); mi[0].Ack != tc.want {
			t.Errorf("frame %d: ACK %v, want %v", frame, mi[0].Ack, tc.want)
		}
	}
	var unacked []string
	for _, e := range tr.Finish() {
		switch e.Code {
		case anomaly.FragmentIncomplete:
			t.Errorf("event %s: %s", e.Code, e.Message())
		case anomaly.RetransmitUnacked:
			unacked = append(unacked, e.Message())
		}
	}
	if len(unacked) != 1 || !strings.Contains(unacked[0], "seq 6 ") {
		t.Errorf("retransmit-unacked: %q, want seq 6 only", unacked)
	}
	if n := trkStats(t, tr, 0, 0).Anomalies[anomaly.IPFragmentIncomplete]; n != 1 {
		t.Errorf("flow counts %d ip-fragment-incomplete, want 1", n)
	}
	if n := trkStats(t, tr, 1, 0).Anomalies[anomaly.IPFragmentIncomplete]; n != 0 {
		t.Errorf("other flow counts %d ip-fragment-incomplete", n)
	}
}

// An ACK the snap length cut (uncaptured after a cut message) spares the
// message it may have acknowledged retransmit-unacked, as a lost one does.
func TestTrackerCutAck(t *testing.T) {
	tr := NewTracker(Config{})
	var dg Datagram
	info := make([]MsgInfo, 8)
	p := Packet{Client: trkClients[0], Server: trkServers[0]}
	for i := range 2 { // seq 5, resent
		b := trkDG(1, trkData(5, "\x32c"))
		Decode(b, &dg)
		p.Frame, p.Time, p.Dir, p.Size = i+1, trkAt(float64(i)/10), S2C, len(b)
		tr.Track(p, &dg, info, nil)
	}
	b := trkDG(2, trkData(1, "\x32"+strings.Repeat("x", 20)), trkAck(5))
	cut := len(b) - 10 // inside the data message: the ACK is not captured
	DecodeCut(b[:cut], len(b)-cut, &dg)
	if dg.Uncaptured != 1 || len(dg.Anomalies) > 0 {
		t.Fatalf("uncaptured %d, anomalies %v", dg.Uncaptured, dg.Anomalies)
	}
	p.Frame, p.Time, p.Dir, p.Size = 3, trkAt(0.3), C2S, len(b)
	tr.Track(p, &dg, info, nil)
	for _, e := range tr.Finish() {
		t.Errorf("event %s: %s", e.Code, e.Message())
	}
}
