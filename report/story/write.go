package story

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/render"
)

// The JSON document of one server (`bcdump session --format json` writes
// one per line). Keys are a contract like the read output's: new keys may
// be added, none renamed. Times are RFC 3339 in UTC; null means the
// capture does not show it.
type Document struct {
	Server                ServerDoc   `json:"server"`
	Players               []PlayerDoc `json:"players"`
	Timeline              []LineDoc   `json:"timeline"`
	TimelineOmitted       int         `json:"timeline_omitted"`        // lines past the caps
	TimelineOmittedErrors int         `json:"timeline_omitted_errors"` // of which error anomalies
}

// ServerDoc is the server and its settings.
type ServerDoc struct {
	Address string `json:"address"`
	// Run counts the server's runs on this address from 1: a restart on
	// the same port (every player gone or silent, then a Connect reply
	// reusing one of their peer ids) starts the next.
	Run       int         `json:"run"`
	FirstSeen string      `json:"first_seen"`
	LastSeen  string      `json:"last_seen"`
	GameSpy   *GameSpyDoc `json:"gamespy"`
	Settings  SettingsDoc `json:"settings"`
	// Datagrams of client endpoints past the player limit (not analyzed).
	DatagramsPastPlayerLimit int `json:"datagrams_past_player_limit"`
}

// GameSpyDoc is what the last GameSpy status reply said.
type GameSpyDoc struct {
	Time       string `json:"time"`
	Frame      int    `json:"frame"`
	Hostname   string `json:"hostname"`
	Map        string `json:"map"`     // mapname
	Mission    string `json:"mission"` // missionscript
	GameType   string `json:"game_type"`
	Players    *int   `json:"players"`
	MaxPlayers *int   `json:"max_players"`
	TimeLimit  string `json:"time_limit"`
	FragLimit  string `json:"frag_limit"`
	System     string `json:"system"`
	Password   string `json:"password"`
}

// SettingsDoc is what Settings and MissionInit said.
type SettingsDoc struct {
	Map             *string     `json:"map"`
	CollisionDamage *bool       `json:"collision_damage"`
	FriendlyFire    *bool       `json:"friendly_fire"`
	Mission         *MissionDoc `json:"mission"`
}

// MissionDoc is MissionInit's; a limit of null is none.
type MissionDoc struct {
	Started     string `json:"started"`
	System      int    `json:"system"`
	PlayerLimit int    `json:"player_limit"`
	TimeLimit   *int   `json:"time_limit"`
	FragLimit   *int   `json:"frag_limit"`
}

// PlayerDoc is one player's visit.
type PlayerDoc struct {
	PeerID           *int               `json:"peer_id"`
	Name             string             `json:"name"`
	Address          string             `json:"address"`
	AlreadyConnected bool               `json:"already_connected"`
	FirstSeen        string             `json:"first_seen"`
	LastSeen         string             `json:"last_seen"`
	Joined           *string            `json:"joined"`
	Checksum         ChecksumDoc        `json:"checksum"`
	Entered          *string            `json:"entered"`
	Slot             *int               `json:"slot"`
	Team             *int               `json:"team"`
	Ship             *string            `json:"ship"`
	Left             *string            `json:"left"`
	LeftHow          string             `json:"left_how"`
	Kills            *int64             `json:"kills"`
	Deaths           *int64             `json:"deaths"`
	Score            *int64             `json:"score"`
	RTT              map[string]RTT     `json:"rtt_ms"`
	Reliable         map[string]uint64  `json:"reliable"`
	Retransmits      map[string]uint64  `json:"retransmits"`
	RetransmitRatio  map[string]float64 `json:"retransmit_ratio"`
	LeftText         string             `json:"left_text"` // left_how for people: "still connected", "timed out", ...
	// joined, entered and left as seconds since the capture's first datagram.
	JoinedT  *float64   `json:"joined_t"`
	EnteredT *float64   `json:"entered_t"`
	LeftT    *float64   `json:"left_t"`
	Verdict  VerdictDoc `json:"verdict"`
}

