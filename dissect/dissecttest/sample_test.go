package dissecttest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/transport"
)

var samplePath = filepath.Join("..", "..", "testdata", "sample.pcap")

// The bundled sample must be exactly what the generator (cmd/gensample,
// which writes Sample().WritePcap) makes.
func TestSampleCapture(t *testing.T) {
	var buf bytes.Buffer
	if err := Sample().WritePcap(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatalf("%v (run go generate ./dissect/dissecttest)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s differs from the generator's output; run go generate ./dissect/dissecttest", samplePath)
	}
}

// testdata/unacked-fragment.pcap is the verdict scenario of that name.
func TestUnackedFragmentCapture(t *testing.T) {
	s, _ := VerdictScenario("unacked-fragment")
	var buf bytes.Buffer
	if err := s.WritePcap(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(filepath.Dir(samplePath), "unacked-fragment.pcap")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go generate ./dissect/dissecttest)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s differs from the generator's output; run go generate ./dissect/dissecttest", path)
	}
}

// Every datagram of the sample frames cleanly.
func TestSampleFrames(t *testing.T) {
	var dg transport.Datagram
	for i, d := range Sample().Datagrams {
		if d.Plain[0] == '\\' {
			continue
		}
		transport.Decode(d.Plain, &dg)
		if len(dg.Anomalies) != 0 {
			t.Errorf("datagram %d: %+v", i, dg.Anomalies)
		}
		if len(d.Plain) > 512 {
			t.Errorf("datagram %d is %d bytes, more than the stock 512", i, len(d.Plain))
		}
	}
}
