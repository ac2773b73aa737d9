package dissecttest

import (
	"encoding/binary"
	"io"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// StoryStart is the fixed start time of the story scenarios.
var StoryStart = time.Date(2026, 1, 6, 21, 0, 0, 0, time.UTC)

// ChecksumKick is a join the host ends at checksum round 0: the stock
// connect prefix (Cady2, peer 2), the client's round 0 answer (trace #7,
// whose App.pyc content hash 0xF8A0A768 differs from vanilla-1.1.json's
// 0xF8A0A740), then the host's ACK and BootPlayer "checksum failed"
// (`04 04`, as OpenBC answers a failed round: protocol-facts 9.5), the
// client's ACK and its Disconnect.
func ChecksumKick() *Session {
	s := connectPrefix()
	ms := time.Millisecond
	s.AddHex(40*ms, true, "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00")
	s.AddHex(30*ms, false, "01 02 01 00 00 00 32 07 80 01 00 04 04")
	s.AddHex(20*ms, true, "02 02 01 01 00 00 05 0A C0 02 00 02 0A 0A 0A EF")
	return s
}

// Battle is a short two-player game on one host, as two sessions (one per
// client) to be written together with WriteMerged: Alice (peer 2, slot 0)
// and Bob (peer 3, slot 1) join (connect, ChecksumComplete + Settings +
// GameInit, NewPlayerInGame), the host starts the mission, both create
// ships (ObjCreateTeam, relayed to the other), Alice chats and Bob answers
// on team chat, Bob's ship explodes with Alice as the killer (event
// 0x8129), the host sends ScoreChange and DestroyObj to both, ends the game
// (frag limit), and Bob disconnects; Alice is still there at the end.
// Payload layouts are protocol-facts 7; the values are made up.
func Battle() []*Session {
	return battle(battleText{alice: "Alice", bob: "Bob", ship: "Multi", mission: "Multiplayer.Episode.Mission1.Mission1",
		hi: "good luck", cover: "cover me"})
}

// battleText is every string Battle puts on the wire.
type battleText struct {
	alice, bob, ship, mission, hi, cover string
	gamespy                              string // a GameSpy status exchange first when set
}

// Hostile is Battle with every string it sends (player names in the peer
// info and the ship objects, ship class, mission, chat) and a GameSpy
// status reply's hostname and mapname, and the key of one more pair
// ("k"+text), set to text, for tests that feed
// control characters and bidi overrides to every command. Strings the
// protocol limits to 255 bytes are cut there.
func Hostile(text string) []*Session {
	s := battleText{alice: "A" + text, bob: "B" + text, ship: text, mission: "Multiplayer." + text, hi: text, cover: text,
		gamespy: text}
	return battle(s)
}

func battle(txt battleText) []*Session {
	server := netip.MustParseAddrPort("192.168.7.1:22101")
	alice := New(netip.MustParseAddrPort("192.168.7.20:50200"), server, StoryStart)
	bob := New(netip.MustParseAddrPort("192.168.7.30:50300"), server, StoryStart)
	ms := time.Millisecond
	// One clock for both sessions: each datagram comes dt after the
	// previous one of either client.
	now := StoryStart
	add := func(s *Session, dt time.Duration, c2s bool, dg []byte) {
		now = now.Add(dt)
		s.now = now
		s.Add(0, c2s, dg)
	}

	// host and client seq counters per session (high channel).
	type peer struct {
		s          *Session
		id         uint8
		slot       uint8
		name       string
		hostSeq    uint16
		clientSeq  uint16
		clientAddr [4]byte
	}
	a := &peer{s: alice, id: 2, slot: 0, name: txt.alice, clientAddr: [4]byte{192, 168, 7, 20}}
	b := &peer{s: bob, id: 3, slot: 1, name: txt.bob, clientAddr: [4]byte{192, 168, 7, 30}}
	host := func(p *peer, dt time.Duration, payloads ...[]byte) {
		dg := transporttest.AppendHeader(nil, 1, uint8(len(payloads)))
		for _, pl := range payloads {
			dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: p.hostSeq}, pl)
			p.hostSeq++
		}
		add(p.s, dt, false, dg)
	}
	client := func(p *peer, dt time.Duration, payloads ...[]byte) {
		dg := transporttest.AppendHeader(nil, p.id, uint8(len(payloads)))
		for _, pl := range payloads {
			dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: p.clientSeq}, pl)
			p.clientSeq++
		}
		add(p.s, dt, true, dg)
	}
	join := func(p *peer) {
		req := append(p.clientAddr[:], 0x5F, 0x0A, 0, 0, 0, 0)
		add(p.s, 200*ms, true, transporttest.AppendLow(transporttest.AppendHeader(nil, 0xFF, 1), transport.TypeConnect, true, true, 0, req))
		dg := transporttest.AppendHeader(nil, 1, 1)
		add(p.s, 10*ms, false, transporttest.AppendLow(dg, transport.TypeConnect, true, true, 0, []byte{p.id}))
		dg = transporttest.AppendHeader(nil, p.id, 1)
		add(p.s, 10*ms, true, transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1,
			transporttest.AppendPeerInfo(nil, p.id, p.clientAddr, p.name)))
		host(p, 20*ms, []byte{0x28}, settings(p.slot, txt.mission), []byte{0x01})
		client(p, 20*ms, []byte{0x2A, 0x20})
		host(p, 10*ms, []byte{0x35, 0x08, 0x01, 0xFF, 0x05})
	}
	if txt.gamespy != "" {
		add(alice, 100*ms, true, []byte(`\status\`))
		add(alice, 2*ms, false, []byte(`\gamename\bcommander\gamever\60\location\0\hostname\`+cut(txt.gamespy)+
			`\missionscript\Multiplayer.Episode.Mission1.Mission1\mapname\`+cut(txt.gamespy)+`\numplayers\0\maxplayers\8`+
			`\gamemode\openplaying\timelimit\-1\fraglimit\-2\system\Multi1\password\0\k`+cut(txt.gamespy)+`\1`+
			`\final\\queryid\1.1`))
	}
	join(a)
	join(b)

	// Ships: each client creates its own, the host relays it to the other.
	shipA := objCreateShip(0, 0, 0x3FFFFFFF, 1, txt.alice, txt.ship)
	shipB := objCreateShip(1, 1, 0x4003FFFF, 7, txt.bob, txt.ship)
	client(a, 500*ms, shipA)
	host(b, 5*ms, shipA)
	client(b, 100*ms, shipB)
	host(a, 5*ms, shipB)

	// Chat: Alice to all (the host sends it to both), Bob to his team.
	hi := chatFrom(0x2C, 2, txt.hi)
	client(a, time.Second, hi)
	host(a, 5*ms, hi)
	host(b, 1*ms, hi)
	tc := chatFrom(0x2D, 3, txt.cover)
	client(b, time.Second, tc)
	host(b, 5*ms, tc)

	// Bob's ship explodes, Alice the killer; score and destruction go to both.
	boom := exploding(0x4003FFFF, 2)
	sc := scoreChange(2, 1, 100, 3, 1)
	destroy := []byte{0x14, 0xFF, 0xFF, 0x03, 0x40}
	host(a, 2*time.Second, boom, sc, destroy)
	host(b, 1*ms, boom, sc, destroy)
	end := []byte{0x38, 2, 0, 0, 0} // frag limit
	host(a, time.Second, end)
	host(b, 1*ms, end)

	// Bob leaves.
	add(bob, 2*time.Second, true, transporttest.AppendLow(transporttest.AppendHeader(nil, 3, 1),
		transport.TypeDisconnect, true, true, 2, append([]byte{3}, b.clientAddr[:]...)))
	return []*Session{alice, bob}
}

// settings is a Settings 0x00 payload for a slot (protocol-facts 7.1).
func settings(slot uint8, m string) []byte {
	m = cut(m)
	p := []byte{0x00, 0x00, 0x00, 0x05, 0x42, 0x61, slot, byte(len(m)), 0}
	return append(p, m...)
}

// cut limits s to the 255 bytes a one-byte length can count.
func cut(s string) string {
	if len(s) > 255 {
		return s[:255]
	}
	return s
}

// objCreateShip is an ObjCreateTeam 0x03 payload for a ship (protocol-facts 7.2).
func objCreateShip(slot, team uint8, id uint32, species uint8, name, class string) []byte {
	name, class = cut(name), cut(class)
	p := []byte{0x03, slot, team}
	p = binary.LittleEndian.AppendUint32(p, 0x8008)
	p = binary.LittleEndian.AppendUint32(p, id)
	p = append(p, species)
	for range 3 + 4 + 1 { // position, orientation, speed
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(0))
	}
	p = append(p, 0, 0, 0)
	p = append(p, byte(len(name)))
	p = append(p, name...)
	p = append(p, byte(len(class)))
	return append(p, class...)
}

// chatFrom is a Chat 0x2C or TeamChat 0x2D payload (protocol-facts 7.7).
func chatFrom(op byte, sender int32, text string) []byte {
	p := binary.LittleEndian.AppendUint32([]byte{op}, uint32(sender))
	p = binary.LittleEndian.AppendUint16(p, uint16(len(text)))
	return append(p, text...)
}

// exploding is a PythonEvent 0x06 object-exploding event (factory 0x8129).
func exploding(obj uint32, killer int32) []byte {
	p := []byte{0x06, 0x29, 0x81, 0x00, 0x00, 0x4E, 0x00, 0x80, 0x00}
	p = binary.LittleEndian.AppendUint32(p, obj)
	p = binary.LittleEndian.AppendUint32(p, 0xFFFFFFFF)
	p = binary.LittleEndian.AppendUint32(p, uint32(killer))
	return binary.LittleEndian.AppendUint32(p, math.Float32bits(1))
}

// scoreChange is a ScoreChange 0x36 payload with one score update.
func scoreChange(killer, kills, score, victim, deaths int32) []byte {
	p := []byte{0x36}
	for _, v := range []int32{killer, kills, score, victim, deaths} {
		p = binary.LittleEndian.AppendUint32(p, uint32(v))
	}
	p = append(p, 1)
	p = binary.LittleEndian.AppendUint32(p, uint32(killer))
	return binary.LittleEndian.AppendUint32(p, uint32(score))
}

// WriteMerged writes several sessions as one classic pcap, their datagrams
// in time order (a server with several clients).
func WriteMerged(w io.Writer, sessions ...*Session) error {
	type frame struct {
		t time.Time
		b []byte
	}
	var frames []frame
	for _, s := range sessions {
		for i := range s.Datagrams {
			b, err := s.Frame(&s.Datagrams[i])
			if err != nil {
				return err
			}
			frames = append(frames, frame{s.Datagrams[i].Time, b})
		}
	}
	slices.SortStableFunc(frames, func(x, y frame) int { return x.t.Compare(y.t) })
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	for _, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: f.t, CaptureLength: len(f.b), Length: len(f.b)}
		if err := pw.WritePacket(ci, f.b); err != nil {
			return err
		}
	}
	return nil
}