// VerdictDoc is whether the player got into the game and, when not, the
// cause the capture shows (the help topic verdicts lists the rules).
type VerdictDoc struct {
	Verdict string `json:"verdict"` // "entered", "never entered", "unknown"
	Cause   string `json:"cause"`   // entered, already-in-game, already-connected, server-full, checksum-mismatch, booted, checksum-unanswered, client-disconnected, timed-out, removed, capture-ended
	Text    string `json:"text"`
	Frames  []int  `json:"frames"`         // the frames it rests on
	Note    string `json:"note,omitempty"` // the findings for people, "; " between them
	// Findings are what the join showed without deciding the verdict,
	// each with its nature: "stock-client bug, harmless", "host fault",
	// "network loss".
	Findings []Finding `json:"findings"`
}

// ChecksumDoc is the handshake verdict.
type ChecksumDoc struct {
	Verdict  string  `json:"verdict"` // passed, failed, kicked, left, pending, not-seen
	Round    *string `json:"round"`   // the round it concerns ("0".."3", "0xFF")
	Time     *string `json:"time"`
	Findings int     `json:"findings"`
	Text     string  `json:"text"`
}

// RTT are round-trip times in milliseconds of one direction's reliable
// messages (first send to first matching ACK), as transport.RTT defines
// them: the figures `bcdump stats` prints for the player's flow.
type RTT struct {
	Samples uint64  `json:"samples"`
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	Max     float64 `json:"max"`
	// Sampled: the percentiles cover the first MaxRTTSamples samples only.
	Sampled bool `json:"sampled"`
}

// LineDoc is one timeline line.
type LineDoc struct {
	Time        string  `json:"time"`
	T           float64 `json:"t"` // seconds since the first datagram
	Frame       int     `json:"frame"`
	Event       string  `json:"event"`
	PeerID      *int    `json:"peer_id,omitempty"`
	Name        string  `json:"name,omitempty"`
	OtherPeerID *int    `json:"other_peer_id,omitempty"`
	OtherName   string  `json:"other_name,omitempty"`
	Detail      string  `json:"detail,omitempty"`
	Text        string  `json:"text"`
	// Finding lines (event error or warn): the anomaly code and, unless
	// --verbose, how many lines of one player, code and message kind the
	// line stands for and the last of them.
	Code      string   `json:"code,omitempty"`
	Count     int      `json:"count,omitempty"`
	LastTime  string   `json:"last_time,omitempty"`
	LastT     *float64 `json:"last_t,omitempty"`
	LastFrame int      `json:"last_frame,omitempty"`
}

// Documents returns one document per server, in order of first datagram.
func (a *Analyzer) Documents() []Document {
	docs := make([]Document, 0, len(a.servers))
	for _, s := range a.servers {
		if doc := a.document(s); a.players == nil || len(doc.Players) > 0 {
			docs = append(docs, doc)
		}
	}
	return docs
}

// NeverEntered lists the players (of every server, whatever the player
// filter keeps) whose verdict is "never entered", for --fail-on join.
func (a *Analyzer) NeverEntered() []string {
	var out []string
	for _, s := range a.servers {
		for _, p := range s.players {
			if p.verdict(s.last).Verdict == VerdictNeverEntered {
				out = append(out, p.label())
			}
		}
	}
	return out
}

// ts writes times as read's JSON does: nine fractional digits, so they sort
// as text.
func ts(t time.Time) string { return t.UTC().Format(render.TimeLayout) }

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := ts(t)
	return &s
}

func optInt(v int, ok bool) *int {
	if !ok {
		return nil
	}
	return &v
}

func ms(d time.Duration) float64 { return math.Round(float64(d.Microseconds())) / 1000 }

