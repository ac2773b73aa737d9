package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport/endpoint"
)

// Options set up Drive and Serve.
type Options struct {
	// Speed divides recorded times: 1 plays as recorded, 2 twice as fast.
	// 0 is "max": a message goes as soon as the answers that preceded it
	// in the recording have arrived.
	Speed float64
	// Gate is the longest a message waits for the answer it waits for
	// (5 s); then it goes anyway and the wait is a finding.
	Gate time.Duration
	// ConnectWait is how long the server has to answer Connect (5 s).
	ConnectWait time.Duration
	// Settle is how long answers are collected after the last message,
	// at most (3 s; less when the recording ended sooner).
	Settle time.Duration
	// Manifest, when set, answers checksum requests the recording cannot,
	// or every request with PreferManifest.
	Manifest       *checksum.Manifest
	PreferManifest bool
	// Tap, when set, sees every datagram on the wire (Writer.Tap).
	Tap func(out bool, local, remote netip.AddrPort, b []byte)
	// MaxAnswers bounds the server messages a live run keeps (the
	// recording's count plus 10000 when 0); the rest are only counted.
	MaxAnswers int

	// peers is shared by the clients Play runs at once: every recorded
	// peer id met so far and its live id.
	peers *peerMap
	// joined, when set, is closed once the server answered this client's
	// Connect, or the client gave up: Play holds the next client's
	// Connect until then, so a server that numbers clients in arrival
	// order numbers them in recorded order.
	joined chan struct{}
}

// peerMap maps recorded peer ids to live ones across concurrent clients.
type peerMap struct {
	mu sync.Mutex
	m  map[uint8]uint8
}

func (p *peerMap) set(rec, live uint8) {
	p.mu.Lock()
	p.m[rec] = live
	p.mu.Unlock()
}

func (p *peerMap) snapshot() map[uint8]uint8 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[uint8]uint8, len(p.m))
	for a, b := range p.m {
		out[a] = b
	}
	return out
}

func (o Options) withDefaults() Options {
	if o.Gate <= 0 {
		o.Gate = 5 * time.Second
	}
	if o.ConnectWait <= 0 {
		o.ConnectWait = 5 * time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 3 * time.Second
	}
	return o
}

// scaled is a recorded duration in live time.
func (o Options) scaled(d time.Duration) time.Duration {
	if o.Speed <= 0 {
		return 0
	}
	return time.Duration(float64(d) / o.Speed)
}

// Finding is something a live run ran into that is not a comparison of
// answers: a wait that ran out, a request the recording cannot answer.
type Finding struct {
	Phase Phase
	At    time.Duration
	Text  string
}

// Live is what one client's live run saw.
type Live struct {
	Conv     *Conversation
	Local    netip.AddrPort
	PeerID   uint8
	Slot     int       // from the live Settings; -1 when none came
	Messages []Message // sent and received, in order
	Dropped  int       // server messages over MaxAnswers, counted only
	Findings []Finding
	Left     bool // we sent Disconnect
	// Ident is how the client's identity moved (set when the run ends);
	// Compare maps the live answers back with it.
	Ident Identity
}

// ErrNoServer says the server never answered Connect.
var ErrNoServer = errors.New("no answer to Connect")

// Drive plays conv's client half against the server at server and
// returns what came back. It returns an error only when the run could
// not happen (no socket, no answer to Connect); everything else is in
// Live.
func Drive(ctx context.Context, conv *Conversation, server netip.AddrPort, opt Options) (*Live, error) {
	opt = opt.withDefaults()
	joined := sync.OnceFunc(func() {
		if opt.joined != nil {
			close(opt.joined)
		}
	})
	defer joined()
	d := &driver{conv: conv, opt: opt, live: &Live{Conv: conv, Slot: -1}, wake: make(chan struct{}, 1),
		counts: map[int]int{}, deficit: map[int]int{}}
	if opt.MaxAnswers <= 0 {
		d.maxAnswers = len(conv.Answers()) + 10000
	} else {
		d.maxAnswers = opt.MaxAnswers
	}
	bind := "0.0.0.0:0"
	if server.Addr().Is6() && !server.Addr().Is4In6() {
		bind = "[::]:0"
	}
	if server.Addr().IsLoopback() {
		bind = "127.0.0.1:0"
		if server.Addr().Is6() {
			bind = "[::1]:0"
		}
	}
	ua, _ := net.ResolveUDPAddr("udp", bind)
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	d.live.Local = conn.LocalAddr().(*net.UDPAddr).AddrPort() // before the Node's reader can call d.event
	d.ep, d.node = startNode(conn, endpoint.Config{Role: endpoint.Client, Name: conv.Name, OnEvent: d.event}, opt.Tap)
	defer d.node.Close()
	d.start = time.Now()

	var connErr error
	d.node.Do(func(e *endpoint.Endpoint) { d.host, connErr = e.Connect(server) })
	if connErr != nil {
		return nil, connErr
	}
	ok := d.waitFor(ctx, opt.ConnectWait, func() bool { return d.connected })
	joined()
	if !ok {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("replay: %s: %w within %s (is a BC server running there?)", server, ErrNoServer, opt.ConnectWait)
	}
	d.play(ctx)
	d.mu.Lock()
	d.live.Ident = d.identity()
	d.mu.Unlock()
	return d.live, nil
}

