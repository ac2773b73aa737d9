package transport

import (
	"fmt"
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// Scripts of datagrams in the style of gopacket's tcpassembly_test: each
// step is one datagram (built with the Append* encoders or real bytes) and
// the expected description of what Track made of it.

var (
	trkClients = []netip.AddrPort{
		netip.MustParseAddrPort("10.0.0.2:50000"),
		netip.MustParseAddrPort("10.0.0.3:50001"),
		netip.MustParseAddrPort("[2001:db8::2]:50002"),
	}
	trkServers = []netip.AddrPort{
		netip.MustParseAddrPort("10.0.0.1:22101"),
		netip.MustParseAddrPort("[2001:db8::1]:22101"),
	}
	trkEpoch = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
)

type trkStep struct {
	at     float64 // seconds after trkEpoch
	dir    Dir
	cl, sv int // indexes into trkClients, trkServers
	dg     []byte
	want   string // trkDescribe of the result; "*" skips the check
}

type trkScript struct {
	cfg    Config
	steps  []trkStep
	events []string // trkEvent of every event, in order (Events after each step, then Finish)
}

// trkRun plays a script and returns the tracker (after Finish) and all events.
func trkRun(t *testing.T, sc trkScript) (*Tracker, []Event) {
	t.Helper()
	tr := NewTracker(sc.cfg)
	var dg Datagram
	var all []Event
	info := make([]MsgInfo, 256)
	for i, s := range sc.steps {
		Decode(s.dg, &dg)
		if len(dg.Anomalies) > 0 {
			t.Fatalf("step %d: test datagram does not decode: %v", i, dg.Anomalies)
		}
		p := Packet{
			Frame: i + 1, Time: trkAt(s.at),
			Client: trkClients[s.cl], Server: trkServers[s.sv], Dir: s.dir, Size: len(s.dg),
		}
		anoms := tr.Track(p, &dg, info, nil)
		if got := trkDescribe(&dg, info, anoms); s.want != "*" && got != s.want {
			t.Errorf("frame %d:\n got: %s\nwant: %s", i+1, got, s.want)
		}
		all = append(all, tr.Events()...)
	}
	all = append(all, tr.Finish()...)
	var got []string
	for _, e := range all {
		got = append(got, trkEvent(e))
	}
	if sc.events != nil || len(got) > 0 {
		if strings.Join(got, "\n") != strings.Join(sc.events, "\n") {
			t.Errorf("events:\n got: %q\nwant: %q", got, sc.events)
		}
	}
	return tr, all
}

// trkAt is trkEpoch plus sec seconds, rounded to the microsecond so that
// float steps like 4.1 give exact durations.
func trkAt(sec float64) time.Time {
	return trkEpoch.Add(time.Duration(math.Round(sec*1e6)) * time.Microsecond)
}

// trkDescribe summarises Track's result for one datagram, message by message:
//
//	new          first send of a reliable message or fragment
//	ka<f2        keepalive: identical repeat of the type 0x00 message of frame 2
//	re2<f1       second resend, first sent in frame 1 (!= when bytes differ)
//	ack=matched<f3~100ms   ACK result, acked frame, RTT
//	dup          fragment already held or message delivered
//	asm3:41      reassembly of 3 fragments, 41 bytes, completed here
//	-            nothing to say (unreliable, or not a tracked kind)
//
// then " | code@msg" for each anomaly.
func trkDescribe(dg *Datagram, info []MsgInfo, anoms []anomaly.Anomaly) string {
	var b strings.Builder
	for i := range dg.Messages {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(trkInfo(&dg.Messages[i], &info[i]))
	}
	for _, a := range anoms {
		fmt.Fprintf(&b, " | %s@%d", a.Code, a.Msg)
	}
	return b.String()
}

func trkInfo(m *Message, mi *MsgInfo) string {
	var parts []string
	switch {
	case mi.Ack == AckMatched:
		parts = append(parts, fmt.Sprintf("ack=matched<f%d~%s", mi.AckedFrame, mi.RTT))
	case mi.Ack == AckRepeat || mi.Ack == AckMismatch:
		parts = append(parts, fmt.Sprintf("ack=%s<f%d", mi.Ack, mi.AckedFrame))
	case mi.Ack == AckUnknown:
		parts = append(parts, "ack=unknown")
	case mi.Keepalive:
		parts = append(parts, fmt.Sprintf("ka<f%d", mi.FirstFrame))
	case mi.Retransmit:
		op := "<"
		if mi.Differs {
			op = "!="
		}
		parts = append(parts, fmt.Sprintf("re%d%sf%d", mi.RetransmitCount, op, mi.FirstFrame))
	case m.Reliable:
		parts = append(parts, "new")
	}
	if mi.Dup {
		parts = append(parts, "dup")
	}
	if mi.Reassembled != nil {
		parts = append(parts, fmt.Sprintf("asm%d:%d", mi.ReassembledFrags, len(mi.Reassembled)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

func trkEvent(e Event) string { return fmt.Sprintf("%s@%d.%d", e.Code, e.Frame, e.Msg) }

// Datagram builders.

func trkDG(peer uint8, msgs ...[]byte) []byte {
	b := transporttest.AppendHeader(nil, peer, uint8(len(msgs)))
	for _, m := range msgs {
		b = append(b, m...)
	}
	return b
}

func trkData(seq uint16, payload string) []byte {
	return transporttest.AppendData(nil, transporttest.DataHeader{Reliable: true, Seq: seq}, []byte(payload))
}

func trkUnrel(payload string) []byte {
	return transporttest.AppendData(nil, transporttest.DataHeader{}, []byte(payload))
}

func trkFrag(seq uint16, idx, total uint8, payload []byte) []byte {
	return transporttest.AppendData(nil, transporttest.DataHeader{Reliable: true, Seq: seq, Fragment: true, FragIdx: idx, FragTotal: total}, payload)
}

func trkAck(seq uint16) []byte    { return transporttest.AppendACK(nil, seq, false, false, 0) }
func trkAckLow(seq uint16) []byte { return transporttest.AppendACK(nil, seq, true, false, 0) }
func trkAckFrag(seq uint16, idx uint8) []byte {
	return transporttest.AppendACK(nil, seq, false, true, idx)
}

func trkLow(typ Type, seq uint16, payload []byte) []byte {
	return transporttest.AppendLow(nil, typ, true, true, seq, payload)
}

// trkPayload is n deterministic bytes starting with op.
func trkPayload(op byte, n int) []byte {
	b := make([]byte, n)
	b[0] = op
	for i := 1; i < n; i++ {
		b[i] = byte(i*7 + int(op))
	}
	return b
}

// trkStats returns the stats of the flow with the given endpoints.
func trkStats(t *testing.T, tr *Tracker, cl, sv int) FlowStats {
	t.Helper()
	var found []FlowStats
	for _, s := range tr.Flows() {
		if s.Client == trkClients[cl] && s.Server == trkServers[sv] {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one flow %v-%v, got %d", trkClients[cl], trkServers[sv], len(found))
	}
	return found[0]
}
