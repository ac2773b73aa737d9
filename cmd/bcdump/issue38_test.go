package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// A packet_trace.log whose day rolls past 9999-12-31 reads with valid RFC
// 3339 times, the last second of 9999 and a capture-time note (issue 38:
// "10000-01-01"); convert refuses the time rather than wrap it.
func TestTimesPastYear9999(t *testing.T) {
	entry := "[%s] #%d S->C Peer#0(127.0.0.1:2655) len=2 rc=2 [x]\n  Decrypted:\n    0000: 01 00                                            |..|\n\n"
	log := "# STBC Dedicated Server - Packet Trace (DECRYPTED)\n# Session started: 9999-12-31 23:59:59\n\n" +
		fmt.Sprintf(entry, "23:59:59.000", 1) + fmt.Sprintf(entry, "00:00:01.000", 2)
	dir := tempDir(t)
	in := filepath.Join(dir, "packet_trace.log")
	if err := os.WriteFile(in, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, nil, "read", "-F", "json", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d records: %s", len(lines), out)
	}
	for i, l := range lines {
		var rec struct {
			Time      string `json:"time"`
			Anomalies []struct {
				Code string `json:"code"`
			} `json:"anomalies"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if _, err := time.Parse(time.RFC3339Nano, rec.Time); err != nil {
			t.Errorf("record %d: time %q is not RFC 3339: %v", i+1, rec.Time, err)
		}
		if i == 1 && (rec.Time != "9999-12-31T23:59:59.999999999Z" || len(rec.Anomalies) != 1 || rec.Anomalies[0].Code != "capture-time") {
			t.Errorf("record 2: %s", l)
		}
	}
	code, _, errs = runCLI(t, nil, "convert", in, "-w", filepath.Join(dir, "out.pcapng"))
	if code != exitTrouble || !strings.Contains(errs, "rather than wrapped") {
		t.Errorf("convert: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.pcapng")); err == nil {
		t.Error("convert left a file")
	}
}
