package diff

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/bcdump/bcdump/report/record"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
)

// Role tells client flows (game traffic) from GameSpy-only flows (server
// browser queries from their own ports).
type Role uint8

const (
	RoleClient  Role = iota + 1 // carries game datagrams (GameSpy ones too, if any)
	RoleGameSpy                 // GameSpy datagrams only
	RoleMerged                  // the flows past Options.MaxFlows, as one
)

func (r Role) String() string {
	switch r {
	case RoleGameSpy:
		return "gamespy"
	case RoleMerged:
		return "merged"
	}
	return "client"
}

// Directions index Flow.Msgs.
const (
	C2S = 0
	S2C = 1
)

var dirNames = [2]string{"c2s", "s2c"}

// Conversation is one side of a diff: the delivered messages of every flow.
// Their content is in a store that spills to a temporary file past a
// memory budget: Close removes it.
type Conversation struct {
	Name      string // file name as given
	Format    string // "capture" or "json"
	Datagrams int    // datagram records read
	Merged    int    // datagrams of the flows past Options.MaxFlows (RoleMerged)
	// DeliveriesDropped counts the times the resend and ACK state of a
	// flow was dropped to stay within Options.SpillBytes (setSeq).
	DeliveriesDropped int
	Flows             []*Flow

	store    *leafStore
	log      *msgLog
	opt      Options // what the content hashes were made under
	maxFrame int
}

// Close releases the conversation's spilled content, if any.
func (c *Conversation) Close() error {
	if c == nil {
		return nil
	}
	err := c.store.Close()
	if e := c.log.sp.Close(); err == nil {
		err = e
	}
	return err
}

// Spilled says the content of the messages went to a temporary file
// (their encoding passed the store's memory budget).
func (c *Conversation) Spilled() bool { return c.store != nil && c.store.Spilled() }

// RecordsSpilled says the messages' fixed records went to a temporary
// file too.
func (c *Conversation) RecordsSpilled() bool { return c.log != nil && c.log.sp.Spilled() }

// Messages counts the delivered messages of all flows.
func (c *Conversation) Messages() int {
	n := 0
	for _, f := range c.Flows {
		n += f.count[C2S] + f.count[S2C]
	}
	return n
}

// Flow is one client endpoint talking to one server endpoint.
type Flow struct {
	Role       Role
	Number     int    // 1-based among the flows of its role, by first appearance
	Client     string // ip:port
	Server     string
	FirstFrame int
	Merged     int // RoleMerged: its datagrams

	conv  *Conversation
	count [2]int    // messages per direction
	head  [2]int64  // first record of each direction in conv.log, -1 none
	tail  [2]int64  // last record
	sig   [2]uint64 // hash of the sequence of content hashes (conversation signature)

	start time.Time
	chans [2][2]channel           // [dir][low, high]
	rtt   [2]transport.RTTSamples // by direction of the acknowledged message

	held         int   // deliveries in chans' maps
	lprev, lnext *Flow // deliveryLRU
	inLRU        bool
}

// Len is the number of messages of direction d (C2S or S2C).
func (f *Flow) Len(d int) int { return f.count[d] }

// Messages returns the messages of direction d in capture order, read back
// from the conversation's store (for tests and small inputs: a diff reads
// them one at a time).
func (f *Flow) Messages(d int) []Message {
	var out []Message
	it := f.conv.iter(f, d)
	var m Message
	for it.read(&m) {
		out = append(out, m)
	}
	return out
}

// RTT is the round-trip time of the flow's reliable messages sent in dir
// (C2S or S2C), from the rtt_ms of the ACKs the other way: the figures
// transport.FlowStats holds for the flow.
func (f *Flow) RTT(dir int) transport.RTT { return f.rtt[dir].Summary() }

// Message is one delivered message: unfragmented, or reassembled on the
// datagram that completed it, or one GameSpy datagram. It is small and of
// fixed size: its content (Leaves) is in its conversation's store.
type Message struct {
	At    time.Duration // since the flow's first datagram
	hash  uint64        // of the compared leaves (contentHash)
	store *leafStore
	off   int64
	n     uint32
	typ   uint16 // transport type name, or "GameSpy": store.names[typ]
	op    uint16 // game opcode name, if any: store.names[op]
	rec   int64  // its record in the conversation's msgLog

	Frame   int32 // datagram that delivered it
	Seq     int32 // reliable: seq relative to its channel's first; else -1
	Frags   int32 // fragments joined, when reassembled
	Resends int32 // retransmitted copies seen (fragments included)
	Msg     int16 // index in that datagram's messages; -1 for GameSpy
	Channel int8  // 0 low, 1 high, -1 unreliable/GameSpy
	Acked   bool  // a matching ACK was seen (reliable only)
}

