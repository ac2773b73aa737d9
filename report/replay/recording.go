package replay

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport"
)

// MaxRecordingBytes bounds the payload bytes Load keeps of one recording.
const MaxRecordingBytes = 64 << 20

// MaxConversations bounds the clients Load keeps of one recording.
const MaxConversations = 256

// ErrTooLarge is returned by Load for a recording over its bounds.
var ErrTooLarge = errors.New("replay: the recording holds more than a replay keeps (64 MiB of payloads or 256 clients); cut it with read -Y ... -w first")

// typeNonStockDisconnect is transport type 0x06, which some server
// reimplementations' clients send to leave (stock sends 0x05). A replayed
// client leaves with a stock Disconnect either way.
const typeNonStockDisconnect transport.Type = 0x06

// Dir is which side sent a message.
type Dir uint8

const (
	FromClient Dir = iota + 1
	FromServer
)

func (d Dir) String() string {
	if d == FromServer {
		return "server"
	}
	return "client"
}

// Message is one game payload (type 0x32) delivered whole: unfragmented,
// or reassembled from its fragments.
type Message struct {
	At       time.Duration // since the conversation's first datagram
	Frame    int           // recording: the datagram that delivered it; live: its index
	Dir      Dir
	Reliable bool
	Payload  []byte // opcode first
	// Answer marks a client's ChecksumResp that answered a request the
	// server had sent (and not yet had answered) for the same round: a
	// replayed client answers such requests as they come, not on the
	// recorded timeline.
	Answer bool
	// Leave marks the client's Disconnect (stock 0x05, or the non-stock
	// 0x06): no payload; a replayed client leaves with a stock Disconnect
	// at this point.
	Leave bool
}

// Opcode is the payload's first byte, or -1 for an empty payload.
func (m *Message) Opcode() int {
	if len(m.Payload) == 0 {
		return -1
	}
	return int(m.Payload[0])
}

// Conversation is one client's session with the server as recorded.
type Conversation struct {
	Client, Server netip.AddrPort
	Name           string // from the client's PeerInfo
	PeerID         uint8  // assigned by the server's Connect answer (0: not seen)
	Slot           int    // player slot from Settings; -1 when not seen
	ConnectFrame   int
	Left           bool          // the client sent Disconnect (a Leave message marks when)
	Start          time.Duration // RelTime of the first datagram
	Messages       []Message     // both directions, in delivery order
}

func (c *Conversation) leave(at time.Duration, frame int) {
	c.Left = true
	c.Messages = append(c.Messages, Message{At: at, Frame: frame, Dir: FromClient, Leave: true})
}

// Label names the conversation for people: the player's name, else its
// address.
func (c *Conversation) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Client.String()
}

// Sent returns the client's messages up to its leave.
func (c *Conversation) Sent() []Message { return c.side(FromClient) }

// Answers returns the server's messages up to the client's leave.
func (c *Conversation) Answers() []Message { return c.side(FromServer) }

func (c *Conversation) side(d Dir) []Message {
	var out []Message
	for _, m := range c.Messages {
		if m.Leave {
			break // what came after went to a client that had left
		}
		if m.Dir == d {
			out = append(out, m)
		}
	}
	return out
}

// ChecksumAnswer returns the client's recorded answer to a checksum
// request with this round and directory (else to one of this round), or
// nil when the recorded client answered no request of the round.
func (c *Conversation) ChecksumAnswer(round uint8, dir string) []byte {
	asked := false
	for _, m := range c.Messages {
		switch {
		case m.Dir == FromServer && m.Opcode() == 0x20:
			r, err := checksum.ParseRequest(m.Payload)
			asked = err == nil && r.Round == round && string(r.Dir) == dir
		case m.Dir == FromClient && m.Answer && asked:
			if m.Payload[1] == round {
				return m.Payload
			}
		}
	}
	// A request the recording has under another directory spelling still
	// has its round's answer.
	for _, m := range c.Messages {
		if m.Dir == FromClient && m.Answer && m.Payload[1] == round {
			return m.Payload
		}
	}
	return nil
}

// asked says the recorded server sent a checksum request of this round.
func (c *Conversation) asked(round uint8) bool {
	for _, m := range c.Messages {
		if m.Dir == FromServer && m.Opcode() == 0x20 && len(m.Payload) > 1 && m.Payload[1] == round {
			return true
		}
	}
	return false
}

// Recording is every conversation of one input, in the order the clients
// connected.
type Recording struct {
	Name          string
	Conversations []*Conversation
}

// Load reads in and splits it into conversations.
func Load(ctx context.Context, in dissect.Input, opt dissect.RunOptions) (*Recording, error) {
	opt.Mode = dissect.Serial
	s := &loader{rec: &Recording{Name: in.Name}, open: map[netip.AddrPort]*Conversation{}}
	if _, err := dissect.Dissect(ctx, in, opt, s); err != nil {
		return nil, err
	}
	if s.err != nil {
		return nil, s.err
	}
	for _, c := range s.rec.Conversations {
		c.markAnswers()
	}
	return s.rec, nil
}

// markAnswers sets Answer on the client's checksum answers that answer a
// pending request of their round.
func (c *Conversation) markAnswers() {
	pending := map[uint8]int{}
	for i := range c.Messages {
		m := &c.Messages[i]
		switch {
		case m.Dir == FromServer && m.Opcode() == 0x20 && len(m.Payload) > 1:
			pending[m.Payload[1]]++
		case m.Dir == FromClient && m.Opcode() == 0x21 && len(m.Payload) > 1 && pending[m.Payload[1]] > 0:
			pending[m.Payload[1]]--
			m.Answer = true
		}
	}
}

