package dissecttest

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// RunsStart is the fixed start time of ServerRuns.
var RunsStart = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// RunPlayer is one client of ServerRuns.
type RunPlayer struct {
	Run  int    // 1, 2, 3
	Name string // as its PeerInfo says
	Peer uint8
	Left bool // it sent a disconnect (type 0x05, or 0x06 in run 2)
}

// ServerRuns is a server that restarts on the same port twice: three runs
// 30 s apart, each with two clients that connect (peer ids 2 and 3 in
// every run, each with fresh sequence counters), send their PeerInfo and
// NewPlayerInGame. In run 1 both send Disconnect (type 0x05); in run 2
// the first sends OpenBC's type 0x06 disconnect and the second goes
// silent; in run 3 the first sends Disconnect and the second is still
// there when the capture ends. One session per client (WriteMerged
// merges them); RunPlayers lists who is where.
func ServerRuns() []*Session {
	server := netip.MustParseAddrPort("192.168.1.10:22101")
	ms := time.Millisecond
	var out []*Session
	for _, p := range RunPlayers() {
		start := RunsStart.Add(time.Duration(p.Run-1)*30*time.Second + time.Duration(p.Peer-2)*200*ms)
		cli := netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 168, 1, byte(20 + p.Run*2 + int(p.Peer) - 2)}), 2655)
		s := New(cli, server, start)
		id := p.Peer
		s.AddHex(0, true, "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00")
		s.Add(20*ms, false, transporttest.AppendLow(transporttest.AppendHeader(nil, 1, 1), transport.TypeConnect, true, true, 0, []byte{id}))
		dg := transporttest.AppendHeader(nil, id, 2)
		dg = transporttest.AppendACK(dg, 0, true, false, 0)
		dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, transporttest.AppendPeerInfo(nil, id, [4]byte{10, 10, 10, byte(id)}, p.Name))
		s.Add(15*ms, true, dg)
		s.Add(5*ms, false, transporttest.AppendACK(transporttest.AppendHeader(nil, 1, 1), 1, true, false, 0))
		s.AddHex(1000*ms, true, fmt.Sprintf("%02X 01 32 07 80 00 00 2A 20", id))
		s.AddHex(10*ms, false, "01 01 01 00 00 00")
		switch {
		case p.Left && p.Run == 2:
			s.AddHex(5*time.Second, true, fmt.Sprintf("%02X 01 06 %02X", id, id))
		case p.Left:
			s.AddHex(5*time.Second, true, fmt.Sprintf("%02X 01 05 0A C0 02 00 %02X 0A 0A 0A %02X", id, id, id))
			s.AddHex(10*ms, false, "01 01 01 02 00 02")
		case p.Run == 3:
			s.AddHex(5*time.Second, true, fmt.Sprintf("%02X 01 01 00 00 00", id)) // still there
		}
		out = append(out, s)
	}
	return out
}

// RunPlayers lists the clients of ServerRuns.
func RunPlayers() []RunPlayer {
	return []RunPlayer{
		{1, "Ann1", 2, true}, {1, "Ben1", 3, true},
		{2, "Ann2", 2, true}, {2, "Ben2", 3, false},
		{3, "Ann3", 2, true}, {3, "Ben3", 3, false},
	}
}
