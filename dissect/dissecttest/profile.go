package dissecttest

import (
	"encoding/binary"
	"math"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// ProfileStart is the fixed start time of the profile sessions.
var ProfileStart = time.Date(2026, 1, 5, 21, 0, 0, 0, time.UTC)

// ProfileParams shape the session ProfileSession builds; the zero value
// gives the documented defaults.
type ProfileParams struct {
	// UpdateHz is the host's StateUpdate rate per object (default 10).
	UpdateHz int
	// MissionInitDelay is the gap from NewPlayerInGame to MissionInit
	// (default 2ms).
	MissionInitDelay time.Duration
}

// ProfileSession is one client joining a host and playing for exactly 10 s,
// with figures a profile can be checked against by hand (times are after
// the previous datagram unless they say otherwise):
//
//   - GameSpy \status\ and its reply 2 ms later.
//   - Connect from 0xFF 500 ms later; Connect reply + ChecksumReq round 0
//     5 ms later; the client's PeerInfo 10 ms later, echoed 3 ms later.
//   - Checksum rounds 0, 1, 2, 3, 0xFF: each response 20 ms after the
//     previous datagram (ACKing the request; so round 0's comes 33 ms
//     after its request, the others 20 ms), the next request 7 ms after
//     the response (ACKing it); ChecksumComplete + Settings + GameInit
//     4 ms after the last response.
//   - NewPlayerInGame (with the ACKs of those three) 50 ms later, at T0:
//     the flow is in game from here to its last datagram at T0 + 10 s.
//     MissionInit MissionInitDelay after T0, and the same MissionInit again
//     as a new message (seq 9) 3.5 s after the first: a duplicate.
//   - Client: one StateUpdate of its ship (flags 0x9E, 25 bytes) per
//     datagram every 100 ms from T0 + 100 ms to T0 + 10 s (100 updates);
//     the first datagram after each MissionInit also ACKs it.
//   - Host: every 1/UpdateHz s, from T0 + half a period on, one datagram of
//     4 StateUpdates (83 bytes): three ships with flags 0x20 (14 bytes) and
//     one with 0x3E (27 bytes).
//   - Client chat at T0 + 1040 ms, retransmitted at T0 + 2040 ms and
//     T0 + 3040 ms, ACKed by the host alone in a datagram at T0 + 3045 ms.
func ProfileSession(p ProfileParams) *Session {
	if p.UpdateHz <= 0 {
		p.UpdateHz = 10
	}
	if p.MissionInitDelay <= 0 {
		p.MissionInitDelay = 2 * time.Millisecond
	}
	ms := time.Millisecond
	s := New(netip.MustParseAddrPort("10.0.0.2:2655"), netip.MustParseAddrPort("10.0.0.1:22101"), ProfileStart)
	s.Add(0, true, []byte(`\status\`))
	s.Add(2*ms, false, []byte(`\gamename\bcommander\gamever\60\hostname\Profile\numplayers\0\maxplayers\8\final\\queryid\1.1`))

	s.AddHex(500*ms, true, "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00")
	dg := transporttest.AppendHeader(nil, 1, 2)
	dg = transporttest.AppendLow(dg, transport.TypeConnect, true, true, 0, []byte{2})
	dg = transporttest.AppendData(dg, rel(0), checksumReq(0))
	s.Add(5*ms, false, dg)
	peer := transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 0, 0, 2}, "Prof")
	dg = transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 0, true, false, 0)
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, peer)
	s.Add(10*ms, true, dg)
	dg = transporttest.AppendHeader(nil, 1, 2)
	dg = transporttest.AppendACK(dg, 1, true, false, 0)
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, peer)
	s.Add(3*ms, false, dg)

	rounds := []byte{0, 1, 2, 3, 0xFF}
	for i, r := range rounds {
		seq := uint16(i)
		if i == 0 {
			dg = transporttest.AppendHeader(nil, 2, 3)
			dg = transporttest.AppendACK(dg, 1, true, false, 0) // the host's PeerInfo
		} else {
			dg = transporttest.AppendHeader(nil, 2, 2)
		}
		dg = transporttest.AppendACK(dg, seq, false, false, 0)
		dg = transporttest.AppendData(dg, rel(seq), checksumResp(r))
		s.Add(20*ms, true, dg)
		if i+1 < len(rounds) {
			dg = transporttest.AppendHeader(nil, 1, 2)
			dg = transporttest.AppendACK(dg, seq, false, false, 0)
			dg = transporttest.AppendData(dg, rel(seq+1), checksumReq(rounds[i+1]))
			s.Add(7*ms, false, dg)
		}
	}
	dg = transporttest.AppendHeader(nil, 1, 4)
	dg = transporttest.AppendACK(dg, 4, false, false, 0)
	dg = transporttest.AppendData(dg, rel(5), []byte{0x28})
	dg = transporttest.AppendData(dg, rel(6), settingsPayload)
	dg = transporttest.AppendData(dg, rel(7), []byte{0x01})
	s.Add(4*ms, false, dg)

	dg = transporttest.AppendHeader(nil, 2, 4)
	for seq := uint16(5); seq <= 7; seq++ {
		dg = transporttest.AppendACK(dg, seq, false, false, 0)
	}
	dg = transporttest.AppendData(dg, rel(5), []byte{0x2A, 0x20})
	s.Add(50*ms, true, dg)
	t0 := s.now

	// The in-game traffic, by time since T0, merged in time order.
	type ev struct {
		at  time.Duration
		c2s bool
		b   []byte
	}
	var evs []ev
	missionInit := []byte{0x35, 0x08, 0x01, 0xFF, 0xFF}
	for i, at := range []time.Duration{p.MissionInitDelay, p.MissionInitDelay + 3500*ms} {
		dg := transporttest.AppendHeader(nil, 1, 1)
		if i == 0 {
			dg = transporttest.AppendHeader(nil, 1, 2)
			dg = transporttest.AppendACK(dg, 5, false, false, 0)
		}
		evs = append(evs, ev{at, false, transporttest.AppendData(dg, rel(uint16(8+i)), missionInit)})
	}
	chat := transporttest.AppendData(transporttest.AppendHeader(nil, 2, 1), rel(6),
		[]byte{0x2C, 2, 0, 0, 0, 2, 0, 'h', 'i'})
	for _, at := range []time.Duration{1040 * ms, 2040 * ms, 3040 * ms} {
		evs = append(evs, ev{at, true, chat})
	}
	evs = append(evs, ev{3045 * ms, false, transporttest.AppendACK(transporttest.AppendHeader(nil, 1, 1), 6, false, false, 0)})
	period := time.Second / time.Duration(p.UpdateHz)
	for j := 0; j < 10*p.UpdateHz; j++ {
		at := time.Duration(j)*period + period/2
		dg := transporttest.AppendHeader(nil, 1, 4)
		for k, obj := range []uint32{0x3FFFFFFF, 0x4003FFFF, 0x4007FFFF, 0x400BFFFF} {
			dg = transporttest.AppendData(dg, transporttest.DataHeader{}, hostUpdate(obj, at, k == 3))
		}
		evs = append(evs, ev{at, false, dg})
	}
	// Client updates; the first after each MissionInit ACKs it.
	acks := []time.Duration{p.MissionInitDelay, p.MissionInitDelay + 3500*ms}
	for k := 1; k <= 100; k++ {
		at := time.Duration(k) * 100 * ms
		dg := transporttest.AppendHeader(nil, 2, 1)
		if len(acks) > 0 && acks[0] < at {
			dg = transporttest.AppendHeader(nil, 2, 2)
			dg = transporttest.AppendACK(dg, uint16(10-len(acks)), false, false, 0)
			acks = acks[1:]
		}
		evs = append(evs, ev{at, true, transporttest.AppendData(dg, transporttest.DataHeader{}, clientUpdate(at))})
	}
	for i := 1; i < len(evs); i++ { // stable insertion sort by time
		for j := i; j > 0 && evs[j].at < evs[j-1].at; j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	for _, e := range evs {
		s.Datagrams = append(s.Datagrams, Datagram{Time: t0.Add(e.at), C2S: e.c2s, Plain: e.b})
	}
	s.now = t0.Add(10 * time.Second)
	return s
}

func rel(seq uint16) transporttest.DataHeader {
	return transporttest.DataHeader{Reliable: true, Seq: seq}
}

var settingsPayload = append([]byte{0x00, 0x00, 0x00, 0x05, 0x42, 0x61, 0x00, 0x25, 0x00},
	"Multiplayer.Episode.Mission1.Mission1"...)

// checksumReq is the stock request of a round (protocol-facts 9.1).
func checksumReq(round byte) []byte {
	r := map[byte]struct {
		dir, filter string
		rec         byte
	}{
		0: {"scripts/", "App.pyc", 0x20}, 1: {"scripts/", "Autoexec.pyc", 0x20},
		2: {"scripts/ships", "*.pyc", 0x21}, 3: {"scripts/mainmenu", "*.pyc", 0x20},
		0xFF: {"Scripts/Multiplayer", "*.pyc", 0x21},
	}[round]
	b := []byte{0x20, round}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.dir)))
	b = append(b, r.dir...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.filter)))
	b = append(b, r.filter...)
	return append(b, r.rec)
}

// checksumResp is a response with the round's directory hash and no files
// (round 0 also carries the version hash).
func checksumResp(round byte) []byte {
	b := []byte{0x21, round}
	if round == 0 {
		b = binary.LittleEndian.AppendUint32(b, 0x7E0CE243)
	}
	h := map[byte]uint32{0: 0x4DAFCB2F, 1: 0x4DAFCB2F, 2: 0xC017D1C4, 3: 0x3409475D, 0xFF: 0x8794D13F}[round]
	b = binary.LittleEndian.AppendUint32(b, h)
	return append(b, 0, 0, 0)
}

// clientUpdate is the client's StateUpdate of its ship: flags 0x9E
// (delta, forward, up, speed, one weapon pair), 25 bytes.
func clientUpdate(at time.Duration) []byte {
	b := suHead(0x3FFFFFFF, at, 0x9E)
	b = append(b, 0x7F, 0, 0, 0x00, 0x40) // delta: cv4
	b = append(b, 0x7F, 0, 0)             // forward
	b = append(b, 0, 0x7F, 0)             // up
	b = append(b, 0x00, 0x40)             // speed
	return append(b, 1, 0xCC)             // weapon 1 at 0xCC
}

// hostUpdate is the host's StateUpdate of a ship: flags 0x20 (14 bytes) or
// 0x3E (27 bytes).
func hostUpdate(obj uint32, at time.Duration, full bool) []byte {
	if !full {
		return append(suHead(obj, at, 0x20), 0, 0xFF, 0xFF, 0xFF)
	}
	b := suHead(obj, at, 0x3E)
	b = append(b, 0x7F, 0, 0, 0x00, 0x40, 0x7F, 0, 0, 0, 0x7F, 0, 0x00, 0x40)
	return append(b, 0, 0xFF, 0xFF, 0xFF)
}

func suHead(obj uint32, at time.Duration, flags byte) []byte {
	b := []byte{0x1C}
	b = binary.LittleEndian.AppendUint32(b, obj)
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(at.Seconds())+100))
	return append(b, flags)
}