func (a *Analyzer) document(s *server) Document {
	doc := Document{
		Server:                ServerDoc{Address: s.addr.String(), Run: s.run + 1, FirstSeen: ts(s.first), LastSeen: ts(s.last), DatagramsPastPlayerLimit: s.unkept},
		Players:               make([]PlayerDoc, 0, len(s.players)),
		Timeline:              make([]LineDoc, 0, len(s.timeline)),
		TimelineOmitted:       s.omitted,
		TimelineOmittedErrors: s.omittedErrors,
	}
	if g := s.status; g != nil {
		gd := &GameSpyDoc{Time: ts(g.t), Frame: g.frame, Hostname: g.get("hostname"), Map: g.get("mapname"),
			Mission: g.get("missionscript"), GameType: g.get("gamemode"), TimeLimit: g.get("timelimit"),
			FragLimit: g.get("fraglimit"), System: g.get("system"), Password: g.get("password")}
		if n, err := strconv.Atoi(g.get("numplayers")); err == nil {
			gd.Players = &n
		}
		if n, err := strconv.Atoi(g.get("maxplayers")); err == nil {
			gd.MaxPlayers = &n
		}
		doc.Server.GameSpy = gd
	}
	st := &s.settings
	if st.gameMap != "" {
		m := st.gameMap
		doc.Server.Settings.Map = &m
	}
	if st.hasSettings {
		c, f := st.collision, st.ff
		doc.Server.Settings.CollisionDamage, doc.Server.Settings.FriendlyFire = &c, &f
	}
	if st.hasMission {
		doc.Server.Settings.Mission = &MissionDoc{Started: ts(st.missionT), System: st.system, PlayerLimit: st.playerLimit,
			TimeLimit: optInt(st.timeLimit, st.timeLimit >= 0), FragLimit: optInt(st.fragLimit, st.fragLimit >= 0)}
		if st.missionT.IsZero() {
			doc.Server.Settings.Mission.Started = ""
		}
	}
	var dropped map[*player]bool
	for _, p := range s.players {
		pd := playerDoc(p)
		pd.JoinedT, pd.EnteredT, pd.LeftT = a.optSecs(p.joinT), a.optSecs(p.enteredT), a.optSecs(p.leftT)
		if !a.keep(doc.Server.Address, &pd) {
			if dropped == nil {
				dropped = make(map[*player]bool)
			}
			dropped[p] = true
			continue
		}
		doc.Players = append(doc.Players, pd)
	}
	for _, gl := range s.lines(a.opt.Verbose) {
		e := gl.entry
		if e.p != nil && dropped[e.p] {
			continue
		}
		l := LineDoc{Time: ts(e.t), T: a.secs(e.t), Frame: e.frame,
			Event: e.kind.String(), Detail: e.detail, Text: e.text()}
		if e.kind == evError || e.kind == evWarn {
			l.Code = e.code.String()
		}
		if gl.count > 1 {
			lt := a.secs(gl.lastT)
			l.Count, l.LastTime, l.LastT, l.LastFrame = gl.count, ts(gl.lastT), &lt, gl.lastFrame
			l.Text = a.groupText(&gl)
		}
		l.PeerID, l.Name = lineParty(e.p, e.who)
		l.OtherPeerID, l.OtherName = lineParty(e.q, e.otherID)
		doc.Timeline = append(doc.Timeline, l)
	}
	return doc
}

func (a *Analyzer) optSecs(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	v := a.secs(t)
	return &v
}

func (a *Analyzer) secs(t time.Time) float64 { return math.Round(t.Sub(a.first).Seconds()*1e6) / 1e6 }

// groupText is a folded line for people: `payload-malformed x80 in
// StateUpdate, 1.570-4.520 s, first: ... [Bot0 (peer 2)]`.
func (a *Analyzer) groupText(l *line) string {
	var b strings.Builder
	b.WriteString(l.code.String())
	b.WriteString(" x")
	b.WriteString(strconv.Itoa(l.count))
	if l.msgKind != "" {
		b.WriteString(" in ")
		b.WriteString(l.msgKind)
	}
	b.WriteString(", ")
	b.WriteString(a.span(l.t, l.lastT))
	b.WriteString(", first: ")
	b.WriteString(l.findingMessage())
	if l.p != nil {
		b.WriteString(" [")
		b.WriteString(l.p.label())
		b.WriteByte(']')
	}
	return b.String()
}

// span is a time range in the chosen format: "1.570-4.520 s" relative.
func (a *Analyzer) span(from, to time.Time) string {
	if a.opt.Time == render.TimeRel || a.opt.Time == render.TimeDelta {
		return a.when(from) + "-" + a.when(to) + " s"
	}
	return a.when(from) + " .. " + a.when(to)
}

// when is a time in the chosen format (-t): seconds since the first
// datagram by default.
func (a *Analyzer) when(t time.Time) string {
	switch a.opt.Time {
	case render.TimeAbs:
		return t.UTC().Format("2006-01-02 15:04:05.000000")
	case render.TimeEpoch:
		return strconv.FormatFloat(float64(t.UnixMicro())/1e6, 'f', 6, 64)
	}
	return strconv.FormatFloat(t.Sub(a.first).Seconds(), 'f', 3, 64)
}

