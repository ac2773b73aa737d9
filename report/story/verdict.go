package story

import (
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// A player's verdict answers "did it get into the game, and if not, where
// did the join stop?" by the first of these rules that holds (the help
// topic `verdicts` lists them for readers; each names the frames it rests
// on). The verdict states facts, then notes: a cause is named only where
// the evidence proves it (a full server, a checksum mismatch the host
// ended the join for, a boot with its reason); the other rules say where
// the join stopped (the last step each side took, with its frame, and
// what never came), not why.
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
//  6. checksum-unanswered: the host asked a checksum round the client
//     never answered.
//  7. client-disconnected: the client sent Disconnect.
//  8. timed-out: the client went silent (peer-timeout).
//  9. removed: the host disconnected or removed it without a reason.
//  10. capture-ended: none of the above before the capture ended.
//
// Apart from the rule, the verdict lists the findings during the join with
// their nature (Finding): the stock client's harmless fragment bug, host
// faults (fragments never ACKed, ACKs without the fragment flag, a
// checksum answer the host never followed up), network loss. None of them
// is a cause: a player that never entered while its stock client showed
// the fragment bug stopped where the facts say, and the bug is a finding.
const (
	VerdictEntered      = "entered"
	VerdictNeverEntered = "never entered"
	VerdictUnknown      = "unknown"
)

// Causes, the `cause` of a verdict (rules above): the rule that decided
// it. server-full, checksum-mismatch and booted are causes the capture
// proves; checksum-unanswered to capture-ended say where the join stopped.
const (
	CauseEntered            = "entered"
	CauseAlreadyInGame      = "already-in-game"
	CauseAlreadyConnected   = "already-connected"
	CauseServerFull         = "server-full"
	CauseChecksumMismatch   = "checksum-mismatch"
	CauseBooted             = "booted"
	CauseChecksumUnanswered = "checksum-unanswered"
	CauseClientDisconnected = "client-disconnected"
	CauseTimedOut           = "timed-out"
	CauseRemoved            = "removed"
	CauseCaptureEnded       = "capture-ended"
)

// The natures of a finding.
const (
	NatureStockBug  = "stock-client bug, harmless"
	NatureHostFault = "host fault"
	NatureLoss      = "network loss"
)

// Finding is something the join showed that bears on the verdict without
// deciding it.
type Finding struct {
	Nature string `json:"nature"` // Nature*
	Code   string `json:"code"`   // the anomaly code, or "checksum-not-followed-up"
	Text   string `json:"text"`
	Frames []int  `json:"frames"`
}

// maxFindings caps a player's remembered delivery findings.
const maxFindings = 8

// hostSilenceMin is how long the capture must go on after the client's
// checksum answer, with nothing more from the host's handshake, to call
// it a host fault (a stock join takes about 1.3 s on loopback).
const hostSilenceMin = 5 * time.Second

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

// deliveryFinding records a retransmit-unacked or ack-mismatch event on
// p's flow as a finding: on the client's fragmented message a host fault
// (the host never ACKed its fragments, or ACKed them without the
// fragment flag), else network loss (or a peer that stopped answering).
func (s *server) deliveryFinding(p *player, e *dissect.Event) {
	if len(p.findings) >= maxFindings {
		return
	}
	label := e.Text.Str(0)
	c2s := strings.HasPrefix(label, "c2s")
	frag := strings.Contains(label, "fragment")
	f := Finding{Nature: NatureLoss, Code: e.Code.String(), Text: e.Message(), Frames: []int{e.Frame}}
	switch {
	case e.Code == anomaly.AckMismatch && c2s && frag:
		f.Nature = NatureHostFault
		what := "ACKed the client's fragments with the wrong fragment index"
		if strings.Contains(f.Text, "ACK without the fragment flag") {
			what = "ACKed the client's fragments without the fragment flag"
		}
		f.Text = "the host " + what + ": " + f.Text
	case e.Code == anomaly.AckMismatch:
		f.Nature = NatureHostFault
		if c2s {
			f.Text = "the host's ACKs do not match the message: " + f.Text
		} else {
			f.Nature = "client fault"
			f.Text = "the client's ACKs do not match the message: " + f.Text
		}
	case e.Code == anomaly.RetransmitUnacked && c2s && frag && p.hostAcked:
		f.Nature = NatureHostFault
		f.Text = "the host never ACKed the client's fragments (it ACKed other messages): " + f.Text
	default:
		f.Text = "no ACK seen (loss, a silent peer or a capture that missed it): " + f.Text
	}
	p.findings = append(p.findings, f)
	s.warnLine(e.Time, e.Frame, p, e.Anomaly)
}

// Verdict is a player's verdict.
type Verdict struct {
	Verdict  string    // VerdictEntered, VerdictNeverEntered, VerdictUnknown
	Cause    string    // Cause*
	Text     string    // for people, without the frames
	Frames   []int     // the frames it rests on, in capture order
	Note     string    // the findings for people, one sentence each
	Findings []Finding // what the join showed that bears on it without deciding it
}

// verdict is p's verdict; end is the end of the capture (of its server).
func (p *player) verdict(end time.Time) Verdict {
	v := p.decide(end)
	v.Findings = p.joinFindings(end)
	var notes []string
	for _, f := range v.Findings {
		notes = append(notes, f.Nature+": "+f.Text+" (frame"+plural(len(f.Frames))+" "+framesText(f.Frames)+")")
	}
	v.Note = strings.Join(notes, "; ")
	v.Frames = sortFrames(v.Frames)
	return v
}

// joinFindings lists the findings of p's join: the stock fragment bug,
// delivery findings, and a checksum answer the host never followed up.
func (p *player) joinFindings(end time.Time) []Finding {
	var out []Finding
	if b := p.fragBug; b != nil {
		out = append(out, Finding{Nature: NatureStockBug, Code: anomaly.UnackedFragmentRetransmit.String(),
			Text: b.words(), Frames: sortFrames(b.frames())})
	}
	out = append(out, p.findings...)
	if f, ok := p.checksumNotFollowedUp(end); ok {
		out = append(out, f)
	}
	return out
}

// checksumNotFollowedUp: the client answered a checksum round, the host
// sent nothing more of the join (no next round, no ChecksumComplete, no
// Settings, no boot) in at least hostSilenceMin until the capture ended or
// the client left.
func (p *player) checksumNotFollowedUp(end time.Time) (Finding, bool) {
	h := &p.hs
	if !p.enteredT.IsZero() || p.already || !h.seen || h.answered < 0 || h.verdict != pending && h.verdict != leftDuring {
		return Finding{}, false
	}
	if p.host.frame > h.answerFrame || p.client.frame != h.answerFrame {
		return Finding{}, false
	}
	stop := end
	if p.left() {
		stop = p.leftT
	}
	if stop.Sub(p.client.t) < hostSilenceMin {
		return Finding{}, false
	}
	t := "the host never followed up the client's checksum round " + roundName(h.answered) + " answer [" +
		strconv.Itoa(h.answerFrame) + "]"
	if p.client.ackFrame > 0 {
		t += " (it ACKed it [" + strconv.Itoa(p.client.ackFrame) + "])"
	}
	t += ": no next round, ChecksumComplete or BootPlayer in " + secs(stop.Sub(p.client.t))
	return Finding{Nature: NatureHostFault, Code: "checksum-not-followed-up", Text: t,
		Frames: nonZero(h.answerFrame, p.client.ackFrame)}, true
}

func (p *player) decide(end time.Time) Verdict {
	h := &p.hs
	switch {
	case !p.enteredT.IsZero():
		return Verdict{Verdict: VerdictEntered, Cause: CauseEntered, Text: "entered the game", Frames: []int{p.enterFrame}}
	case p.already && p.stateFrame > 0:
		return Verdict{Verdict: VerdictEntered, Cause: CauseAlreadyInGame,
			Text: "in the game before the capture started: it sends StateUpdates", Frames: []int{p.stateFrame}}
	case p.already:
		return Verdict{Verdict: VerdictUnknown, Cause: CauseAlreadyConnected,
			Text: "joined before the capture started, which shows no entry into the game"}
	case p.bootReason == 2:
		return Verdict{Verdict: VerdictNeverEntered, Cause: CauseServerFull, Text: "the host refused it: server full (BootPlayer reason 2)",
			Frames: []int{p.bootFrame}}
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
		return Verdict{Verdict: VerdictNeverEntered, Cause: CauseChecksumMismatch, Text: t, Frames: nonZero(h.askFrame, h.answerFrame, h.findingFrame, h.frame)}
	case p.bootReason >= 0:
		return Verdict{Verdict: VerdictNeverEntered, Cause: CauseBooted, Text: "booted by the host: " + bootText(p.bootReason),
			Frames: nonZero(p.bootFrame)}
	case h.seen && h.asked >= 0 && h.answered != h.asked && h.verdict != passed:
		t := "the host asked checksum round " + roundName(h.asked)
		if d := h.dir(h.asked); d != "" {
			t += " (directory " + d + ")"
		}
		t += " [" + strconv.Itoa(h.askFrame) + "] and the client never answered"
		if p.left() {
			t += "; then it " + p.leftHow.words()
		}
		return Verdict{Verdict: VerdictNeverEntered, Cause: CauseChecksumUnanswered, Text: t, Frames: nonZero(h.askFrame, p.leftFrame)}
	case p.leftHow == leftDisconnect:
		return p.stopped(CauseClientDisconnected, "before the client disconnected", p.leftT, p.leftFrame)
	case p.leftHow == leftTimeout:
		return p.stopped(CauseTimedOut, "before the client timed out (nothing from it after ["+strconv.Itoa(p.leftFrame)+"])", p.leftT, 0)
	case p.left():
		return p.stopped(CauseRemoved, "before it was "+p.leftHow.words(), p.leftT, p.leftFrame)
	}
	return p.stopped(CauseCaptureEnded, "until the capture ended", end, 0)
}

// stopped is the verdict of a join that stopped without a cause the
// capture proves: the last step each side took, with its frame and the
// other side's ACK, and what never came in the time until stop (at frame
// stopFrame, 0 for the end of the capture).
func (p *player) stopped(cause, until string, stop time.Time, stopFrame int) Verdict {
	var b strings.Builder
	frames := []int{stopFrame}
	last := p.client
	if p.host.frame > p.client.frame {
		last = p.host
	}
	for _, st := range []*joinStep{&p.host, &p.client} {
		if st.frame == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(st.words())
		frames = append(frames, st.frame, st.ackFrame)
	}
	if b.Len() > 0 {
		b.WriteString("; ")
	}
	b.WriteString("no " + p.expected() + " in the " + secs(stop.Sub(last.t)) + " " + until)
	if last.frame == 0 {
		b.Reset()
		b.WriteString("no step of the join seen " + until)
	}
	if stopFrame > 0 {
		b.WriteString(" [" + strconv.Itoa(stopFrame) + "]")
	}
	return Verdict{Verdict: VerdictNeverEntered, Cause: cause, Text: b.String(), Frames: nonZero(frames...)}
}

// expected is the next step of the join the side that did not move last
// owed.
func (p *player) expected() string {
	if p.host.frame > p.client.frame {
		switch p.host.op {
		case opChecksumReq:
			return "answer to checksum round " + roundName(p.host.round)
		case opChecksumComplete, opSettings, opGameInit:
			return "NewPlayerInGame"
		}
		return "checksum answer"
	}
	switch p.client.op {
	case opChecksumResp:
		return "next checksum round or ChecksumComplete from the host"
	}
	return "reply from the host"
}

// secs is a duration for people: "19.4 s".
func secs(d time.Duration) string {
	return strconv.FormatFloat(max(d, 0).Seconds(), 'f', 1, 64) + " s"
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
