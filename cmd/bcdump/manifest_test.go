package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/checksum"
)

// fakeGame writes a small install: one file per stock round, a Hardpoints
// subdirectory (lower-case akira.pyc beside Akira.pyc, as in the real game),
// files no round asks for, and Multiplayer/Episode for round 0xFF.
func fakeGame(t *testing.T) string {
	t.Helper()
	root := tempDir(t)
	for _, f := range []string{
		"scripts/App.pyc",
		"scripts/Autoexec.pyc",
		"scripts/Other.pyc",
		"scripts/Custom/Mod.pyc",
		"scripts/ships/Akira.pyc",
		"scripts/ships/Hardpoints/akira.pyc",
		"scripts/mainmenu/mainmenu.pyc",
		"scripts/mainmenu/readme.txt",
		"scripts/Multiplayer/__init__.pyc",
		"scripts/Multiplayer/Episode/Episode.pyc",
	} {
		writeGameFile(t, root, f, "contents of "+f)
	}
	return root
}

func writeGameFile(t *testing.T, root, rel, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// generate writes the manifest the scan of checksum.Generate gives, with
// the name asked for; verify of the same tree finds nothing (exit 0).
func TestManifestGenerateVerify(t *testing.T) {
	game := fakeGame(t)
	out := filepath.Join(tempDir(t), "game.json")
	code, stdout, errs := runCLI(t, nil, "manifest", "generate", game, "-o", out, "--name", "Test install")
	if code != 0 || stdout != "" || errs != "bcdump: wrote "+out+": 5 rounds, 7 files, 2 subdirectories\n" {
		t.Fatalf("generate: code %d out %q err %q", code, stdout, errs)
	}
	m, err := checksum.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Name != "Test install" || m.Meta.Generator != checksum.GeneratorName || len(m.Directories) != 5 {
		t.Errorf("meta %+v, %d rounds", m.Meta, len(m.Directories))
	}
	want, err := checksum.Generate(game)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range want.Directories {
		g := m.Directories[i]
		if g.Index != r.Index || g.Path != r.Path || len(g.Files) != len(r.Files) || len(g.Subdirs) != len(r.Subdirs) {
			t.Errorf("round %d: written %+v, scan %+v", r.Index, g, r)
		}
	}
	if r := m.Round(0); len(r.Files) != 1 || uint32(r.Files[0].NameHash) != 0x373EB677 {
		t.Errorf("round 0 files %+v, want App.pyc 0x373EB677", r.Files)
	}

	// -o - writes the manifest to standard output, byte for byte the same
	// apart from the default name.
	file, _ := os.ReadFile(out)
	for _, o := range [][]string{{"-o", "-"}, nil} {
		code, stdout, errs = runCLI(t, nil, append([]string{"manifest", "generate", game, "--name", "Test install"}, o...)...)
		if code != 0 || stdout != string(file) || errs != "" {
			t.Errorf("%v: code %d, err %q, output differs from the file: %v", o, code, errs, stdout != string(file))
		}
	}

	code, stdout, errs = runCLI(t, nil, "manifest", "verify", out, game)
	if code != 0 || stdout != "" || !strings.Contains(errs, "matches") {
		t.Errorf("verify unchanged: code %d out %q err %q", code, stdout, errs)
	}
}

// verify lists each difference on its own line and exits 1.
func TestManifestVerifyDifferences(t *testing.T) {
	game := fakeGame(t)
	out := filepath.Join(tempDir(t), "game.json")
	if code, _, errs := runCLI(t, nil, "manifest", "generate", game, "-o", out); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	writeGameFile(t, game, "scripts/ships/Akira.pyc", "patched")
	writeGameFile(t, game, "scripts/ships/Galaxy.pyc", "new ship")
	writeGameFile(t, game, "scripts/Custom/Another.pyc", "mods are outside every round")
	if err := os.Remove(filepath.Join(game, "scripts", "mainmenu", "mainmenu.pyc")); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runCLI(t, nil, "manifest", "verify", out, game)
	want := []string{
		"round 2: scripts/ships/Akira.pyc: content 0x",
		"round 2: scripts/ships/Galaxy.pyc: extra",
		"round 3: scripts/mainmenu/mainmenu.pyc: missing",
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != exitFinding || len(lines) != len(want) || !strings.Contains(errs, "3 places") {
		t.Fatalf("code %d out %q err %q", code, stdout, errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d %q, want prefix %q", i, lines[i], w)
		}
	}
}

// Against vanilla-1.1.json a fake install differs everywhere but parses:
// exit 1, the real App.pyc manifest hash named in the output.
func TestManifestVerifyVanilla(t *testing.T) {
	vanilla := filepath.Join(testdata, "vanilla-1.1.json")
	code, stdout, _ := runCLI(t, nil, "manifest", "verify", vanilla, fakeGame(t))
	if code != exitFinding || !strings.Contains(stdout, "round 0: scripts/App.pyc: content 0x") || !strings.Contains(stdout, "manifest 0xF8A0A740") {
		t.Errorf("code %d, output %.300q", code, stdout)
	}
}

func TestManifestTrouble(t *testing.T) {
	dir := tempDir(t)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"directories": [{"index": 300}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	notJSON := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notJSON, []byte("not a manifest"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if code, _, errs := runCLI(t, nil, "manifest", "generate", fakeGame(t), "-o", good); code != 0 {
		t.Fatal(errs)
	}
	empty := tempDir(t)
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"generate without a directory", []string{"manifest", "generate"}, "usage: bcdump manifest generate GAMEDIR [-o FILE]"},
		{"generate missing dir", []string{"manifest", "generate", filepath.Join(dir, "nope"), "-o", "-"}, "nope"},
		{"generate not a game", []string{"manifest", "generate", empty, "-o", "-"}, "no scripts directory"},
		{"generate unwritable", []string{"manifest", "generate", fakeGame(t), "-o", filepath.Join(dir, "no", "such", "dir.json")}, "dir.json"},
		{"verify bad manifest", []string{"manifest", "verify", bad, empty}, "bad.json"},
		{"verify not json", []string{"manifest", "verify", notJSON, empty}, "notes.txt"},
		{"verify missing manifest", []string{"manifest", "verify", filepath.Join(dir, "none.json"), empty}, "none.json"},
		{"verify missing dir", []string{"manifest", "verify", good, filepath.Join(dir, "nope")}, "nope"},
		{"verify file as dir", []string{"manifest", "verify", good, good}, "not a directory"},
		{"verify one arg", []string{"manifest", "verify", good}, "accepts 2 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, nil, tt.args...)
			if code != exitTrouble || !strings.Contains(errs, tt.err) {
				t.Errorf("code %d err %q, want 2 and %q", code, errs, tt.err)
			}
		})
	}
}

// read --manifest names the stock hashes in every format, and checksum
// findings count for --fail-on like any anomaly.
func TestReadManifest(t *testing.T) {
	vanilla := filepath.Join(testdata, "vanilla-1.1.json")
	stock := filepath.Join(testdata, "captures", "stock-excerpts.pcap")
	for _, tt := range []struct{ format, want string }{
		{"json", `"name_hash":"0x373EB677","name_hash_name":"App.pyc"`},
		{"table", "ChecksumResp round=0 dir=scripts 1 file App.pyc !checksum-file-mismatch"},
		{"hex", "name_hash: 0x373EB677 (App.pyc)"},
	} {
		code, out, errs := runCLI(t, nil, "read", "-F", tt.format, "--manifest", vanilla, stock)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%s: code %d err %q; output lacks %q", tt.format, code, errs, tt.want)
		}
	}
	// The one warning of the stitched excerpts: frame 13 reuses a seq.
	code, _, errs := runCLI(t, nil, "read", "--fail-on", "warn", stock)
	if code != exitFinding || !strings.Contains(errs, "1 anomaly at or above warn (first: seq-reuse)") {
		t.Errorf("--fail-on warn: code %d err %q", code, errs)
	}
	if code, _, errs := runCLI(t, nil, "read", "--manifest", filepath.Join(tempDir(t), "none.json"), stock); code != exitTrouble || !strings.Contains(errs, "--manifest") {
		t.Errorf("missing manifest: code %d err %q", code, errs)
	}
}

