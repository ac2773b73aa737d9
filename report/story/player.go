package story

import (
	"net/netip"
	"strings"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// player is one client's visit to a server: from its connect request (or
// its first datagram, for one already connected when the capture started)
// to its leaving. An endpoint that connects again is a new player.
type player struct {
	addr     netip.AddrPort
	first    time.Time // first datagram
	lastSeen time.Time
	already  bool // connected before the capture started

	peer    uint8
	hasPeer bool

	name           string
	nameFromClient bool

	joinT      time.Time // connect request, else the host's reply
	joinFrame  int
	hs         handshake
	enteredT   time.Time // NewPlayerInGame
	enterFrame int
	stateFrame int // the client's first StateUpdate

	slot, team int // -1 unknown
	ship       string

	leftT      time.Time
	leftHow    leaveKind
	leftDetail string
	leftFrame  int

	bootReason int // BootPlayer's reason byte, -1 none
	bootFrame  int

	// Fragmented checksum answers the client sent: the frame of the first
	// send of fragment 0 and the round, to name the round an
	// unacked-fragment-retransmit event is about.
	fragAnswers []fragAnswer
	frag0       int      // the client's last first-sent fragment 0
	fragBug     *fragBug // the first unacked-fragment-retransmit of the player's messages

	// The last step of the join each side took (first sends only).
	host, client joinStep
	hostAcked    bool      // the host ACKed a message of the client's
	findings     []Finding // delivery findings (deliveryFinding)
	srv          *server

	kills, deaths, score int64
	hasScore             bool

	rtt      [2]transport.RTTSamples // by direction of the acknowledged message: 0 c2s, 1 s2c
	reliable [2]uint64               // reliable first sends (each fragment) by direction
	retrans  [2]uint64               // retransmitted copies by direction
}

type leaveKind uint8

const (
	stillThere leaveKind = iota
	leftDisconnect
	leftKicked
	leftBooted
	leftRemoved
	leftTimeout
)

func (k leaveKind) String() string {
	return [...]string{"still-connected", "disconnect", "host-disconnect", "booted", "removed", "timeout"}[k]
}

// words is the kind for people, the same in the text and the HTML report.
func (k leaveKind) words() string {
	return [...]string{"still connected", "disconnected", "disconnected by the host", "booted", "removed by the host", "timed out"}[k]
}

func (p *player) left() bool { return p.leftHow != stillThere }

func (p *player) leave(t time.Time, frame int, how leaveKind, detail string) {
	if p.left() {
		return
	}
	p.leftT, p.leftHow, p.leftDetail, p.leftFrame = t, how, detail, frame
	if p.hs.verdict == pending && p.hs.seen && how != leftKicked && how != leftBooted && how != leftRemoved {
		p.hs.verdict, p.hs.t = leftDuring, t
	}
}

// label names the player for people: name and peer id when known.
func (p *player) label() string {
	if p == nil {
		return "?"
	}
	var b strings.Builder
	if p.name != "" {
		b.WriteString(p.name)
		if p.hasPeer {
			b.WriteString(" (peer ")
			b.WriteString(itoa(int64(p.peer)))
			b.WriteByte(')')
		}
		return b.String()
	}
	if p.hasPeer {
		return "peer " + itoa(int64(p.peer))
	}
	return p.addr.String()
}

// verdict is the outcome of a player's checksum handshake.
type verdict uint8

const (
	pending    verdict = iota // not decided (yet)
	passed                    // the host sent ChecksumComplete (or Settings)
	failed                    // the host ended it and a finding says why
	kicked                    // the host ended it; the capture does not say why
	leftDuring                // the client left or timed out before a verdict
)

// handshake follows a player's checksum rounds.
type handshake struct {
	seen     bool // a checksum message was seen
	asked    int  // last round requested, -1 none
	answered int  // last round answered, -1 none
	rounds   int  // answers seen
	verdict  verdict
	t        time.Time
	how      string // what ended it: "BootPlayer (checksum failed)", "Disconnect"
	frame    int    // the frame of the verdict

	askFrame, answerFrame int       // the last request and answer
	dirs                  [5]string // directory asked per round (0-3, 0xFF)
	findingFrame          int

	finding  string // the first file finding (mismatch preferred), or other checksum error
	fileLike bool   // finding is a file mismatch or unknown file
	findings int
}

func (h *handshake) init() {
	if !h.seen {
		h.seen, h.asked, h.answered = true, -1, -1
	}
}

func (h *handshake) ask(round, frame int, dir string) {
	h.init()
	h.asked, h.askFrame = round, frame
	if i := roundIndex(round); i >= 0 {
		h.dirs[i] = dir
	}
}

func (h *handshake) answer(round, frame int) {
	h.init()
	h.answered, h.answerFrame = round, frame
	h.rounds++
}

// roundIndex is the index of a round in handshake.dirs, -1 for none.
func roundIndex(r int) int {
	switch {
	case r >= 0 && r <= 3:
		return r
	case r == 0xFF:
		return 4
	}
	return -1
}

// dir is the directory the host asked about in round r.
func (h *handshake) dir(r int) string {
	if i := roundIndex(r); i >= 0 {
		return h.dirs[i]
	}
	return ""
}

// note records a checksum anomaly of the player's answers; a file the
// manifest names wins over other findings.
func (h *handshake) note(a *anomaly.Anomaly, frame int) {
	h.findings++
	file := a.Code == anomaly.ChecksumFileMismatch || a.Code == anomaly.ChecksumFileUnknown
	if h.finding != "" && (h.fileLike || !file) {
		return
	}
	h.finding, h.fileLike, h.findingFrame = a.Message(), file, frame
}

// pass records the host's ChecksumComplete (or game start).
func (h *handshake) pass(t time.Time, frame int) bool {
	if h.verdict != pending {
		return false
	}
	h.init()
	h.verdict, h.t, h.frame = passed, t, frame
	return true
}

// hostEnded records the host ending a handshake that had not passed, and
// adds its timeline line.
func (h *handshake) hostEnded(t time.Time, frame int, how string, s *server, p *player) {
	if !h.seen || h.verdict != pending {
		return
	}
	h.verdict, h.t, h.how, h.frame = kicked, t, how, frame
	if h.finding != "" {
		h.verdict = failed // what was wrong with the answers is the likely why
	}
	s.add(entry{t: t, frame: frame, kind: evChecksum, p: p})
}

// round is the round a verdict concerns: the last one answered (or, with
// none answered, the one asked).
func (h *handshake) round() int {
	if h.answered >= 0 {
		return h.answered
	}
	return h.asked
}

// describe is the verdict for people; atEnd is the end of the capture
// (for one still pending).
func (h *handshake) describe(already bool) (word, text string) {
	r := roundName(h.round())
	switch {
	case h.verdict == passed:
		text = "passed"
		if h.findings > 0 {
			text += " (accepted despite " + itoa(int64(h.findings)) + " finding(s); first: " + trimRound(h.finding) + ")"
		}
		return "passed", text
	case h.verdict == failed:
		return "failed", "failed at round " + r + ": " + trimRound(h.finding)
	case h.verdict == kicked:
		text = "kicked after round " + r
		if h.answered < 0 {
			text = "kicked before answering round " + r
		}
		if h.how != "" {
			text += " (" + h.how + ")"
		}
		return "kicked", text
	case h.verdict == leftDuring:
		return "left", "left during the handshake at round " + r
	case h.seen:
		return "pending", "unfinished at round " + r + " when the capture ended"
	case already:
		return "not-seen", "not seen (already connected)"
	}
	return "not-seen", "no checksum request captured"
}

func roundName(r int) string {
	if r < 0 {
		return "?"
	}
	return checksum.RoundName(uint8(r))
}

// trimRound drops the "round N: " the checksum findings start with: the
// verdict names the round already.
func trimRound(msg string) string {
	if strings.HasPrefix(msg, "round ") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			return rest
		}
	}
	return msg
}

