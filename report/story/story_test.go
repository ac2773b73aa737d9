package story

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/reporttest"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// analyze runs a capture through a Dissector into a new Analyzer, as
// `bcdump session` does.
func analyze(t testing.TB, pcap []byte, opt dissect.Options) *Analyzer {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(pcap), "test", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := New()
	s := dissect.NewSession(dissect.SessionOptions{Options: opt, Mode: dissect.Serial})
	if err := s.Run(context.Background(), r, a); err != nil {
		t.Fatal(err)
	}
	return a
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cut drops the first n frames of a classic pcap: a capture that starts
// mid-game.
func cut(t testing.TB, pcap []byte, n int) []byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(pcap))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(r.Snaplen(), r.LinkType()); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= n {
			if err := w.WritePacket(ci, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out.Bytes()
}

func sessionPcap(t testing.TB, s ...*dissecttest.Session) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := dissecttest.WriteMerged(&b, s...); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func vanilla(t testing.TB) *checksum.Manifest {
	t.Helper()
	m, err := checksum.LoadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// one returns the only document.
func one(t *testing.T, a *Analyzer) Document {
	t.Helper()
	docs := a.Documents()
	if len(docs) != 1 {
		t.Fatalf("%d servers, want 1", len(docs))
	}
	return docs[0]
}

// playerRow is what the tests check of a player.
type playerRow struct {
	peer                  int
	name, joined, verdict string
	already               bool
	left, leftHow         string
}

func rowOf(p PlayerDoc) playerRow {
	r := playerRow{peer: -1, name: p.Name, verdict: p.Checksum.Verdict, already: p.AlreadyConnected, leftHow: p.LeftHow}
	if p.PeerID != nil {
		r.peer = *p.PeerID
	}
	if p.Joined != nil {
		r.joined = *p.Joined
	}
	if p.Left != nil {
		r.left = *p.Left
	}
	return r
}

// The three bots of session 3, checked against `bcdump read -F json`: the
// connect requests (peer 0xFF) at frames 4, 30 and 58, the host's Connect
// replies assigning 2, 3, 4, ChecksumComplete at frames 21, 47 and 75; at
// the end the host tells Bot2 that Bot0 and Bot1 were removed (frames 4324
// and 4325, player-list event 0x00060005), but each bot has already left
// with OpenBC's type 0x06 disconnect `06 02` (non-stock-disconnect), which
// the story takes as the client disconnecting.
func TestSession3Players(t *testing.T) {
	a := analyze(t, readFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap")), dissect.Options{})
	doc := one(t, a)
	want := []playerRow{
		{2, "Bot0", "2026-11-21T17:12:08.405583000Z", "passed", false, "2026-11-21T17:12:29.861911000Z", "disconnect"},
		{3, "Bot1", "2026-11-21T17:12:08.423143000Z", "passed", false, "2026-11-21T17:12:29.862115000Z", "disconnect"},
		{4, "Bot2", "2026-11-21T17:12:08.433086000Z", "passed", false, "2026-11-21T17:12:29.862119000Z", "disconnect"},
	}
	if len(doc.Players) != len(want) {
		t.Fatalf("%d players, want %d", len(doc.Players), len(want))
	}
	for i, w := range want {
		if got := rowOf(doc.Players[i]); got != w {
			t.Errorf("player %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	if g := doc.Server.GameSpy; g == nil || g.Hostname != "OpenBC Server" || g.MaxPlayers == nil || *g.MaxPlayers != 5 {
		t.Errorf("gamespy %+v", g)
	}
	if m := doc.Server.Settings.Mission; m == nil || m.PlayerLimit != 8 || m.System != 1 || m.TimeLimit != nil {
		t.Errorf("mission %+v", m)
	}
	for _, p := range doc.Players {
		if p.RTT["s2c"].Samples == 0 || p.Reliable["s2c"] == 0 || p.Team == nil {
			t.Errorf("%s: rtt %+v reliable %v team %v", p.Name, p.RTT, p.Reliable, p.Team)
		}
	}
	counts := map[string]int{}
	for _, l := range doc.Timeline {
		counts[l.Event]++
	}
	if counts["join"] != 3 || counts["checksum"] != 3 || counts["enter"] != 3 || counts["mission-start"] != 1 || counts["leave"] != 3 {
		t.Errorf("timeline events %v", counts)
	}
}

// The sample's one chat line (sent by Cady2, relayed back by the host: told
// once) and no score: the sample holds no score message.
func TestSampleChat(t *testing.T) {
	doc := one(t, analyze(t, readFile(t, filepath.Join(testdata, "sample.pcap")), dissect.Options{}))
	var chat []string
	for _, l := range doc.Timeline {
		switch l.Event {
		case "chat":
			chat = append(chat, l.Text)
		case "kill", "explode":
			t.Errorf("unexpected %s line %q", l.Event, l.Text)
		}
	}
	if len(chat) != 1 || chat[0] != `Cady2 (peer 2): "hello"` {
		t.Errorf("chat lines %q", chat)
	}
	p := doc.Players[0]
	if p.Kills != nil || p.Score != nil || p.LeftHow != "disconnect" || p.Checksum.Verdict != "passed" {
		t.Errorf("player %+v", p)
	}
}

// A join the host ends at round 0: with the manifest the verdict names the
// file that differs; without it the capture only shows the kick.
func TestChecksumKick(t *testing.T) {
	pcap := sessionPcap(t, dissecttest.ChecksumKick())
	tests := []struct {
		name     string
		opt      dissect.Options
		verdict  string
		text     string
		leftHow  string
		findings int
	}{
		{"manifest", dissect.Options{Manifest: vanilla(t)}, "failed",
			"failed at round 0: scripts/App.pyc content hash 0xF8A0A768, manifest 0xF8A0A740", "booted", 1},
		{"no manifest", dissect.Options{}, "kicked",
			"kicked after round 0 (BootPlayer (checksum failed))", "booted", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := one(t, analyze(t, pcap, tt.opt))
			p := doc.Players[0]
			c := p.Checksum
			if c.Verdict != tt.verdict || c.Text != tt.text || c.Round == nil || *c.Round != "0" || c.Findings != tt.findings {
				t.Errorf("checksum %+v", c)
			}
			if p.LeftHow != tt.leftHow || p.Entered != nil || p.Name != "Cady2" {
				t.Errorf("player %+v", p)
			}
			found := false
			for _, l := range doc.Timeline {
				if l.Event == "checksum" && strings.Contains(l.Text, tt.text) {
					found = true
				}
			}
			if !found {
				t.Errorf("no checksum line with %q", tt.text)
			}
		})
	}
}

// Two players: every relayed or broadcast copy is told once.
func TestBattle(t *testing.T) {
	doc := one(t, analyze(t, sessionPcap(t, dissecttest.Battle()...), dissect.Options{}))
	var got []string
	for _, l := range doc.Timeline {
		got = append(got, l.Event+": "+l.Text)
	}
	want := []string{
		"join: Alice (peer 2) connecting from 192.168.7.20:50200",
		"checksum: Alice (peer 2) checksum passed",
		"enter: Alice (peer 2) entered the game",
		"mission-start: mission started: map Multiplayer.Episode.Mission1.Mission1, system 1, player limit 8, time limit none, frag limit 5, collision damage on, friendly fire off",
		"join: Bob (peer 3) connecting from 192.168.7.30:50300",
		"checksum: Bob (peer 3) checksum passed",
		"enter: Bob (peer 3) entered the game",
		"ship-created: Alice (peer 2) ship created: Akira 0x3FFFFFFF",
		"ship-created: Bob (peer 3) ship created: Vorcha 0x4003FFFF",
		`chat: Alice (peer 2): "good luck"`,
		`team-chat: Bob (peer 3) (team): "cover me"`,
		"explode: Bob (peer 3)'s ship 0x4003FFFF exploded, killer Alice (peer 2)",
		"kill: Alice (peer 2) killed Bob (peer 3)",
		"ship-destroyed: Bob (peer 3)'s ship destroyed: Vorcha 0x4003FFFF",
		"end-game: game ended: frag limit",
		"leave: Bob (peer 3) disconnected",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	alice, bob := doc.Players[0], doc.Players[1]
	if alice.Kills == nil || *alice.Kills != 1 || *alice.Score != 100 || *alice.Team != 0 || *alice.Ship != "Akira" || alice.LeftHow != "still-connected" {
		t.Errorf("alice %+v", alice)
	}
	if bob.Deaths == nil || *bob.Deaths != 1 || *bob.Team != 1 || *bob.Ship != "Vorcha" || bob.LeftHow != "disconnect" {
		t.Errorf("bob %+v", bob)
	}
}

// A capture that starts mid-game (session 3 without its first 200
// frames: the joins and handshakes are gone) lists the bots as already
// connected, with their peer ids from their traffic and their names from
// the host's PeerInfo keepalives.
func TestMidGame(t *testing.T) {
	pcap := cut(t, readFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap")), 200)
	doc := one(t, analyze(t, pcap, dissect.Options{}))
	if len(doc.Players) != 3 {
		t.Fatalf("%d players", len(doc.Players))
	}
	for i, p := range doc.Players {
		if !p.AlreadyConnected || p.Joined != nil || p.Checksum.Verdict != "not-seen" || p.PeerID == nil || *p.PeerID != i+2 {
			t.Errorf("player %d: %+v", i, rowOf(p))
		}
		if p.Verdict.Verdict != VerdictEntered || p.Verdict.Cause != CauseAlreadyInGame || len(p.Verdict.Frames) != 1 {
			t.Errorf("player %d verdict %+v", i, p.Verdict)
		}
		if want := "Bot" + string(rune('0'+i)); p.Name != want {
			t.Errorf("player %d name %q, want %q", i, p.Name, want)
		}
	}
	var tbl bytes.Buffer
	if err := analyze(t, pcap, dissect.Options{}).WriteTable(&tbl); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(tbl.String(), "already connected"); n != 3 {
		t.Errorf("table says %q %d times, want 3:\n%s", "already connected", n, tbl.String())
	}
}

// Goldens: the table and JSON of the bundled captures and the scenarios.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		pcap func(t *testing.T) []byte
		opt  func(t *testing.T) dissect.Options
	}{
		{"openbc-session-3", func(t *testing.T) []byte {
			return readFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
		}, nil},
		{"sample", func(t *testing.T) []byte { return readFile(t, filepath.Join(testdata, "sample.pcap")) }, nil},
		{"checksum-kick-manifest", func(t *testing.T) []byte { return sessionPcap(t, dissecttest.ChecksumKick()) },
			func(t *testing.T) dissect.Options { return dissect.Options{Manifest: vanilla(t)} }},
		{"battle", func(t *testing.T) []byte { return sessionPcap(t, dissecttest.Battle()...) }, nil},
		{"unacked-fragment", func(t *testing.T) []byte {
			s, _ := dissecttest.VerdictScenario("unacked-fragment")
			return sessionPcap(t, s)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opt dissect.Options
			if tt.opt != nil {
				opt = tt.opt(t)
			}
			a := analyze(t, tt.pcap(t), opt)
			var tbl, js bytes.Buffer
			if err := a.WriteTable(&tbl); err != nil {
				t.Fatal(err)
			}
			if err := a.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatalf("JSON: %v", err)
			}
			checkGolden(t, "session-"+tt.name+".table", tbl.Bytes())
			checkGolden(t, "session-"+tt.name+".json", js.Bytes())
		})
	}
}

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	reporttest.Golden(t, filepath.Join(testdata, "golden", name), got, *update, "./report/story")
}

// A client that goes silent: the tracker's peer-timeout event (from
// Finish) says when it was last heard and how it left.
func TestPeerTimeout(t *testing.T) {
	s, ok := dissecttest.Anomaly(anomaly.PeerTimeout)
	if !ok {
		t.Fatal("no peer-timeout scenario")
	}
	doc := one(t, analyze(t, sessionPcap(t, s), dissect.Options{}))
	p := doc.Players[0]
	if p.LeftHow != "timeout" || p.Left == nil || p.Checksum.Verdict != "left" {
		t.Errorf("player %+v", rowOf(p))
	}
	if l := doc.Timeline[len(doc.Timeline)-1]; l.Event != "leave" || !strings.HasPrefix(l.Text, "Cady2 (peer 2) timed out: ") {
		t.Errorf("last line %+v", l)
	}
}

// On every test capture the folded timeline has no two lines in a row of
// the same player, code and message kind (a flood is one line).
func TestTimelineFolded(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	paths = append(paths, filepath.Join(testdata, "sample.pcap"), filepath.Join(testdata, "unacked-fragment.pcap"))
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, doc := range analyze(t, readFile(t, path), dissect.Options{}).Documents() {
				type key struct {
					peer       int
					name, code string
					kind       string
				}
				var prev key
				for i, l := range doc.Timeline {
					if l.Code == "" {
						prev = key{}
						continue
					}
					code, _ := anomaly.Parse(l.Code)
					k := key{-1, l.Name, l.Code, messageKind(l.Detail, code)}
					if l.PeerID != nil {
						k.peer = *l.PeerID
					}
					if i > 0 && k == prev {
						t.Errorf("lines %d and %d: same player, code and kind: %q", i-1, i, l.Text)
					}
					prev = k
				}
			}
		})
	}
}