// lineParty is the peer id and name of a line's player, or the bare id a
// script message gave for one the story does not list.
func lineParty(p *player, id int64) (*int, string) {
	if p != nil {
		return optInt(int(p.peer), p.hasPeer), p.name
	}
	return optInt(int(id), id > 0 && id <= 255), ""
}

var dirs = [2]string{"c2s", "s2c"}

func playerDoc(p *player) PlayerDoc {
	d := PlayerDoc{
		PeerID: optInt(int(p.peer), p.hasPeer), Name: p.name, Address: p.addr.String(),
		AlreadyConnected: p.already, FirstSeen: ts(p.first), LastSeen: ts(p.lastSeen),
		Joined: optTime(p.joinT), Entered: optTime(p.enteredT),
		Slot: optInt(p.slot, p.slot >= 0), Team: optInt(p.team, p.team >= 0),
		Left: optTime(p.leftT), LeftHow: p.leftHow.String(),
		RTT: map[string]RTT{}, Reliable: map[string]uint64{}, Retransmits: map[string]uint64{}, RetransmitRatio: map[string]float64{},
	}
	v := p.verdict(p.srv.last)
	d.LeftText = p.leftHow.words()
	d.Verdict = VerdictDoc(v)
	if d.Verdict.Frames == nil {
		d.Verdict.Frames = []int{}
	}
	if d.Verdict.Findings == nil {
		d.Verdict.Findings = []Finding{}
	}
	word, text := p.hs.describe(p.already)
	d.Checksum = ChecksumDoc{Verdict: word, Time: optTime(p.hs.t), Findings: p.hs.findings, Text: text}
	if r := p.hs.round(); p.hs.seen && r >= 0 {
		rn := roundName(r)
		d.Checksum.Round = &rn
	}
	if p.ship != "" {
		sh := p.ship
		d.Ship = &sh
	}
	if p.hasScore {
		k, de, sc := p.kills, p.deaths, p.score
		d.Kills, d.Deaths, d.Score = &k, &de, &sc
	}
	for i, dir := range dirs {
		r := p.rtt[i].Summary()
		d.RTT[dir] = RTT{Samples: r.Count, P50: ms(r.P50), P95: ms(r.P95), Max: ms(r.Max), Sampled: r.Sampled}
		d.Reliable[dir] = p.reliable[i]
		d.Retransmits[dir] = p.retrans[i]
		d.RetransmitRatio[dir] = ratio(p.retrans[i], p.reliable[i])
	}
	return d
}

// ratio is retransmitted copies per reliable first send, 4 decimals.
func ratio(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*1e4) / 1e4
}

// WriteJSON writes one document per server, one per line (JSON Lines).
func (a *Analyzer) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(quote.JSONWriter(bw))
	enc.SetEscapeHTML(false)
	for _, doc := range a.Documents() {
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// SetWidth makes WriteTable fit width columns (package fit; 0: no limit).
func (a *Analyzer) SetWidth(width int) { a.width = width }

// WriteTable writes each server's story for people.
func (a *Analyzer) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(a.servers) == 0 {
		fmt.Fprintln(bw, "No game server traffic in the capture.")
	}
	n := 0
	for _, s := range a.servers {
		doc := a.document(s)
		if a.players != nil && len(doc.Players) == 0 {
			continue
		}
		if n > 0 {
			fmt.Fprintln(bw)
		}
		n++
		a.writeServer(bw, s, &doc)
	}
	if a.players != nil && n == 0 && len(a.servers) > 0 {
		fmt.Fprintf(bw, "No player matches %s.\n", a.players)
	}
	if a.dropped > 0 {
		fmt.Fprintf(bw, "\n%d datagrams of servers past the first %d were not analyzed.\n", a.dropped, MaxServers)
	}
	return bw.Flush()
}

// at is a JSON time in the chosen format, "-" for none.
func (a *Analyzer) at(s *string) string {
	if s == nil {
		return "-"
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return *s
	}
	return a.when(t)
}

// unit follows a time in the chosen format.
func (a *Analyzer) unit() string {
	if a.opt.Time == render.TimeRel || a.opt.Time == render.TimeDelta {
		return " s"
	}
	return ""
}

const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

func (a *Analyzer) paint(code, s string) string {
	if !a.opt.Color {
		return s
	}
	return code + s + ansiReset
}

