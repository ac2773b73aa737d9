package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/report/reporttest"
)

// updateGolden rewrites the command-line goldens. An intended change of
// output updates them deliberately (go test ./cmd/bcdump -run
// TestGoldenCommands -update) and the diff of the golden files is reviewed
// with it; every other change must leave them byte for byte as they are.
var updateGolden = flag.Bool("update", false, "rewrite the command-line golden files under testdata/golden")

// cliGoldenDir holds the goldens of TestGoldenCommands that no library
// test already keeps.
const cliGoldenDir = testdata + "/golden/cli"

// hashAbove is the output size above which a golden keeps the SHA-256 of
// the output instead of the output (a NAME.sha256 file): session 3's read
// outputs are megabytes.
const hashAbove = 256 << 10

// goldenCaptures are every capture in testdata, by the name their goldens
// start with.
var goldenCaptures = []struct{ name, path string }{
	{"sample", samplePcap},
	{"openbc-session-2", testdata + "/captures/openbc-session-2.pcap"},
	{"openbc-session-3", testdata + "/captures/openbc-session-3.pcap"},
	{"stock-excerpts", testdata + "/captures/stock-excerpts.pcap"},
	{"unacked-fragment", testdata + "/unacked-fragment.pcap"},
}

// goldenRuns are the command lines run on each capture; CAP is the
// capture, COPY a byte copy of it under another name. The name is the
// golden's suffix.
var goldenRuns = []struct {
	name string
	args []string
}{
	{"read.table", []string{"read", "--color", "never", "CAP"}},
	{"read.json", []string{"read", "-F", "json", "CAP"}},
	{"read.hex", []string{"read", "-F", "hex", "--color", "never", "CAP"}},
	{"read.cipher.hex", []string{"read", "-F", "hex", "--cipher", "--color", "never", "CAP"}},
	{"read.auto.table", []string{"read", "-p", "auto", "--color", "never", "CAP"}},
	{"read.manifest.json", []string{"read", "-F", "json", "--manifest", testdata + "/vanilla-1.1.json", "CAP"}},
	{"stats.table", []string{"stats", "--color", "never", "CAP"}},
	{"stats.json", []string{"stats", "-F", "json", "CAP"}},
	{"stats.brief", []string{"stats", "-b", "--color", "never", "CAP"}},
	{"session.table", []string{"session", "CAP"}},
	{"session.json", []string{"session", "-F", "json", "CAP"}},
	{"session.manifest.table", []string{"session", "--manifest", testdata + "/vanilla-1.1.json", "CAP"}},
	{"profile.table", []string{"profile", "CAP"}},
	{"profile.json", []string{"profile", "-F", "json", "CAP"}},
	{"profile.per-flow.table", []string{"profile", "--per-flow", "CAP"}},
	{"diff.self.text", []string{"diff", "CAP", "CAP"}},
	{"diff.copy.text", []string{"diff", "CAP", "COPY"}},
	{"diff.copy.json", []string{"diff", "-F", "json", "CAP", "COPY"}},
	{"diff.copy.profile", []string{"diff", "--profile", "CAP", "COPY"}},
}

// goldenReused are the runs whose output a library golden test already
// keeps: the command line is checked against that file, not a copy of it.
var goldenReused = map[string]string{
	"openbc-session-2.read.auto.table":  "openbc-session-2.table",
	"openbc-session-2.read.cipher.hex":  "openbc-session-2.hex",
	"openbc-session-2.read.json":        "openbc-session-2.json",
	"openbc-session-2.read.table":       "openbc-session-2.table",
	"openbc-session-2.stats.brief":      "openbc-session-2.stats.brief",
	"openbc-session-3.session.json":     "session-openbc-session-3.json",
	"openbc-session-3.session.table":    "session-openbc-session-3.table",
	"openbc-session-3.stats.brief":      "openbc-session-3.stats.brief",
	"sample.read.auto.table":            "sample.table",
	"sample.read.cipher.hex":            "sample.hex",
	"sample.read.json":                  "sample.json",
	"sample.read.table":                 "sample.table",
	"sample.session.json":               "session-sample.json",
	"sample.session.table":              "session-sample.table",
	"stock-excerpts.read.auto.table":    "stock-excerpts.table",
	"stock-excerpts.read.cipher.hex":    "stock-excerpts.hex",
	"stock-excerpts.read.json":          "stock-excerpts.json",
	"stock-excerpts.read.manifest.json": "stock-excerpts-manifest.json",
	"stock-excerpts.read.table":         "stock-excerpts.table",
}

