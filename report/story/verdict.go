package story

import (
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// A player's verdict answers "did it get into the game, and if not, why?"
// by the first of these rules that holds (the help topic `verdicts` lists
// them for readers; each names the frames it rests on):
//
//  1. entered: the client sent NewPlayerInGame.
//  2. already-in-game: the capture starts after the player joined, and
//     the client sends StateUpdates (its ship moves): it is in the game.
//     already-connected: the same without StateUpdates: it cannot tell.
//  3. server-full: the host sent BootPlayer reason 2.
//  4. checksum-mismatch: the host ended the handshake (BootPlayer,
//     ChecksumFail, Disconnect, player removed) and a checksum finding on
//     the client's answers says what differed (round, directory; the file
//     with --manifest).
//  5. booted: the host sent BootPlayer, with its reason byte.
//  6. unacked-fragment: the client kept resending a fragmented message
//     after the host had ACKed every fragment (the stock client bug;
//     unacked-fragment-retransmit), named with the checksum round it
//     answered when it was one.
//  7. checksum-unanswered: the host asked a checksum round the client
//     never answered.
//  8. client-disconnected: the client sent Disconnect.
//  9. timed-out: the client went silent (peer-timeout).
//  10. removed: the host disconnected or removed it without a reason.
//  11. capture-ended: none of the above before the capture ended.
//
// A player that entered and still shows the fragment bug gets it as a note.
const (
	VerdictEntered      = "entered"
	VerdictNeverEntered = "never entered"
	VerdictUnknown      = "unknown"
)

// Causes, the `cause` of a verdict (rules above).
const (
	CauseEntered            = "entered"
	CauseAlreadyInGame      = "already-in-game"
	CauseAlreadyConnected   = "already-connected"
	CauseServerFull         = "server-full"
	CauseChecksumMismatch   = "checksum-mismatch"
	CauseBooted             = "booted"
	CauseUnackedFragment    = "unacked-fragment"
	CauseChecksumUnanswered = "checksum-unanswered"
	CauseClientDisconnected = "client-disconnected"
	CauseTimedOut           = "timed-out"
	CauseRemoved            = "removed"
	CauseCaptureEnded       = "capture-ended"
)

// maxFragAnswers caps a player's remembered fragmented checksum answers.
const maxFragAnswers = 8

type fragAnswer struct {
	first, round int
}

// fragBug is an unacked-fragment-retransmit event on one of the player's
// flows, as its numbers say (transport's finishMsg formats them).
type fragBug struct {
	c2s                 bool
	first               int // frame of the first send
	resends             int // after the last fragment ACK
	frags               int
	firstAck, lastAck   int
	lastResend          int
	round               int // -1: not a checksum answer the story saw
	t                   time.Time
	message, labelOfMsg string
}

// fragmentBug records an unacked-fragment-retransmit event on p's flow and
// adds it to the timeline (a warn finding that bears on the verdict).
func (s *server) fragmentBug(p *player, e *dissect.Event) {
	b := &fragBug{first: e.Frame, round: -1, t: e.Time, message: e.Message()}
	tx := &e.Text
	b.labelOfMsg = tx.Str(0)
	b.c2s = strings.HasPrefix(b.labelOfMsg, "c2s")
	b.resends, b.frags = int(tx.Num(0)), int(tx.Num(1))
	b.firstAck, b.lastAck, b.lastResend = int(tx.Num(2)), int(tx.Num(3)), int(tx.Num(5))
	for _, a := range p.fragAnswers {
		if a.first == e.Frame {
			b.round = a.round
		}
	}
	if p.fragBug == nil && b.c2s {
		p.fragBug = b
	}
	s.warnLine(e.Time, e.Frame, p, e.Anomaly)
}

// Verdict is a player's verdict.
type Verdict struct {
	Verdict string // VerdictEntered, VerdictNeverEntered, VerdictUnknown
	Cause   string // Cause*
	Text    string // for people, without the frames
	Frames  []int  // the frames it rests on, in capture order
	Note    string // a finding that bears on it without deciding it
}

func (p *player) verdict() Verdict {
	v := p.decide()
	if b := p.fragBug; b != nil && v.Cause != CauseUnackedFragment {
		v.Note = b.words() + " (frames " + framesText(b.frames()) + ")"
	}
	v.Frames = sortFrames(v.Frames)
	return v
}

func (p *player) decide() Verdict {
	h := &p.hs
	switch {
	case !p.enteredT.IsZero():
		return Verdict{VerdictEntered, CauseEntered, "entered the game", []int{p.enterFrame}, ""}
	case p.already && p.stateFrame > 0:
		return Verdict{VerdictEntered, CauseAlreadyInGame,
			"in the game before the capture started: it sends StateUpdates", []int{p.stateFrame}, ""}
	case p.already:
		return Verdict{VerdictUnknown, CauseAlreadyConnected,
			"joined before the capture started, which shows no entry into the game", nil, ""}
	case p.bootReason == 2:
		return Verdict{VerdictNeverEntered, CauseServerFull, "the host refused it: server full (BootPlayer reason 2)",
			[]int{p.bootFrame}, ""}
	case h.verdict == failed:
		r := h.round()
		t := "checksum mismatch in round " + roundName(r)
		if d := h.dir(r); d != "" {
			t += " (directory " + d + ")"
		}
		t += ": " + trimRound(h.finding)
		if h.how != "" {
			t += "; the host ended the join with " + h.how
		}
		return Verdict{VerdictNeverEntered, CauseChecksumMismatch, t, nonZero(h.askFrame, h.answerFrame, h.findingFrame, h.frame), ""}
	case p.bootReason >= 0:
		return Verdict{VerdictNeverEntered, CauseBooted, "booted by the host: " + bootText(p.bootReason),
			nonZero(p.bootFrame), ""}
	case p.fragBug != nil:
		b := p.fragBug
		return Verdict{VerdictNeverEntered, CauseUnackedFragment, b.words(), b.frames(), ""}
	case h.seen && h.asked >= 0 && h.answered != h.asked && h.verdict != passed:
		t := "the host asked checksum round " + roundName(h.asked)
		if d := h.dir(h.asked); d != "" {
			t += " (directory " + d + ")"
		}
		t += " and the client never answered"
		if p.left() {
			t += "; then it " + p.leftHow.words()
		}
		return Verdict{VerdictNeverEntered, CauseChecksumUnanswered, t, nonZero(h.askFrame, p.leftFrame), ""}
	case p.leftHow == leftDisconnect:
		return Verdict{VerdictNeverEntered, CauseClientDisconnected,
			"the client disconnected before entering the game (" + p.stage() + ")", nonZero(p.hs.answerFrame, p.leftFrame), ""}
	case p.leftHow == leftTimeout:
		return Verdict{VerdictNeverEntered, CauseTimedOut,
			"the client went silent before entering the game (" + p.stage() + ")", nonZero(p.leftFrame), ""}
	case p.left():
		return Verdict{VerdictNeverEntered, CauseRemoved,
			p.leftHow.words() + " before entering the game (" + p.stage() + ")", nonZero(p.leftFrame, h.frame), ""}
	}
	return Verdict{VerdictNeverEntered, CauseCaptureEnded,
		"the capture ended before it entered the game (" + p.stage() + ")", nonZero(p.joinFrame, h.answerFrame, h.frame), ""}
}

// stage is how far the join got.
func (p *player) stage() string {
	h := &p.hs
	switch {
	case h.verdict == passed:
		return "checksum passed"
	case h.seen && h.answered >= 0:
		return "checksum round " + roundName(h.answered) + " answered"
	case h.seen:
		return "checksum round " + roundName(h.asked) + " asked"
	case !p.joinT.IsZero():
		return "connected, no checksum request seen"
	}
	return "no connect seen"
}

func (b *fragBug) words() string {
	what := "a fragmented message"
	if b.round >= 0 {
		what = "its checksum round " + roundName(b.round) + " answer"
	}
	return "unacked-fragment bug: " + what + " (" + strconv.Itoa(b.frags) + " fragments) had fragments resent " +
		strconv.Itoa(b.resends) + " times after the host had ACKed every one"
}

func (b *fragBug) frames() []int { return nonZero(b.first, b.firstAck, b.lastAck, b.lastResend) }

// bootText names a BootPlayer reason byte (protocol-facts 7: 0 generic,
// 1 version mismatch, 2 server full, 3 banned, 4 checksum failed).
func bootText(r int) string {
	names := [...]string{"generic", "version mismatch", "server full", "banned", "checksum failed"}
	if r >= 0 && r < len(names) {
		return names[r] + " (reason " + strconv.Itoa(r) + ")"
	}
	return "reason " + strconv.Itoa(r)
}

func nonZero(fs ...int) []int {
	out := fs[:0:0]
	for _, f := range fs {
		if f > 0 {
			out = append(out, f)
		}
	}
	return out
}

func sortFrames(fs []int) []int {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j] < fs[j-1]; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
	out := fs[:0]
	for i, f := range fs {
		if i == 0 || f != fs[i-1] {
			out = append(out, f)
		}
	}
	return out
}

func framesText(fs []int) string {
	var b strings.Builder
	for i, f := range sortFrames(fs) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(f))
	}
	return b.String()
}

// warnLine adds a warn finding that bears on a verdict as a line.
func (s *server) warnLine(t time.Time, frame int, p *player, a anomaly.Anomaly) {
	s.add(entry{t: t, frame: frame, kind: evWarn, p: p, code: a.Code, detail: a.Code.String() + ": " + a.Message()})
}
