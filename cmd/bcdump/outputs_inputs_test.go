package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A capture found in a folder given as input is an input like one named:
// no writer replaces it (issue 38: read -F parquet -o d/game.pcap d turned
// the capture into Parquet and exited 0).
func TestWritersRefuseFolderCapture(t *testing.T) {
	for _, args := range [][]string{
		{"read", "-F", "parquet", "-o", "OUT", "DIR"},
		{"report", "DIR", "-o", "OUT"},
	} {
		t.Run(args[0]+" "+args[1], func(t *testing.T) {
			dir := filepath.Join(tempDir(t), "d")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(samplePcap)
			if err != nil {
				t.Fatal(err)
			}
			game := filepath.Join(dir, "game.pcap")
			if err := os.WriteFile(game, data, 0o644); err != nil {
				t.Fatal(err)
			}
			var run []string
			for _, a := range args {
				switch a {
				case "OUT":
					a = game
				case "DIR":
					a = dir
				}
				run = append(run, a)
			}
			code, _, errs := runCLI(t, nil, run...)
			if code != exitTrouble || !strings.Contains(errs, "does not write over its input") || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line of refusal", code, errs)
			}
			if got, _ := os.ReadFile(game); !bytes.Equal(got, data) {
				t.Errorf("the capture changed: %d bytes, was %d", len(got), len(data))
			}
		})
	}
}

// manifest generate does not write over a file it hashed (issue 38:
// manifest generate GAMEDIR -o GAMEDIR/scripts/App.pyc).
func TestManifestGenerateRefusesHashedFile(t *testing.T) {
	game := fakeGame(t)
	app := filepath.Join(game, "scripts", "App.pyc")
	before, _ := os.ReadFile(app)
	code, _, errs := runCLI(t, nil, "manifest", "generate", game, "-o", app)
	if code != exitTrouble || !strings.Contains(errs, "does not write over its input") {
		t.Errorf("exit %d, stderr %q; want 2 and the refusal", code, errs)
	}
	if after, _ := os.ReadFile(app); !bytes.Equal(after, before) {
		t.Errorf("App.pyc changed: %q", after)
	}
	// A file of the folder that no round hashes may be written.
	out := filepath.Join(game, "manifest.json")
	if code, _, errs := runCLI(t, nil, "manifest", "generate", game, "-o", out); code != 0 {
		t.Errorf("-o %s: exit %d, %s", out, code, errs)
	}
}

// A standard output that is one of the run's inputs (>> x.pcap) is refused
// before anything is written, by every command that writes to stdout:
// exit 2, one line, the input untouched.
func TestStdoutInputRefused(t *testing.T) {
	game := fakeGame(t)
	app := filepath.Join(game, "scripts", "App.pyc")
	cases := []struct {
		args  []string
		input string // the file stdout appends to ("" : the capture)
		stdin bool   // the capture is on stdin too
	}{
		{args: []string{"read", "IN", "-w", "-"}},
		{args: []string{"read", "IN"}},
		{args: []string{"read", "-F", "json", "IN"}},
		{args: []string{"read", "-", "-w", "-"}, stdin: true},
		{args: []string{"decrypt", "IN", "-w", "-"}},
		{args: []string{"convert", "IN", "-w", "-"}},
		{args: []string{"stats", "IN"}},
		{args: []string{"session", "IN"}},
		{args: []string{"profile", "IN"}},
		{args: []string{"diff", "IN", samplePcap}},
		{args: []string{"hash", "file", "IN"}},
		{args: []string{"manifest", "generate", game}, input: app},
		{args: []string{"manifest", "verify", filepath.Join(testdata, "vanilla-1.1.json"), game}, input: app},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			in := c.input
			var data []byte
			if in == "" {
				in, data = copyInput(t, samplePcap, tempDir(t))
			} else {
				data, _ = os.ReadFile(in)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				if a == "IN" {
					a = in
				}
				args[i] = a
			}
			out, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var stdin *os.File
			if c.stdin {
				if stdin, err = os.Open(in); err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
			}
			var errb bytes.Buffer
			var code int
			if stdin != nil {
				code = run(args, stdin, out, &errb)
			} else {
				code = run(args, bytes.NewReader(nil), out, &errb)
			}
			errs := errb.String()
			if code != exitTrouble || !strings.Contains(errs, "standard output is") || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line of refusal", code, errs)
			}
			if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
				t.Errorf("the input changed: %d bytes, was %d", len(got), len(data))
			}
		})
	}
	// A regular file that is no input is written as before.
	out, err := os.Create(filepath.Join(tempDir(t), "out.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errb bytes.Buffer
	if code := run([]string{"read", samplePcap, "-w", "-"}, bytes.NewReader(nil), out, &errb); code != 0 {
		t.Errorf("read -w - > out.pcap: exit %d, %s", code, errb.String())
	}
}