func (a *Analyzer) writeServer(w io.Writer, s *server, doc *Document) {
	sv := &doc.Server
	run := ""
	if sv.Run > 1 || a.runs(s.addr) > 1 {
		run = fmt.Sprintf(", run %d (the server restarted)", sv.Run)
		if sv.Run == 1 {
			run = ", run 1"
		}
	}
	fit.Line(w, "Server ", fmt.Sprintf("%s (%s .. %s%s%s; the capture starts %s)", sv.Address, a.when(s.first), a.when(s.last), a.unit(), run, ts(a.first)), a.width)
	if g := sv.GameSpy; g != nil {
		players := "?"
		if g.Players != nil {
			players = strconv.Itoa(*g.Players)
		}
		if g.MaxPlayers != nil {
			players += "/" + strconv.Itoa(*g.MaxPlayers)
		}
		fit.Line(w, "  GameSpy   ", fmt.Sprintf("%q, map %s (%s), %s, %s players (status reply, frame %d at %s%s)",
			g.Hostname, quote.Name(g.Map), quote.Name(g.Mission), quote.Name(g.GameType), players, g.Frame, a.at(&g.Time), a.unit()), a.width)
	} else {
		fmt.Fprintln(w, "  GameSpy   no status reply captured")
	}
	if txt := s.settingsText(); txt != "" {
		fit.Line(w, "  Settings  ", quote.Escape(txt), a.width)
	} else {
		fmt.Fprintln(w, "  Settings  not captured (no Settings or MissionInit)")
	}

	fmt.Fprintf(w, "\nPlayers (%d)\n", len(doc.Players))
	// Columns go from the right of the priority list when the terminal is
	// narrow: retransmissions first, who, when and the verdict last.
	tw := &fit.Table{Indent: "  ", Cols: []fit.Column{{Head: "PEER"}, {Head: "NAME"}, {Head: "ADDRESS", Drop: 3},
		{Head: "JOINED", Drop: 1}, {Head: "CHECKSUM"}, {Head: "ENTERED", Drop: 2}, {Head: "TEAM", Drop: 6},
		{Head: "SHIP", Drop: 5}, {Head: "LEFT"}, {Head: "K/D/SCORE", Drop: 4}, {Head: "RTT P50/P95 ms", Drop: 7},
		{Head: "RETX C2S/S2C", Drop: 8}}}
	var notes []string
	for _, p := range doc.Players {
		peer := "-"
		if p.PeerID != nil {
			peer = strconv.Itoa(*p.PeerID)
		}
		joined := a.at(p.Joined)
		if p.AlreadyConnected {
			joined = "already connected"
		}
		left := p.LeftText
		if p.Left != nil {
			left = a.at(p.Left) + " " + p.LeftText
		}
		kds := "-"
		if p.Kills != nil {
			kds = fmt.Sprintf("%d/%d/%d", *p.Kills, *p.Deaths, *p.Score)
		}
		rtt := "-"
		if r := p.RTT["s2c"]; r.Samples > 0 {
			rtt = fmt.Sprintf("%s/%s", fmtMS(r.P50), fmtMS(r.P95))
		}
		entered := a.at(p.Entered)
		if p.Entered == nil && p.Verdict.Verdict == VerdictNeverEntered {
			entered = "never"
		}
		tw.Row(peer, quote.Name(orDash(p.Name)), p.Address, joined,
			p.Checksum.Verdict, entered, optStr(p.Team), quote.Name(derefOr(p.Ship)), left, kds, rtt,
			pct(p.RetransmitRatio["c2s"])+"/"+pct(p.RetransmitRatio["s2c"]))
		if p.Checksum.Text != p.Checksum.Verdict && p.Checksum.Verdict != "not-seen" {
			notes = append(notes, quote.Escape(fmt.Sprintf("  %s: checksum %s", labelOf(p), p.Checksum.Text)))
		}
	}
	tw.Write(w, a.width)
	if n := doc.Server.DatagramsPastPlayerLimit; n > 0 {
		fmt.Fprintf(w, "  (%d datagrams of players past the first %d not analyzed)\n", n, MaxPlayers)
	}
	for _, n := range notes {
		fit.Line(w, "  ", strings.TrimPrefix(n, "  "), a.width)
	}
	// The footnote explains the columns shown; the ones left out are named.
	dropped := tw.Dropped()
	var explain []string
	if !slices.Contains(dropped, "RTT P50/P95 ms") {
		explain = append(explain, "RTT: the host's reliable messages to the player, first send to its ACK")
	}
	if !slices.Contains(dropped, "RETX C2S/S2C") {
		explain = append(explain, "RETX: resent copies per first send")
	}
	if len(explain) > 0 {
		fit.Line(w, "  ", "("+strings.Join(explain, "; ")+")", a.width)
	}
	if len(dropped) > 0 {
		fit.Line(w, "  ", fmt.Sprintf("(left out to fit %d columns: %s; --wide shows them)", a.width, strings.Join(dropped, ", ")), a.width)
	}

	if len(doc.Players) > 0 {
		fmt.Fprintln(w, "\nVerdicts")
		for _, p := range doc.Players {
			a.writeVerdict(w, p)
		}
	}

	more := ""
	if doc.TimelineOmitted > 0 {
		more = fmt.Sprintf("; %d more not kept, %d of them errors", doc.TimelineOmitted, doc.TimelineOmittedErrors)
	}
	folded := 0
	for _, l := range doc.Timeline {
		if l.Count > 1 {
			folded += l.Count - 1
		}
	}
	if folded > 0 {
		more += fmt.Sprintf("; %d repeated findings folded, --verbose shows every line", folded)
	}
	fmt.Fprintf(w, "\nTimeline (%d lines%s)\n", len(doc.Timeline), more)
	width := 0
	for _, l := range doc.Timeline {
		width = max(width, len(l.Event))
	}
	var prev time.Time
	for _, l := range doc.Timeline {
		t, _ := time.Parse(time.RFC3339Nano, l.Time)
		var when string
		if a.opt.Time == render.TimeDelta {
			d := 0.0
			if !prev.IsZero() {
				d = t.Sub(prev).Seconds()
			}
			when = strconv.FormatFloat(d, 'f', 3, 64)
		} else {
			when = a.when(t)
		}
		prev = t
		ev := fmt.Sprintf("%-*s", width, l.Event)
		switch l.Event {
		case "error":
			ev = a.paint(ansiRed, ev)
		case "warn":
			ev = a.paint(ansiYellow, ev)
		}
		fit.Line(w, "  "+fmt.Sprintf("%10s", when)+"  "+ev+"  ", quote.Escape(l.Text), a.width)
	}
}

