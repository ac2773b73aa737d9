package story

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

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
	Address   string      `json:"address"`
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
// messages (first send to first matching ACK).
type RTT struct {
	Samples uint64  `json:"samples"`
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	Max     float64 `json:"max"`
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
}

// Documents returns one document per server, in order of first datagram.
func (a *Analyzer) Documents() []Document {
	docs := make([]Document, 0, len(a.servers))
	for _, s := range a.servers {
		docs = append(docs, a.document(s))
	}
	return docs
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
		Server:                ServerDoc{Address: s.addr.String(), FirstSeen: ts(s.first), LastSeen: ts(s.last), DatagramsPastPlayerLimit: s.unkept},
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
	for _, p := range s.players {
		doc.Players = append(doc.Players, playerDoc(p))
	}
	lines := slices.Clone(s.timeline)
	slices.SortStableFunc(lines, func(x, y entry) int { return x.t.Compare(y.t) })
	for i := range lines {
		e := &lines[i]
		l := LineDoc{Time: ts(e.t), T: math.Round(e.t.Sub(a.first).Seconds()*1e6) / 1e6, Frame: e.frame,
			Event: e.kind.String(), Detail: e.detail, Text: e.text()}
		l.PeerID, l.Name = lineParty(e.p, e.who)
		l.OtherPeerID, l.OtherName = lineParty(e.q, e.otherID)
		doc.Timeline = append(doc.Timeline, l)
	}
	return doc
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
		r := &p.rtt[i]
		p50, p95 := r.percentiles()
		d.RTT[dir] = RTT{Samples: r.count, P50: ms(p50), P95: ms(p95), Max: ms(r.max)}
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
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, doc := range a.Documents() {
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteTable writes each server's story for people.
func (a *Analyzer) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(a.servers) == 0 {
		fmt.Fprintln(bw, "No game server traffic in the capture.")
	}
	for i, s := range a.servers {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		doc := a.document(s)
		a.writeServer(bw, s, &doc)
	}
	if a.dropped > 0 {
		fmt.Fprintf(bw, "\n%d datagrams of servers past the first %d were not analyzed.\n", a.dropped, MaxServers)
	}
	return bw.Flush()
}

// rel is a time as seconds since the first datagram, as `read` shows it.
func (a *Analyzer) rel(s *string) string {
	if s == nil {
		return "-"
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return *s
	}
	return strconv.FormatFloat(t.Sub(a.first).Seconds(), 'f', 3, 64)
}

func (a *Analyzer) writeServer(w io.Writer, s *server, doc *Document) {
	sv := &doc.Server
	fmt.Fprintf(w, "Server %s (%s .. %s)\n", sv.Address, sv.FirstSeen, sv.LastSeen)
	if g := sv.GameSpy; g != nil {
		players := "?"
		if g.Players != nil {
			players = strconv.Itoa(*g.Players)
		}
		if g.MaxPlayers != nil {
			players += "/" + strconv.Itoa(*g.MaxPlayers)
		}
		fmt.Fprintf(w, "  GameSpy   %q, map %s (%s), %s, %s players (status reply, frame %d at %s)\n",
			g.Hostname, g.Map, g.Mission, g.GameType, players, g.Frame, a.rel(&g.Time))
	} else {
		fmt.Fprintln(w, "  GameSpy   no status reply captured")
	}
	if txt := s.settingsText(); txt != "" {
		fmt.Fprintf(w, "  Settings  %s\n", txt)
	} else {
		fmt.Fprintln(w, "  Settings  not captured (no Settings or MissionInit)")
	}

	fmt.Fprintf(w, "\nPlayers (%d)\n", len(doc.Players))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PEER\tNAME\tADDRESS\tJOINED\tCHECKSUM\tENTERED\tTEAM\tSHIP\tLEFT\tK/D/SCORE\tRTT P50/P95 ms\tRETX C2S/S2C")
	var notes []string
	for _, p := range doc.Players {
		peer := "-"
		if p.PeerID != nil {
			peer = strconv.Itoa(*p.PeerID)
		}
		joined := a.rel(p.Joined)
		if p.AlreadyConnected {
			joined = "already connected"
		}
		left := "still there"
		if p.Left != nil {
			left = a.rel(p.Left) + " " + p.LeftHow
		}
		kds := "-"
		if p.Kills != nil {
			kds = fmt.Sprintf("%d/%d/%d", *p.Kills, *p.Deaths, *p.Score)
		}
		rtt := "-"
		if r := p.RTT["s2c"]; r.Samples > 0 {
			rtt = fmt.Sprintf("%s/%s", fmtMS(r.P50), fmtMS(r.P95))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", peer, orDash(p.Name), p.Address, joined,
			p.Checksum.Verdict, a.rel(p.Entered), optStr(p.Team), derefOr(p.Ship), left, kds, rtt,
			pct(p.RetransmitRatio["c2s"])+"/"+pct(p.RetransmitRatio["s2c"]))
		if p.Checksum.Text != p.Checksum.Verdict && p.Checksum.Verdict != "not-seen" {
			notes = append(notes, fmt.Sprintf("  %s: checksum %s", labelOf(p), p.Checksum.Text))
		}
	}
	tw.Flush()
	if n := doc.Server.DatagramsPastPlayerLimit; n > 0 {
		fmt.Fprintf(w, "  (%d datagrams of players past the first %d not analyzed)\n", n, MaxPlayers)
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w, "  (RTT: the host's reliable messages to the player, first send to its ACK; RETX: resent copies per first send)")

	more := ""
	if doc.TimelineOmitted > 0 {
		more = fmt.Sprintf("; %d more not kept, %d of them errors", doc.TimelineOmitted, doc.TimelineOmittedErrors)
	}
	fmt.Fprintf(w, "\nTimeline (%d lines%s)\n", len(doc.Timeline), more)
	width := 0
	for _, l := range doc.Timeline {
		width = max(width, len(l.Event))
	}
	for _, l := range doc.Timeline {
		fmt.Fprintf(w, "  %10.3f  %-*s  %s\n", l.T, width, l.Event, l.Text)
	}
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
