package render

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/report/reporttest"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// render decodes a capture with the given reporter, as `bcdump read` does.
func render(t *testing.T, path string, mk func(w *bytes.Buffer) Reporter) []byte {
	t.Helper()
	return renderWith(t, path, dissect.Options{}, mk)
}

// renderWith is render with dissector options (e.g. --manifest).
func renderWith(t *testing.T, path string, opt dissect.Options, mk func(w *bytes.Buffer) Reporter) []byte {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf bytes.Buffer
	rep := mk(&buf)
	if err := dissect.NewSession(dissect.SessionOptions{Options: opt}).Run(context.Background(), r, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var formats = []struct {
	name string
	mk   func(w *bytes.Buffer) Reporter
}{
	{"table", func(w *bytes.Buffer) Reporter { return NewTable(w, NewPalette(false), false) }},
	{"json", func(w *bytes.Buffer) Reporter { return NewJSON(w, false) }},
	{"hex", func(w *bytes.Buffer) Reporter { return NewHex(w, NewPalette(false), true, false) }},
}

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	reporttest.Golden(t, filepath.Join(testdata, "golden", name), got, *update, "./report/render")
}

func TestGoldenSample(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			checkGolden(t, "sample."+f.name, render(t, filepath.Join(testdata, "sample.pcap"), f.mk))
		})
	}
}

func TestGoldenRealCaptures(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	for _, c := range []string{"stock-excerpts", "openbc-session-2"} {
		for _, f := range formats {
			t.Run(c+"/"+f.name, func(t *testing.T) {
				checkGolden(t, c+"."+f.name, render(t, filepath.Join(dir, c+".pcap"), f.mk))
			})
		}
	}
}

// With vanilla-1.1.json the checksum hashes of the stock excerpts are named
// and the four captured content hashes that differ from it are notes
// (protocol-facts 9.4), as `bcdump read --manifest` shows them.
func TestGoldenManifest(t *testing.T) {
	m, err := checksum.LoadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testdata, "captures", "stock-excerpts.pcap")
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			checkGolden(t, "stock-excerpts-manifest."+f.name, renderWith(t, path, dissect.Options{Manifest: m}, f.mk))
		})
	}
}
