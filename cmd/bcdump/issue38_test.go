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
	root := t.TempDir()
	game := filepath.Join(root, "game")
	if err := os.Rename(fakeGame(t), game); err != nil {
		t.Fatal(err)
	}
	// A folder beside the game, which a ".." would reach.
	writeGameFile(t, root, "secret/passwd.pyc", "not the game's")
	manifest := filepath.Join(t.TempDir(), "m.json")
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
			bad := filepath.Join(t.TempDir(), "bad.json")
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
