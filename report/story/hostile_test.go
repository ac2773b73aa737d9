package story

import (
	"encoding/binary"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// FuzzAnalyzer feeds plaintext datagrams (enciphered here, as on the wire)
// between one server and a few clients: bad input never panics. Each
// datagram is a 2-byte header (bit 15: from the server, bits 12-13: which
// client, low 11 bits: length) and that many bytes.
func FuzzAnalyzer(f *testing.F) {
	for _, sessions := range [][]*dissecttest.Session{dissecttest.Battle(), {dissecttest.ChecksumKick()}} {
		var in []byte
		for ci, s := range sessions {
			for _, dg := range s.Datagrams {
				h := uint16(len(dg.Plain)) | uint16(ci)<<12
				if !dg.C2S {
					h |= 0x8000
				}
				in = binary.LittleEndian.AppendUint16(in, h)
				in = append(in, dg.Plain...)
			}
		}
		f.Add(in)
	}
	server := netip.MustParseAddrPort("10.0.0.1:22101")
	f.Fuzz(func(t *testing.T, in []byte) {
		a := New()
		d := dissect.New(dissect.Options{})
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for frame := 1; len(in) >= 2; frame++ {
			h := binary.LittleEndian.Uint16(in)
			n := min(int(h&0x7FF), len(in)-2)
			p := append([]byte(nil), in[2:2+n]...)
			in = in[2+n:]
			cipher.Encrypt(p)
			cli := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(2 + h>>12&3)}), 50000)
			pk := &capture.Packet{Frame: frame, Time: now, Src: cli, Dst: server, Payload: p}
			if h&0x8000 != 0 {
				pk.Src, pk.Dst = server, cli
			}
			now = now.Add(10 * time.Millisecond)
			if err := a.Datagram(d.Packet(pk)); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Finish(d.Finish()); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteTable(io.Discard); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteJSON(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// A flood of error anomalies fills at most half the timeline and is
// counted past it; story lines still fit, and are counted past the cap.
func TestTimelineCaps(t *testing.T) {
	a := New()
	dg := &dissect.Datagram{Kind: dissect.KindGame, Dir: dissect.C2S, Time: time.Unix(0, 0),
		Src: netip.MustParseAddrPort("10.0.0.2:5000"), Dst: netip.MustParseAddrPort("10.0.0.1:22101"),
		Anomalies: []anomaly.Anomaly{{Code: anomaly.PayloadMalformed, Text: anomaly.Literal("x")}}}
	for range 2 * MaxTimeline {
		a.Datagram(dg)
	}
	s := a.servers[0]
	if s.anomalyLines != MaxAnomalyLines || s.omittedErrors != 2*MaxTimeline-MaxAnomalyLines {
		t.Errorf("anomaly lines %d, omitted %d", s.anomalyLines, s.omittedErrors)
	}
	for range MaxTimeline {
		s.add(entry{kind: evRestart})
	}
	a.SetOptions(Options{Verbose: true})
	doc := a.Documents()[0]
	if len(doc.Timeline) != MaxTimeline || doc.TimelineOmitted != 2*MaxTimeline-MaxAnomalyLines+MaxAnomalyLines {
		t.Errorf("%d lines, %d omitted", len(doc.Timeline), doc.TimelineOmitted)
	}
	// Folded, the flood is one line.
	a.SetOptions(Options{})
	doc = a.Documents()[0]
	folded := 0
	for _, l := range doc.Timeline {
		if l.Event == "error" {
			folded = l.Count
		}
	}
	if len(doc.Timeline) != MaxTimeline-MaxAnomalyLines+1 || folded != MaxAnomalyLines {
		t.Errorf("folded: %d lines, error line count %d", len(doc.Timeline), folded)
	}
}

// Past MaxPlayers the datagrams of new client endpoints are counted, not kept.
func TestPlayerCap(t *testing.T) {
	a := New()
	dg := &dissect.Datagram{Kind: dissect.KindGame, Dir: dissect.C2S, Time: time.Unix(0, 0),
		Dst: netip.MustParseAddrPort("10.0.0.1:22101")}
	for i := range MaxPlayers + 10 {
		dg.Src = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 5000)
		a.Datagram(dg)
	}
	doc := a.Documents()[0]
	if len(doc.Players) != MaxPlayers || doc.Server.DatagramsPastPlayerLimit != 10 {
		t.Errorf("%d players, %d omitted", len(doc.Players), doc.Server.DatagramsPastPlayerLimit)
	}
}