// Type is the message's transport type name, or "GameSpy".
func (m *Message) Type() string { return m.store.name(m.typ) }

// Opcode is the message's game opcode name, if any.
func (m *Message) Opcode() string { return m.store.name(m.op) }

// Leaves is the message's content: type, flags, opcode, fields, raw
// payload, as key paths and JSON values. It is decoded from the store on
// each call (read back from the spill file when the store spilled); nil
// if that fails.
func (m *Message) Leaves() []Leaf {
	if m.store == nil {
		return nil
	}
	ls, err := m.store.get(m.off, m.n)
	if err != nil {
		return nil
	}
	return ls
}

// channel is one reliable seq counter of one direction.
type channel struct {
	started bool
	last    uint16
	lastRel int
	seqs    map[uint16]delivery // a seq's latest message (seqWindow)
}

// delivery joins resends and ACKs to the message of a seq; rec is its
// record, -1 while the message's fragments are still being reassembled.
type delivery struct {
	rec     int64
	resends int32
	acked   bool
}

// builder turns datagram records into a Conversation.
type builder struct {
	conv     *Conversation
	opt      *Options
	flows    map[[2]netip.AddrPort]*Flow
	maxFlows int
	merged   *Flow // the flows past maxFlows
	held     int   // deliveries held, all flows
	maxHeld  int   // bytes of them allowed (Options.SpillBytes)
	lru      deliveryLRU
	// RTT samples kept by all flows, and their bound: Options.SpillBytes
	// (1 MiB at least) of 4-byte samples (a sixty-fourth of --flow-memory).
	// Past it,
	// flows count and time samples without keeping more, and their
	// percentiles are of the samples kept ("sampled").
	rttKept, maxRTTKept int
	ls                  []Leaf // scratch: one message's leaves
	path                []byte // scratch: a leaf path being built
}

func newBuilder(name, format string, opt *Options) *builder {
	if opt == nil {
		opt = &Options{}
	}
	st := newLeafStore(opt.SpillBytes)
	return &builder{conv: &Conversation{Name: name, Format: format, store: st, log: newMsgLog(opt.SpillBytes), opt: *opt}, opt: opt,
		flows: make(map[[2]netip.AddrPort]*Flow), maxFlows: opt.maxFlows(), maxHeld: max(opt.spillBytes(), minHeld),
		maxRTTKept: max(opt.spillBytes(), 1<<20) / 4}
}

// store files the scratch leaves as m's content.
func (b *builder) store(m *Message) {
	m.hash = contentHash(b.ls, b.opt)
	m.store = b.conv.store
	m.off, m.n = b.conv.store.put(b.ls)
}

