package diff

import (
	"fmt"
	"time"
)

// Role tells client flows (game traffic) from GameSpy-only flows (server
// browser queries from their own ports).
type Role uint8

const (
	RoleClient  Role = iota + 1 // carries game datagrams (GameSpy ones too, if any)
	RoleGameSpy                 // GameSpy datagrams only
)

func (r Role) String() string {
	if r == RoleGameSpy {
		return "gamespy"
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
type Conversation struct {
	Name      string // file name as given
	Format    string // "capture" or "json"
	Datagrams int    // datagram records read
	Flows     []*Flow
}

// Messages counts the delivered messages of all flows.
func (c *Conversation) Messages() int {
	n := 0
	for _, f := range c.Flows {
		n += len(f.Msgs[C2S]) + len(f.Msgs[S2C])
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
	Msgs       [2][]Message // C2S, S2C, in capture order

	start time.Time
	chans [2][2]channel // [dir][low, high]
	dels  []delivery
}

// Message is one delivered message: unfragmented, or reassembled on the
// datagram that completed it, or one GameSpy datagram.
type Message struct {
	Frame   int           // datagram that delivered it
	Msg     int           // index in that datagram's messages; -1 for GameSpy
	At      time.Duration // since the flow's first datagram
	Type    string        // transport type name, or "GameSpy"
	Opcode  string        // game opcode name, if any
	Seq     int           // reliable: seq relative to its channel's first; else -1
	Channel int           // 0 low, 1 high, -1 unreliable/GameSpy
	Frags   int           // fragments joined, when reassembled
	Resends int           // retransmitted copies seen (fragments included)
	Acked   bool          // a matching ACK was seen (reliable only)
	Leaves  []Leaf        // content: type, flags, opcode, fields, raw payload
}

// channel is one reliable seq counter of one direction.
type channel struct {
	started bool
	last    uint16
	lastRel int
	seqs    map[uint16]int // seq -> index in Flow.dels
}

// delivery joins resends and ACKs to the message of a seq; idx is -1 while
// the message's fragments are still being reassembled.
type delivery struct {
	dir, idx int
	resends  int
	acked    bool
}

// builder turns datagram records into a Conversation.
type builder struct {
	conv  *Conversation
	flows map[[2]string]*Flow
}

func newBuilder(name, format string) *builder {
	return &builder{conv: &Conversation{Name: name, Format: format}, flows: make(map[[2]string]*Flow)}
}

func (b *builder) add(r *record) error {
	t, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return fmt.Errorf("frame %d: bad time %q", r.Frame, r.Time)
	}
	dir, client, server := C2S, r.Src, r.Dst
	if r.Dir == "s2c" {
		dir, client, server = S2C, r.Dst, r.Src
	}
	b.conv.Datagrams++
	key := [2]string{client, server}
	f := b.flows[key]
	if f == nil {
		f = &Flow{Role: RoleGameSpy, Client: client, Server: server, FirstFrame: r.Frame, start: t}
		b.flows[key] = f
		b.conv.Flows = append(b.conv.Flows, f)
	}
	at := t.Sub(f.start)
	if r.Kind == "gamespy" {
		m := Message{Frame: r.Frame, Msg: -1, At: at, Type: "GameSpy", Seq: -1, Channel: -1}
		if len(r.GameSpy) > 0 {
			if m.Leaves, err = appendLeaves(nil, "gamespy", r.GameSpy); err != nil {
				return fmt.Errorf("frame %d: gamespy: %w", r.Frame, err)
			}
		}
		if len(m.Leaves) == 0 || len(m.Leaves) == 1 && m.Leaves[0].Value == "{}" {
			// Nothing parsed into pairs: the text is the content.
			text := ""
			if r.Text != nil {
				text = *r.Text
			}
			m.Leaves = []Leaf{{Path: "text", Value: jsonString(text)}}
		}
		f.Msgs[dir] = append(f.Msgs[dir], m)
		return nil
	}
	f.Role = RoleClient
	for i := range r.Messages {
		if err := f.message(dir, r.Frame, i, at, &r.Messages[i]); err != nil {
			return fmt.Errorf("frame %d message %d: %w", r.Frame, i, err)
		}
	}
	return nil
}

func channelOf(typ int) int {
	if typ == typeData {
		return 1
	}
	return 0
}

// message folds one transport message into the flow.
func (f *Flow) message(dir, frame, idx int, at time.Duration, m *recMessage) error {
	if m.Type == typeACK {
		if m.Seq == nil || m.Ack == "unknown" || m.Ack == "mismatch" {
			return nil
		}
		ch := 1
		if m.AckLow {
			ch = 0
		}
		if di, ok := f.chans[1-dir][ch].seqs[uint16(*m.Seq)]; ok {
			f.dels[di].acked = true
		}
		return nil
	}
	c := &f.chans[dir][channelOf(m.Type)]
	if m.Retransmit && m.Seq != nil {
		if di, ok := c.seqs[uint16(*m.Seq)]; ok {
			f.dels[di].resends++
		}
	}
	if m.Reasm == nil {
		if m.Retransmit || m.Keepalive || m.Duplicate {
			return nil
		}
		if m.Fragment {
			// A first send of a fragment: the message is delivered when
			// the last fragment arrives; resends and ACKs before that
			// gather in a pending delivery.
			if m.Seq != nil {
				s := uint16(*m.Seq)
				if di, ok := c.seqs[s]; !ok || f.dels[di].idx >= 0 {
					c.setSeq(s, f.newDelivery(dir, -1))
				}
			}
			return nil
		}
	}
	msg := Message{Frame: frame, Msg: idx, At: at, Type: m.TypeName, Seq: -1, Channel: -1}
	if msg.Type == "" {
		msg.Type = fmt.Sprintf("type%d", m.Type)
	}
	msg.Leaves = append(msg.Leaves,
		Leaf{Path: "type", Value: fmt.Sprint(m.Type)},
		Leaf{Path: "reliable", Value: fmt.Sprint(m.Reliable)},
		Leaf{Path: "ordered", Value: fmt.Sprint(m.Ordered)})
	p := &m.recPayload
	if m.Reasm != nil {
		p = &m.Reasm.recPayload
		msg.Frags = m.Reasm.Frags
	}
	if p.Opcode != nil {
		msg.Opcode = p.OpcodeName
		msg.Leaves = append(msg.Leaves, Leaf{Path: "opcode", Value: fmt.Sprint(*p.Opcode)})
	}
	if len(p.Fields) > 0 {
		n := len(msg.Leaves)
		var err error
		if msg.Leaves, err = appendLeaves(msg.Leaves, "fields", p.Fields); err != nil {
			return err
		}
		for i := n; i < len(msg.Leaves); i++ {
			l := &msg.Leaves[i]
			l.note = isNote(msg.Leaves[n:], i-n)
			l.addr = m.Type != typeData && (l.Path == "fields.ip" || l.Path == "fields.port_bytes")
		}
	}
	if p.PayloadHex != nil {
		msg.Leaves = append(msg.Leaves, Leaf{Path: "payload_hex", Value: jsonString(*p.PayloadHex)})
	}
	if m.Reliable && m.Seq != nil {
		s := uint16(*m.Seq)
		msg.Channel = channelOf(m.Type)
		if !c.started {
			c.started, c.last, c.lastRel = true, s, 0
		} else {
			c.lastRel += int(int16(s - c.last))
			c.last = s
		}
		msg.Seq = c.lastRel
		n := len(f.Msgs[dir])
		if di, ok := c.seqs[s]; ok && f.dels[di].idx < 0 && m.Reasm != nil {
			f.dels[di].idx = n
		} else {
			c.setSeq(s, f.newDelivery(dir, n))
		}
	}
	f.Msgs[dir] = append(f.Msgs[dir], msg)
	return nil
}

func (c *channel) setSeq(s uint16, di int) {
	if c.seqs == nil {
		c.seqs = make(map[uint16]int)
	}
	c.seqs[s] = di
}

func (f *Flow) newDelivery(dir, idx int) int {
	f.dels = append(f.dels, delivery{dir: dir, idx: idx})
	return len(f.dels) - 1
}

// finish numbers the flows by role and copies resends and ACKs into the
// messages.
func (b *builder) finish() *Conversation {
	var n [3]int
	for _, f := range b.conv.Flows {
		n[f.Role]++
		f.Number = n[f.Role]
		for _, d := range f.dels {
			if d.idx >= 0 && d.idx < len(f.Msgs[d.dir]) {
				m := &f.Msgs[d.dir][d.idx]
				m.Resends, m.Acked = d.resends, d.acked
			}
		}
		f.dels = nil
		f.chans = [2][2]channel{}
	}
	b.flows = nil
	return b.conv
}
