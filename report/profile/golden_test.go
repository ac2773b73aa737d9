package profile

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/report/reporttest"

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
	reporttest.Golden(t, filepath.Join(testdata, "golden", name), got, *update, "./report/profile")
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
