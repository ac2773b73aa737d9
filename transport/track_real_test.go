package transport

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// trkFrame is one real datagram, already deciphered.
type trkFrame struct {
	Time           time.Time
	Client, Server netip.AddrPort
	Dir            Dir
	Plain          []byte
}

// trkPlay tracks frames (numbered from 1) and returns one trkDescribe line
// per frame, every event, and the tracker after Finish.
func trkPlay(t *testing.T, frames []trkFrame) ([]string, []Event, *Tracker) {
	t.Helper()
	tr := NewTracker(Config{})
	var dg Datagram
	var lines []string
	var events []Event
	info := make([]MsgInfo, 256)
	for i, fr := range frames {
		Decode(fr.Plain, &dg)
		anoms := tr.Track(Packet{Frame: i + 1, Time: fr.Time, Client: fr.Client, Server: fr.Server,
			Dir: fr.Dir, Size: len(fr.Plain)}, &dg, info, nil)
		lines = append(lines, trkDescribe(&dg, info, anoms))
		events = append(events, tr.Events()...)
	}
	events = append(events, tr.Finish()...)
	return lines, events, tr
}

// trkStockExcerpts reads stock-excerpts.source.jsonl: the published stock
// datagrams, deciphered (plain_hex).
func trkStockExcerpts(t *testing.T) [][]byte {
	path := filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			PlainHex string `json:"plain_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		b, err := hex.DecodeString(row.PlainHex)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 18 {
		t.Fatalf("%s: %d rows, want 18", path, len(out))
	}
	return out
}

// The stock excerpts as one session: frames 1-12 are the connect and the
// seed 003 checksum trace, 17-18 the stock disconnect and its ACK. Frames
// 13-16 come from other sessions (a worked chat example and three lines of
// a long trace), so each gets a flow of its own. The only anomalies are
// ack-unknown notes for messages the excerpt lacks: the client's round 2
// fragments (ACKed in trace packet #21 with `01 02 00 01 01` and
// `01 02 00 01 02`) and the host messages seq 39/40 the stale ACKs of the
// disconnect datagram acknowledge.
func TestStockExcerptsSession(t *testing.T) {
	plain := trkStockExcerpts(t)
	server := netip.MustParseAddrPort("127.0.0.1:22101")
	var frames []trkFrame
	for i, b := range plain {
		port := uint16(50000)
		if i >= 12 && i <= 15 { // frames 13-16: other sessions
			port = uint16(50000 + i + 1)
		}
		dir := C2S
		if b[0] == 0x01 {
			dir = S2C
		}
		frames = append(frames, trkFrame{Time: trkEpoch.Add(time.Duration(i) * 50 * time.Millisecond),
			Client: netip.AddrPortFrom(server.Addr(), port), Server: server, Dir: dir, Plain: b})
	}
	lines, events, tr := trkPlay(t, frames)
	want := []string{
		"new",                     // 1 Connect request (FF, low seq 0)
		"new new",                 // 2 Connect reply (id 2) + ChecksumReq 0
		"new",                     // 3 ChecksumResp 0
		"ack=matched<f3~50ms new", // 4 ACK seq 0 + ChecksumReq 1
		"new",                     // 5 ChecksumResp 1
		"new",                     // 6 ChecksumReq 2
		"ack=unknown ack=unknown new | ack-unknown@0 | ack-unknown@1", // 7 fragment ACKs seq 2 idx 1, 2 + ChecksumReq 3
		"ack=matched<f7~50ms new",                                     // 8 ACK seq 3 + ChecksumResp 3
		"ack=matched<f8~50ms new",                                     // 9 ACK seq 3 + ChecksumReq 0xFF
		"new",                                                         // 10 ChecksumResp 0xFF, 273 bytes
		"new new new",                                                 // 11 0x28, Settings, GameInit (the excerpt has no ACK for seq 4)
		"new",                                                         // 12 NewPlayerInGame
		"new", "new", "new", "new",                                    // 13-16 other sessions
		"new ack=unknown ack=unknown | ack-unknown@1 | ack-unknown@2", // 17 Disconnect + stale ACKs 39, 40
		"ack=matched<f17~50ms", // 18 host ACKs the disconnect (low)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("frame %d:\n got: %s\nwant: %s", i+1, lines[i], want[i])
		}
	}
	if len(events) != 0 {
		t.Errorf("unexpected events: %v", events)
	}
	s := tr.Flows()[0]
	if s.Client.Port() != 50000 || !s.HasPeerID || s.PeerID != 2 || s.PeerIDFrom != "connect" ||
		s.Datagrams != [2]uint64{7, 7} || s.Reliable != [2]uint64{7, 9} || s.RTT[C2S].Count+s.RTT[S2C].Count != 4 ||
		max(s.RTT[C2S].Max, s.RTT[S2C].Max) != 50*time.Millisecond || fmt.Sprint(s.Anomalies) != "map[ack-unknown:4]" {
		t.Errorf("session stats %+v", s)
	}
}

// The excerpt pcap puts all 18 datagrams on one address pair. Read that way,
// the chat example (frame 13, host seq 1, from a worked example in another
// document) reuses the seq of ChecksumReq 1 (frame 4, never ACKed in the
// excerpts). A copy that starts with another opcode cannot be a
// retransmission, so it is one seq-reuse warning on frame 13 (a stock
// receiver would drop it as a duplicate), not retransmit-differs, and no
// retransmit-unacked at the end. Asserted here so the splice is the only
// surprise.
func TestStockExcerptsPcap(t *testing.T) {
	udps := trkReadPcap(t, filepath.Join(testdata, "captures", "stock-excerpts.pcap"))
	plain := trkStockExcerpts(t)
	frames := trkFramesFrom(udps)
	if len(frames) != len(plain) {
		t.Fatalf("%d game datagrams, want %d", len(frames), len(plain))
	}
	for i := range frames {
		if string(frames[i].Plain) != string(plain[i]) {
			t.Fatalf("frame %d deciphers to % X, want % X", i+1, frames[i].Plain, plain[i])
		}
	}
	lines, events, _ := trkPlay(t, frames)
	if want := "new | seq-reuse@0"; lines[12] != want {
		t.Errorf("frame 13: %s, want %s", lines[12], want)
	}
	var got []string
	for _, e := range events {
		got = append(got, trkEvent(e))
	}
	if len(got) != 0 {
		t.Errorf("events %v, want none", got)
	}
}

// trkFramesFrom deciphers the game datagrams of a capture (GameSpy text,
// byte 0 '\', is skipped); the server is the UDP 22101 side.
func trkFramesFrom(udps []trkUDP) []trkFrame {
	var out []trkFrame
	for _, u := range udps {
		if len(u.Payload) == 0 || u.Payload[0] == '\\' {
			continue
		}
		b := slices.Clone(u.Payload)
		cipher.Decrypt(b)
		fr := trkFrame{Time: u.Time, Client: u.Src, Server: u.Dst, Dir: C2S, Plain: b}
		if u.Src.Port() == 22101 {
			fr.Client, fr.Server, fr.Dir = u.Dst, u.Src, S2C
		}
		out = append(out, fr)
	}
	return out
}

// OpenBC session 3: three bots, 600 ticks of battle, six reliable messages
// retransmitted once (captures/README.md), nothing fragmented. The OpenBC
// server sends its type 0x00 keepalives under low seq 0, which its Connect
// reply already used: one seq-reuse warning per bot, then keepalive repeats.
// OpenBC's client Connect does not frame (length-overrun) and its ACKs set
// flag bit 7: codec anomalies, counted per flow but not the tracker's.
func TestOpenBCSession3(t *testing.T) {
	udps := trkReadPcap(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	frames := trkFramesFrom(udps)
	lines, events, tr := trkPlay(t, frames)
	var re []string
	for i, l := range lines {
		if strings.Contains(l, "retransmit") || strings.Contains(l, "seq-reuse") || strings.Contains(l, "asm") {
			re = append(re, fmt.Sprintf("%d: %s", i+1, l))
		}
	}
	want := []string{
		"93: new | seq-reuse@0", "94: new | seq-reuse@0", "95: new | seq-reuse@0",
		"2118: re1<f1669 | retransmit@0", "2119: re1<f1669 | retransmit@0", "2120: re1<f1669 | retransmit@0",
		"2121: re1<f1669 | retransmit@0", "2122: re1<f1669 | retransmit@0", "2123: re1<f1669 | retransmit@0",
	}
	if strings.Join(re, "\n") != strings.Join(want, "\n") {
		t.Errorf("retransmissions, reuses and reassemblies:\n%s\nwant:\n%s", strings.Join(re, "\n"), strings.Join(want, "\n"))
	}
	if len(events) != 0 {
		t.Errorf("unexpected events: %v", events)
	}
	flows := tr.Flows()
	if len(flows) != 3 {
		t.Fatalf("%d flows, want 3", len(flows))
	}
	var retransMsgs, retrans uint64
	for i, s := range flows {
		t.Logf("flow %d %v peer %d %q dg %v rel %v re %v keepalive %v acks %v rtt %+v anoms %v",
			s.ID, s.Client, s.PeerID, s.PlayerName, s.Datagrams, s.Reliable, s.Retransmissions, s.Keepalives,
			s.Acks, s.RTT, s.Anomalies)
		retransMsgs += s.RetransmittedMsgs[C2S] + s.RetransmittedMsgs[S2C]
		retrans += s.Retransmissions[C2S] + s.Retransmissions[S2C]
		if s.PeerID != uint8(2+i) || s.PeerIDFrom != "connect" || s.PlayerName != fmt.Sprintf("Bot%d", i) {
			t.Errorf("flow %d: peer %d from %s, name %q", s.ID, s.PeerID, s.PeerIDFrom, s.PlayerName)
		}
		if s.Reassembled != [2]uint64{} || s.Fragments != [2]uint64{} || s.Keepalives[S2C] == 0 {
			t.Errorf("flow %d: reassembled %v, fragments %v, keepalives %v", s.ID, s.Reassembled, s.Fragments, s.Keepalives)
		}
		for code := range s.Anomalies {
			switch code {
			case anomaly.SeqReuse, anomaly.Retransmit, anomaly.NonStockLength, anomaly.NonStockDisconnect:
			default:
				t.Errorf("flow %d: unexpected anomaly %s", s.ID, code)
			}
		}
	}
	if retransMsgs != 6 || retrans != 6 {
		t.Errorf("%d retransmitted messages (%d copies), want 6 (6)", retransMsgs, retrans)
	}
}