type driver struct {
	conv *Conversation
	opt  Options
	node *endpoint.Node
	ep   *endpoint.Endpoint
	host *endpoint.Peer

	mu         sync.Mutex
	live       *Live
	connected  bool
	start      time.Time
	counts     map[int]int // reliable server messages received per opcode
	deficit    map[int]int // of those, how many a gate gave up waiting for
	maxAnswers int
	answered   int // server messages kept
	wake       chan struct{}
	gone       bool
}

func (d *driver) since() time.Duration { return time.Since(d.start) }

// event runs under the Node's lock (from Receive or Poll).
func (d *driver) event(ev endpoint.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch ev.Kind {
	case endpoint.EventConnected:
		d.connected = true
		d.live.PeerID = d.ep.ID()
		if d.opt.peers != nil && d.conv.PeerID != 0 {
			d.opt.peers.set(d.conv.PeerID, d.live.PeerID)
		}
	case endpoint.EventMessage:
		d.received(ev)
	case endpoint.EventDisconnected, endpoint.EventTimeout:
		d.gone = true
		d.live.Findings = append(d.live.Findings, Finding{Phase: PhaseInGame, At: d.since(),
			Text: fmt.Sprintf("the server ended the session (%s)", ev.Kind)})
	case endpoint.EventGaveUp:
		d.live.Findings = append(d.live.Findings, Finding{Phase: PhaseInGame, At: d.since(),
			Text: fmt.Sprintf("a reliable message (seq %d) was never ACKed: given up after the endpoint's resends", ev.Seq)})
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *driver) received(ev endpoint.Event) {
	p := ev.Payload
	if len(p) == 0 {
		return
	}
	op := int(p[0])
	if ev.Reliable {
		d.counts[op]++
	}
	if op == 0x00 && len(p) > 6 && d.live.Slot < 0 {
		d.live.Slot = int(p[6])
	}
	if d.answered >= d.maxAnswers {
		d.live.Dropped++
	} else {
		d.answered++
		d.live.Messages = append(d.live.Messages, Message{At: d.since(), Frame: len(d.live.Messages) + 1,
			Dir: FromServer, Reliable: ev.Reliable, Payload: append([]byte(nil), p...)})
	}
	if op == 0x20 {
		d.answerChecksum(p)
	}
}

// answerChecksum answers a checksum request; it runs under the Node's
// lock, inside Receive.
func (d *driver) answerChecksum(p []byte) {
	req, err := checksum.ParseRequest(p)
	if err != nil {
		d.live.Findings = append(d.live.Findings, Finding{Phase: PhaseChecksum, At: d.since(),
			Text: fmt.Sprintf("a checksum request the client cannot read: %v", err)})
		return
	}
	var ans []byte
	if d.opt.Manifest != nil && d.opt.PreferManifest {
		ans = manifestAnswer(d.opt.Manifest, req)
	}
	if ans == nil {
		ans = d.conv.ChecksumAnswer(req.Round, string(req.Dir))
	}
	if ans == nil && d.opt.Manifest != nil {
		ans = manifestAnswer(d.opt.Manifest, req)
	}
	if ans == nil {
		// Faithful when the recorded client left this round unanswered
		// too; a finding when the recording never saw it asked.
		if !d.conv.asked(req.Round) {
			d.live.Findings = append(d.live.Findings, Finding{Phase: PhaseChecksum, At: d.since(),
				Text: fmt.Sprintf("checksum request round %s (%q) has no answer in the recording%s: left unanswered",
					checksum.RoundName(req.Round), quote.Escape(string(req.Dir)), map[bool]string{true: " or the manifest", false: ""}[d.opt.Manifest != nil])})
		}
		return
	}
	// Answered at once: OnEvent may call the Endpoint, and the Node polls
	// right after the datagram that asked.
	d.live.Messages = append(d.live.Messages, Message{At: d.since(), Dir: FromClient, Reliable: true, Payload: ans})
	_ = d.ep.Send(d.host, ans, true)
}

// waitFor waits until cond (checked under d.mu) holds, ctx ends or max
// passes.
func (d *driver) waitFor(ctx context.Context, max time.Duration, cond func() bool) bool {
	t := time.NewTimer(max)
	defer t.Stop()
	for {
		d.mu.Lock()
		ok := cond()
		d.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return false
		case <-d.wake:
		}
	}
}

