package replay

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/bcdump/bcdump/transport/endpoint"
)

// Server plays the recorded server half of conversations to live
// clients (bcdump replay --as-server).
type Server struct {
	opt  Options
	runs [][]*Conversation
	node *endpoint.Node
	ep   *endpoint.Endpoint

	mu       sync.Mutex
	run      int // the run whose clients are joining
	next     int // its next conversation
	joining  map[netip.AddrPort]*Conversation
	sessions map[netip.AddrPort]*session
	done     []*Live
	wake     chan struct{}
}

type session struct {
	conv      *Conversation
	peer      *endpoint.Peer
	live      *Live
	start     time.Time
	idx       int // next message of conv.Messages
	delivered int // client messages received
	waitSince time.Time
	finished  bool
	// need[i] is how many client messages conv.Messages[:i+1] holds.
	need []int
}

// NewServer starts serving conversations (grouped into runs, see
// Recording.Runs) on conn. Close stops it.
func NewServer(runs [][]*Conversation, conn *net.UDPConn, opt Options) *Server {
	s := &Server{opt: opt.withDefaults(), runs: runs, joining: map[netip.AddrPort]*Conversation{},
		sessions: map[netip.AddrPort]*session{}, wake: make(chan struct{}, 1)}
	s.ep, s.node = startNode(conn, endpoint.Config{Role: endpoint.Host, OnEvent: s.event, AssignID: s.assign}, opt.Tap)
	return s
}

// startNode runs an endpoint with cfg on conn, for the client and the
// server alike: cfg takes the socket's port (and its address, when IPv4),
// and tap (nil: none) sees every datagram with the socket's address as
// local.
func startNode(conn *net.UDPConn, cfg endpoint.Config, tap func(out bool, local, remote netip.AddrPort, b []byte)) (*endpoint.Endpoint, *endpoint.Node) {
	local := conn.LocalAddr().(*net.UDPAddr).AddrPort()
	cfg.Port = local.Port()
	if local.Addr().Is4() {
		cfg.Addr = local.Addr()
	}
	var nodeTap endpoint.Tap
	if tap != nil {
		nodeTap = func(out bool, peer netip.AddrPort, b []byte) { tap(out, local, peer, b) }
	}
	ep := endpoint.New(cfg)
	return ep, endpoint.NewNodeTap(ep, conn, nodeTap)
}

// Addr is where the server listens.
func (s *Server) Addr() netip.AddrPort { return s.node.Addr() }

// Close stops the server.
func (s *Server) Close() error { return s.node.Close() }

// assign picks the conversation a joining client plays and gives it the
// recorded id. It runs inside Receive, under the Node's lock.
func (s *Server) assign(from netip.AddrPort) uint8 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run < len(s.runs) && s.next >= len(s.runs[s.run]) {
		// The run's clients have all joined: the next client starts the
		// next run, and the server forgets the old clients as a restarted
		// server would.
		s.run++
		s.next = 0
		for addr, ss := range s.sessions {
			s.finish(ss)
			delete(s.sessions, addr)
		}
		for _, p := range s.ep.Peers() {
			s.ep.Forget(p) // lingering ones too (a Disconnect still being ACKed)
		}
	}
	if s.run >= len(s.runs) {
		return 0
	}
	c := s.runs[s.run][s.next]
	s.next++
	s.joining[from] = c
	return c.PeerID
}

