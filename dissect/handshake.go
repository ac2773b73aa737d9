package dissect

import (
	"strconv"
	"unsafe"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// maxFindingsPerCode caps the anomalies one payload gets for a run of the
// same finding code (a modded client's answer can hold hundreds of files
// the manifest does not know); the rest are folded into one anomaly that
// counts them. The flow statistics count every finding.
const maxFindingsPerCode = 8

// handshakes follows the checksum handshake of every flow. The per-flow
// analyzer (hsFlow) is kept with the transport flow (transport.Flow.State),
// so it is created and freed with the flow, under the tracker's limits; a
// flow that ended and comes back starts a partial handshake, which raises
// no order findings until it has a position. The zero value is ready.
// Only Advance uses it, from one goroutine.
type handshakes struct {
	resolver *checksum.Resolver // built on first use when a manifest is set
	found    []checksum.Finding // scratch, reused
}

// hsFlow is the handshake state of one flow.
type hsFlow struct {
	hs      checksum.Handshake
	connect bool // a Connect (request or assignment) of this flow was seen
	gap     bool // the capture cut game data of this flow (Handshake.Gap)
}

var _ transport.StateSizer = (*hsFlow)(nil)

// StateBytes estimates the memory f holds, so handshake state counts
// towards the tracker's MaxFlowBytes (transport.StateSizer).
func (f *hsFlow) StateBytes() int {
	return int(unsafe.Sizeof(*f)) - int(unsafe.Sizeof(f.hs)) + f.hs.StateBytes()
}

// analyzeHandshake feeds the delivered game payloads of dg to its flow's
// handshake analyzer, turns the findings into anomalies on dg, and names
// the hashes of checksum responses from the manifest. Retransmitted copies
// are skipped (the first send was fed); a fragmented message is fed once,
// reassembled, on the datagram that completed it.
func (d *Dissector) analyzeHandshake(dg *Datagram, fl transport.Flow) {
	if d.manifest != nil {
		d.resolveNames(dg)
	}
	cut := cutGameData(dg)
	if !cut && !handshakeRelevant(dg) {
		return // most datagrams
	}
	s := &d.hs
	f, _ := fl.State().(*hsFlow)
	if cut && f != nil {
		defer func() { f.gap = true; f.hs.Gap() }() // after the whole messages
	}
	fromHost := dg.Dir == S2C
	for i := range dg.Transport.Messages {
		tm := &dg.Transport.Messages[i]
		m := &dg.Msgs[i]
		switch {
		case tm.Type == transport.TypeACK:
			if f != nil && missedClientData(dg, i) {
				// A response may be among what the capture lacks (the
				// stock excerpts miss the fragmented round 2 answer that
				// trace #21 ACKs).
				f.hs.Unseen()
			}
		case tm.Type == transport.TypeConnect && !m.Track.Retransmit:
			if f == nil || dg.Dir == C2S && dg.Transport.PeerID == 0xFF {
				// A client's Connect request starts a new handshake.
				f = newHsFlow(fl, f)
			}
			f.connect = true
		case tm.Type == transport.TypeData:
			if !tm.Fragment && !m.Track.Retransmit && len(tm.Payload) > 0 {
				f = s.feed(d, f, fl, dg, i, tm.Payload, tm.PayloadOff, fromHost)
			}
			if r := m.Reassembled; r != nil && len(r.Bytes) > 0 {
				f = s.feed(d, f, fl, dg, i, r.Bytes, anomaly.NoOffset, fromHost)
			}
		}
	}
}

// feed runs one payload through the flow's analyzer; off is the payload's
// offset in the datagram, or NoOffset for a reassembled payload.
func (s *handshakes) feed(d *Dissector, f *hsFlow, fl transport.Flow, dg *Datagram, i int, p []byte, off int, fromHost bool) *hsFlow {
	if !checksumOpcode(p[0]) && !(fromHost && gameStartOpcode(p[0])) {
		return f
	}
	if f == nil {
		if !checksumOpcode(p[0]) {
			// Settings/GameInit on a flow with no Connect and no checksum
			// message seen: a partial handshake flags nothing.
			return nil
		}
		f = newHsFlow(fl, nil)
	}
	f.hs.Manifest = d.manifest
	f.hs.Partial = !f.connect || f.gap
	s.found = f.hs.Feed(s.found[:0], fromHost, p)
	same, folded := 0, 0
	for j, fd := range s.found {
		fl.Count(fd.Code)
		if j > 0 && fd.Code == s.found[j-1].Code {
			same++
		} else {
			same = 0
		}
		if same >= maxFindingsPerCode {
			folded++
			if j+1 == len(s.found) || s.found[j+1].Code != fd.Code {
				dg.Anomalies = append(dg.Anomalies, anomaly.Anomaly{
					Code: fd.Code, Offset: anomaly.NoOffset, Msg: i,
					Text: anomaly.Literal(strconv.Itoa(folded) + " more " + fd.Code.String() + " findings in this payload (not listed)"),
				})
				folded = 0
			}
			continue
		}
		a := anomaly.Anomaly{
			Code: fd.Code, Text: fd.Text,
			Offset: anomaly.NoOffset, Msg: i,
		}
		switch {
		case fd.Off == anomaly.NoOffset:
		case off == anomaly.NoOffset:
			a.Text = anomaly.Literal(fd.Message() + " (in the reassembled payload at offset " + strconv.Itoa(fd.Off) + ")")
		default:
			a.Offset = off + fd.Off
		}
		dg.Anomalies = append(dg.Anomalies, a)
	}
	return f
}

// newHsFlow returns a fresh handshake state for fl, reusing old (the
// flow's previous one, if any), and keeps it with the flow.
func newHsFlow(fl transport.Flow, old *hsFlow) *hsFlow {
	if old != nil {
		*old = hsFlow{}
		return old
	}
	f := new(hsFlow)
	fl.SetState(f)
	return f
}

// handshakeRelevant reports whether dg carries anything the analyzer
// reads: a Connect, a checksum opcode, a host's Settings or GameInit, or a
// reassembled payload.
func handshakeRelevant(dg *Datagram) bool {
	for i := range dg.Transport.Messages {
		tm := &dg.Transport.Messages[i]
		switch {
		case tm.Type == transport.TypeConnect:
			return true
		case tm.Type == transport.TypeACK:
			if missedClientData(dg, i) {
				return true
			}
		case tm.Type != transport.TypeData:
		case dg.Msgs[i].Reassembled != nil:
			return true
		case tm.Fragment || len(tm.Payload) == 0:
		case checksumOpcode(tm.Payload[0]), dg.Dir == S2C && gameStartOpcode(tm.Payload[0]):
			return true
		}
	}
	return false
}

// handshakeGap tells fl's handshake analyzer that the capture lost what
// may have been part of the handshake (Handshake.Gap).
func handshakeGap(fl transport.Flow) {
	if f, _ := fl.State().(*hsFlow); f != nil {
		f.gap = true
		f.hs.Gap()
	}
}

// cutGameData reports whether the capture cut a game payload (or what may
// have been one) from dg.
func cutGameData(dg *Datagram) bool {
	t := &dg.Transport
	return t.Uncaptured > 0 || t.HasCut && (t.CutInHeader || t.Cut.Type == transport.TypeData)
}

// missedClientData reports whether message i of dg is the host's ACK for
// client data (high channel) that this capture does not hold.
func missedClientData(dg *Datagram, i int) bool {
	tm := &dg.Transport.Messages[i]
	return dg.Dir == S2C && tm.Type == transport.TypeACK && !tm.AckLow && dg.Msgs[i].Track.Ack == transport.AckUnknown
}

func checksumOpcode(op byte) bool {
	return op == checksum.OpRequest || op == checksum.OpResponse || op == checksum.OpComplete
}

// gameStartOpcode: Settings 0x00 and GameInit 0x01 end the handshake.
func gameStartOpcode(op byte) bool { return op <= 0x01 }
