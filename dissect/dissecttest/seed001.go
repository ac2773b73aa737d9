package dissecttest

import (
	"net/netip"
	"slices"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// Seed001Acks says how the host answers the fragments of the stuck message
// in the Seed001 scenario: the stock bug and the two hypotheses of seed 001
// that the dissector must tell apart from it.
type Seed001Acks int

const (
	// Seed001FragmentAcks: every fragment copy is ACKed with its matching
	// 5-byte fragment ACK (`01 02 00 01 <idx>`, trace #21), yet the client
	// keeps resending: the stock client bug.
	Seed001FragmentAcks Seed001Acks = iota
	// Seed001AcksLost: no ACK for any fragment reaches the capture.
	Seed001AcksLost
	// Seed001AcksWithoutFragFlag: the host ACKs every fragment copy with a
	// 4-byte ACK lacking the fragment flag (`01 02 00 00`), seed 001's
	// "ACK format mismatch" hypothesis.
	Seed001AcksWithoutFragFlag
)

func (a Seed001Acks) String() string {
	switch a {
	case Seed001AcksLost:
		return "acks-lost"
	case Seed001AcksWithoutFragFlag:
		return "acks-without-fragment-flag"
	}
	return "fragment-acks"
}

// The shape of the scenario, for tests that check what the dissector makes
// of it.
const (
	Seed001Seq       = 2               // high seq of the stuck round 2 response
	Seed001Frags     = 3               // its fragments
	Seed001Interval  = 2 * time.Second // the client resends the whole message this often
	Seed001Resends   = 10              // for 20 s
	seed001FragSpace = time.Millisecond
)

// Seed001Start is the fixed start time of the scenario.
var Seed001Start = time.Date(2026, 1, 3, 21, 0, 0, 0, time.UTC)

// Seed001 is the stock fragmented-ACK bug of seed 001 as a session: the
// stock join of the sample (the seed 003 trace dumps #2, #7, #8, #10, #11,
// #22, #23, #25 verbatim, trace #21 verbatim in the fragment-ACK case)
// in which the client's three-fragment round 2 checksum response (0x21,
// high seq 2, shaped like trace #18) is answered per acks, and the client
// resends all three fragments every 2 s for 20 s. The host ACKs every copy
// it receives (in the fragment-ACK and flagless cases), as a stock host
// does. The client disconnects after the last resend.
func Seed001(acks Seed001Acks) *Session {
	client := netip.MustParseAddrPort("192.168.1.21:2656")
	server := netip.MustParseAddrPort("192.168.1.10:22101")
	ms := time.Millisecond
	var evs []Datagram
	at := func(t time.Duration, c2s bool, plain []byte) {
		evs = append(evs, Datagram{Time: Seed001Start.Add(t), C2S: c2s, Plain: plain})
	}
	atHex := func(t time.Duration, c2s bool, h string) { at(t, c2s, mustHex(h)) }
	ack := func(idx uint8) []byte {
		if acks == Seed001AcksWithoutFragFlag {
			return transporttest.AppendACK(nil, Seed001Seq, false, false, 0)
		}
		return transporttest.AppendACK(nil, Seed001Seq, false, true, idx)
	}

	// Connect, peer info and checksum rounds 0 and 1, as in the sample.
	atHex(0, true, "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00")
	atHex(20*ms, false, "01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20")
	peer := transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 10, 10, 239}, "Cady2")
	dg := transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 0, true, false, 0)
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, peer)
	at(35*ms, true, dg)
	atHex(40*ms, false, "01 02 01 01 00 02 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
	atHex(80*ms, true, "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00")
	atHex(81*ms, true, "02 01 01 01 00 02")
	atHex(111*ms, false, "01 02 01 00 00 00 32 20 80 01 00 20 01 08 00 73 63 72 69 70 74 73 2F 0C 00 41 75 74 6F 65 78 65 63 2E 70 79 63 20")
	atHex(141*ms, true, "02 01 32 16 80 01 00 21 01 2F CB AF 4D 01 00 A1 E6 01 85 49 00 93 17 00")
	// Trace #11: ChecksumReq round 2.
	atHex(171*ms, false, "01 01 32 1E 80 02 00 20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21")

	// The round 2 response, three fragments (the first with the client's
	// ACK of the request, like trace #18's datagram).
	frags := fragment(round2Response(), 405)
	first := 196 * ms
	fragDG := func(i int, withAck bool) []byte {
		n := uint8(1)
		if withAck {
			n = 2
		}
		dg := transporttest.AppendHeader(nil, 2, n)
		if withAck {
			dg = transporttest.AppendACK(dg, 2, false, false, 0)
		}
		return transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: Seed001Seq, Fragment: true,
			FragIdx: uint8(i), FragTotal: uint8(len(frags))}, frags[i])
	}
	for i := range frags {
		at(first+time.Duration(i)*25*ms, true, fragDG(i, i == 0))
	}
	// The host ACKs fragment 0, then fragments 1 and 2 with the round 3
	// request (trace #21 verbatim when the ACKs carry the fragment flag).
	round3 := mustHex("32 21 80 03 00 20 03 10 00 73 63 72 69 70 74 73 2F 6D 61 69 6E 6D 65 6E 75 05 00 2A 2E 70 79 63 20")
	switch acks {
	case Seed001FragmentAcks:
		atHex(first+55*ms, false, "01 01 01 02 00 01 00")
		atHex(first+75*ms, false, "01 03 01 02 00 01 01 01 02 00 01 02 32 21 80 03 00 20 03 10 00 73 63 72 69 70 74 73 2F 6D 61 69 6E 6D 65 6E 75 05 00 2A 2E 70 79 63 20")
	case Seed001AcksWithoutFragFlag:
		at(first+55*ms, false, append(transporttest.AppendHeader(nil, 1, 1), ack(0)...))
		at(first+75*ms, false, slices.Concat(transporttest.AppendHeader(nil, 1, 3), ack(1), ack(2), round3))
	default:
		at(first+75*ms, false, slices.Concat(transporttest.AppendHeader(nil, 1, 1), round3))
	}
	// Trace #22, #23: round 3 response, round 0xFF request.
	atHex(first+105*ms, true, "02 02 01 03 00 00 32 2E 80 03 00 21 03 5D 47 09 34 04 00 8B 66 46 58 7C 74 09 89 9D D2 70 43 C1 BB 58 B8 A2 9F DD E9 AD D0 8C 2C 23 1D 4D B5 A7 30 B1 2D 00")
	atHex(first+135*ms, false, "01 02 01 03 00 00 32 24 80 04 00 20 FF 13 00 53 63 72 69 70 74 73 2F 4D 75 6C 74 69 70 6C 61 79 65 72 05 00 2A 2E 70 79 63 21")
	dg = transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 4, false, false, 0)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: 4}, roundFFResponse())
	at(first+165*ms, true, dg)
	// Trace #25: ChecksumComplete + Settings + GameInit; the client ACKs.
	atHex(first+195*ms, false, "01 03 32 06 80 05 00 28 32 33 80 06 00 00 00 00 05 42 61 00 25 00 4D 75 6C 74 69 70 6C 61 79 65 72 2E 45 70 69 73 6F 64 65 2E 4D 69 73 73 69 6F 6E 31 2E 4D 69 73 73 69 6F 6E 31 32 06 80 07 00 01")
	atHex(first+215*ms, true, "02 03 01 05 00 00 01 06 00 00 01 07 00 00")
	// NewPlayerInGame; the host ACKs it and sends MissionInit.
	atHex(first+1115*ms, true, "02 01 32 07 80 05 00 2A 20")
	atHex(first+1125*ms, false, "01 02 01 05 00 00 32 0A 80 08 00 35 08 01 FF FF")
	atHex(first+1145*ms, true, "02 01 01 08 00 00")

	// The bug: the whole message again every 2 s, each copy ACKed (or not).
	for k := 1; k <= Seed001Resends; k++ {
		t := first + time.Duration(k)*Seed001Interval
		for i := range frags {
			at(t+time.Duration(i)*seed001FragSpace, true, fragDG(i, false))
		}
		if acks != Seed001AcksLost {
			at(t+50*ms, false, slices.Concat(transporttest.AppendHeader(nil, 1, 3), ack(0), ack(1), ack(2)))
		}
	}

	// Disconnect (protocol-facts 4.1) and the host's ACK of it.
	end := first + Seed001Resends*Seed001Interval + 500*ms
	atHex(end, true, "02 01 05 0A C0 02 00 02 0A 0A 0A EF")
	atHex(end+10*ms, false, "01 01 01 02 00 02")

	slices.SortStableFunc(evs, func(a, b Datagram) int { return a.Time.Compare(b.Time) })
	s := New(client, server, Seed001Start)
	s.Datagrams = evs
	s.now = evs[len(evs)-1].Time
	return s
}

// mustHex decodes a script's hex (spaces allowed).
func mustHex(h string) []byte {
	var s Session
	s.AddHex(0, false, h)
	return s.Datagrams[0].Plain
}