type loader struct {
	rec   *Recording
	open  map[netip.AddrPort]*Conversation
	total int
	err   error
}

func (s *loader) Events([]dissect.Event) error { return nil }
func (s *loader) Finish([]dissect.Event) error { return nil }

func (s *loader) conversation(dg *dissect.Datagram, client, server netip.AddrPort, connect bool) (*Conversation, error) {
	c := s.open[client]
	if c != nil && !(connect && (c.Left || c.ConnectFrame != 0)) {
		return c, nil
	}
	if len(s.rec.Conversations) >= MaxConversations {
		return nil, ErrTooLarge
	}
	c = &Conversation{Client: client, Server: server, Slot: -1, Start: dg.RelTime}
	s.open[client] = c
	s.rec.Conversations = append(s.rec.Conversations, c)
	return c, nil
}

func (s *loader) Datagram(dg *dissect.Datagram) error {
	if dg.Kind != dissect.KindGame {
		return nil
	}
	client, server, dir := dg.Src, dg.Dst, FromClient
	if dg.Dir == dissect.S2C {
		client, server, dir = dg.Dst, dg.Src, FromServer
	}
	msgs := dg.Transport.Messages
	if dir == FromClient && len(msgs) == 0 && len(dg.Plain) >= 3 && transport.Type(dg.Plain[2]) == typeNonStockDisconnect {
		// The codec stops at a type it does not know: a lone 0x06 is
		// the non-stock leave.
		if c := s.open[client]; c != nil && !c.Left {
			c.leave(dg.RelTime-c.Start, dg.Frame)
		}
		return nil
	}
	connect := false
	for i := range msgs {
		if msgs[i].Type == transport.TypeConnect && dir == FromClient {
			connect = !dg.Msgs[i].Track.Retransmit
		}
	}
	c, err := s.conversation(dg, client, server, connect)
	if err != nil {
		s.err = err
		return dissect.ErrStop
	}
	at := dg.RelTime - c.Start
	for i := range msgs {
		m, dm := &msgs[i], &dg.Msgs[i]
		if dm.Track.Retransmit || dm.Track.Keepalive {
			continue
		}
		switch m.Type {
		case transport.TypeConnect:
			if dir == FromClient && c.ConnectFrame == 0 {
				c.ConnectFrame = dg.Frame
			} else if dir == FromServer && c.PeerID == 0 {
				if id, err := transport.ParseConnectAssign(m.Payload); err == nil {
					c.PeerID = id
				}
			}
		case transport.TypePeerInfo:
			if dir == FromClient && c.Name == "" {
				if pi, err := transport.ParsePeerInfo(m.Payload); err == nil {
					c.Name = pi.Name
				}
			}
		case transport.TypeDisconnect:
			if dir == FromClient && !c.Left {
				c.leave(at, dg.Frame)
			}
		case transport.TypeData:
			p := dm.Payload.Bytes
			if m.Fragment {
				if dm.Reassembled == nil {
					continue
				}
				p = dm.Reassembled.Payload.Bytes
			}
			if dm.Track.Dup || len(p) == 0 {
				continue
			}
			s.total += len(p)
			if s.total > MaxRecordingBytes {
				s.err = ErrTooLarge
				return dissect.ErrStop
			}
			if dir == FromServer && p[0] == 0x00 && len(p) > 6 && c.Slot < 0 {
				c.Slot = int(p[6])
			}
			c.Messages = append(c.Messages, Message{
				At: at, Frame: dg.Frame, Dir: dir, Reliable: m.Reliable || m.Fragment,
				Payload: append([]byte(nil), p...),
			})
		}
	}
	return nil
}

// Pick returns the conversations named by sel: player names, peer ids
// ("2") or client addresses; all with conversations for an empty sel.
func (r *Recording) Pick(sel []string) ([]*Conversation, error) {
	var out []*Conversation
	for _, c := range r.Conversations {
		if len(c.Messages) == 0 {
			continue
		}
		if len(sel) == 0 {
			out = append(out, c)
			continue
		}
		for _, s := range sel {
			if s == c.Name || s == c.Client.String() || s == c.Client.Addr().String() || (c.PeerID != 0 && s == fmt.Sprint(c.PeerID)) {
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 {
		if len(sel) > 0 {
			return nil, fmt.Errorf("replay: no recorded client matches %q (the recording has %s)", sel, r.names())
		}
		return nil, errors.New("replay: the recording has no client that delivered a game message")
	}
	return out, nil
}

func (r *Recording) names() string {
	s := ""
	for i, c := range r.Conversations {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s (peer %d, %s)", c.Label(), c.PeerID, c.Client)
	}
	if s == "" {
		return "no clients"
	}
	return s
}

// End is the time of the conversation's last message.
func (c *Conversation) End() time.Duration {
	if n := len(c.Messages); n > 0 {
		return c.Messages[n-1].At
	}
	return 0
}

// Runs groups the conversations that delivered messages into server runs:
// a conversation that starts after every earlier one has ended starts a
// new run (a restarted server, or simply a quiet server between games).
func (r *Recording) Runs(cs []*Conversation) [][]*Conversation {
	var runs [][]*Conversation
	var end time.Duration
	for _, c := range cs {
		if len(runs) == 0 || c.Start > end {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], c)
		end = max(end, c.Start+c.End())
	}
	return runs
}
