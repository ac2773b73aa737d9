package endpoint

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/cipher"
)

// Emit receives one enciphered datagram to send. b is only valid during
// the call.
type Emit func(to netip.AddrPort, b []byte)

// Poll runs the timers (timeouts, retransmissions, ACK repeats,
// keepalives) and hands every datagram that is due to emit. Call it after
// Receive and Send, and regularly (Node does every 10 ms).
func (e *Endpoint) Poll(emit Emit) {
	for _, r := range e.raw {
		emit(r.to, r.b)
	}
	e.raw = e.raw[:0]
	now := e.now()
	for i := 0; i < len(e.peers); i++ {
		p := e.peers[i]
		if e.cfg.Timeout > 0 && now.Sub(p.lastRecv) > e.cfg.Timeout {
			e.removePeer(p)
			i--
			e.emit(Event{Kind: EventTimeout, Peer: p, From: p.addr})
			continue
		}
		e.flushPeer(p, now, emit)
		if p.gone {
			i--
		}
	}
}

// backoff is the wait after a message's n-th send (n >= 1).
func (e *Endpoint) backoff(n int) time.Duration {
	c := &e.cfg
	d := c.RetransmitBase
	switch c.Backoff {
	case Linear:
		d += time.Duration(n-1) * c.RetransmitStep
	case Exponential:
		for i := 1; i < n && d < c.RetransmitMax; i++ {
			d *= 2
		}
	default:
		return d
	}
	return min(d, max(c.RetransmitMax, c.RetransmitBase))
}

// packer fills datagrams for one peer.
type packer struct {
	e     *Endpoint
	p     *Peer
	emit  Emit
	buf   []byte
	count int
}

func (k *packer) add(wire []byte) {
	c := &k.e.cfg
	if k.count > 0 && (len(k.buf)+len(wire) > c.MaxDatagram || k.count >= c.MaxMessages) {
		k.flush()
	}
	if k.count == 0 {
		k.buf = append(k.buf[:0], k.e.id, 0)
	}
	k.buf = append(k.buf, wire...)
	k.count++
}

func (k *packer) flush() {
	if k.count == 0 {
		return
	}
	k.buf[1] = byte(k.count)
	cipher.Encrypt(k.buf)
	k.p.stats.DatagramsSent++
	k.p.lastSend = k.e.now()
	k.emit(k.p.addr, k.buf)
	k.count = 0
	k.buf = k.buf[:0]
}

func (e *Endpoint) flushPeer(p *Peer, now time.Time, emit Emit) {
	k := packer{e: e, p: p, emit: emit, buf: e.sbuf[:0]}
	defer func() { e.sbuf = k.buf[:0] }()
	var ackBuf [5]byte
	sendAcks := func(fresh bool) {
		for i := range p.acks {
			a := &p.acks[i]
			if (a.sends < e.cfg.FreshAckSends) != fresh || a.next.After(now) {
				continue
			}
			k.add(appendACK(ackBuf[:0], a))
			a.sends++
			a.next = now.Add(e.cfg.AckRepeat)
			p.stats.AcksSent++
		}
	}
	// 1. ACK-outbox (young entries).
	sendAcks(true)
	// 2. Retransmit queue.
	keep := p.retrans[:0]
	var gaveUp []*outMsg
	for _, m := range p.retrans {
		if m.next.After(now) {
			keep = append(keep, m)
			continue
		}
		if e.cfg.MaxRetries >= 0 && m.sends-1 >= e.cfg.MaxRetries && !(m.frag && e.cfg.StockFragmentBug) {
			gaveUp = append(gaveUp, m)
			continue
		}
		k.add(m.wire)
		m.sends++
		m.next = now.Add(e.backoff(m.sends))
		p.stats.Retransmissions++
		keep = append(keep, m)
	}
	clear(p.retrans[len(keep):])
	p.retrans = keep
	// 3. First-send queue.
	for _, m := range p.first {
		k.add(m.wire)
		p.stats.MessagesSent++
		if !m.reliable {
			continue
		}
		m.sends, m.first = 1, now
		m.next = now.Add(e.backoff(1))
		p.retrans = append(p.retrans, m)
	}
	clear(p.first)
	p.first = p.first[:0]
	// 4. ACK-outbox (old entries, repeated).
	sendAcks(false)
	// Keepalive: nothing else went out for Keepalive.
	if k.count == 0 && e.cfg.Keepalive > 0 && p.infoMsg != nil && !p.leaving && now.Sub(p.lastSend) >= e.cfg.Keepalive {
		k.add(p.infoMsg)
		p.stats.Keepalives++
	}
	k.flush()
	// Free ACK entries that have had their sends.
	acks := p.acks[:0]
	for _, a := range p.acks {
		if a.sends < e.cfg.AckSends {
			acks = append(acks, a)
		}
	}
	p.acks = acks
	for _, m := range gaveUp {
		p.stats.GaveUp++
		e.emit(Event{Kind: EventGaveUp, Peer: p, From: p.addr, Reliable: true, Seq: m.seq, Type: typeOf(m.wire), Payload: m.wire})
		if p.leaving && isType(m.wire, 0x05) {
			e.removePeer(p)
			return
		}
	}
	if p.leaving && len(p.acks) == 0 && len(p.retrans) == 0 && len(p.first) == 0 {
		e.removePeer(p)
	}
}