// joinStep is one step of the join: a message of one side (connect,
// checksum round, ChecksumComplete, Settings, GameInit, NewPlayerInGame)
// and the other side's ACK of it.
type joinStep struct {
	side     string // "host" or "client"
	op       byte   // the game opcode; 0xFF for the transport Connect
	round    int    // a checksum round, -1 none
	frame    int
	t        time.Time
	reliable bool
	low      bool // a low-channel (transport) message
	seq      uint16
	ackFrame int
}

const opConnect = 0xFF // joinStep.op of a transport Connect

// set records a step; tm is the message (for its seq).
func (st *joinStep) set(side string, op byte, round, frame int, t time.Time, tm *transport.Message) {
	*st = joinStep{side: side, op: op, round: round, frame: frame, t: t,
		reliable: tm.Reliable, low: tm.Type.Low(), seq: tm.Seq}
}

// acked records an ACK from the other side.
func (st *joinStep) acked(tm *transport.Message, frame int) {
	if st.frame != 0 && st.ackFrame == 0 && st.reliable && tm.Seq == st.seq && tm.AckLow == st.low {
		st.ackFrame = frame
	}
}

// words: "host: GameInit [16], ACKed [17]".
func (st *joinStep) words() string {
	var what string
	switch st.op {
	case opConnect:
		what = "connect reply"
		if st.side == "client" {
			what = "connect request"
		}
	case opChecksumReq:
		what = "checksum request round " + roundName(st.round)
	case opChecksumResp:
		what = "checksum round " + roundName(st.round) + " answer"
	default:
		what = game.Lookup(st.op).Name
	}
	t := st.side + ": " + what + " [" + itoa(int64(st.frame)) + "]"
	switch {
	case st.ackFrame > 0:
		t += ", ACKed [" + itoa(int64(st.ackFrame)) + "]"
	case st.reliable:
		t += ", no ACK seen"
	}
	return t
}