func (b *builder) add(r *record.Datagram) error {
	if !r.Kind.IsDatagram() {
		return nil
	}
	if err := b.conv.store.sp.spillFailed(); err != nil {
		return err
	}
	if err := b.conv.log.sp.spillFailed(); err != nil {
		return err
	}
	if r.Dir != record.C2S && r.Dir != record.S2C {
		return fmt.Errorf("frame %d: bad dir", r.Frame)
	}
	t := r.Time
	dir, client, server := C2S, r.Src, r.Dst
	if r.Dir == record.S2C {
		dir, client, server = S2C, r.Dst, r.Src
	}
	b.conv.Datagrams++
	key := [2]netip.AddrPort{client, server}
	f := b.flows[key]
	if f == nil && len(b.flows) >= b.maxFlows {
		// Past the bound every further flow is one: its datagrams go to
		// the merged flow, in capture order.
		if b.merged == nil {
			b.merged = &Flow{Role: RoleMerged, Client: "*", Server: "*", FirstFrame: r.Frame, start: t,
				conv: b.conv, head: [2]int64{-1, -1}, tail: [2]int64{-1, -1}}
			b.conv.Flows = append(b.conv.Flows, b.merged)
		}
		f = b.merged
		f.Merged++
		b.conv.Merged++
	}
	if f == nil {
		f = &Flow{Role: RoleGameSpy, Client: client.String(), Server: server.String(), FirstFrame: r.Frame, start: t,
			conv: b.conv, head: [2]int64{-1, -1}, tail: [2]int64{-1, -1}}
		b.flows[key] = f
		b.conv.Flows = append(b.conv.Flows, f)
	}
	b.lru.touch(f)
	at := t.Sub(f.start)
	if r.Kind == record.KindGameSpy {
		m := Message{Frame: int32(r.Frame), Msg: -1, At: at, typ: b.conv.store.nameID("GameSpy"), Seq: -1, Channel: -1}
		b.ls = b.ls[:0]
		for i := range r.GameSpy {
			kv := &r.GameSpy[i]
			b.path = append(append(b.path[:0], "gamespy."...), kv.Key...)
			b.ls = append(b.ls, Leaf{Path: b.conv.store.path(b.path), Value: string(render.AppendJSONBytes(nil, kv.Value))})
		}
		if len(b.ls) == 0 {
			// Nothing parsed into pairs: the text is the content.
			b.ls = append(b.ls, Leaf{Path: "text", Value: string(render.AppendJSONBytes(nil, r.Text))})
		}
		b.store(&m)
		b.file(f, dir, &m)
		return nil
	}
	if f.Role != RoleMerged {
		f.Role = RoleClient
	}
	for i := range r.Messages {
		if err := b.message(f, dir, r.Frame, i, at, &r.Messages[i]); err != nil {
			return fmt.Errorf("frame %d message %d: %w", r.Frame, i, err)
		}
	}
	return nil
}

func channelOf(typ uint8) int {
	if typ == typeData {
		return 1
	}
	return 0
}

// typeACK and typeData are the transport types the diff treats specially.
const (
	typeACK  = 1
	typeData = 50
)

var typeNumbers [256]string

func init() {
	for i := range typeNumbers {
		typeNumbers[i] = strconv.Itoa(i)
	}
}

// message folds one transport message into the flow.
func (b *builder) message(f *Flow, dir, frame, idx int, at time.Duration, m *record.Message) error {
	// The merged flow interleaves many flows' seqs: no seq is followed,
	// no ACK or resend joined.
	merged := f.Role == RoleMerged
	if m.Type == typeACK {
		if m.HasRTT && !merged {
			// times the other way's message; the samples kept by all
			// flows are bounded (maxRTTKept)
			limit := transport.DefaultMaxRTTSamples
			if b.rttKept >= b.maxRTTKept {
				limit = f.rtt[1-dir].Kept()
			}
			if f.rtt[1-dir].Add(m.RTT, limit) {
				b.rttKept++
			}
		}
		if merged {
			return nil
		}
		if !m.HasSeq || m.Ack == "unknown" || m.Ack == "mismatch" {
			return nil
		}
		ch := 1
		if m.AckLow {
			ch = 0
		}
		c := &f.chans[1-dir][ch]
		if d, ok := c.seqs[m.Seq]; ok && !d.acked {
			d.acked = true
			c.seqs[m.Seq] = d
			if d.rec >= 0 {
				b.conv.log.deliver(d.rec, d.resends, true)
			}
		}
		return nil
	}
	c := &f.chans[dir][channelOf(m.Type)]
	if m.Retransmit && m.HasSeq && !merged {
		if d, ok := c.seqs[m.Seq]; ok {
			d.resends++
			c.seqs[m.Seq] = d
			if d.rec >= 0 {
				b.conv.log.deliver(d.rec, d.resends, d.acked)
			}
		}
	}
	if m.Reassembled == nil {
		if m.Retransmit || m.Keepalive || m.Duplicate {
			return nil
		}
		if m.Fragment {
			// A first send of a fragment: the message is delivered when
			// the last fragment arrives; resends and ACKs before that
			// gather in a pending delivery.
			if m.HasSeq && !merged {
				if d, ok := c.seqs[m.Seq]; !ok || d.rec >= 0 {
					b.setSeq(f, c, m.Seq, delivery{rec: -1})
				}
			}
			return nil
		}
	}
	msg := Message{Frame: int32(frame), Msg: int16(idx), At: at, Seq: -1, Channel: -1}
	if m.TypeName != "" {
		msg.typ = b.conv.store.nameID(m.TypeName)
	} else {
		msg.typ = b.conv.store.nameID(fmt.Sprintf("type%d", m.Type))
	}
	b.ls = append(b.ls[:0],
		Leaf{Path: "type", Value: typeNumbers[m.Type]},
		Leaf{Path: "reliable", Value: strconv.FormatBool(m.Reliable)},
		Leaf{Path: "ordered", Value: strconv.FormatBool(m.Ordered)})
	p := &m.Payload
	if m.Reassembled != nil {
		p = &m.Reassembled.Payload
		msg.Frags = int32(m.Reassembled.Frags)
	}
	if p.HasOpcode {
		msg.op = b.conv.store.nameID(p.OpcodeName)
		b.ls = append(b.ls, Leaf{Path: "opcode", Value: typeNumbers[p.Opcode]})
	}
	if p.Decoded {
		n := len(b.ls)
		var err error
		if b.ls, err = b.fieldLeaves(b.ls, p.Fields); err != nil {
			return err
		}
		for i := n; i < len(b.ls); i++ {
			l := &b.ls[i]
			l.note = isNote(b.ls[n:], i-n)
			l.addr = m.Type != typeData && (l.Path == "fields.ip" || l.Path == "fields.port_bytes")
		}
	}
	if p.HasHex {
		b.ls = append(b.ls, Leaf{Path: "payload_hex", Value: string(render.AppendHexJSON(nil, p.Bytes))})
	}
	b.store(&msg)
	if m.Reliable && m.HasSeq && !merged {
		s := m.Seq
		msg.Channel = int8(channelOf(m.Type))
		if !c.started {
			c.started, c.last, c.lastRel = true, s, 0
		} else {
			c.lastRel += int(int16(s - c.last))
			c.last = s
		}
		msg.Seq = int32(c.lastRel)
		d, ok := c.seqs[s]
		if !ok || d.rec >= 0 || m.Reassembled == nil {
			d = delivery{}
		}
		msg.Resends, msg.Acked = d.resends, d.acked
		d.rec = b.file(f, dir, &msg)
		b.setSeq(f, c, s, d)
		return nil
	}
	b.file(f, dir, &msg)
	return nil
}

