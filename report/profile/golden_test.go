package profile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/dissect/capture"
)

const testdata = "../../testdata"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func profileFile(t testing.TB, path string) *Profiler {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := New(Options{})
	profileCapture(t, p, r, filepath.Base(path))
	return p
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testdata, "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/profile -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run go test ./report/profile -update and review the diff)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: %d lines, want %d", path, len(gl), len(wl))
	}
}

func TestGoldenSession3(t *testing.T) {
	p := profileFile(t, filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	for _, tc := range []struct {
		name    string
		perFlow bool
		write   func(d *Doc, b *bytes.Buffer) error
	}{
		{"openbc-session-3.profile.table", false, func(d *Doc, b *bytes.Buffer) error { return d.WriteTable(b) }},
		{"openbc-session-3.profile.json", false, func(d *Doc, b *bytes.Buffer) error { return d.WriteJSON(b) }},
		{"openbc-session-3.profile-per-flow.table", true, func(d *Doc, b *bytes.Buffer) error { return d.WriteTable(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.write(p.Doc(tc.perFlow), &buf); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, buf.Bytes())
		})
	}
}
