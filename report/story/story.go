// Package story tells what happened on each game server of a capture, per
// game rather than per datagram: the server and its settings, every player
// (joined, checksum verdict, entered the game, ship and team, left, score,
// RTT and retransmissions) and a timeline of what a server operator asks
// about (joins, checksum outcomes, chat, kills, ships, end of game,
// disconnects, errors). It is what `bcdump session` prints.
//
// An Analyzer is fed like report.Stats: every datagram in capture order
// (Datagram), then the events the Dissector found (Finish), then written.
// It keeps no per-datagram data: memory grows with servers, players, live
// ship objects and timeline lines, all of them capped.
//
// It imports report/render, and dissect, checksum and transport below it.
package story

import (
	"net/netip"
	"slices"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Limits keep a hostile or endless capture from growing memory without
// bound; what is past them is counted, not kept.
const (
	MaxServers  = 64
	MaxPlayers  = 4096  // per server
	MaxObjects  = 4096  // live ship objects per server
	MaxTimeline = 10000 // timeline lines per server
	// MaxAnomalyLines is the part of MaxTimeline error anomalies may fill,
	// so a flood of them cannot push the story itself out.
	MaxAnomalyLines = MaxTimeline / 2
	// MaxRTTSamples per player and direction (4 bytes each); percentiles
	// are over the first ones, as `bcdump stats` keeps per flow and
	// direction (transport.RTT: the same samples, the same figures).
	MaxRTTSamples = transport.DefaultMaxRTTSamples
)

// dedupWindow is how long a copy of a broadcast or relayed payload (the
// host sends a chat, a score change, an end of game to every client) is
// taken for the same message.
const dedupWindow = 2 * time.Second

// Analyzer builds the stories. The zero value is not ready: use New.
type Analyzer struct {
	width   int // WriteTable fits it (0: no limit)
	servers []*server
	byAddr  map[netip.AddrPort]*server
	last    *server // the previous datagram's server: most follow each other
	dropped int     // datagrams of servers past MaxServers

	first, end time.Time
	seen       bool

	opt     Options
	players *filter.Filter // session.* -Y: the players told
}

// Options change how the story is told.
type Options struct {
	Verbose bool              // every timeline line: no folding of repeated findings
	Time    render.TimeFormat // how the text shows times (the JSON has RFC 3339 and t)
	Color   bool              // colour the text's verdicts and findings
}

// SetOptions sets how the story is told.
func (a *Analyzer) SetOptions(o Options) { a.opt = o }

// SetTimeFormat sets the text's time format (-t; render.TimeFormatter).
func (a *Analyzer) SetTimeFormat(f render.TimeFormat) { a.opt.Time = f }

// New returns an empty Analyzer.
func New() *Analyzer {
	return &Analyzer{byAddr: make(map[netip.AddrPort]*server)}
}

// Datagram adds one decoded datagram. It allocates only for what enters
// the story (a new player, a timeline line, a new ship).
func (a *Analyzer) Datagram(d *dissect.Datagram) error {
	if !a.seen || d.Time.Before(a.first) {
		a.first = d.Time
	}
	if !a.seen || d.Time.After(a.end) {
		a.end = d.Time
	}
	a.seen = true
	srv, cli := d.Dst, d.Src
	if d.Dir == dissect.S2C {
		srv, cli = d.Src, d.Dst
	}
	s := a.server(srv, d.Time)
	if s == nil {
		return nil
	}
	if d.Dir == dissect.S2C && d.Kind == dissect.KindGame {
		if id, ok := assignedPeer(d); ok && s.restarted(id, d.Time) {
			if s = a.newRun(s, cli, d.Time); s == nil {
				return nil
			}
		}
	}
	if d.Time.After(s.last) {
		s.last = d.Time
	}
	if d.Kind == dissect.KindGameSpy {
		if d.Dir == dissect.S2C {
			s.gameSpy(d)
		}
		return nil
	}
	s.game(d, cli)
	return nil
}

// Finish adds the events the Dissector found after the fact (peer
// timeouts, error summaries).
func (a *Analyzer) Finish(end []dissect.Event) error { return a.Events(end) }

// Events takes events as they are found (live capture): the same as Finish,
// which only adds.
func (a *Analyzer) Events(end []dissect.Event) error {
	for i := range end {
		e := &end[i]
		s := a.byAddr[e.Server]
		if s == nil {
			continue
		}
		var p *player
		if e.Client.IsValid() {
			p = s.byAddr[e.Client]
			// A player of an earlier run of the server (it restarted).
			for i := len(a.servers) - 1; p == nil && i >= 0; i-- {
				if r := a.servers[i]; r.addr == s.addr && r.byAddr[e.Client] != nil {
					s, p = r, r.byAddr[e.Client]
				}
			}
		}
		if e.Code == anomaly.UnackedFragmentRetransmit && p != nil {
			s.fragmentBug(p, e)
		}
		if (e.Code == anomaly.RetransmitUnacked || e.Code == anomaly.AckMismatch) && p != nil && p.enteredT.IsZero() && !p.already {
			s.deliveryFinding(p, e)
		}
		if e.Code == anomaly.PeerTimeout && p != nil && !p.left() {
			msg := e.Message()
			p.leave(e.Time, e.Frame, leftTimeout, msg)
			s.add(entry{t: e.Time, frame: e.Frame, kind: evLeave, p: p, detail: "timed out: " + msg})
		}
		if e.Severity() == anomaly.Error {
			s.anomalyLine(e.Time, e.Frame, p, e.Anomaly)
		}
	}
	return nil
}

func (a *Analyzer) server(addr netip.AddrPort, t time.Time) *server {
	if a.last != nil && a.last.addr == addr {
		return a.last
	}
	s := a.byAddr[addr]
	if s == nil {
		if len(a.servers) >= MaxServers {
			a.dropped++
			return nil
		}
		s = newServer(addr, t)
		a.byAddr[addr] = s
		a.servers = append(a.servers, s)
	}
	a.last = s
	return s
}

// restartSilence is how long every player of a run must have been silent
// (or gone) for a Connect reply that reuses one of their peer ids to start
// a new run of the server.
const restartSilence = 5 * time.Second

// assignedPeer is the peer id a host's Connect reply in d assigns.
func assignedPeer(d *dissect.Datagram) (uint8, bool) {
	for i := range d.Transport.Messages {
		if i >= len(d.Msgs) {
			break
		}
		tm := &d.Transport.Messages[i]
		if tm.Type != transport.TypeConnect || d.Msgs[i].Track.Retransmit {
			continue
		}
		if id, ok := uintField(&d.Msgs[i].Fields, game.FieldAssignedPeerId); ok && id >= 2 && id <= 255 {
			return uint8(id), true
		}
	}
	return 0, false
}

// restarted reports whether a Connect reply assigning peer id at t starts
// a new run of the server: a player of this run had that id, and every
// player of the run has left or been silent for restartSilence (the
// server restarted on the same port: its old players are gone, new ones
// connect with fresh peer ids and sequence counters).
func (s *server) restarted(id uint8, t time.Time) bool {
	q := s.byPeer[id]
	if q == nil {
		return false
	}
	for _, p := range s.players {
		if p.left() || p.joinT.Equal(t) || !p.hasPeer && !p.joinT.IsZero() && t.Sub(p.joinT) < restartSilence {
			continue // gone, or the joiner this reply answers
		}
		if t.Sub(p.lastSeen) < restartSilence {
			return false
		}
	}
	return true
}

// newRun starts a new run of server s at t: a new story for the same
// address, which later datagrams go to. The player of client endpoint cli
// that connected and has no peer id yet (the one this reply answers)
// moves to it.
func (a *Analyzer) newRun(s *server, cli netip.AddrPort, t time.Time) *server {
	if len(a.servers) >= MaxServers {
		return s
	}
	n := newServer(s.addr, t)
	n.run = s.run + 1
	if p := s.byAddr[cli]; p != nil && !p.hasPeer && !p.left() {
		i := slices.Index(s.players, p)
		s.players = slices.Delete(s.players, i, i+1)
		delete(s.byAddr, cli)
		if s.lastP == p {
			s.lastP = nil
		}
		n.players = append(n.players, p)
		n.byAddr[cli] = p
		p.srv = n
		n.first = p.first
		for i := 0; i < len(s.timeline); i++ {
			if e := s.timeline[i]; e.p == p {
				n.timeline = append(n.timeline, e)
				s.timeline = slices.Delete(s.timeline, i, i+1)
				i--
			}
		}
	}
	// The old run ends with the last datagram of its remaining players.
	last := s.first
	for _, q := range s.players {
		if q.lastSeen.After(last) {
			last = q.lastSeen
		}
	}
	s.last = last
	a.byAddr[s.addr] = n
	a.servers = append(a.servers, n)
	a.last = n
	return n
}

// server is the story of one game server endpoint.
type server struct {
	addr        netip.AddrPort
	first, last time.Time
	run         int // 0 for the first run of the address; +1 per restart

	status   *gameSpyStatus
	settings settings

	players  []*player
	byAddr   map[netip.AddrPort]*player // the current player of a client endpoint
	byPeer   [256]*player               // the current player of a peer id
	bySlot   [64]*player                // the current player of a game slot
	unkept   int                        // datagrams of client endpoints past MaxPlayers
	lastP    *player                    // the previous datagram's player
	objects  map[uint32]*object         // live ship objects by id
	removed  *player                    // the player a "player removed" just named, for DeletePlayerAnim
	mission  bool                       // a mission is running (MissionInit seen since the last end or restart)
	recent   [32]recentPayload          // ring of story payloads, to fold broadcast copies
	recentAt int

	timeline      []entry
	anomalyLines  int
	omitted       int // lines past the caps
	omittedErrors int // of which error anomalies
}

func newServer(addr netip.AddrPort, t time.Time) *server {
	return &server{addr: addr, first: t, last: t,
		byAddr: make(map[netip.AddrPort]*player), objects: make(map[uint32]*object)}
}

// gameSpyStatus is the last GameSpy status reply of the server.
type gameSpyStatus struct {
	t     time.Time
	frame int
	kv    [][2]string
}

func (g *gameSpyStatus) get(key string) string {
	for _, kv := range g.kv {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// settings are the game's as the host announced them (Settings, MissionInit).
type settings struct {
	hasSettings   bool
	gameMap       string
	collision, ff bool
	hasMission    bool
	playerLimit   int
	system        int
	timeLimit     int // -1 none
	fragLimit     int // -1 none
	missionT      time.Time
}

// object is a ship the capture saw created.
type object struct {
	id      uint32
	owner   *player
	species string
}

type recentPayload struct {
	hash   uint64
	t      time.Time
	client netip.AddrPort
	dir    dissect.Dir
}

func (s *server) gameSpy(d *dissect.Datagram) {
	// Only a status reply (it names the game) is worth keeping; echoes,
	// heartbeats and validation replies are not.
	has := false
	for _, kv := range d.GameSpy {
		if string(kv.Key) == "gamename" || string(kv.Key) == "hostname" {
			has = true
			break
		}
	}
	if !has {
		return
	}
	st := &gameSpyStatus{t: d.Time, frame: d.Frame, kv: make([][2]string, 0, len(d.GameSpy))}
	for _, kv := range d.GameSpy {
		st.kv = append(st.kv, [2]string{string(kv.Key), string(kv.Value)})
	}
	s.status = st
}

// player finds or creates the player of client endpoint cli for d.
func (s *server) player(d *dissect.Datagram, cli netip.AddrPort) *player {
	p := s.lastP
	if p == nil || p.addr != cli {
		p = s.byAddr[cli]
	}
	// Peer id 0xFF is a client without an id: a connect request (and its
	// retries), even when it does not parse (OpenBC's does not).
	connectReq := d.Dir == dissect.C2S && d.Transport.PeerID == 0xFF
	if p != nil && p.left() && connectReq {
		p = nil // the endpoint joins again: a new player
	}
	if p == nil {
		if len(s.players) >= MaxPlayers {
			s.unkept++
			return nil
		}
		p = &player{addr: cli, first: d.Time, slot: -1, team: -1, bootReason: -1, srv: s}
		// A player whose first datagram is not its connect request or
		// the host's reply to it was there before the capture started.
		p.already = !connectReq && !(d.Dir == dissect.S2C && hasType(d, transport.TypeConnect))
		s.players = append(s.players, p)
		s.byAddr[cli] = p
	}
	s.lastP = p
	if connectReq && p.joinT.IsZero() {
		p.joinT, p.joinFrame = d.Time, d.Frame
		s.add(entry{t: d.Time, frame: d.Frame, kind: evJoin, p: p})
	}
	if d.Dir == dissect.C2S && !p.hasPeer && d.Transport.PeerID != 0xFF && d.Transport.PeerID > 1 {
		s.setPeer(p, d.Transport.PeerID)
	}
	return p
}

func hasType(d *dissect.Datagram, t transport.Type) bool {
	for i := range d.Transport.Messages {
		if d.Transport.Messages[i].Type == t {
			return true
		}
	}
	return false
}

func (s *server) setPeer(p *player, id uint8) {
	p.peer, p.hasPeer = id, true
	s.byPeer[id] = p
}

// peer returns the player of a network player id from a script message.
func (s *server) peer(id int64) *player {
	if id <= 1 || id > 255 {
		return nil
	}
	return s.byPeer[id]
}

func (s *server) slotPlayer(slot int) *player {
	if slot < 0 || slot >= len(s.bySlot) {
		return nil
	}
	return s.bySlot[slot]
}

func (s *server) setSlot(p *player, slot int) {
	if p == nil || slot < 0 || slot >= len(s.bySlot) {
		return
	}
	p.slot = slot
	s.bySlot[slot] = p
}

// game follows one game datagram between the server and client cli.
func (s *server) game(d *dissect.Datagram, cli netip.AddrPort) {
	p := s.player(d, cli)
	if p == nil {
		return
	}
	if d.Time.After(p.lastSeen) {
		p.lastSeen = d.Time
	}
	di := dirIndex(d.Dir)
	s.removed = nil
	for i := range d.Transport.Messages {
		if i >= len(d.Msgs) {
			break
		}
		tm, m := &d.Transport.Messages[i], &d.Msgs[i]
		switch tm.Type {
		case transport.TypeACK:
			if m.Track.HasRTT {
				// The ACK clears a message of the other direction.
				p.rtt[1-di].Add(m.Track.RTT, MaxRTTSamples)
			}
			if d.Dir == dissect.C2S {
				p.host.acked(tm, d.Frame)
			} else {
				p.hostAcked = true
				p.client.acked(tm, d.Frame)
			}
			continue
		case transport.TypeData:
			if p.stateFrame == 0 && di == 0 && !tm.Fragment && len(tm.Payload) > 0 && tm.Payload[0] == opStateUpdate {
				p.stateFrame = d.Frame
			}
			if !m.Track.Retransmit && !tm.Fragment && len(tm.Payload) > 0 && storyOpcode[tm.Payload[0]] {
				p.joinStep(d, tm, &m.Payload)
				s.payload(d, p, &m.Payload, false)
			}
			if tm.Fragment && tm.FragIdx == 0 && !m.Track.Retransmit && d.Dir == dissect.C2S {
				p.frag0 = d.Frame
			}
			if r := m.Reassembled; r != nil && len(r.Bytes) > 0 && storyOpcode[r.Bytes[0]] {
				p.joinStep(d, tm, &r.Payload)
				s.payload(d, p, &r.Payload, true)
			}
		case transport.TypeConnect, transport.TypePeerInfo, transport.TypeDisconnect:
			if !m.Track.Retransmit && !m.Track.Keepalive {
				if tm.Type == transport.TypeConnect && p.enteredT.IsZero() {
					if d.Dir == dissect.C2S {
						p.client.set("client", opConnect, -1, d.Frame, d.Time, tm)
					} else {
						p.host.set("host", opConnect, -1, d.Frame, d.Time, tm)
					}
				}
				s.control(d, p, tm, m)
			}
		}
		if tm.Reliable && !m.Track.Keepalive {
			if m.Track.Retransmit {
				p.retrans[di]++
			} else {
				p.reliable[di]++
			}
		}
	}
	for i := range d.Anomalies {
		a := &d.Anomalies[i]
		if a.Code == anomaly.NonStockDisconnect && d.Dir == dissect.C2S && !p.left() {
			// A reimplementation's `06 <peer id>`: the client leaves.
			p.leave(d.Time, d.Frame, leftDisconnect, "type 0x06 disconnect")
			s.add(entry{t: d.Time, frame: d.Frame, kind: evLeave, p: p, detail: "disconnected (type 0x06, non-stock)"})
		}
		switch {
		case a.Severity() == anomaly.Error:
			s.anomalyLine(d.Time, d.Frame, p, *a)
		case a.Code == anomaly.ChecksumFileMismatch || a.Code == anomaly.ChecksumFileUnknown:
		default:
			continue
		}
		if a.Code.Group() == anomaly.Checksum {
			p.hs.note(a, d.Frame)
		}
	}
}

// joinStep records a step of the join from a first-sent (or reassembled)
// payload of message tm, until the player entered.
func (p *player) joinStep(d *dissect.Datagram, tm *transport.Message, pl *dissect.Payload) {
	if !p.enteredT.IsZero() {
		return
	}
	op := pl.Bytes[0]
	round := -1
	if r, ok := intField(&pl.Fields, game.FieldRound); ok {
		round = int(r)
	}
	if d.Dir == dissect.S2C {
		switch op {
		case opChecksumReq, opChecksumComplete, opSettings, opGameInit:
			p.host.set("host", op, round, d.Frame, d.Time, tm)
		}
		return
	}
	switch op {
	case opChecksumResp, opNewPlayerInGame:
		p.client.set("client", op, round, d.Frame, d.Time, tm)
	}
}

func dirIndex(d dissect.Dir) int {
	if d == dissect.S2C {
		return 1
	}
	return 0
}

// control follows the connection-management messages.
func (s *server) control(d *dissect.Datagram, p *player, tm *transport.Message, m *dissect.Message) {
	fs := &m.Fields
	switch tm.Type {
	case transport.TypeConnect:
		if d.Dir == dissect.C2S {
			return // the request: see player
		}
		id, ok := uintField(fs, game.FieldAssignedPeerId)
		if !ok || id < 2 || id > 255 {
			return
		}
		if p.joinT.IsZero() {
			p.joinT, p.joinFrame = d.Time, d.Frame
			s.add(entry{t: d.Time, frame: d.Frame, kind: evJoin, p: p})
		}
		s.setPeer(p, uint8(id))
	case transport.TypePeerInfo:
		// A PeerInfo on a flow is the client's own record: sent by the
		// client, or echoed and kept alive by the host. The client's
		// spelling wins.
		if f, ok := fs.Get(game.FieldName); ok && len(f.B) > 0 && (d.Dir == dissect.C2S || !p.nameFromClient) {
			if string(f.B) != p.name {
				p.name = string(f.B)
			}
			p.nameFromClient = p.nameFromClient || d.Dir == dissect.C2S
		}
	case transport.TypeDisconnect:
		if p.left() {
			return
		}
		if d.Dir == dissect.C2S {
			p.leave(d.Time, d.Frame, leftDisconnect, "")
			s.add(entry{t: d.Time, frame: d.Frame, kind: evLeave, p: p, detail: "disconnected"})
		} else {
			p.leave(d.Time, d.Frame, leftKicked, "the host disconnected it")
			p.hs.hostEnded(d.Time, d.Frame, "Disconnect", s, p)
			s.add(entry{t: d.Time, frame: d.Frame, kind: evLeave, p: p, detail: "disconnected by the host"})
		}
	}
}

// storyOpcode marks the game opcodes the story reads; every other payload
// (StateUpdate above all) is passed over without a look at its fields.
var storyOpcode = func() (t [256]bool) {
	for _, op := range []byte{
		opSettings, opGameInit, opObjCreate, opObjCreateTeam, opBootPlayer,
		opPythonEvent, opDeletePlayerUI, // events: object exploding, player list
		opDestroyObj, opDeletePlayerAnim,
		opChecksumReq, opChecksumResp, opChecksumFailA, opChecksumFailB, opChecksumComplete,
		opNewPlayerInGame, opChat, opTeamChat, opMissionInit, opScoreChange, opScore,
		opEndGame, opRestartGame, opScoreInit, opTeamMessage,
	} {
		t[op] = true
	}
	return t
}()

// The opcodes, event factories and event codes the story reads: package
// game's generated constants (protocol_gen.go).
const (
	opSettings         = game.CodeSettings
	opGameInit         = game.CodeGameInit
	opObjCreate        = game.CodeObjCreate
	opObjCreateTeam    = game.CodeObjCreateTeam
	opBootPlayer       = game.CodeBootPlayer
	opPythonEvent      = game.CodePythonEvent
	opDeletePlayerUI   = game.CodeDeletePlayerUI
	opDestroyObj       = game.CodeDestroyObj
	opDeletePlayerAnim = game.CodeDeletePlayerAnim
	opStateUpdate      = game.CodeStateUpdate
	opChecksumReq      = game.CodeChecksumReq
	opChecksumResp     = game.CodeChecksumResp
	opChecksumFailA    = game.CodeChecksumFailA
	opChecksumFailB    = game.CodeChecksumFailB
	opChecksumComplete = game.CodeChecksumComplete
	opNewPlayerInGame  = game.CodeNewPlayerInGame
	opChat             = game.CodeChat
	opTeamChat         = game.CodeTeamChat
	opMissionInit      = game.CodeMissionInit
	opScoreChange      = game.CodeScoreChange
	opScore            = game.CodeScore
	opEndGame          = game.CodeEndGame
	opRestartGame      = game.CodeRestartGame
	opScoreInit        = game.CodeScoreInit
	opTeamMessage      = game.CodeTeamMessage

	factoryExploding  = game.FactoryObjectExploding
	factoryPlayerList = game.FactoryPlayerList
	eventNewPlayer    = game.EventNewPlayer
	eventPlayerRemove = game.EventPlayerRemoved
)

// Field access: the decoders' keys are a contract (bcdump help json).

func intField(fs *game.Fields, name string) (int64, bool) {
	f, ok := fs.Get(name)
	if !ok {
		return 0, false
	}
	switch f.Kind {
	case game.KindInt:
		return f.I, true
	case game.KindUint, game.KindHex, game.KindBool, game.KindHash:
		return int64(f.U), true
	}
	return 0, false
}

func uintField(fs *game.Fields, name string) (uint64, bool) {
	v, ok := intField(fs, name)
	return uint64(v), ok && v >= 0
}

func strField(fs *game.Fields, name string) string {
	if f, ok := fs.Get(name); ok && f.Kind == game.KindString {
		return string(f.B)
	}
	return ""
}

func noteField(fs *game.Fields, name string) string {
	if f, ok := fs.Get(name); ok {
		return f.Note
	}
	return ""
}

// slotOfObject is the game slot whose id range holds a player object id
// (protocol-facts 8.5), or -1.
func slotOfObject(id uint32) int {
	if id < 0x3FFFFFFF || id == 0xFFFFFFFF {
		return -1
	}
	return int((id - 0x3FFFFFFF) >> 18)
}
