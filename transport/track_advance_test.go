package transport

import (
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Advance lets timeouts fire with no packet at all: a live capture on a
// quiet wire still learns that a peer went silent.
func TestAdvanceWithoutPackets(t *testing.T) {
	tests := []struct {
		name  string
		after time.Duration // Advance to this long after the last packet
		want  int           // peer-timeout events
	}{
		{"before the timeout", 30 * time.Second, 0},
		{"past the timeout", 50 * time.Second, 2}, // client and server both silent
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(DefaultConfig())
			tr.Advance(trkAt(0)) // before any packet: nothing to do, no panic
			var dg Datagram
			info := make([]MsgInfo, 4)
			for i, s := range []trkStep{
				{at: 0.0, cl: 0, dg: trkDG(2, trkData(0, "a"))},
				{at: 0.1, cl: 0, dir: S2C, dg: trkDG(1, trkAck(0))},
			} {
				Decode(s.dg, &dg)
				tr.Track(Packet{Frame: i + 1, Time: trkAt(s.at), Client: trkClients[s.cl], Server: trkServers[s.sv], Dir: s.dir, Size: len(s.dg)}, &dg, info, nil)
			}
			tr.Events()
			tr.Advance(trkAt(0.1).Add(tt.after))
			got := 0
			for _, e := range tr.Events() {
				if e.Code == anomaly.PeerTimeout {
					got++
				}
			}
			if got != tt.want {
				t.Errorf("%d peer-timeout events, want %d", got, tt.want)
			}
			tr.Advance(trkAt(1)) // going back in time changes nothing
			if ev := tr.Events(); len(ev) != 0 {
				t.Errorf("events after a step back: %v", ev)
			}
		})
	}
}
