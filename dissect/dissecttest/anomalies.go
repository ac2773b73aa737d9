package dissecttest

import (
	"net/netip"
	"slices"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// AnomalyStart is the fixed start time of the anomaly sessions.
var AnomalyStart = time.Date(2026, 1, 4, 19, 0, 0, 0, time.UTC)

// AnomalyFrame is the first frame (1-based) after the three-datagram stock
// connect prefix of every anomaly session; the fault of most is there.
const AnomalyFrame = 4

// anomalyScript is the faulty traffic that follows the stock connect prefix
// in the session for one anomaly code.
type anomalyScript struct {
	code   anomaly.Code
	script func(s *Session)
}

// anomalyScripts lists, per anomaly code that no real capture shows, the
// example of bcdump help anomalies for it, in that topic's order.
var anomalyScripts = append(transportScripts, checksumScripts...)

// transportScripts are the codes of the transport codec and tracker.
var transportScripts = []anomalyScript{
	{anomaly.ShortDatagram, func(s *Session) {
		// One byte: a peer id and no msg_count.
		s.AddHex(100*time.Millisecond, true, "02")
	}},
	{anomaly.BadLength, func(s *Session) {
		// A reliable Data message whose flags_len says 2 bytes: less than
		// its own 5-byte header.
		s.AddHex(100*time.Millisecond, true, "02 01 32 02 80 00 00 2C")
	}},
	{anomaly.LengthOverrun, func(s *Session) {
		// A reliable Data message whose flags_len says 16 bytes, with 6
		// left in the datagram.
		s.AddHex(100*time.Millisecond, true, "02 01 32 10 80 01 00 2A")
	}},
	{anomaly.UnknownTransportType, func(s *Session) {
		// Type 0x07, registered by no implementation.
		s.AddHex(100*time.Millisecond, true, "02 01 07 0A C0 02 00 02 0A 0A 0A EF")
	}},
	{anomaly.MsgCountMismatch, func(s *Session) {
		// msg_count 2, but only the ACK of the host's round 0 request.
		s.AddHex(100*time.Millisecond, true, "02 02 01 00 00 00")
	}},
	{anomaly.TrailingBytes, func(s *Session) {
		// The same ACK and two stray bytes after it.
		s.AddHex(100*time.Millisecond, true, "02 01 01 00 00 00 FF FF")
	}},
	{anomaly.RetransmitDiffers, retransmitDiffers},
	{anomaly.FragmentIncomplete, fragmentIncomplete},
	{anomaly.ReassemblyOverflow, reassemblyOverflow},
	{anomaly.FragmentBadTotal, func(s *Session) {
		s.Add(100*time.Millisecond, true, dataDG(transporttest.DataHeader{Reliable: true, Fragment: true}, checksumRespHead))
	}},
	{anomaly.FragmentUnreliable, func(s *Session) {
		s.Add(100*time.Millisecond, true, dataDG(transporttest.DataHeader{Fragment: true, FragTotal: 2}, checksumRespHead))
	}},
	{anomaly.PeerTimeout, peerTimeout},
	{anomaly.TrackingLimit, trackingLimit},
}

// AnomalyCodes lists the anomaly codes Anomaly reproduces: those no real
// capture shows.
func AnomalyCodes() []anomaly.Code {
	codes := make([]anomaly.Code, len(anomalyScripts))
	for i, a := range anomalyScripts {
		codes[i] = a.code
	}
	return codes
}

// Anomaly returns a short session that shows the anomaly code: the stock
// connect prefix (connect request, the host's connect reply with checksum
// round 0, the client's peer info), then, from frame AnomalyFrame on, the
// faulty traffic. Nothing else in the session is anomalous except what the
// fault itself implies (a retransmit note beside retransmit-differs,
// payload-malformed beside checksum-tree-malformed). ok is false for a code
// it has no script for.
func Anomaly(code anomaly.Code) (s *Session, ok bool) {
	i := slices.IndexFunc(anomalyScripts, func(a anomalyScript) bool { return a.code == code })
	if i < 0 {
		return nil, false
	}
	s = connectPrefix()
	anomalyScripts[i].script(s)
	return s, true
}

// connectPrefix is the start of the sample's stock join: the connect request
// (protocol-facts 4.1), trace #2 (connect reply and ChecksumReq round 0), and
// the client's ACK with its peer info.
func connectPrefix() *Session {
	s := New(netip.MustParseAddrPort("192.168.1.20:2655"), netip.MustParseAddrPort("192.168.1.10:22101"), AnomalyStart)
	s.AddHex(0, true, "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00")
	s.AddHex(20*time.Millisecond, false, "01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20")
	dg := transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 0, true, false, 0)
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 10, 10, 239}, "Cady2"))
	s.Add(15*time.Millisecond, true, dg)
	return s
}

