package checksum

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// gameTree writes a small fake install and returns its root. Content is
// the file's own path, so every content hash differs.
func gameTree(t *testing.T) string {
	t.Helper()
	root := tempDir(t)
	files := []string{
		"scripts/App.pyc",
		"scripts/Autoexec.pyc",
		"scripts/Other.pyc",      // in scripts/, but no round asks for it
		"scripts/Custom/Mod.pyc", // mods live outside every round
		"scripts/ships/Akira.pyc",
		"scripts/ships/BirdOfPrey.PYC", // filter matches without case
		"scripts/ships/notes.txt",
		"scripts/ships/Hardpoints/akira.pyc",
		"scripts/ships/Hardpoints/__init__.pyc",
		"scripts/mainmenu/mainmenu.pyc",
		"scripts/mainmenu/__init__.pyc",
		"scripts/mainmenu/KeyboardConfig.pyc",
		"scripts/mainmenu/CardSpecificSetup.pyc",
		"scripts/mainmenu/sub/Deep.pyc", // round 3 is not recursive
		"scripts/Multiplayer/Modifier.pyc",
		"scripts/Multiplayer/Episode/Episode.pyc",
		"scripts/Multiplayer/Episode/Mission1/Mission1.pyc",
	}
	for _, f := range files {
		writeFile(t, filepath.Join(root, f), []byte("content of "+f))
	}
	if err := os.MkdirAll(filepath.Join(root, "scripts/ships/Empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileNames(fs []ManifestFile) []string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Filename)
	}
	return n
}

func dirNames(ds []ManifestDir) []string {
	var n []string
	for _, d := range ds {
		n = append(n, d.Name)
	}
	return n
}

func TestGenerate(t *testing.T) {
	root := gameTree(t)
	m, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Directories) != 5 || m.VersionStringHash != VersionHash || m.Meta.Generator != GeneratorName {
		t.Fatalf("%+v", m.Meta)
	}
	tests := []struct {
		round uint8
		path  string
		files []string
		dirs  []string
	}{
		{0, "scripts", []string{"App.pyc"}, nil},
		{1, "scripts", []string{"Autoexec.pyc"}, nil},
		{2, "scripts/ships", []string{"Akira.pyc", "BirdOfPrey.PYC"}, []string{"Empty", "Hardpoints"}},
		// Byte-wise order, as on the wire: C < K < _ < m.
		{3, "scripts/mainmenu", []string{"CardSpecificSetup.pyc", "KeyboardConfig.pyc", "__init__.pyc", "mainmenu.pyc"}, nil},
		{0xFF, "Scripts/Multiplayer", []string{"Modifier.pyc"}, []string{"Episode"}},
	}
	for _, tt := range tests {
		e := m.Round(tt.round)
		if e == nil {
			t.Fatalf("round %d missing", tt.round)
		}
		if e.Path != tt.path || e.DirNameHash != Hash(StringHash(tt.path)) ||
			!reflect.DeepEqual(fileNames(e.Files), tt.files) || !reflect.DeepEqual(dirNames(e.Subdirs), tt.dirs) {
			t.Errorf("round %d: %q %08X files %v dirs %v", tt.round, e.Path, e.DirNameHash, fileNames(e.Files), dirNames(e.Subdirs))
		}
		for _, f := range e.Files {
			if f.NameHash != Hash(StringHash(f.Filename)) {
				t.Errorf("%s name hash", f.Filename)
			}
		}
	}
	// Content hashes are FileHash of the bytes; names keep their case.
	app := m.Round(0).Files[0]
	if app.ContentHash != Hash(FileHash([]byte("content of scripts/App.pyc"))) {
		t.Errorf("App.pyc content hash %08X", app.ContentHash)
	}
	hp := m.Round(2).Subdirs[1]
	if hp.NameHash != 0xCAAFFDD4 || !reflect.DeepEqual(fileNames(hp.Files), []string{"__init__.pyc", "akira.pyc"}) {
		t.Errorf("Hardpoints %+v", hp)
	}
	ep := m.Round(0xFF).Subdirs[0]
	if ep.NameHash != 0x83C82BA5 || len(ep.Subdirs) != 1 || ep.Subdirs[0].NameHash != 0x88D63ABC {
		t.Errorf("Episode %+v", ep)
	}

	// Save and Load keep everything; the generated manifest verifies clean.
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diffs, err := Verify(m2, root); err != nil || len(diffs) != 0 {
		t.Fatalf("Verify of a fresh manifest: %v %v", diffs, err)
	}

	// Responses built from it pass the handshake with no finding at all.
	h := &Handshake{Manifest: m2}
	var fs []Finding
	for _, rs := range Rounds {
		r, ok := m2.Response(rs.Round)
		if !ok {
			t.Fatalf("no response for round %d", rs.Round)
		}
		fs = h.Feed(fs, true, reqMsg(rs.Round))
		fs = h.Feed(fs, false, AppendResponse(nil, r))
	}
	if len(fs) != 0 {
		t.Errorf("findings %+v", fs)
	}
}