// play sends the recorded client messages in order.
func (d *driver) play(ctx context.Context) {
	msgs := d.conv.Messages
	seen := map[int]int{} // recorded reliable server messages so far, per opcode
	gateOp, gateN := -1, 0
	var last time.Duration
	for _, m := range msgs {
		if ctx.Err() != nil {
			return
		}
		if m.Dir == FromServer {
			if m.Reliable {
				seen[m.Opcode()]++
				gateOp, gateN = m.Opcode(), seen[m.Opcode()]
			}
			last = m.At
			continue
		}
		last = m.At
		if m.Answer {
			continue // answered live, when the server asks
		}
		what := opName(m.Opcode())
		if m.Leave {
			what = "Disconnect"
		}
		if gateOp >= 0 {
			op, n := gateOp, gateN
			if !d.waitFor(ctx, d.opt.Gate, func() bool { return d.counts[op]+d.deficit[op] >= n }) && ctx.Err() == nil {
				d.mu.Lock()
				d.deficit[op] = n - d.counts[op]
				d.live.Findings = append(d.live.Findings, Finding{Phase: phaseOf(m.Opcode()), At: d.since(),
					Text: fmt.Sprintf("waited %s for the server's %s (#%d) that preceded the client's %s in the recording (frame %d); sent it anyway",
						d.opt.Gate, opName(op), n, what, m.Frame)})
				d.mu.Unlock()
			}
			gateOp = -1
		}
		if wait := d.opt.scaled(m.At) - d.since(); wait > 0 {
			d.sleep(ctx, wait)
		}
		if m.Leave {
			d.leave(ctx)
			return
		}
		d.send(m)
	}
	// Collect the answers that followed, as long as the recording did
	// (scaled), at most Settle.
	tail := d.opt.Settle
	if d.opt.Speed > 0 {
		if rest := d.opt.scaled(d.recordedEnd() - last); rest < tail {
			tail = max(rest, 500*time.Millisecond)
		}
	}
	end := time.Now().Add(tail)
	if wait := time.Until(end); wait > 0 {
		d.sleep(ctx, wait)
	}
}