// checksumRespHead is the start of a round 2 ChecksumResp (opcode, round,
// StringHash("scripts/ships")), the payload of the fragment scripts.
var checksumRespHead = []byte{0x21, 0x02, 0xC4, 0xD1, 0x17, 0xC0}

// dataDG is a client datagram holding one type 0x32 message.
func dataDG(h transporttest.DataHeader, payload []byte) []byte {
	return transporttest.AppendData(transporttest.AppendHeader(nil, 2, 1), h, payload)
}

// chat is a Chat 0x2C payload from peer 2 (protocol-facts 7.7).
func chat(text string) []byte {
	b := []byte{0x2C, 2, 0, 0, 0, byte(len(text)), byte(len(text) >> 8)}
	return append(b, text...)
}

// retransmitDiffers: the client sends a chat, then after the stock 1 s
// retransmit delay sends other text under the same seq; the host ACKs it.
func retransmitDiffers(s *Session) {
	s.Add(100*time.Millisecond, true, dataDG(transporttest.DataHeader{Reliable: true, Ordered: true}, chat("hello")))
	s.Add(time.Second, true, dataDG(transporttest.DataHeader{Reliable: true, Ordered: true}, chat("hellO")))
	s.Add(20*time.Millisecond, false, transporttest.AppendACK(transporttest.AppendHeader(nil, 1, 1), 0, false, false, 0))
}

// fragmentIncomplete: fragments 0 and 2 of a three-fragment message (c2s
// high seq 7); fragment 1 never comes.
func fragmentIncomplete(s *Session) {
	h := transporttest.DataHeader{Reliable: true, Ordered: true, Seq: 7, Fragment: true, FragTotal: 3}
	s.Add(100*time.Millisecond, true, dataDG(h, checksumRespHead[:4]))
	h.FragIdx = 2
	s.Add(50*time.Millisecond, true, dataDG(h, checksumRespHead[2:]))
}

// reassemblyOverflow: the client starts nine two-fragment chats (seqs 0-8)
// before finishing any; the ninth pushes out the first, since a flow holds
// at most transport.DefaultMaxOpenReassemblies. Then it completes seqs 1-8,
// so only the dropped one stays unfinished.
func reassemblyOverflow(s *Session) {
	const n = transport.DefaultMaxOpenReassemblies + 1
	msg := chat("hi")
	for seq := range uint16(n) {
		dt := 5 * time.Millisecond
		if seq == 0 {
			dt = 100 * time.Millisecond
		}
		s.Add(dt, true, dataDG(transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq, Fragment: true, FragTotal: 2}, msg[:5]))
	}
	for seq := uint16(1); seq < n; seq++ {
		s.Add(5*time.Millisecond, true, dataDG(transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq, Fragment: true, FragIdx: 1}, msg[5:]))
	}
}

// peerTimeout: after the connect prefix the client falls silent, while the
// host repeats its peer-info keepalive every 5 s (protocol-facts 5.2) for a
// minute, past the 45 s peer timeout.
func peerTimeout(s *Session) {
	// The host's ACK and peer-info echo of the sample (protocol-facts 4.2).
	s.AddHex(5*time.Millisecond, false, "01 02 01 01 00 02 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
	keepalive := mustHex("01 01 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
	for range 12 {
		s.Add(5*time.Second, false, keepalive)
	}
}

// trackingLimit: the client sends 300 reliable chats the host never ACKs,
// more than the transport.DefaultMaxTrackedMessages a window remembers.
func trackingLimit(s *Session) {
	for seq := range uint16(300) {
		s.Add(10*time.Millisecond, true, dataDG(transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq}, chat("spam")))
	}
}