// fieldLeaves flattens a payload's field tokens under "fields", in wire
// order: one leaf per scalar, an empty object or array a leaf of its own
// ("{}", "[]"), array elements as path[i].
func (b *builder) fieldLeaves(ls []Leaf, fs []record.Field) ([]Leaf, error) {
	if len(fs) == 0 {
		return append(ls, Leaf{Path: "fields", Value: "{}"}), nil
	}
	type level struct {
		plen  int  // path length before this level's member names
		array bool // elements, numbered
		n     int  // members or elements so far
	}
	path := append(b.path[:0], "fields"...)
	stack := []level{{plen: len(path)}}
	for i := range fs {
		fd := &fs[i]
		top := &stack[len(stack)-1]
		if fd.Kind == record.End {
			if len(stack) == 1 {
				return ls, errors.New("fields: unbalanced end")
			}
			if top.n == 0 {
				v := "{}"
				if top.array {
					v = "[]"
				}
				ls = append(ls, Leaf{Path: b.conv.store.path(path[:top.plen]), Value: v})
			}
			stack = stack[:len(stack)-1]
			path = path[:stack[len(stack)-1].plen]
			continue
		}
		path = path[:top.plen]
		if top.array {
			path = append(path, '[')
			path = strconv.AppendInt(path, int64(top.n), 10)
			path = append(path, ']')
		} else {
			path = append(path, '.')
			path = append(path, fd.Name...)
		}
		top.n++
		switch fd.Kind {
		case record.Object, record.Array:
			if len(stack) > maxDepth {
				return ls, fmt.Errorf("fields: nested deeper than %d levels", maxDepth)
			}
			stack = append(stack, level{plen: len(path), array: fd.Kind == record.Array})
		default:
			ls = append(ls, Leaf{Path: b.conv.store.path(path), Value: string(record.AppendValue(nil, fd))})
		}
	}
	// Levels left open (a token stream cut short) close as empty ones do.
	for len(stack) > 1 {
		top := stack[len(stack)-1]
		if top.n == 0 {
			v := "{}"
			if top.array {
				v = "[]"
			}
			ls = append(ls, Leaf{Path: b.conv.store.path(path[:top.plen]), Value: v})
		}
		stack = stack[:len(stack)-1]
	}
	b.path = path
	return ls, nil
}

