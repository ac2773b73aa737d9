package endpoint

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport"
)

// HostID is the host's peer id; Unassigned is a client's id before the
// host assigns one.
const (
	HostID     uint8 = 1
	Unassigned uint8 = 0xFF
)

// EventKind says what happened.
type EventKind uint8

const (
	EventJoined       EventKind = iota + 1 // host: a client's Connect made a new peer
	EventConnected                         // client: the host assigned our id (Event.Peer is the host)
	EventPeerInfo                          // a PeerInfo record arrived for the first time (Event.Info)
	EventMessage                           // a game payload (type 0x32), reassembled when fragmented
	EventControl                           // another low type (0x02, 0x04) delivered
	EventDisconnected                      // the peer sent Disconnect; it is removed
	EventTimeout                           // the peer sent nothing for Timeout; it is removed
	EventGaveUp                            // a reliable message was dropped after MaxRetries resends
	EventGameSpy                           // GameSpy text arrived (Event.From, Event.Payload)
)

var eventNames = [...]string{
	EventJoined: "joined", EventConnected: "connected", EventPeerInfo: "peer-info",
	EventMessage: "message", EventControl: "control", EventDisconnected: "disconnected",
	EventTimeout: "timeout", EventGaveUp: "gave-up", EventGameSpy: "gamespy",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Event is something the endpoint reports to its user.
type Event struct {
	Kind     EventKind
	Peer     *Peer          // nil for EventGameSpy
	From     netip.AddrPort // sender address
	Type     transport.Type // transport type of the message (EventMessage: 0x32)
	Reliable bool
	Seq      uint16
	Payload  []byte             // valid only during OnEvent
	Info     transport.PeerInfo // EventPeerInfo
}

// Stats counts what one peer's link did.
type Stats struct {
	DatagramsSent, DatagramsReceived uint64
	MessagesSent, MessagesReceived   uint64 // first sends; received messages of any type
	Retransmissions                  uint64 // resends of reliable messages (fragments count one by one)
	AcksSent, AcksReceived           uint64 // ACK messages, repeats included
	AcksUnmatched                    uint64 // ACKs that matched no retransmit entry
	Duplicates                       uint64 // reliable messages (or fragments) received again and not delivered
	Delivered                        uint64 // messages handed to the user (a fragmented one once)
	Keepalives                       uint64
	GaveUp                           uint64
	Dropped                          uint64 // messages refused because a bound was reached
	RTT                              time.Duration
	RTTSamples                       int
}

// EndpointStats counts what arrived that belongs to no peer.
type EndpointStats struct {
	Malformed uint64 // datagrams the codec found an anomaly in (dropped)
	Unknown   uint64 // game datagrams from an address that is no peer (and no Connect)
	Refused   uint64 // Connects refused because MaxPeers are connected
	GameSpy   uint64
}

// Errors of Send and friends.
var (
	ErrQueueFull    = errors.New("endpoint: send queue full")
	ErrTooLarge     = errors.New("endpoint: message needs more than 255 fragments")
	ErrNotConnected = errors.New("endpoint: peer is gone")
	ErrRole         = errors.New("endpoint: not allowed for this role")
)

// outMsg is a message in the first-send or the retransmit queue.
type outMsg struct {
	ch       transport.Channel
	reliable bool
	frag     bool
	idx      uint8
	seq      uint16
	wire     []byte // the whole transport message
	sends    int
	first    time.Time
	next     time.Time
}

type ackEntry struct {
	seq   uint16
	low   bool
	frag  bool
	idx   uint8
	sends int
	next  time.Time
}

// window remembers which seqs of one channel were delivered: every seq
// before base, and the ones set in bits (bit i: base+i).
type window struct {
	base uint16
	bits [16]uint64 // 1024 seqs ahead of base
}

const windowSize = 1024

func (w *window) has(seq uint16) bool {
	d := int(int16(seq - w.base))
	if d < 0 {
		return true
	}
	if d >= windowSize {
		return false
	}
	return w.bits[d>>6]&(1<<(d&63)) != 0
}

func (w *window) set(seq uint16) {
	d := int(int16(seq - w.base))
	if d < 0 {
		return
	}
	for d >= windowSize { // forget the oldest: they count as delivered
		w.shift()
		d--
	}
	w.bits[d>>6] |= 1 << (d & 63)
	for w.bits[0]&1 != 0 {
		w.shift()
	}
}

func (w *window) shift() {
	for i := range w.bits {
		w.bits[i] >>= 1
		if i+1 < len(w.bits) {
			w.bits[i] |= w.bits[i+1] << 63
		}
	}
	w.base++
}

type reasm struct {
	seq   uint16
	total int // 0 until fragment 0 arrived
	parts [][]byte
	have  int
	bytes int
	start time.Time
}

// Peer is the other end of one link.
type Peer struct {
	ep       *Endpoint
	addr     netip.AddrPort
	id       uint8
	name     string
	info     []byte // last PeerInfo payload received
	infoMsg  []byte // the PeerInfo message we sent last (keepalive)
	sendSeq  [2]uint16
	expect   [2]window
	acks     []ackEntry
	retrans  []*outMsg
	first    []*outMsg
	reasm    []*reasm
	lastSend time.Time
	lastRecv time.Time
	gone     bool
	leaving  bool // we sent Disconnect
	stats    Stats
}

// Addr is the peer's UDP address.
func (p *Peer) Addr() netip.AddrPort { return p.addr }

// ID is the peer's id (byte 0 of its datagrams).
func (p *Peer) ID() uint8 { return p.id }

// Name is the player name of the peer's last PeerInfo record.
func (p *Peer) Name() string { return p.name }

// Stats returns the link's counters.
func (p *Peer) Stats() Stats { return p.stats }

// Pending is the number of messages waiting for a first send or an ACK.
func (p *Peer) Pending() int { return len(p.first) + len(p.retrans) }

// Expected is the next seq the peer's channel c is expected to deliver:
// every seq before it was delivered.
func (p *Peer) Expected(c transport.Channel) uint16 { return p.expect[c].base }

// NextSeq is the seq the next reliable message on channel c will get.
func (p *Peer) NextSeq(c transport.Channel) uint16 { return p.sendSeq[c] }

// Gone reports whether the peer was removed.
func (p *Peer) Gone() bool { return p.gone }

// Endpoint is one BC node. It is not safe for concurrent use; Node
// serialises access for its socket.
type Endpoint struct {
	cfg    Config
	id     uint8
	peers  []*Peer
	byAddr map[netip.AddrPort]*Peer
	stats  EndpointStats
	dg     transport.Datagram
	rbuf   []byte
	sbuf   []byte
	raw    []rawOut
}

type rawOut struct {
	to netip.AddrPort
	b  []byte
}

// New makes an Endpoint.
func New(cfg Config) *Endpoint {
	cfg = cfg.withDefaults()
	e := &Endpoint{cfg: cfg, byAddr: map[netip.AddrPort]*Peer{}, id: Unassigned}
	if cfg.Role == Host {
		e.id = HostID
	}
	e.rbuf = make([]byte, 0, 2048)
	e.sbuf = make([]byte, 0, cfg.MaxDatagram)
	return e
}

// Config returns the configuration with defaults filled in.
func (e *Endpoint) Config() Config { return e.cfg }

// ID is the endpoint's own peer id: 1 for a host; for a client 0xFF until
// the host assigned one.
func (e *Endpoint) ID() uint8 { return e.id }

// Stats returns the counters of traffic that belongs to no peer.
func (e *Endpoint) Stats() EndpointStats { return e.stats }

// Peers returns the live peers in the order they joined.
func (e *Endpoint) Peers() []*Peer { return append([]*Peer(nil), e.peers...) }

// Peer returns the peer at addr, or nil.
func (e *Endpoint) Peer(addr netip.AddrPort) *Peer { return e.byAddr[addr] }

func (e *Endpoint) now() time.Time { return e.cfg.Clock.Now() }

func (e *Endpoint) emit(ev Event) {
	if e.cfg.OnEvent != nil {
		e.cfg.OnEvent(ev)
	}
}

func (e *Endpoint) addPeer(addr netip.AddrPort, id uint8) *Peer {
	now := e.now()
	p := &Peer{ep: e, addr: addr, id: id, lastRecv: now, lastSend: now}
	e.peers = append(e.peers, p)
	e.byAddr[addr] = p
	return p
}

func (e *Endpoint) removePeer(p *Peer) {
	if p.gone {
		return
	}
	p.gone = true
	delete(e.byAddr, p.addr)
	for i, q := range e.peers {
		if q == p {
			e.peers = append(e.peers[:i], e.peers[i+1:]...)
			break
		}
	}
	p.first, p.retrans, p.acks, p.reasm = nil, nil, nil, nil
}

// ipv4 returns the 4 bytes written into control payloads.
func (e *Endpoint) ipv4() [4]byte { return e.cfg.Addr.As4() }

// Connect starts a client's join: it makes the host its peer and queues
// the Connect request (type 0x03, low seq 0, from id 0xFF).
func (e *Endpoint) Connect(host netip.AddrPort) (*Peer, error) {
	if e.cfg.Role != Client {
		return nil, ErrRole
	}
	if len(e.peers) > 0 {
		return nil, errors.New("endpoint: already connected")
	}
	p := e.addPeer(host, HostID)
	ip := e.ipv4()
	pl := make([]byte, 0, 10)
	pl = append(pl, ip[:]...)
	pl = binary.LittleEndian.AppendUint16(pl, e.cfg.Port)
	pl = append(pl, 0, 0, 0, 0)
	return p, e.sendLow(p, transport.TypeConnect, pl)
}

// Forget drops p at once, sending nothing: what a restarted host knows of
// its old clients (bcdump replay --as-server between recorded server
// runs).
func (e *Endpoint) Forget(p *Peer) {
	if p != nil && !p.gone {
		e.removePeer(p)
	}
}

// Disconnect queues a Disconnect (type 0x05) to p: a client leaving, or a
// host dropping a client. The peer is removed once the Disconnect is ACKed
// or given up on.
func (e *Endpoint) Disconnect(p *Peer) error {
	if p == nil || p.gone {
		return ErrNotConnected
	}
	id := e.id
	if e.cfg.Role == Host {
		id = p.id
	}
	ip := e.ipv4()
	if e.cfg.Role == Host {
		ip = peerIP(p)
	}
	p.leaving = true
	return e.sendLow(p, transport.TypeDisconnect, []byte{id, ip[0], ip[1], ip[2], ip[3]})
}

func peerIP(p *Peer) [4]byte {
	if p.addr.Addr().Is4() || p.addr.Addr().Is4In6() {
		return p.addr.Addr().Unmap().As4()
	}
	return [4]byte{}
}

// Send queues a game payload (opcode first) to p as a type 0x32 message.
// A payload too large for one datagram is fragmented, and fragments are
// always reliable. The payload is copied.
func (e *Endpoint) Send(p *Peer, payload []byte, reliable bool) error {
	if p == nil || p.gone {
		return ErrNotConnected
	}
	maxMsg := e.cfg.MaxDatagram - 2
	if 5+len(payload) <= maxMsg || (!reliable && 3+len(payload) <= maxMsg) {
		if len(p.first)+len(p.retrans) >= e.cfg.MaxQueue {
			p.stats.Dropped++
			return ErrQueueFull
		}
		m := &outMsg{ch: transport.ChanHigh, reliable: reliable}
		if reliable {
			m.seq = p.nextSeq(transport.ChanHigh)
		}
		m.wire = appendData(nil, reliable, m.seq, false, 0, 0, payload)
		p.first = append(p.first, m)
		return nil
	}
	// Fragment: fragment 0 has a 7-byte header, the others 6.
	n0 := maxMsg - 7
	nk := maxMsg - 6
	total := 1
	if rest := len(payload) - n0; rest > 0 {
		total += (rest + nk - 1) / nk
	}
	if total > 255 {
		return ErrTooLarge
	}
	if len(p.first)+len(p.retrans)+total > e.cfg.MaxQueue {
		p.stats.Dropped++
		return ErrQueueFull
	}
	seq := p.nextSeq(transport.ChanHigh)
	for i := 0; i < total; i++ {
		var chunk []byte
		if i == 0 {
			chunk = payload[:n0]
		} else {
			s := n0 + (i-1)*nk
			chunk = payload[s:min(s+nk, len(payload))]
		}
		m := &outMsg{ch: transport.ChanHigh, reliable: true, frag: true, idx: uint8(i), seq: seq}
		m.wire = appendData(nil, true, seq, true, uint8(i), uint8(total), chunk)
		p.first = append(p.first, m)
	}
	return nil
}

// SendLow queues a reliable, ordered low-type message (0x00, 0x02-0x05)
// with the given payload, as every captured low-type message is sent.
func (e *Endpoint) SendLow(p *Peer, t transport.Type, payload []byte) error {
	if !t.Low() {
		return fmt.Errorf("endpoint: type 0x%02X is not a low type", uint8(t))
	}
	if p == nil || p.gone {
		return ErrNotConnected
	}
	return e.sendLow(p, t, payload)
}

func (e *Endpoint) sendLow(p *Peer, t transport.Type, payload []byte) error {
	if 5+len(payload) > e.cfg.MaxDatagram-2 {
		return fmt.Errorf("endpoint: %d-byte %s payload does not fit a datagram", len(payload), t.Name())
	}
	if len(p.first)+len(p.retrans) >= e.cfg.MaxQueue {
		p.stats.Dropped++
		return ErrQueueFull
	}
	m := &outMsg{ch: transport.ChanLow, reliable: true, seq: p.nextSeq(transport.ChanLow)}
	m.wire = appendLow(nil, t, m.seq, payload)
	if t == transport.TypePeerInfo {
		p.infoMsg = m.wire
	}
	p.first = append(p.first, m)
	return nil
}

// SendRaw queues bytes to be sent to addr as they are at the next Poll
// (GameSpy answers). At most 64 are held.
func (e *Endpoint) SendRaw(to netip.AddrPort, b []byte) {
	if len(e.raw) < 64 {
		e.raw = append(e.raw, rawOut{to, append([]byte(nil), b...)})
	}
}

func (p *Peer) nextSeq(c transport.Channel) uint16 {
	s := p.sendSeq[c]
	p.sendSeq[c]++
	return s
}

// PeerInfoPayload builds a type 0x00 payload: id, IPv4, UTF-16LE name
// ending 00 00.
func PeerInfoPayload(id uint8, ip [4]byte, name string) []byte {
	b := []byte{id, ip[0], ip[1], ip[2], ip[3]}
	for _, r := range name {
		if r > 0xFFFF {
			r1, r2 := surrogates(r)
			b = append(b, byte(r1), byte(r1>>8), byte(r2), byte(r2>>8))
			continue
		}
		b = append(b, byte(r), byte(r>>8))
	}
	return append(b, 0, 0)
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// appendData appends a type 0x32 message.
func appendData(dst []byte, reliable bool, seq uint16, frag bool, idx, total uint8, payload []byte) []byte {
	hdr := 3
	if reliable {
		hdr += 2
	}
	if frag {
		hdr++
		if idx == 0 {
			hdr++
		}
	}
	fl := uint16(hdr+len(payload)) & transport.MaxDataLen
	if reliable {
		fl |= 0x8000
	}
	if frag {
		fl |= 0x2000
	}
	dst = append(dst, byte(transport.TypeData))
	dst = binary.LittleEndian.AppendUint16(dst, fl)
	if reliable {
		dst = binary.LittleEndian.AppendUint16(dst, seq)
	}
	if frag {
		dst = append(dst, idx)
		if idx == 0 {
			dst = append(dst, total)
		}
	}
	return append(dst, payload...)
}

// appendLow appends a reliable, ordered low-type message (flags 0xC0).
func appendLow(dst []byte, t transport.Type, seq uint16, payload []byte) []byte {
	fl := uint16(5+len(payload))&transport.MaxLowLen | 0xC000
	dst = append(dst, byte(t))
	dst = binary.LittleEndian.AppendUint16(dst, fl)
	dst = binary.LittleEndian.AppendUint16(dst, seq)
	return append(dst, payload...)
}

// appendACK appends an ACK.
func appendACK(dst []byte, a *ackEntry) []byte {
	var flags uint8
	if a.frag {
		flags |= 1
	}
	if a.low {
		flags |= 2
	}
	dst = append(dst, byte(transport.TypeACK))
	dst = binary.LittleEndian.AppendUint16(dst, a.seq)
	dst = append(dst, flags)
	if a.frag {
		dst = append(dst, a.idx)
	}
	return dst
}

// Encipher enciphers a plaintext datagram in place (byte 0 stays clear).
func Encipher(b []byte) { cipher.Encrypt(b) }

func typeOf(wire []byte) transport.Type {
	if len(wire) == 0 {
		return 0
	}
	return transport.Type(wire[0])
}