// leave sends a stock Disconnect and waits up to a second for its ACK.
// The peer's state belongs to the Node's lock, so it is read through Do
// (never under d.mu: events take d.mu under the Node's lock).
func (d *driver) leave(ctx context.Context) {
	d.node.Do(func(e *endpoint.Endpoint) {
		if e.Disconnect(d.host) == nil {
			d.live.Left = true
		}
	})
	for end := time.Now().Add(time.Second); time.Now().Before(end) && ctx.Err() == nil; {
		gone := false
		d.node.Do(func(*endpoint.Endpoint) { gone = d.host.Gone() })
		if gone {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (d *driver) recordedEnd() time.Duration {
	if n := len(d.conv.Messages); n > 0 {
		return d.conv.Messages[n-1].At
	}
	return 0
}

// sleep waits t, or until ctx ends.
func (d *driver) sleep(ctx context.Context, t time.Duration) {
	tm := time.NewTimer(t)
	defer tm.Stop()
	_ = await(ctx, tm.C)
}

// identity is how this client's identity moved so far; under d.mu.
func (d *driver) identity() Identity {
	id := Identity{FromSlot: d.conv.Slot, ToSlot: d.live.Slot, Peers: map[uint8]uint8{}}
	if d.opt.peers != nil {
		id.Peers = d.opt.peers.snapshot()
	}
	if d.conv.PeerID != 0 && d.live.PeerID != 0 {
		id.Peers[d.conv.PeerID] = d.live.PeerID
	}
	return id
}

// send remaps and queues one recorded client message.
func (d *driver) send(m Message) {
	d.mu.Lock()
	p := remap(m.Payload, d.identity())
	d.live.Messages = append(d.live.Messages, Message{At: d.since(), Frame: m.Frame, Dir: FromClient, Reliable: m.Reliable, Payload: p})
	d.mu.Unlock()
	d.node.Do(func(e *endpoint.Endpoint) { _ = e.Send(d.host, p, m.Reliable) })
}

// Identity is how one client's identity moved between the recording and
// the live run: its slot (object-id range) and the peer ids of every
// player the run has met (recorded id -> live id).
type Identity struct {
	FromSlot, ToSlot int
	Peers            map[uint8]uint8
}

// reverse maps live back to recorded.
func (id Identity) reverse() Identity {
	r := Identity{FromSlot: id.ToSlot, ToSlot: id.FromSlot, Peers: make(map[uint8]uint8, len(id.Peers))}
	for a, b := range id.Peers {
		r.Peers[b] = a
	}
	return r
}

// peerFields are the fields that hold a peer id (an i32).
var peerFields = map[string]bool{"player": true, "sender": true, "killer": true, "victim": true}

// remap returns p with object ids of slot FromSlot moved into ToSlot's
// range and peer ids mapped (a copy when anything changes).
func remap(p []byte, id Identity) []byte {
	moveSlot := id.FromSlot >= 0 && id.ToSlot >= 0 && id.FromSlot != id.ToSlot
	movePeers := false
	for a, b := range id.Peers {
		if a != b {
			movePeers = true
		}
	}
	if !moveSlot && !movePeers {
		return p
	}
	var f game.Fields
	if _, err := game.Decode(p, &f); err != nil && len(f.List) == 0 {
		return p
	}
	out := p
	put := func(off int, v uint32) {
		if &out[0] == &p[0] {
			out = append([]byte(nil), p...)
		}
		binary.LittleEndian.PutUint32(out[off:], v)
	}
	for _, fl := range f.List {
		if fl.Len != 4 || fl.Off+4 > len(p) {
			continue
		}
		switch {
		case moveSlot && fl.Kind == game.KindHex:
			v := uint32(fl.U)
			if s, ok := game.ObjectSlot(v); ok && s == id.FromSlot {
				put(fl.Off, v+uint32((id.ToSlot-id.FromSlot)*0x40000))
			}
		case movePeers && fl.Kind == game.KindInt && peerFields[fl.Name] && fl.I > 0 && fl.I < 256:
			if to, ok := id.Peers[uint8(fl.I)]; ok && to != uint8(fl.I) {
				put(fl.Off, uint32(to))
			}
		}
	}
	return out
}

func opName(op int) string {
	if op < 0 || op > 255 {
		return "?"
	}
	if o := game.Lookup(uint8(op)); o != nil && o.Name != "" {
		return o.Name
	}
	return fmt.Sprintf("0x%02X", op)
}

// manifestAnswer builds the ChecksumResp a client with m's files sends
// for req, or nil when m has no such round.
func manifestAnswer(m *checksum.Manifest, req checksum.Request) []byte {
	r := m.Round(req.Round)
	if r == nil {
		return nil
	}
	resp := checksum.Response{
		Round:   req.Round,
		HasRef:  req.Round == 0,
		RefHash: uint32(m.VersionStringHash),
		DirHash: checksum.StringHash(checksum.TrimDir(string(req.Dir))),
		Root:    &checksum.Dir{Files: manifestFiles(r.Files), Subdirs: manifestDirs(r.Subdirs)},
	}
	return checksum.AppendResponse(nil, &resp)
}

func manifestFiles(fs []checksum.ManifestFile) []checksum.File {
	out := make([]checksum.File, len(fs))
	for i, f := range fs {
		out[i] = checksum.File{NameHash: uint32(f.NameHash), ContentHash: uint32(f.ContentHash)}
	}
	return out
}

func manifestDirs(ds []checksum.ManifestDir) []*checksum.Dir {
	out := make([]*checksum.Dir, len(ds))
	for i, d := range ds {
		out[i] = &checksum.Dir{NameHash: uint32(d.NameHash), Files: manifestFiles(d.Files), Subdirs: manifestDirs(d.Subdirs)}
	}
	return out
}
