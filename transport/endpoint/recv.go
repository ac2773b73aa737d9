package endpoint

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport"
)

// Receive processes one datagram as it came off the wire (enciphered)
// from addr. b is not kept or modified. It reports whether the datagram
// was used: false for one dropped as malformed or from an unknown sender.
func (e *Endpoint) Receive(from netip.AddrPort, b []byte) bool {
	if len(b) == 0 {
		e.stats.Malformed++
		return false
	}
	if b[0] == '\\' {
		e.stats.GameSpy++
		e.emit(Event{Kind: EventGameSpy, From: from, Payload: b})
		return true
	}
	e.rbuf = append(e.rbuf[:0], b...)
	cipher.Decrypt(e.rbuf)
	dg := &e.dg
	transport.Decode(e.rbuf, dg)
	if len(dg.Anomalies) > 0 {
		e.stats.Malformed++
		return false
	}
	p := e.byAddr[from]
	if p == nil {
		if e.cfg.Role != Host || !isConnectRequest(dg) {
			e.stats.Unknown++
			return false
		}
		id, ok := e.freeID()
		if ok && e.cfg.AssignID != nil {
			if want := e.cfg.AssignID(from); e.idFree(want) {
				id = want
			}
		}
		if !ok {
			e.stats.Refused++
			return false
		}
		p = e.addPeer(from, id)
	}
	now := e.now()
	p.lastRecv = now
	p.stats.DatagramsReceived++
	for i := range dg.Messages {
		if p.gone {
			break
		}
		e.message(p, from, &dg.Messages[i])
	}
	return true
}

func isConnectRequest(dg *transport.Datagram) bool {
	return dg.PeerID == Unassigned && len(dg.Messages) > 0 && dg.Messages[0].Type == transport.TypeConnect
}

func (e *Endpoint) freeID() (uint8, bool) {
	if len(e.peers) >= e.cfg.MaxPeers {
		return 0, false
	}
	for id := 2; id < 2+e.cfg.MaxPeers; id++ {
		if e.idFree(uint8(id)) {
			return uint8(id), true
		}
	}
	return 0, false
}

// idFree says id is a client id in range that no peer holds.
func (e *Endpoint) idFree(id uint8) bool {
	if id < 2 || int(id) >= 2+e.cfg.MaxPeers {
		return false
	}
	for _, p := range e.peers {
		if p.id == id {
			return false
		}
	}
	return true
}

func (e *Endpoint) message(p *Peer, from netip.AddrPort, m *transport.Message) {
	p.stats.MessagesReceived++
	if m.Type == transport.TypeACK {
		p.stats.AcksReceived++
		e.ack(p, m)
		return
	}
	ch := m.Channel()
	if m.Reliable {
		// The host answers a Connect request with its Connect, not an ACK.
		if !(e.cfg.Role == Host && m.Type == transport.TypeConnect) {
			e.queueAck(p, m.Seq, ch == transport.ChanLow, m.Fragment, m.FragIdx)
		}
		if p.expect[ch].has(m.Seq) {
			p.stats.Duplicates++
			return
		}
	}
	if m.Fragment {
		if !m.Reliable {
			return // no seq to key it by; stock never sends one
		}
		e.fragment(p, from, m)
		return
	}
	if m.Reliable {
		p.expect[ch].set(m.Seq)
	}
	e.deliver(p, from, m.Type, m.Reliable, m.Seq, m.Payload)
}

func (e *Endpoint) deliver(p *Peer, from netip.AddrPort, t transport.Type, reliable bool, seq uint16, payload []byte) {
	p.stats.Delivered++
	ev := Event{Peer: p, From: from, Type: t, Reliable: reliable, Seq: seq, Payload: payload}
	switch t {
	case transport.TypeData:
		ev.Kind = EventMessage
	case transport.TypeConnect:
		e.connect(p, ev)
		return
	case transport.TypePeerInfo:
		pi, err := transport.ParsePeerInfo(payload)
		if err != nil {
			return
		}
		first := string(p.info) != string(payload)
		p.info = append(p.info[:0], payload...)
		p.name = pi.Name
		if e.cfg.Role == Host && first && pi.PeerID == p.id {
			// The host sends the client's record back (protocol-facts 4.2).
			_ = e.sendLow(p, transport.TypePeerInfo, payload)
		}
		if !first {
			return
		}
		ev.Kind, ev.Info = EventPeerInfo, pi
	case transport.TypeDisconnect:
		ev.Kind = EventDisconnected
		e.emit(ev)
		e.linger(p)
		return
	default:
		ev.Kind = EventControl
	}
	e.emit(ev)
}

// linger keeps a peer that left until its ACKs went out (their repeats
// are stock behaviour: the host ACKs a Disconnect again and again), and
// removes it from the queues of messages it will never ACK.
func (e *Endpoint) linger(p *Peer) {
	p.first, p.retrans, p.reasm = p.first[:0], p.retrans[:0], nil
	p.leaving = true
	if len(p.acks) == 0 {
		e.removePeer(p)
	}
}

