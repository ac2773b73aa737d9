package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manifest verify does not follow a round path out of the game folder
// (issue 38: a path "../../etc" listed the files of /etc as extra): exit
// 2, the path named, nothing listed.
func TestManifestVerifyStaysInside(t *testing.T) {
	root := tempDir(t)
	game := filepath.Join(root, "game")
	if err := os.Rename(fakeGame(t), game); err != nil {
		t.Fatal(err)
	}
	// A folder beside the game, which a ".." would reach.
	writeGameFile(t, root, "secret/passwd.pyc", "not the game's")
	manifest := filepath.Join(tempDir(t), "m.json")
	if code, _, errs := runCLI(t, nil, "manifest", "generate", game, "-o", manifest); code != 0 {
		t.Fatalf("generate: %s", errs)
	}
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"../secret", "scripts/../../secret", "/etc", "..", ".", `..\\secret`, "C:/secret"} {
		t.Run(path, func(t *testing.T) {
			doc := strings.Replace(string(orig), `"path": "scripts/mainmenu"`, `"path": "`+path+`"`, 1)
			if doc == string(orig) {
				t.Fatal("no scripts/mainmenu round in the manifest")
			}
			bad := filepath.Join(tempDir(t), "bad.json")
			if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI(t, nil, "manifest", "verify", bad, game)
			if code != exitTrouble || out != "" || !strings.Contains(errs, "game folder") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing listed and the refusal", code, out, errs)
			}
		})
	}
}

// read DIR -w OUT with one capture in DIR writes it (issue 38: "-w takes
// one capture, not 1"); the capture itself is refused as OUT; a folder
// with no capture says so; two captures are refused as before.
func TestReadFolderWrite(t *testing.T) {
	dir := tempDir(t)
	in, data := copyInput(t, samplePcap, dir)
	out := filepath.Join(tempDir(t), "out.pcapng")
	if code, _, errs := runCLI(t, nil, "read", dir, "-w", out); code != 0 {
		t.Fatalf("read DIR -w: exit %d: %s", code, errs)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no capture written: %v", err)
	}
	code, _, errs := runCLI(t, nil, "read", dir, "-w", in)
	if code != exitTrouble || !strings.Contains(errs, "does not write over its input") {
		t.Errorf("-w the folder's capture: exit %d, %q", code, errs)
	}
	if got, _ := os.ReadFile(in); string(got) != string(data) {
		t.Error("the capture changed")
	}
	empty := tempDir(t)
	if code, _, errs := runCLI(t, nil, "read", empty, "-w", out); code != exitTrouble || !strings.Contains(errs, "holds none") {
		t.Errorf("empty folder: exit %d, %q", code, errs)
	}
	copyInput(t, samplePcap, empty)
	if err := os.WriteFile(filepath.Join(empty, "two.pcap"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, nil, "read", empty, "-w", out); code != exitTrouble || !strings.Contains(errs, "not 2") {
		t.Errorf("two captures: exit %d, %q", code, errs)
	}
}
