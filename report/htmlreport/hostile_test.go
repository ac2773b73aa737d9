package htmlreport

import (
	"bytes"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// Every anomaly the scripts reproduce (malformed payloads and trees, cut
// captures, timeouts, limits) makes a page whose checks hold, with a
// manifest and without.
func TestAnomalyScripts(t *testing.T) {
	for _, code := range dissecttest.AnomalyCodes() {
		s, ok := dissecttest.Anomaly(code)
		if !ok {
			continue
		}
		var b bytes.Buffer
		if err := dissecttest.WriteMerged(&b, s); err != nil {
			t.Fatal(err)
		}
		pcap := b.Bytes()
		for _, manifest := range []bool{false, true} {
			c := reportCase{name: code.String(), pcap: func(testing.TB) []byte { return pcap }, manifest: manifest}
			t.Run(c.name, func(t *testing.T) {
				d, page := build(t, c)
				checkDOM(t, string(page), d, false)
			})
		}
	}
}

// An empty capture still makes a page.
func TestEmpty(t *testing.T) {
	b := New(Options{})
	if err := b.Finish(nil); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := Render(&page, b.Data()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page.Bytes(), []byte("No game flow in the capture.")) {
		t.Error("the empty page does not say there is nothing")
	}
}