// seqWindow is how far behind a channel's latest seq a message still
// takes ACKs and resends: filing seq s forgets s-seqWindow, so a channel
// keeps about seqWindow deliveries (at most 65,536 if seqs jump about).
const seqWindow = 4096

// deliveryBytes is what the builder counts per delivery held (map entry
// and its share of the map's buckets).
const deliveryBytes = 48

// minHeld is the least delivery state kept, whatever Options.SpillBytes.
const minHeld = 1 << 20

// setSeq files d as the delivery of seq s on channel c of f. The deliveries
// of all flows are counted; past Options.SpillBytes of them (1 MiB at
// least), those of the least recently active flows are dropped
// (deliveryLRU), so a resend or ACK of a message filed before that is not
// joined to it (its seq numbering goes on).
func (b *builder) setSeq(f *Flow, c *channel, s uint16, d delivery) {
	if c.seqs == nil {
		c.seqs = make(map[uint16]delivery)
	}
	n := len(c.seqs)
	delete(c.seqs, s-seqWindow)
	c.seqs[s] = d
	if k := len(c.seqs) - n; k != 0 {
		f.held += k
		b.held += k
	}
	if !f.inLRU && f.held > 0 {
		b.lru.pushFront(f)
	}
	for b.held*deliveryBytes > b.maxHeld && b.lru.tail != nil {
		v := b.lru.tail
		b.held -= v.held
		v.held = 0
		for dir := range 2 {
			for ch := range 2 {
				v.chans[dir][ch].seqs = nil
			}
		}
		b.lru.remove(v)
		b.conv.DeliveriesDropped++
	}
}

// deliveryLRU lists the flows holding deliveries, most recently active
// first.
type deliveryLRU struct{ head, tail *Flow }

func (l *deliveryLRU) pushFront(f *Flow) {
	f.lprev, f.lnext, f.inLRU = nil, l.head, true
	if l.head != nil {
		l.head.lprev = f
	}
	l.head = f
	if l.tail == nil {
		l.tail = f
	}
}

func (l *deliveryLRU) remove(f *Flow) {
	if f.lprev != nil {
		f.lprev.lnext = f.lnext
	} else {
		l.head = f.lnext
	}
	if f.lnext != nil {
		f.lnext.lprev = f.lprev
	} else {
		l.tail = f.lprev
	}
	f.lprev, f.lnext, f.inLRU = nil, nil, false
}

// touch marks f as the most recently active flow.
func (l *deliveryLRU) touch(f *Flow) {
	if f.inLRU && l.head != f {
		l.remove(f)
		l.pushFront(f)
	}
}

// file appends m to direction dir of f: its record goes to the log, chained
// after the direction's previous one, and its content hash into the flow's
// signature. It returns the record's index.
func (b *builder) file(f *Flow, dir int, m *Message) int64 {
	i := b.conv.log.add(m)
	if f.tail[dir] >= 0 {
		b.conv.log.link(f.tail[dir], i)
	} else {
		f.head[dir] = i
	}
	f.tail[dir] = i
	f.count[dir]++
	f.sig[dir] = sigStep(f.sig[dir], m.hash)
	b.conv.maxFrame = max(b.conv.maxFrame, int(m.Frame))
	return i
}

// sigStep extends a direction's signature by one content hash: the
// signature is a 64-bit hash of the sequence, made as the messages come,
// so pairing flows by whole conversation needs no conversation in memory.
func sigStep(s, h uint64) uint64 {
	s = (s ^ h) * 0x9E3779B97F4A7C15
	return s ^ s>>29
}

// finish numbers the flows by role and drops the delivery state (resends
// and ACKs are already in the records).
func (b *builder) finish() *Conversation {
	var n [4]int
	for _, f := range b.conv.Flows {
		n[f.Role]++
		f.Number = n[f.Role]
		f.chans = [2][2]channel{}
		f.lprev, f.lnext = nil, nil
	}
	b.flows = nil
	b.lru = deliveryLRU{}
	if sp := b.conv.log.sp; sp.Spilled() {
		sp.flush() // a read-back must not see the tail in memory only
	}
	return b.conv
}
