package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// A stock server's packet_trace.log of a game replays like the capture
// it was written from: its clients against Serve of the capture compare
// equal.
func TestReplayFromTraceLog(t *testing.T) {
	const ref = "../../testdata/captures/openbc-session-2.pcap"
	r, err := capture.Open(ref, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = dissecttest.WriteTraceLog(&b, r, dissecttest.TraceLogOptions{})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(tempDir(t), "packet_trace.log")
	if err := os.WriteFile(log, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := load(t, log)
	if n := len(trace.Conversations); n != 5 {
		t.Fatalf("%d conversations in the log, want the capture's 5", n)
	}
	drive, serve := selfReplay(t, trace, load(t, ref), Options{Settle: 300 * time.Millisecond})
	for _, r := range append(differing(drive), differing(serve)...) {
		t.Errorf("%+v", r)
	}
}

// A checksum answer built from a manifest is what a client holding the
// manifest's files sends: it parses, and carries the manifest's hashes
// under the requested directory's hash.
func TestManifestAnswer(t *testing.T) {
	m, err := checksum.LoadFile("../../testdata/vanilla-1.1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		round uint8
		dir   string
	}{{0, "scripts/"}, {2, "scripts/ships"}, {3, "scripts/mainmenu"}} {
		req := checksum.Request{Round: tc.round, Dir: []byte(tc.dir)}
		p := manifestAnswer(m, req)
		resp, err := checksum.ParseResponse(p)
		if err != nil {
			t.Fatalf("round %d: %v", tc.round, err)
		}
		mr := m.Round(tc.round)
		files, dirs := resp.Root.Count()
		wantFiles := len(mr.Files)
		for _, d := range mr.Subdirs {
			wantFiles += len(d.Files)
		}
		if resp.Round != tc.round || resp.HasRef != (tc.round == 0) || resp.DirHash != checksum.StringHash(checksum.TrimDir(tc.dir)) ||
			files != wantFiles || dirs != len(mr.Subdirs) || resp.Root.Files[0].ContentHash != uint32(mr.Files[0].ContentHash) {
			t.Errorf("round %d: %+v (%d files, %d dirs)", tc.round, resp, files, dirs)
		}
	}
	if p := manifestAnswer(m, checksum.Request{Round: 0x42}); p != nil {
		t.Errorf("a round the manifest lacks: % X", p)
	}
}