func TestVerifyDiffs(t *testing.T) {
	root := gameTree(t)
	m, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "scripts/ships/Akira.pyc"), []byte("patched"))
	must(t, os.Remove(filepath.Join(root, "scripts/mainmenu/KeyboardConfig.pyc")))
	writeFile(t, filepath.Join(root, "scripts/mainmenu/New.pyc"), []byte("new"))
	must(t, os.RemoveAll(filepath.Join(root, "scripts/ships/Empty")))
	writeFile(t, filepath.Join(root, "scripts/Multiplayer/Episode/Mission2/Mission2.pyc"), []byte("m2"))
	writeFile(t, filepath.Join(root, "scripts/Multiplayer/readme.txt"), []byte("not *.pyc"))

	diffs, err := Verify(m, root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, d.String())
	}
	akira := m.Round(2).Files[0].ContentHash
	want := []string{
		"round 2: scripts/ships/Akira.pyc: content " + hex8(FileHash([]byte("patched"))) + ", manifest " + hex8(uint32(akira)),
		"round 2: scripts/ships/Empty/: directory missing",
		"round 3: scripts/mainmenu/KeyboardConfig.pyc: missing",
		"round 3: scripts/mainmenu/New.pyc: extra",
		"round 0xFF: Scripts/Multiplayer/Episode/Mission2/: directory extra",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffs:\n%q\nwant\n%q", got, want)
	}
}

func hex8(v uint32) string {
	const digits = "0123456789ABCDEF"
	b := []byte("0x00000000")
	for i := 9; i >= 2; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGenerateErrors(t *testing.T) {
	empty := tempDir(t)
	file := filepath.Join(empty, "file")
	writeFile(t, file, nil)
	for _, dir := range []string{filepath.Join(empty, "nope"), file, empty} {
		if _, err := Generate(dir); err == nil {
			t.Errorf("Generate(%s) succeeded", dir)
		}
	}
	if _, err := Verify(&Manifest{}, filepath.Join(empty, "nope")); err == nil {
		t.Error("Verify of a missing dir succeeded")
	}
}

// A directory symlink loop is not followed.
func TestGenerateSymlinkLoop(t *testing.T) {
	root := gameTree(t)
	if err := symlink("..", filepath.Join(root, "scripts/ships/loop")); err != nil {
		t.Skip("no symlinks:", err)
	}
	m, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := dirNames(m.Round(2).Subdirs); !reflect.DeepEqual(got, []string{"Empty", "Hardpoints"}) {
		t.Errorf("subdirs %v", got)
	}
}

// TestVanillaResponseOrder rebuilds the round 3 answer from vanilla-1.1.json
// (stored in another order) and finds the file order of the real capture.
func TestVanillaResponseOrder(t *testing.T) {
	r, ok := vanilla(t).Response(3)
	if !ok {
		t.Fatal("no round 3")
	}
	captured, err := ParseResponse(stockPayload(t, OpResponse, 3))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range captured.Root.Files {
		if r.Root.Files[i].NameHash != f.NameHash {
			t.Errorf("file %d: %08X, captured %08X", i, r.Root.Files[i].NameHash, f.NameHash)
		}
	}
	if r.DirHash != captured.DirHash {
		t.Errorf("dir hash %08X, captured %08X", r.DirHash, captured.DirHash)
	}
}

func TestMatchFilter(t *testing.T) {
	tests := []struct {
		filter, name string
		want         bool
	}{
		{"*.pyc", "Akira.pyc", true},
		{"*.pyc", "AKIRA.PYC", true},
		{"*.pyc", "Akira.py", false},
		{"*.pyc", "Akira.pyc.bak", false},
		{"*.pyc", ".pyc", true},
		{"App.pyc", "App.pyc", true},
		{"App.pyc", "app.PYC", true},
		{"App.pyc", "App.pyco", false},
		{"A?p.pyc", "App.pyc", true},
		{"*", "", true},
		{"", "", true},
		{"", "x", false},
		{"*a*b*c", "xxaxxbxxc", true},
		{"*a*b*c", "xxaxxbxx", false},
		{"**.pyc", "x.pyc", true},
	}
	for _, tt := range tests {
		if got := MatchFilter(tt.filter, tt.name); got != tt.want {
			t.Errorf("MatchFilter(%q, %q) = %v", tt.filter, tt.name, got)
		}
	}
}
