package dissect

import (
	"errors"
	"fmt"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// DefaultPort is the game port of a BC 1.1 host.
const DefaultPort = 22101

// Options configure a Dissector.
type Options struct {
	// Ports are the game ports; empty means DefaultPort.
	Ports []uint16
	// Manifest, when set, names the hashes of checksum messages and is
	// compared with every checksum response (issue 4: handshake analysis).
	Manifest *checksum.Manifest
	// Plain says the game payloads are deciphered already (a capture
	// written by bcdump decrypt -w, or --plain): they are decoded as they
	// are.
	Plain bool
	// MaxFlowBytes bounds the estimated state of all active flows
	// together (transport.Config.MaxFlowBytes); 0 is the default,
	// transport.DefaultMaxFlowBytes.
	MaxFlowBytes int
	// AutoPorts makes Dissect look for BC traffic on other UDP ports in
	// each input first (PortFinder, one extra pass) and decode those ports
	// too. The pass needs the input from its start, so a Dissector or
	// Session, handed packets one by one, leaves it to Dissect.
	AutoPorts bool
	// Trace fills in what trace files (packet_trace.log, OBCTRACE) do not
	// record: the server's address, the tick length.
	Trace capture.TraceOptions
}

// Dissector decodes packets one at a time, in capture order. A Session
// drives one over a capture.Source; Packet, or Decode then Advance, is one
// step of it.
type Dissector struct {
	ports    []uint16
	manifest *checksum.Manifest
	plain    bool
	dg       Datagram
	first    time.Time
	started  bool

	track     *transport.Tracker
	info      []transport.MsgInfo
	anoms     []anomaly.Anomaly
	events    []Event
	unlisted  map[anomaly.Code]int // events past MaxHeldEvents, by code
	found     int                  // events found, listed or not
	maxEvents int                  // MaxHeldEvents; tests lower it
	hs        handshakes           // checksum handshake per flow (handshake.go)

	dropFields bool // see DropFields
}

// DropFields(true) makes the Dissector keep no fields of game payloads
// (Payload.Fields stays empty, also when reassembled): every decoder still
// runs, so a malformed payload is flagged exactly as before, and nothing
// else changes. Storing the fields is about a tenth of a parallel run and
// more of its memory traffic, so a Session turns it on for a FieldBlind sink.
// Control messages keep theirs (rare, and they say whether one decoded).
func (d *Dissector) DropFields(on bool) { d.dropFields = on }

// New returns a Dissector.
func New(opt Options) *Dissector {
	ports := opt.Ports
	if len(ports) == 0 {
		ports = []uint16{DefaultPort}
	}
	cfg := transport.DefaultConfig()
	if opt.MaxFlowBytes > 0 {
		cfg.MaxFlowBytes = opt.MaxFlowBytes
	}
	return &Dissector{ports: ports, manifest: opt.Manifest, plain: opt.Plain, maxEvents: MaxHeldEvents,
		track: transport.NewTracker(cfg)}
}

func (d *Dissector) isGamePort(p uint16) bool {
	for _, q := range d.ports {
		if p == q {
			return true
		}
	}
	return false
}

// Packet decodes one captured UDP payload. The returned Datagram is reused
// by the next call.
func (d *Dissector) Packet(p *capture.Packet) *Datagram {
	dg := &d.dg
	d.Decode(dg, p)
	d.Advance(dg)
	return dg
}

// Decode is the stateless half of Packet: it fills dg from p (copying the
// payload) with everything that needs no per-flow state: direction,
// deciphering, the transport codec and the opcode decoders. It only reads
// the Dissector's configuration, so several goroutines may call it at once
// on different Datagrams. Advance must follow, in capture order.
func (d *Dissector) Decode(dg *Datagram, p *capture.Packet) { d.decode(dg, p, false) }

// decode is Decode; with prefetch it also starts loading the tracker's
// state of the datagram's flow, to arrive while the datagram is deciphered
// (Tracker.Prefetch): only on the goroutine that tracks (the serial loop).
func (d *Dissector) decode(dg *Datagram, p *capture.Packet, prefetch bool) {
	if d.decodeHead(dg, p) {
		if prefetch {
			d.track.Prefetch(dg.flowHash)
		}
		if !d.plain {
			cipher.Decrypt(dg.Plain)
		}
		decodeGame(dg)
	}
}

// decodePair is Decode of two datagrams at once: their game datagrams are
// deciphered together (cipher.DecryptPair), which is cheaper than one after
// the other. The result is exactly that of two Decode calls.
func (d *Dissector) decodePair(a, b *Datagram, pa, pb *capture.Packet) {
	ga, gb := d.decodeHead(a, pa), d.decodeHead(b, pb)
	switch {
	case d.plain: // deciphered already (--plain, decrypt -w copies)
	case ga && gb:
		cipher.DecryptPair(a.Plain, b.Plain)
	case ga:
		cipher.Decrypt(a.Plain)
	case gb:
		cipher.Decrypt(b.Plain)
	}
	if ga {
		decodeGame(a)
	}
	if gb {
		decodeGame(b)
	}
}

// decodeHead is the part of Decode before deciphering. It decodes a
// GameSpy datagram completely and returns false; for a game datagram it
// returns true, and dg.Plain must be deciphered (unless d.plain), then
// decodeGame called.
func (d *Dissector) decodeHead(dg *Datagram, p *capture.Packet) (isGame bool) {
	dg.reset()
	dg.Frame, dg.Time = p.Frame, p.Time
	dg.Src, dg.Dst = p.Src, p.Dst
	dg.Truncated = p.Truncated
	dg.Missing = p.Missing
	dg.lost = p.Lost
	dg.IPFrames = append(dg.IPFrames[:0], p.FragFrames...)
	dg.dropFields = d.dropFields
	dg.Dir = S2C
	if d.isGamePort(p.Dst.Port()) {
		dg.Dir = C2S
	}
	dg.Raw = append(dg.Raw, p.Payload...)
	dg.Plain = append(dg.Plain, p.Payload...)
	captureNotes(dg, p)
	if IsGameSpy(dg.Raw) {
		dg.Kind = KindGameSpy
		dg.GameSpy = parseGameSpy(dg.GameSpy, dg.Plain)
		if dg.Truncated {
			dg.Anomalies = append(dg.Anomalies, truncatedNote(dg))
		}
		return false
	}
	dg.Kind = KindGame
	// Hashed here, where the pipeline works in parallel, not in Track.
	if dg.Dir == C2S {
		dg.flowHash = transport.KeyHash(dg.Src, dg.Dst)
	} else {
		dg.flowHash = transport.KeyHash(dg.Dst, dg.Src)
	}
	return true
}

// decodeGame is the part of Decode after deciphering a game datagram.
func decodeGame(dg *Datagram) {
	transport.DecodeCut(dg.Plain, dg.Missing, &dg.Transport)
	dg.Anomalies = append(dg.Anomalies, dg.Transport.Anomalies...)
	decodeMessages(dg)
	if dg.Truncated {
		dg.Anomalies = append(dg.Anomalies, truncatedNote(dg))
	}
}

// captureNotes raises what the capture record itself says about the
// datagram (its truncation is noted once the cut is known, in Decode).
func captureNotes(dg *Datagram, p *capture.Packet) {
	if p.FragsLost != "" {
		dg.Anomalies = append(dg.Anomalies, anomaly.NewText(anomaly.IPFragmentIncomplete, anomaly.NoMsg, anomaly.NoOffset, anomaly.Literal(p.FragsLost)))
	}
	if p.TimeNote != "" {
		dg.Anomalies = append(dg.Anomalies, anomaly.NewText(anomaly.CaptureTime, anomaly.NoMsg, anomaly.NoOffset, anomaly.Literal(p.TimeNote)))
	}
	if n := p.LenExcess(); n > 0 {
		ci := &p.CaptureInfo
		dg.Anomalies = append(dg.Anomalies, anomaly.Newf(anomaly.CaplenExceedsLen, anomaly.NoMsg, anomaly.NoOffset,
			"the capture record holds %d bytes, %d more than the packet's original length %d (a broken capture writer); all of them are decoded",
			anomaly.I(ci.CaptureLength), anomaly.I(n), anomaly.I(ci.Length)))
	}
}

// truncatedNote says how much of dg the capture lacks and what that cost.
func truncatedNote(dg *Datagram) anomaly.Anomaly {
	a := anomaly.Anomaly{Code: anomaly.Truncated, Msg: anomaly.NoMsg, Offset: anomaly.NoOffset}
	if dg.Missing == 0 {
		a.Text = anomaly.Literal("the capture holds less of the packet than its IP header claims; the UDP payload is whole")
		return a
	}
	b := make([]byte, 0, 160)
	b = fmt.Appendf(b, "the capture holds %d of the datagram's %d bytes: %d missing (snap length)",
		len(dg.Raw), len(dg.Raw)+dg.Missing, dg.Missing)
	if dg.Kind == KindGame {
		t := &dg.Transport
		if t.HasCut {
			m := &t.Cut
			a.Offset = m.Offset
			b = fmt.Appendf(b, "; message %d (%s) cut after %d bytes", len(t.Messages), m.Type.Name(), len(dg.Plain)-m.Offset)
			if m.Len > 0 {
				b = fmt.Appendf(b, " of %d", m.Len)
			}
		}
		if t.Uncaptured > 0 {
			b = fmt.Appendf(b, "; %d more not captured", t.Uncaptured)
		}
	}
	a.Text = anomaly.Literal(string(b))
	return a
}

// Advance is the stateful half of Packet: relative time, per-flow tracking,
// reassembly and the analyses that follow a flow. Call it once per Decoded
// datagram, in capture order, from one goroutine.
//
// Datagrams the reader lost before dg (their ports unknown) are applied
// first, so dg's flow knows it may have lost messages, and noted on dg,
// where the loss became known (counted in the flows they concern, not
// dg's).
func (d *Dissector) Advance(dg *Datagram) {
	if !d.started {
		d.first, d.started = dg.Time, true
	}
	dg.RelTime = dg.Time.Sub(d.first)
	for i := range dg.lost {
		d.lostDatagram(&dg.lost[i])
	}
	if dg.Kind == KindGame {
		d.trackFlow(dg, len(dg.Raw)+dg.Missing)
	}
	if len(dg.lost) > 0 {
		notes := make([]anomaly.Anomaly, 0, len(dg.lost)+len(dg.Anomalies))
		for _, n := range dg.lost {
			notes = append(notes, n.Anomaly)
		}
		dg.Anomalies = append(notes, dg.Anomalies...)
	}
}

// lostDatagram tells the flows between the hosts of a datagram the reader
// lost that they may have lost messages: the transport then takes ACKs and
// incomplete reassemblies for them as cut, and the checksum handshake
// forgets its position.
func (d *Dissector) lostDatagram(n *capture.Note) {
	d.track.Lost(n.Src.Addr(), n.Dst.Addr(), handshakeGap)
}

// trackFlow feeds the per-flow reconstructor and decodes what it reassembled.
func (d *Dissector) trackFlow(dg *Datagram, size int) {
	tp := transport.Packet{Frame: dg.Frame, Time: dg.Time, Client: dg.Src, Server: dg.Dst, Dir: transport.C2S, Size: size, KeyHash: dg.flowHash}
	if dg.Dir == S2C {
		tp.Client, tp.Server, tp.Dir = dg.Dst, dg.Src, transport.S2C
	}
	n := len(dg.Transport.Messages)
	if cap(d.info) < n {
		d.info = make([]transport.MsgInfo, n)
	}
	d.info = d.info[:n]
	d.anoms = d.track.Track(tp, &dg.Transport, d.info, d.anoms[:0])
	keepReassembled(dg, d.info)
	for i := range dg.Msgs {
		m := &dg.Msgs[i]
		m.Track = d.info[i]
		if p := m.Track.Reassembled; p != nil {
			r := &m.reasm
			r.Frags = m.Track.ReassembledFrags
			r.Payload.reset(p)
			if len(p) > 0 {
				r.Opcode = game.Lookup(p[0])
				decodePayload(dg, i, anomaly.NoOffset, &r.Payload)
			}
			m.Reassembled = r
		}
	}
	dg.Anomalies = append(dg.Anomalies, d.anoms...)
	if ev := d.track.Events(); len(ev) > 0 {
		d.hold(ev)
	}
	fl := d.track.Current()
	for i := range dg.Anomalies {
		switch c := dg.Anomalies[i].Code; c {
		case anomaly.PayloadMalformed, anomaly.NonStockTorpedoFire, anomaly.NonStockObjCreate:
			fl.Count(c) // the flow's stats count every layer
		}
	}
	d.analyzeHandshake(dg, fl)
}

// keepReassembled copies the reassembled payloads in info into dg, so they
// outlive the tracker's next datagram.
func keepReassembled(dg *Datagram, info []transport.MsgInfo) {
	n := 0
	for i := range info {
		n += len(info[i].Reassembled)
	}
	if n == 0 {
		return
	}
	if cap(dg.reasmBuf) < n {
		dg.reasmBuf = make([]byte, 0, n) // no append below moves it
	}
	for i := range info {
		if p := info[i].Reassembled; p != nil {
			off := len(dg.reasmBuf)
			dg.reasmBuf = append(dg.reasmBuf, p...)
			info[i].Reassembled = dg.reasmBuf[off:len(dg.reasmBuf):len(dg.reasmBuf)]
		}
	}
}

func decodeMessages(dg *Datagram) {
	cut := &dg.Transport.Cut
	dg.Cut.Payload.reset(cut.Payload)
	dg.Cut.Reassembled, dg.Cut.Track = nil, transport.MsgInfo{}
	if dg.Transport.HasCut && cut.Type == transport.TypeData && !(cut.Fragment && cut.FragIdx != 0) && len(cut.Payload) > 0 {
		dg.Cut.Opcode = game.Lookup(cut.Payload[0]) // the cut payload is not decoded
	}
	n := len(dg.Transport.Messages)
	if cap(dg.Msgs) < n {
		dg.Msgs = append(dg.Msgs[:cap(dg.Msgs)], make([]Message, n-cap(dg.Msgs))...)
	}
	dg.Msgs = dg.Msgs[:n]
	for i := range dg.Transport.Messages {
		tm := &dg.Transport.Messages[i]
		m := &dg.Msgs[i]
		m.Payload.reset(tm.Payload)
		m.Reassembled = nil
		m.Track = transport.MsgInfo{}
		switch {
		case tm.Type == transport.TypeData:
			if tm.Fragment && tm.FragIdx != 0 || len(tm.Payload) == 0 {
				continue // a slice of the middle of a payload: shown raw
			}
			m.Opcode = game.Lookup(tm.Payload[0])
			if tm.Fragment {
				continue // decoded once reassembled
			}
			decodePayload(dg, i, tm.PayloadOff, &m.Payload)
		case tm.Type != transport.TypeACK:
			decodeControl(dg.Transport.PeerID, tm, &m.Fields)
			m.Decoded = len(m.Fields.List) > 0
		}
	}
}

// decodePayload runs the opcode decoder on p.Bytes, the payload of message
// i at offset off in the datagram (NoOffset: reassembled), and turns a
// malformed payload into an anomaly (the raw bytes stay visible in every
// reporter).
func decodePayload(dg *Datagram, i, off int, p *Payload) {
	p.Fields.Drop(dg.dropFields)
	op, err := game.Decode(p.Bytes, &p.Fields)
	p.Decoded = op != nil && op.Decode != nil
	if err == nil {
		return
	}
	me := asMalformed(err)
	p.Malformed = me
	name := "?"
	if op != nil {
		name = op.Name
	}
	// A reassembled payload has no place in this datagram.
	reasm := off == anomaly.NoOffset
	aoff := off + me.Off
	if reasm {
		aoff = anomaly.NoOffset
	}
	if code, off, msg, ok := game.NonStock(p.Bytes); ok {
		// Another implementation's shape: named, with what stock does.
		noff := off
		if reasm {
			noff = anomaly.NoOffset
		} else {
			noff += aoff - me.Off
		}
		dg.Anomalies = append(dg.Anomalies, anomaly.New(code, i, noff, "%s", msg))
		return
	}
	dg.Anomalies = append(dg.Anomalies, anomaly.NewText(anomaly.PayloadMalformed, i, aoff, me.Text(name, reasm)))
}

// ReaderNotes holds notes of the capture reader as events for Finish, with
// the side on a game port as the server, and tells the flows between their
// hosts they may have lost messages (see Advance).
func (d *Dissector) ReaderNotes(notes []capture.Note) {
	for _, n := range notes {
		d.lostDatagram(&n)
		e := Event{Frame: n.Frame, Time: n.Time, Client: n.Src, Server: n.Dst, Anomaly: n.Anomaly}
		if d.isGamePort(n.Src.Port()) {
			e.Client, e.Server = n.Dst, n.Src
		}
		d.hold([]Event{e})
	}
}

// asMalformed returns err as a *game.MalformedError, converting other
// errors. The decoders return one unwrapped: the type assertion spares the
// allocation errors.As's target costs.
func asMalformed(err error) *game.MalformedError {
	if me, ok := err.(*game.MalformedError); ok {
		return me
	}
	var me *game.MalformedError
	if !errors.As(err, &me) {
		me = game.NewMalformed(0, err.Error())
	}
	return me
}
