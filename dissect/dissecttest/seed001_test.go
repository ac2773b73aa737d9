package dissecttest

import (
	"bytes"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport"
)

var seed001Variants = []Seed001Acks{Seed001FragmentAcks, Seed001AcksLost, Seed001AcksWithoutFragFlag}

// fragCopy is one send of a fragment of the stuck message.
type fragCopy struct {
	at  time.Time
	idx uint8
	msg transport.Message
}

// seed001Shape decodes a scenario: every send of the seq 2 fragments by the
// client, and the host's ACKs for high seq 2 (with and without the
// fragment flag).
func seed001Shape(t *testing.T, s *Session) (frags []fragCopy, fragAcks, plainAcks int) {
	t.Helper()
	var dg transport.Datagram
	for i, d := range s.Datagrams {
		transport.Decode(d.Plain, &dg)
		if len(dg.Anomalies) != 0 {
			t.Fatalf("datagram %d: %+v", i, dg.Anomalies)
		}
		if len(d.Plain) > 512 {
			t.Errorf("datagram %d is %d bytes, more than the stock 512", i, len(d.Plain))
		}
		for _, m := range dg.Messages {
			switch {
			case d.C2S && m.Type == transport.TypeData && m.Fragment && m.Seq == Seed001Seq:
				frags = append(frags, fragCopy{d.Time, m.FragIdx, m})
			case !d.C2S && m.Type == transport.TypeACK && !m.AckLow && m.Seq == Seed001Seq:
				if m.AckFrag {
					fragAcks++
				} else {
					plainAcks++
				}
			}
		}
	}
	return frags, fragAcks, plainAcks
}

func TestSeed001Shape(t *testing.T) {
	for _, v := range seed001Variants {
		t.Run(v.String(), func(t *testing.T) {
			s := Seed001(v)
			if !slices.IsSortedFunc(s.Datagrams, func(a, b Datagram) int { return a.Time.Compare(b.Time) }) {
				t.Fatal("datagrams out of time order")
			}
			frags, fragAcks, plainAcks := seed001Shape(t, s)
			sends := Seed001Frags * (1 + Seed001Resends)
			if len(frags) != sends {
				t.Fatalf("%d fragment sends, want %d", len(frags), sends)
			}
			// Every copy of a fragment carries the same bytes; fragment k's
			// resends come every Seed001Interval after its first resend.
			for i, f := range frags {
				first := frags[int(f.idx)]
				if f.idx != uint8(i%Seed001Frags) || !bytes.Equal(f.msg.Payload, first.msg.Payload) || f.msg.FragTotal != first.msg.FragTotal {
					t.Errorf("send %d: fragment %d differs from its first send", i, f.idx)
				}
				if round := i / Seed001Frags; round >= 2 {
					if gap := f.at.Sub(frags[i-Seed001Frags].at); gap != Seed001Interval {
						t.Errorf("send %d: %v after the previous copy, want %v", i, gap, Seed001Interval)
					}
				}
			}
			if span := frags[len(frags)-1].at.Sub(frags[0].at); span < 20*time.Second || span > 21*time.Second {
				t.Errorf("resends span %v, want about 20 s", span)
			}
			want := map[Seed001Acks][2]int{
				Seed001FragmentAcks:        {sends, 0},
				Seed001AcksLost:            {0, 0},
				Seed001AcksWithoutFragFlag: {0, sends},
			}[v]
			if fragAcks != want[0] || plainAcks != want[1] {
				t.Errorf("%d fragment ACKs and %d flagless ACKs for seq 2, want %v", fragAcks, plainAcks, want)
			}
		})
	}
}

// The fragments carry the round 2 response whole, and fragment 0 starts
// like trace packet #18 of seed 003 (protocol-facts 11: `32 9C A1 02 00 00
// 03 21 02`, 412 bytes).
func TestSeed001Fragments(t *testing.T) {
	frags, _, _ := seed001Shape(t, Seed001(Seed001FragmentAcks))
	var whole []byte
	for _, f := range frags[:Seed001Frags] {
		whole = append(whole, f.msg.Payload...)
	}
	if !bytes.Equal(whole, round2Response()) {
		t.Error("fragments do not join to the round 2 response")
	}
	var dg transport.Datagram
	for _, d := range Seed001(Seed001FragmentAcks).Datagrams {
		transport.Decode(d.Plain, &dg)
		for _, m := range dg.Messages {
			if m.Type == transport.TypeData && m.Fragment && m.FragIdx == 0 {
				raw := d.Plain[m.Offset : m.Offset+m.Len]
				if got := hex.EncodeToString(raw[:9]); got != "329ca10200000321"+"02" || m.Len != 412 {
					t.Fatalf("fragment 0 starts %s, %d bytes; want trace #18's 329ca10200000321 02, 412 bytes", got, m.Len)
				}
				return
			}
		}
	}
	t.Fatal("no fragment 0")
}

// The fragment-ACK variant quotes trace #21 (two fragment ACKs and the
// round 3 request) verbatim; the others change only the ACKs.
func TestSeed001Trace21(t *testing.T) {
	trace21 := mustHex("01 03 01 02 00 01 01 01 02 00 01 02 32 21 80 03 00 20 03 10 00 73 63 72 69 70 74 73 2F 6D 61 69 6E 6D 65 6E 75 05 00 2A 2E 70 79 63 20")
	round3 := trace21[12:]
	for _, v := range seed001Variants {
		found, req := false, false
		for _, d := range Seed001(v).Datagrams {
			found = found || bytes.Equal(d.Plain, trace21)
			req = req || !d.C2S && bytes.HasSuffix(d.Plain, round3)
		}
		if found != (v == Seed001FragmentAcks) || !req {
			t.Errorf("%v: trace #21 verbatim %v, round 3 request %v", v, found, req)
		}
	}
}

// The scenario is deterministic: the same pcap every time.
func TestSeed001Deterministic(t *testing.T) {
	for _, v := range seed001Variants {
		var a, b bytes.Buffer
		if err := Seed001(v).WritePcap(&a); err != nil {
			t.Fatal(err)
		}
		if err := Seed001(v).WritePcap(&b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%v: two runs differ", v)
		}
		if !strings.Contains(v.String(), "ack") {
			t.Errorf("variant name %q", v)
		}
	}
}