// Any JSON that is not a manifest (an object with other keys, a stats
// JSON file) is rejected naming the key and the line, in one line.
func TestReadBogusManifest(t *testing.T) {
	dir := tempDir(t)
	bogus := filepath.Join(dir, "bogus.json")
	os.WriteFile(bogus, []byte(`{"not":"a manifest"}`), 0o644)
	_, statsJSON, _ := runCLI(t, nil, "stats", "--format", "json", samplePcap)
	statsFile := filepath.Join(dir, "stats.json")
	os.WriteFile(statsFile, []byte(statsJSON), 0o644)
	typed := filepath.Join(dir, "typed.json")
	os.WriteFile(typed, []byte("{\n  \"directories\": [\n    {\"index\": 0, \"files\": \"App.pyc\"}\n  ]\n}\n"), 0o644)
	tests := []struct{ file, want string }{
		{bogus, `bogus.json: bad manifest: line 1: unknown key "not"`},
		{statsFile, `stats.json: bad manifest: line 2: unknown key "sources"`},
		{typed, `typed.json: bad manifest: line 3: key "directories[0].files" must be a list, not a string`},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"read", "stats"} {
			code, out, errs := runCLI(t, nil, cmd, "--manifest", tt.file, samplePcap)
			if code != exitTrouble || out != "" || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s --manifest %s: code %d out %d bytes err %q, want %q", cmd, filepath.Base(tt.file), code, len(out), errs, tt.want)
			}
		}
	}
	if code, _, errs := runCLI(t, nil, "manifest", "verify", bogus, dir); code != exitTrouble || !strings.Contains(errs, `unknown key "not"`) {
		t.Errorf("manifest verify: code %d err %q", code, errs)
	}
}
