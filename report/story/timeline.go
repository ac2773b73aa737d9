package story

import (
	"fmt"
	"strconv"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// evKind is what a timeline line tells; its String is the JSON `event`.
type evKind uint8

const (
	evJoin evKind = iota
	evChecksum
	evEnter
	evChat
	evTeamChat
	evKill
	evExplode
	evShipCreated
	evShipDestroyed
	evMission
	evEndGame
	evRestart
	evLeave
	evError
	evWarn
)

var evNames = [...]string{"join", "checksum", "enter", "chat", "team-chat", "kill", "explode",
	"ship-created", "ship-destroyed", "mission-start", "end-game", "restart", "leave", "error", "warn"}

func (k evKind) String() string { return evNames[k] }

// entry is one timeline line. Players are referenced, not named: a name
// learnt later (a PeerInfo after the connect) still shows on the join line.
type entry struct {
	t      time.Time
	frame  int
	kind   evKind
	p, q   *player // the subject; the other party (killer)
	detail string

	// Network player ids of the subject and the other party (chat sender,
	// ScoreChange victim and killer), for players the story does not list:
	// the host (1), or one the capture never showed.
	who, otherID int64

	code anomaly.Code // of a finding line (evError, evWarn)
}

// add appends a timeline line within the caps.
func (s *server) add(e entry) {
	if len(s.timeline) >= MaxTimeline || e.kind == evError && s.anomalyLines >= MaxAnomalyLines {
		s.omitted++
		if e.kind == evError {
			s.omittedErrors++
		}
		return
	}
	if e.kind == evError {
		s.anomalyLines++
	}
	s.timeline = append(s.timeline, e)
}

// anomalyLine adds an error-severity anomaly as a line.
func (s *server) anomalyLine(t time.Time, frame int, p *player, a anomaly.Anomaly) {
	if len(s.timeline) >= MaxTimeline || s.anomalyLines >= MaxAnomalyLines {
		s.add(entry{kind: evError}) // counted, and the message not even built
		return
	}
	s.add(entry{t: t, frame: frame, kind: evError, p: p, code: a.Code, detail: a.Code.String() + ": " + a.Message()})
}

// text is the line for people.
func (e *entry) text() string {
	switch e.kind {
	case evJoin:
		return e.p.label() + " connecting from " + e.p.addr.String()
	case evChecksum:
		_, v := e.p.hs.describe(e.p.already)
		return e.p.label() + " checksum " + v
	case evEnter:
		return e.p.label() + " entered the game"
	case evChat:
		return playerOrID(e.p, e.who) + ": " + strconv.Quote(e.detail)
	case evTeamChat:
		return playerOrID(e.p, e.who) + " (team): " + strconv.Quote(e.detail)
	case evKill:
		victim := playerOrID(e.p, e.who)
		if e.otherID == 0 {
			return victim + " died"
		}
		return playerOrID(e.q, e.otherID) + " killed " + victim
	case evExplode:
		s := "ship " + e.detail
		if e.p != nil {
			s = e.p.label() + "'s ship " + e.detail
		}
		s += " exploded"
		if e.q != nil {
			s += ", killer " + e.q.label()
		}
		return s
	case evShipCreated:
		return e.p.label() + " ship created: " + e.detail
	case evShipDestroyed:
		return e.p.label() + "'s ship destroyed: " + e.detail
	case evMission:
		return "mission started: " + e.detail
	case evEndGame:
		return "game ended: " + e.detail
	case evRestart:
		return "game restarted"
	case evLeave:
		return e.p.label() + " " + e.detail
	case evError, evWarn:
		if e.p != nil {
			return e.detail + " [" + e.p.label() + "]"
		}
		return e.detail
	}
	return e.detail
}

func playerOrID(p *player, id int64) string {
	switch {
	case p != nil:
		return p.label()
	case id == 1:
		return "host (peer 1)"
	}
	return "player " + itoa(id)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// hex32 writes an object id as the read output does.
func hex32(v uint32) string { return fmt.Sprintf("0x%08X", v) }

// settingsText sums up the game settings for people.
func (s *server) settingsText() string {
	st := &s.settings
	var b []byte
	add := func(k, v string) {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, k...)
		b = append(b, ' ')
		b = append(b, v...)
	}
	if st.gameMap != "" {
		add("map", st.gameMap)
	}
	if st.hasMission {
		add("system", itoa(int64(st.system)))
		add("player limit", itoa(int64(st.playerLimit)))
		add("time limit", limitText(st.timeLimit))
		add("frag limit", limitText(st.fragLimit))
	}
	if st.hasSettings {
		add("collision damage", onOff(st.collision))
		add("friendly fire", onOff(st.ff))
	}
	return string(b)
}

func limitText(v int) string {
	if v < 0 {
		return "none"
	}
	return itoa(int64(v))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