func (e *Endpoint) connect(p *Peer, ev Event) {
	if e.cfg.Role == Host {
		if p.sendSeq[transport.ChanLow] != 0 {
			return // a repeated request: the reliable answer is on its way
		}
		_ = e.sendLow(p, transport.TypeConnect, []byte{p.id})
		ev.Kind = EventJoined
		e.emit(ev)
		return
	}
	id, err := transport.ParseConnectAssign(ev.Payload)
	if err != nil || e.id != Unassigned {
		return
	}
	e.id = id
	// The answer settles our request.
	for i, m := range p.retrans {
		if m.ch == transport.ChanLow && m.seq == 0 {
			p.retrans = append(p.retrans[:i], p.retrans[i+1:]...)
			break
		}
	}
	_ = e.sendLow(p, transport.TypePeerInfo, PeerInfoPayload(id, e.ipv4(), e.cfg.Name))
	ev.Kind = EventConnected
	e.emit(ev)
}

func (e *Endpoint) queueAck(p *Peer, seq uint16, low, frag bool, idx uint8) {
	for i := range p.acks {
		a := &p.acks[i]
		if a.seq == seq && a.low == low && a.frag == frag && (!frag || a.idx == idx) {
			a.sends, a.next = 0, e.now() // the peer did not hear us: answer now
			return
		}
	}
	if len(p.acks) >= e.cfg.MaxAcks {
		p.acks = append(p.acks[:0], p.acks[1:]...)
		p.stats.Dropped++
	}
	p.acks = append(p.acks, ackEntry{seq: seq, low: low, frag: frag, idx: idx, next: e.now()})
}

func (e *Endpoint) ack(p *Peer, m *transport.Message) {
	low := m.AckLow
	for i, q := range p.retrans {
		if (q.ch == transport.ChanLow) != low || q.seq != m.Seq || q.frag != m.AckFrag || (q.frag && q.idx != m.FragIdx) {
			continue
		}
		if q.frag && e.cfg.StockFragmentBug {
			return // the stock client's bug: matched, never cleared
		}
		if q.sends == 1 {
			e.rttSample(p, e.now().Sub(q.first))
		}
		p.retrans = append(p.retrans[:i], p.retrans[i+1:]...)
		if p.leaving && q.ch == transport.ChanLow && isType(q.wire, transport.TypeDisconnect) {
			e.removePeer(p)
		}
		return
	}
	p.stats.AcksUnmatched++
}

func isType(wire []byte, t transport.Type) bool { return len(wire) > 0 && transport.Type(wire[0]) == t }

// rttSample folds one round trip (first send to ACK, of a message sent
// once) into the smoothed RTT (7/8 old, 1/8 new).
func (e *Endpoint) rttSample(p *Peer, d time.Duration) {
	if d < 0 {
		return
	}
	s := &p.stats
	if s.RTTSamples == 0 {
		s.RTT = d
	} else {
		s.RTT = (s.RTT*7 + d) / 8
	}
	s.RTTSamples++
}

func (e *Endpoint) fragment(p *Peer, from netip.AddrPort, m *transport.Message) {
	var r *reasm
	for _, x := range p.reasm {
		if x.seq == m.Seq {
			r = x
			break
		}
	}
	if r == nil {
		if len(p.reasm) >= e.cfg.MaxReassemblies {
			p.reasm = append(p.reasm[:0], p.reasm[1:]...)
			p.stats.Dropped++
		}
		r = &reasm{seq: m.Seq, start: e.now()}
		p.reasm = append(p.reasm, r)
	}
	if m.HasFragTotal {
		if m.FragTotal == 0 || (r.total != 0 && int(m.FragTotal) != r.total) || len(r.parts) > int(m.FragTotal) {
			e.dropReasm(p, r)
			return
		}
		r.total = int(m.FragTotal)
	}
	idx := int(m.FragIdx)
	if r.total != 0 && idx >= r.total {
		e.dropReasm(p, r)
		return
	}
	if idx < len(r.parts) && r.parts[idx] != nil {
		p.stats.Duplicates++
		return
	}
	if e.reasmBytes(p)+len(m.Payload) > e.cfg.MaxReassemblyBytes {
		p.stats.Dropped++
		e.dropReasm(p, r)
		return
	}
	for len(r.parts) <= idx {
		r.parts = append(r.parts, nil)
	}
	part := append(make([]byte, 0, len(m.Payload)+1), m.Payload...) // never nil
	r.parts[idx] = part
	r.have++
	r.bytes += len(part)
	if r.total == 0 || r.have < r.total {
		return
	}
	whole := make([]byte, 0, r.bytes)
	for _, b := range r.parts {
		whole = append(whole, b...)
	}
	e.dropReasm(p, r)
	p.expect[transport.ChanHigh].set(m.Seq)
	e.deliver(p, from, transport.TypeData, true, m.Seq, whole)
}

func (e *Endpoint) reasmBytes(p *Peer) int {
	n := 0
	for _, r := range p.reasm {
		n += r.bytes
	}
	return n
}

func (e *Endpoint) dropReasm(p *Peer, r *reasm) {
	for i, x := range p.reasm {
		if x == r {
			p.reasm = append(p.reasm[:i], p.reasm[i+1:]...)
			return
		}
	}
}