// TestGoldenCommands holds the output of every command that decodes a
// capture (read in its three formats, stats, session, profile, diff) and
// of the Wireshark plugin byte for byte, on every capture in testdata:
// restructuring the code under them must not change a byte. The exit code
// and stderr are kept too (NAME.status) when they are not 0 and empty.
func TestGoldenCommands(t *testing.T) {
	for _, c := range goldenCaptures {
		dir := tempDir(t)
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(dir, "copy.pcap")
		if err := os.WriteFile(cp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, r := range goldenRuns {
			name := c.name + "." + r.name
			t.Run(name, func(t *testing.T) {
				args := make([]string, len(r.args))
				for i, a := range r.args {
					switch a {
					case "CAP":
						a = c.path
					case "COPY":
						a = cp
					}
					args[i] = a
				}
				code, out, errs := runCLI(t, nil, args...)
				// The copy's directory differs from run to run. The
				// goldens show it as TMPDIR/, whatever the separator
				// (on Windows \, written \\ inside JSON strings).
				quoted, _ := json.Marshal(dir + string(filepath.Separator))
				tmp := strings.NewReplacer(dir+string(filepath.Separator), "TMPDIR/",
					strings.Trim(string(quoted), `"`), "TMPDIR/", dir, "TMPDIR")
				out, errs = tmp.Replace(out), tmp.Replace(errs)
				checkCLIGolden(t, name, out, code, errs)
			})
		}
	}
	for _, w := range []struct {
		name string
		args []string
	}{
		{"wireshark.lua", []string{"wireshark", "lua"}},
		{"wireshark-manifest.lua", []string{"wireshark", "lua", "--manifest", testdata + "/vanilla-1.1.json"}},
	} {
		t.Run(w.name, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, w.args...)
			checkCLIGolden(t, w.name, out, code, errs)
		})
	}
}

// checkCLIGolden compares one command's output, exit code and stderr with
// its goldens, or rewrites them with -update.
func checkCLIGolden(t *testing.T, name, out string, code int, errs string) {
	t.Helper()
	status := ""
	if code != 0 || errs != "" {
		status = fmt.Sprintf("exit %d\n%s", code, errs)
	}
	statusPath := filepath.Join(cliGoldenDir, name+".status")
	if _, err := os.Stat(statusPath); status != "" || (err == nil && !*updateGolden) {
		reporttest.Golden(t, statusPath, []byte(status), *updateGolden, "./cmd/bcdump -run TestGoldenCommands")
	} else if *updateGolden {
		os.Remove(statusPath)
	}
	if reused, ok := goldenReused[name]; ok {
		reporttest.Golden(t, filepath.Join(testdata, "golden", reused), []byte(out), *updateGolden, "./cmd/bcdump -run TestGoldenCommands")
		return
	}
	full := filepath.Join(cliGoldenDir, name)
	if len(out) <= hashAbove {
		if *updateGolden {
			os.Remove(full + ".sha256")
		}
		reporttest.Golden(t, full, []byte(out), *updateGolden, "./cmd/bcdump -run TestGoldenCommands")
		return
	}
	sum := sha256.Sum256([]byte(out))
	got := fmt.Sprintf("%s %d\n", hex.EncodeToString(sum[:]), len(out))
	if *updateGolden {
		os.Remove(full)
		reporttest.Golden(t, full+".sha256", []byte(got), true, "")
		return
	}
	want, err := os.ReadFile(full + ".sha256")
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/bcdump -run TestGoldenCommands -update)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		keep := filepath.Join(os.TempDir(), "bcdump-golden-"+name)
		os.WriteFile(keep, []byte(out), 0o644)
		t.Fatalf("%s: output (SHA-256 and length %s) differs from %s.sha256 (%s); the output is in %s",
			name, strings.TrimSpace(got), full, strings.TrimSpace(string(want)), keep)
	}
}
