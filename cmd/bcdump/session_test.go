package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func TestSessionCLI(t *testing.T) {
	session3 := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	kick := writeSession(t, dissecttest.ChecksumKick(), "checksum-kick")
	stuck := filepath.Join(testdata, "unacked-fragment.pcap")
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout (or stderr for errors)
	}{
		{"session 3 table", []string{"session", session3}, 0, []string{
			"Server 127.0.0.1:22101",
			`GameSpy   "OpenBC Server", map DM (Multiplayer.Episode.Mission1.Mission1), openplaying, 0/5 players`,
			"  2     Bot0  127.0.0.1:38561  0.205   passed    0.221",
			"  4     Bot2  127.0.0.1:39401  0.232   passed    0.243    0     -     21.661 disconnected",
			"21.661  leave          Bot1 (peer 3) disconnected (type 0x06, non-stock)",
		}},
		{"sample json", []string{"session", "-F", "json", samplePcap}, 0, []string{
			`"address":"192.168.1.10:22101"`, `"hostname":"Sample Host"`,
			`"event":"chat","peer_id":2,"name":"Cady2","detail":"hello","text":"Cady2 (peer 2): \"hello\""`,
		}},
		{"checksum kick with manifest", []string{"session", "--manifest", filepath.Join(testdata, "vanilla-1.1.json"), kick}, 0, []string{
			"Cady2 (peer 2): checksum failed at round 0: scripts/App.pyc content hash 0xF8A0A768, manifest 0xF8A0A740",
			"0.105  leave     Cady2 (peer 2) booted by the host: checksum failed",
		}},
		{"checksum kick without manifest", []string{"session", kick}, 0, []string{
			"Cady2 (peer 2): checksum kicked after round 0 (BootPlayer (checksum failed))",
		}},
		{"fail-on", []string{"session", "--fail-on", "error", session3}, exitFinding, []string{"Bot2"}},
		{"color", []string{"session", "--color", "always", stuck}, 0, []string{"\x1b[31mnever entered\x1b[0m"}},
		{"bad format", []string{"session", "-F", "hex", samplePcap}, exitTrouble, []string{"--format must be table or json"}},
		{"verdict never entered", []string{"session", stuck}, 0, []string{
			"Cady2 (peer 2): never entered (client-disconnected): host: GameInit [18], ACKed [19]; client: checksum round 0xFF answer [17], no ACK seen; no NewPlayerInGame in the 20.3 s before the client disconnected [60] [frames 17, 18, 19, 60]",
			"    finding (stock-client bug, harmless): unacked-fragment bug: its checksum round 2 answer (3 fragments) had fragments resent 30 times after the host had ACKed every one [frames 10, 13, 14, 58]",
			"0.196  warn      unacked-fragment-retransmit: ",
		}},
		{"fail-on join", []string{"session", "--fail-on", "join", stuck}, exitFinding, []string{"--fail-on join: 1 player(s) never entered the game (first: Cady2 (peer 2))"}},
		{"fail-on join passes", []string{"session", "--fail-on", "join", samplePcap}, 0, []string{"Cady2 (peer 2): entered at 1.813 s [frame 22]"}},
		{"player filter", []string{"session", "-Y", `session.verdict == "never entered"`, session3}, 0, []string{`No player matches session.verdict == "never entered".`}},
		{"player filter by name", []string{"session", "-Y", "session.name == Bot1", "-F", "json", session3}, 0, []string{`"name":"Bot1"`}},
		{"player filter mixed", []string{"session", "-Y", "session.name == Bot1 and frame > 2", session3}, exitTrouble, []string{"one expression cannot mix them"}},
		{"abs times", []string{"session", "-t", "abs", samplePcap}, 0, []string{"2026-01-02 20:00:03.823000  chat"}},
		{"verbose", []string{"session", "--verbose", session3}, 0, []string{"Timeline (397 lines)"}},
		{"folded", []string{"session", session3}, 0, []string{"payload-malformed x34 in StartFiring, 4.716-20.481 s"}},
		{"color with json", []string{"session", "--color", "always", "-F", "json", samplePcap}, exitTrouble, []string{"-F json has no colour"}},
		{"time format with json", []string{"session", "-t", "abs", "-F", "json", samplePcap}, exitTrouble, []string{"-F json has time and t always"}},
		{"missing file", []string{"session", filepath.Join(tempDir(t), "none.pcap")}, exitTrouble, []string{"none.pcap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
		})
	}
}

// Several servers: one JSON document per line, in order of first datagram.
func TestSessionJSONLines(t *testing.T) {
	code, out, errs := runCLI(t, nil, "session", "-F", "json", samplePcap, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	for i, want := range []string{"192.168.1.10:22101", "127.0.0.1:22101"} {
		var doc struct {
			Server struct {
				Address string `json:"address"`
			} `json:"server"`
			Players  []json.RawMessage `json:"players"`
			Timeline []json.RawMessage `json:"timeline"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Server.Address != want || len(doc.Players) == 0 || len(doc.Timeline) == 0 {
			t.Errorf("document %d: server %s, %d players, %d lines", i, doc.Server.Address, len(doc.Players), len(doc.Timeline))
		}
	}
}

// The session example of the README and bcdump help session is the
// golden file report/story checks against the sample's output, so it
// cannot drift.
func TestHelpSessionExample(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(testdata, "golden", "session-sample.table"))
	if err != nil {
		t.Fatal(err)
	}
	checkDocBlocks(t, "<!-- session-sample.table -->\n```\n", "```\n<!-- /session-sample.table -->", string(golden), false,
		"paste testdata/golden/session-sample.table between the markers")
	code, out, _ := runCLI(t, nil, "session", samplePcap)
	if code != 0 || out != string(golden) {
		t.Error("bcdump session testdata/sample.pcap differs from testdata/golden/session-sample.table")
	}
}

func TestHTMLReportCLI(t *testing.T) {
	out := filepath.Join(tempDir(t), "r.html")
	code, _, stderr := runCLI(t, nil, "report", "--manifest", filepath.Join(testdata, "vanilla-1.1.json"), "-Y", "bc.dir == \"c2s\"", "-o", out, samplePcap)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="bcdump-data"`, `"filter":"bc.dir == \"c2s\""`, "Cady2", "App.pyc"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if code, _, _ := runCLI(t, nil, "report", "-Y", "bc.nope ==", "-o", out, samplePcap); code != 2 {
		t.Errorf("a bad filter: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, nil, "report", "-o", out, filepath.Join(tempDir(t), "missing.pcap")); code != 2 {
		t.Errorf("a missing file: exit %d, want 2", code)
	}
}
