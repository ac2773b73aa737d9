package transport

import (
	"fmt"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Seed 001: the stock client sends a three-fragment checksum response (high
// seq 2), the server ACKs every fragment with a 5-byte fragment ACK
// (`01 02 00 01 <idx>`, as in trace packet #21), and the client keeps
// resending all three fragments every 2 s for 20 s anyway.

type seed001Acks int

const (
	seed001FragAcks  seed001Acks = iota // correct fragment ACKs (the stock bug)
	seed001AcksLost                     // no ACK reaches the capture
	seed001PlainAcks                    // ACKs without the fragment flag
)

const seed001Rounds = 10

func seed001Script(mode seed001Acks) trkScript {
	payload := trkPayload(0x21, 830) // round 2 response: ~830 bytes, 3 fragments
	chunks := [][]byte{payload[:405], payload[405:810], payload[810:]}
	var sc trkScript
	add := func(at float64, dir Dir, dg []byte, want string) {
		sc.steps = append(sc.steps, trkStep{at: at, dir: dir, dg: dg, want: want})
	}
	ack := func(idx uint8) []byte {
		if mode == seed001PlainAcks {
			return trkAck(2)
		}
		return trkAckFrag(2, idx)
	}
	ackWant := func(first bool, frame int) string {
		switch {
		case mode == seed001PlainAcks:
			return fmt.Sprintf("ack=mismatch<f%d", 1)
		case first:
			return fmt.Sprintf("ack=matched<f%d~%s", frame, []time.Duration{100 * time.Millisecond, 110 * time.Millisecond, 100 * time.Millisecond}[frame-1])
		}
		return fmt.Sprintf("ack=repeat<f%d", frame)
	}

	add(0.00, C2S, trkDG(2, trkFrag(2, 0, 3, chunks[0])), "new")
	add(0.01, C2S, trkDG(2, trkFrag(2, 1, 0, chunks[1])), "new")
	add(0.02, C2S, trkDG(2, trkFrag(2, 2, 0, chunks[2])), "new,asm3:830")
	if mode != seed001AcksLost {
		add(0.10, S2C, trkDG(1, ack(0)), ackWant(true, 1))
		add(0.12, S2C, trkDG(1, ack(1), ack(2), trkData(3, "\x20\x03scripts/mainmenu")),
			ackWant(true, 2)+" "+ackWant(true, 3)+" new")
	}
	for k := 1; k <= seed001Rounds; k++ {
		at := float64(2 * k)
		for idx := range 3 {
			total := uint8(0)
			if idx == 0 {
				total = 3
			}
			add(at+0.01*float64(idx), C2S, trkDG(2, trkFrag(2, uint8(idx), total, chunks[idx])),
				fmt.Sprintf("re%d<f%d,dup | retransmit@0", k, idx+1))
		}
		if mode != seed001AcksLost {
			// The stock server ACKs every copy it gets.
			add(at+0.1, S2C, trkDG(1, ack(0), ack(1), ack(2)),
				ackWant(false, 1)+" "+ackWant(false, 2)+" "+ackWant(false, 3))
		}
	}
	return sc
}

func TestSeed001(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  seed001Acks
		event anomaly.Code
		text  string
	}{
		{"fragment-acks", seed001FragAcks, anomaly.UnackedFragmentRetransmit,
			"c2s high seq 2 (3 fragments, first sent frame 1) was retransmitted 30 times after the receiver ACKed all 3 fragments with matching fragment ACKs (frames 4-5); resends span 20.02s from the first send to frame 44 (stock client bug, seed 001)"},
		{"acks-lost", seed001AcksLost, anomaly.RetransmitUnacked,
			"c2s high seq 2 (3 fragments, first sent frame 1) was retransmitted 30 times up to frame 33, 20.02s after the first send, and no matching ACK was seen for fragments 0, 1, 2"},
		{"acks-without-fragment-flag", seed001PlainAcks, anomaly.AckMismatch,
			"c2s high seq 2 (3 fragments, first sent frame 1): 33 ACKs for its seq had the wrong fragment status or index (first in frame 4: ACK without the fragment flag), 0 of 3 sent pieces got a matching ACK, 30 retransmissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := seed001Script(tc.mode)
			sc.events = []string{tc.event.String() + "@1.0"}
			tr, events := trkRun(t, sc)
			if len(events) != 1 {
				t.Fatalf("want exactly one event, got %d", len(events))
			}
			e := events[0]
			if e.Message() != tc.text {
				t.Errorf("message:\n got: %s\nwant: %s", e.Message(), tc.text)
			}
			if e.Severity() != anomaly.Warn || !e.Time.Equal(trkEpoch) || e.Offset != 2 {
				t.Errorf("event %+v: want warn at the first send, offset 2", e)
			}
			s := trkStats(t, tr, 0, 0)
			want := map[anomaly.Code]int{anomaly.Retransmit: 30, tc.event: 1}
			if fmt.Sprint(s.Anomalies) != fmt.Sprint(want) {
				t.Errorf("anomaly counts %v, want %v", s.Anomalies, want)
			}
			if s.Reliable[C2S] != 1 || s.Retransmissions[C2S] != 30 || s.RetransmittedMsgs[C2S] != 1 ||
				s.Fragments[C2S] != 3 || s.Reassembled[C2S] != 1 || s.Datagrams[C2S] != 33 {
				t.Errorf("c2s stats %+v", s)
			}
			if tc.mode == seed001FragAcks {
				// The server's fragment ACKs time the client's fragments: c2s.
				if (s.RTT != [2]RTT{C2S: {Count: 3, P50: 100 * time.Millisecond, P95: 110 * time.Millisecond, Max: 110 * time.Millisecond}}) ||
					s.Acks[S2C] != 33 {
					t.Errorf("RTT/ack stats %+v", s)
				}
			}
		})
	}
}

// The reassembled payload is the original, delivered once.
func TestSeed001Payload(t *testing.T) {
	sc := seed001Script(seed001FragAcks)
	tr := NewTracker(Config{})
	var dg Datagram
	info := make([]MsgInfo, 8)
	delivered := 0
	for i, s := range sc.steps {
		Decode(s.dg, &dg)
		tr.Track(Packet{Frame: i + 1, Time: trkAt(s.at),
			Client: trkClients[0], Server: trkServers[0], Dir: s.dir, Size: len(s.dg)}, &dg, info, nil)
		for j := range dg.Messages {
			if info[j].Reassembled != nil {
				delivered++
				if string(info[j].Reassembled) != string(trkPayload(0x21, 830)) || info[j].ReassembledFrags != 3 {
					t.Errorf("frame %d: wrong reassembly", i+1)
				}
			}
		}
	}
	if delivered != 1 {
		t.Errorf("delivered %d times, want once", delivered)
	}
}
