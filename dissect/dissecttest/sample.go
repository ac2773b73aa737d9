package dissecttest

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

//go:generate go run ./cmd/gensample -o ../../testdata/sample.pcap
//go:generate go run ./cmd/gensample -scenario unacked-fragment -o ../../testdata/unacked-fragment.pcap

// SampleStart is the fixed start time of the sample, so the capture is
// byte-for-byte reproducible.
var SampleStart = time.Date(2026, 1, 2, 20, 0, 0, 0, time.UTC)

// Sample is the bundled sample session (testdata/sample.pcap): a stock join
// built around the complete decrypted dumps of the seed 003 packet trace
// (#2, #7, #8, #10, #11, #21, #22, #23, #25, verbatim), with the stock
// connect, peer-info, NewPlayerInGame and disconnect bytes quoted in
// protocol-facts 4 and 7. The pieces no source prints in full are built with
// the encoders and say so: the peer-info exchange's ACKs, the round 2
// response (three fragments, shaped like trace packet #18: fragment 0 holds
// 405 payload bytes), the round 0xFF response, the chat and the closing ACKs.
func Sample() *Session {
	s := New(netip.MustParseAddrPort("192.168.1.20:2655"), netip.MustParseAddrPort("192.168.1.10:22101"), SampleStart)
	ms := time.Millisecond

	// LAN discovery: GameSpy plaintext on the game port.
	s.Add(0, true, []byte(`\status\`))
	s.Add(2*ms, false, []byte(`\gamename\bcommander\gamever\60\location\0\hostname\Sample Host`+
		`\missionscript\Multiplayer.Episode.Mission1.Mission1\mapname\DM\numplayers\0\maxplayers\8`+
		`\gamemode\openplaying\timelimit\-1\fraglimit\-2\system\Multi1\password\0\final\\queryid\1.1`))

	// Stock connect request (protocol-facts 4.1).
	s.AddHex(500*ms, true, "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00")
	// Trace #2: ConnectAck + ChecksumReq round 0.
	s.AddHex(20*ms, false, "01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20")
	// Client: ACK the connect reply (low) and send its peer info (low seq 1).
	peer := transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 10, 10, 239}, "Cady2")
	dg := transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 0, true, false, 0)
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, peer)
	s.Add(15*ms, true, dg)
	// Host: ACK it and echo the record (protocol-facts 4.2, V bytes).
	s.AddHex(5*ms, false, "01 02 01 01 00 02 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
	// Trace #7: ChecksumResp round 0 (the client also ACKs the peer info).
	s.AddHex(40*ms, true, "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00")
	s.AddHex(1*ms, true, "02 01 01 01 00 02")
	// Trace #8: ACK + ChecksumReq round 1.
	s.AddHex(30*ms, false, "01 02 01 00 00 00 32 20 80 01 00 20 01 08 00 73 63 72 69 70 74 73 2F 0C 00 41 75 74 6F 65 78 65 63 2E 70 79 63 20")
	// Trace #10: ChecksumResp round 1.
	s.AddHex(30*ms, true, "02 01 32 16 80 01 00 21 01 2F CB AF 4D 01 00 A1 E6 01 85 49 00 93 17 00")
	// Trace #11: ChecksumReq round 2 (recursive).
	s.AddHex(30*ms, false, "01 01 32 1E 80 02 00 20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21")

	// Round 2 response: fragmented like trace #18, each fragment ACKed.
	frags := fragment(round2Response(), 405)
	for i, f := range frags {
		dg := transporttest.AppendHeader(nil, 2, 1)
		if i == 0 {
			dg = transporttest.AppendHeader(nil, 2, 2)
			dg = transporttest.AppendACK(dg, 2, false, false, 0)
		}
		dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: 2, Fragment: true,
			FragIdx: uint8(i), FragTotal: uint8(len(frags))}, f)
		s.Add(25*ms, true, dg)
	}
	s.AddHex(5*ms, false, "01 01 01 02 00 01 00")
	// Trace #21: two fragment ACKs + ChecksumReq round 3.
	s.AddHex(20*ms, false, "01 03 01 02 00 01 01 01 02 00 01 02 32 21 80 03 00 20 03 10 00 73 63 72 69 70 74 73 2F 6D 61 69 6E 6D 65 6E 75 05 00 2A 2E 70 79 63 20")
	// Trace #22: ACK + ChecksumResp round 3.
	s.AddHex(30*ms, true, "02 02 01 03 00 00 32 2E 80 03 00 21 03 5D 47 09 34 04 00 8B 66 46 58 7C 74 09 89 9D D2 70 43 C1 BB 58 B8 A2 9F DD E9 AD D0 8C 2C 23 1D 4D B5 A7 30 B1 2D 00")
	// Trace #23: ACK + ChecksumReq round 0xFF.
	s.AddHex(30*ms, false, "01 02 01 03 00 00 32 24 80 04 00 20 FF 13 00 53 63 72 69 70 74 73 2F 4D 75 6C 74 69 70 6C 61 79 65 72 05 00 2A 2E 70 79 63 21")
	// Round 0xFF response (one unfragmented message, like trace #24).
	dg = transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 4, false, false, 0)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: 4}, roundFFResponse())
	s.Add(30*ms, true, dg)
	// Trace #25: ChecksumComplete + Settings + GameInit.
	s.AddHex(30*ms, false, "01 03 32 06 80 05 00 28 32 33 80 06 00 00 00 00 05 42 61 00 25 00 4D 75 6C 74 69 70 6C 61 79 65 72 2E 45 70 69 73 6F 64 65 2E 4D 69 73 73 69 6F 6E 31 2E 4D 69 73 73 69 6F 6E 31 32 06 80 07 00 01")
	// Client ACKs 5-7, then NewPlayerInGame (protocol-facts 7.1, V).
	s.AddHex(20*ms, true, "02 03 01 05 00 00 01 06 00 00 01 07 00 00")
	s.AddHex(900*ms, true, "02 01 32 07 80 05 00 2A 20")
	// Host: ACK + MissionInit (protocol-facts 7.7, V payload).
	s.AddHex(10*ms, false, "01 02 01 05 00 00 32 0A 80 08 00 35 08 01 FF FF")
	// Client: ACK + chat "hello" (protocol-facts 7.7 example payload).
	s.AddHex(2000*ms, true, "02 02 01 08 00 00 32 11 80 06 00 2C 02 00 00 00 05 00 68 65 6C 6C 6F")
	// Host relays the chat to the sender too.
	s.AddHex(10*ms, false, "01 02 01 06 00 00 32 11 80 09 00 2C 02 00 00 00 05 00 68 65 6C 6C 6F")
	// Client: ACK + Disconnect (protocol-facts 4.1 payload); host ACKs it (V).
	s.AddHex(3000*ms, true, "02 02 05 0A C0 02 00 02 0A 0A 0A EF 01 09 00 00")
	s.AddHex(10*ms, false, "01 01 01 02 00 02")
	return s
}

// fragment splits a payload into slices of at most n bytes.
func fragment(p []byte, n int) [][]byte {
	var out [][]byte
	for len(p) > n {
		out = append(out, p[:n])
		p = p[n:]
	}
	return append(out, p)
}

// Hash values the sources print for scripts/ships (protocol-facts 9) are
// used where known; the other file hashes are synthetic but deterministic.
const (
	hashShipsDir   = 0xC017D1C4 // StringHash("scripts/ships")
	hashHardpoints = 0xCAAFFDD4 // StringHash("Hardpoints")
	hashMultiDir   = 0x8794D13F // StringHash("Scripts/Multiplayer")
	hashEpisode    = 0x83C82BA5
)

func synthHash(seed, i uint32) uint32 {
	x := seed ^ (i * 0x9E3779B1)
	x ^= x >> 15
	x *= 0x85EBCA6B
	x ^= x >> 13
	return x
}

// appendTree appends one level of a checksum tree with synthetic files.
func appendFiles(b []byte, seed uint32, n int, first [][2]uint32) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	for i := 0; i < n; i++ {
		name, content := synthHash(seed, uint32(i)), synthHash(^seed, uint32(i))
		if i < len(first) {
			name, content = first[i][0], first[i][1]
		}
		b = binary.LittleEndian.AppendUint32(b, name)
		b = binary.LittleEndian.AppendUint32(b, content)
	}
	return b
}

// round2Response is a ChecksumResp for scripts/ships: 51 files and a
// Hardpoints subdirectory with 51 more, about 830 bytes like the real one.
func round2Response() []byte {
	b := []byte{0x21, 0x02}
	b = binary.LittleEndian.AppendUint32(b, hashShipsDir)
	b = appendFiles(b, 0x5151, 51, [][2]uint32{{0x3EB23EBA, 0xCCD37170}}) // Akira.pyc
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, hashHardpoints)
	b = appendFiles(b, 0x4848, 51, nil)
	return append(b, 0)
}

// roundFFResponse is a ChecksumResp for Scripts/Multiplayer shaped like the
// real one: 9 files, subdirectory Episode with 2 files and 4 mission dirs.
func roundFFResponse() []byte {
	b := []byte{0x21, 0xFF}
	b = binary.LittleEndian.AppendUint32(b, hashMultiDir)
	b = appendFiles(b, 0xFFFF, 9, [][2]uint32{{0x2C11712D, synthHash(1, 1)}})
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, hashEpisode)
	b = appendFiles(b, 0xE0E0, 2, nil)
	missions := []uint32{0x88D63ABC, 0x587DA208, 0x72ED3851, 0x16F2E8DA}
	b = append(b, byte(len(missions)))
	for _, h := range missions {
		b = binary.LittleEndian.AppendUint32(b, h)
	}
	for i, h := range missions {
		b = appendFiles(b, h, 4+i%2, nil)
		b = append(b, 0)
	}
	return b
}