// event runs under the Node's lock.
func (s *Server) event(ev endpoint.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Kind {
	case endpoint.EventJoined:
		c := s.joining[ev.From]
		delete(s.joining, ev.From)
		if c == nil {
			return
		}
		ss := &session{conv: c, peer: ev.Peer, start: time.Now(), waitSince: time.Now(),
			live: &Live{Conv: c, Local: ev.From, PeerID: ev.Peer.ID(), Slot: c.Slot}, need: make([]int, len(c.Messages))}
		k := 0
		for i, m := range c.Messages {
			if m.Dir == FromClient && !m.Leave {
				k++
			}
			ss.need[i] = k
		}
		s.sessions[ev.From] = ss
	case endpoint.EventMessage:
		ss := s.sessions[ev.From]
		if ss == nil || len(ev.Payload) == 0 {
			return
		}
		ss.delivered++
		if len(ss.live.Messages) < len(ss.conv.Messages)+10000 {
			ss.live.Messages = append(ss.live.Messages, Message{At: time.Since(ss.start), Frame: ss.delivered,
				Dir: FromClient, Reliable: ev.Reliable, Payload: append([]byte(nil), ev.Payload...)})
		} else {
			ss.live.Dropped++
		}
	case endpoint.EventDisconnected, endpoint.EventTimeout:
		if ss := s.sessions[ev.From]; ss != nil {
			ss.live.Left = ev.Kind == endpoint.EventDisconnected
			s.finish(ss)
			delete(s.sessions, ev.From)
		}
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Server) finish(ss *session) {
	if !ss.finished {
		ss.finished = true
		s.done = append(s.done, ss.live)
	}
}

// Serve plays until ctx ends, or until every conversation of every run
// has been played and its client has left or had Settle to do so.
// It returns what each client sent, for Compare(live, FromClient, ...).
func (s *Server) Serve(ctx context.Context) []*Live {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return s.results()
		case <-t.C:
		case <-s.wake:
		}
		if s.step() {
			return s.results()
		}
	}
}

func (s *Server) results() []*Live {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ss := range s.sessions {
		s.finish(ss)
	}
	return append([]*Live(nil), s.done...)
}

// step releases what is due; it reports whether everything was played.
func (s *Server) step() bool {
	type out struct {
		peer     *endpoint.Peer
		payload  []byte
		reliable bool
	}
	var sends []out
	s.mu.Lock()
	now := time.Now()
	for _, ss := range s.sessions {
		msgs := ss.conv.Messages
		for ss.idx < len(msgs) {
			m := &msgs[ss.idx]
			if m.Leave {
				ss.idx = len(msgs) // the client leaves: nothing more is played to it
				break
			}
			if m.Dir == FromClient {
				// The recorded client sent this before the next answer:
				// wait for the live client to have sent as many.
				need := ss.need[ss.idx]
				if ss.delivered < need && now.Sub(ss.waitSince) < s.opt.Gate {
					break
				}
				if ss.delivered < need {
					ss.live.Findings = append(ss.live.Findings, Finding{Phase: phaseOf(m.Opcode()), At: time.Since(ss.start),
						Text: fmt.Sprintf("waited %s for the client's %s (recorded frame %d); played on", s.opt.Gate, opName(m.Opcode()), m.Frame)})
					ss.delivered = need
				}
				ss.idx++
				ss.waitSince = now
				continue
			}
			if s.opt.Speed > 0 && now.Sub(ss.start) < s.opt.scaled(m.At) {
				break
			}
			sends = append(sends, out{ss.peer, m.Payload, m.Reliable})
			ss.live.Messages = append(ss.live.Messages, Message{At: time.Since(ss.start), Frame: m.Frame, Dir: FromServer, Reliable: m.Reliable, Payload: m.Payload})
			ss.idx++
			ss.waitSince = now
		}
	}
	// Done: every run's clients joined, every session played out and
	// given Settle for its client to finish.
	all := len(s.joining) == 0 && (s.run >= len(s.runs) || (s.run == len(s.runs)-1 && s.next >= len(s.runs[s.run])))
	for _, ss := range s.sessions {
		if ss.idx < len(ss.conv.Messages) || now.Sub(ss.waitSince) < s.opt.Settle {
			all = false
		}
	}
	s.mu.Unlock()
	if len(sends) > 0 {
		s.node.Do(func(e *endpoint.Endpoint) {
			for _, o := range sends {
				_ = e.Send(o.peer, o.payload, o.reliable)
			}
		})
	}
	return all
}