// writeVerdict writes one player's verdict and the frames it rests on.
func (a *Analyzer) writeVerdict(w io.Writer, p PlayerDoc) {
	v := p.Verdict
	word := v.Verdict
	switch v.Verdict {
	case VerdictEntered:
		word = a.paint(ansiGreen, word)
	case VerdictNeverEntered:
		word = a.paint(ansiRed, word)
	}
	var b strings.Builder
	b.WriteString(quote.Escape(labelOf(p)) + ": " + word)
	if v.Cause == CauseEntered && p.Entered != nil {
		b.WriteString(" at " + a.at(p.Entered) + a.unit())
	}
	if v.Cause != CauseEntered {
		b.WriteString(" (" + v.Cause + "): " + quote.Escape(v.Text))
	}
	if len(v.Frames) > 0 {
		b.WriteString(" [frame" + plural(len(v.Frames)) + " " + framesText(v.Frames) + "]")
	}
	fit.Line(w, "  ", b.String(), a.width)
	for _, f := range v.Findings {
		fit.Line(w, "    ", "finding ("+f.Nature+"): "+quote.Escape(f.Text)+" [frame"+plural(len(f.Frames))+" "+framesText(f.Frames)+"]", a.width)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func labelOf(p PlayerDoc) string {
	switch {
	case p.Name != "" && p.PeerID != nil:
		return fmt.Sprintf("%s (peer %d)", p.Name, *p.PeerID)
	case p.Name != "":
		return p.Name
	case p.PeerID != nil:
		return fmt.Sprintf("peer %d", *p.PeerID)
	}
	return p.Address
}

func fmtMS(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', 1, 64) + "%" }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func derefOr(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func optStr(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}

// runs counts the runs of the server at addr.
func (a *Analyzer) runs(addr netip.AddrPort) int {
	n := 0
	for _, s := range a.servers {
		if s.addr == addr {
			n++
		}
	}
	return n
}