// A server that restarts on the same port twice is told as three runs,
// each with its own players (peer ids reused, fresh counters); every
// player that sent a disconnect (type 0x05, or OpenBC's 0x06) has left.
func TestServerRuns(t *testing.T) {
	a := analyze(t, sessionPcap(t, dissecttest.ServerRuns()...), dissect.Options{})
	docs := a.Documents()
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3 runs", len(docs))
	}
	for i, d := range docs {
		if d.Server.Run != i+1 || d.Server.Address != "192.168.1.10:22101" {
			t.Errorf("document %d: run %d of %s", i, d.Server.Run, d.Server.Address)
		}
		var names []string
		for _, p := range d.Players {
			names = append(names, p.Name)
		}
		var want []string
		for _, rp := range dissecttest.RunPlayers() {
			if rp.Run != i+1 {
				continue
			}
			want = append(want, rp.Name)
			for _, p := range d.Players {
				if p.Name != rp.Name {
					continue
				}
				if p.PeerID == nil || *p.PeerID != int(rp.Peer) || p.Entered == nil {
					t.Errorf("run %d %s: peer %v entered %v", i+1, p.Name, p.PeerID, p.Entered)
				}
				if rp.Left && p.LeftHow != "disconnect" {
					t.Errorf("run %d %s sent a disconnect but left_how is %q", i+1, p.Name, p.LeftHow)
				}
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("run %d players %v, want %v", i+1, names, want)
		}
	}
	var tbl bytes.Buffer
	if err := a.WriteTable(&tbl); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		t.Log("\n" + tbl.String())
	}
	for _, w := range []string{", run 1;", ", run 2 (the server restarted);", ", run 3 (the server restarted);"} {
		if !strings.Contains(tbl.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, tbl.String())
		}
	}
}
