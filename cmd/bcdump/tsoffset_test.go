package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pcapngWithTSOffset is the first frame of sample.pcap in a pcapng file
// whose interface has if_tsoffset sec and timestamp 0.
func pcapngWithTSOffset(t *testing.T, sec int64) []byte {
	t.Helper()
	pcap, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	frame := pcap[40 : 40+le.Uint32(pcap[32:36])]
	block := func(b []byte, typ uint32, body []byte) []byte {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		b = le.AppendUint32(b, typ)
		b = le.AppendUint32(b, uint32(12+len(body)))
		b = append(b, body...)
		return le.AppendUint32(b, uint32(12+len(body)))
	}
	shb := le.AppendUint64(le.AppendUint32(le.AppendUint32(nil, 0x1A2B3C4D), 1), ^uint64(0))
	idb := le.AppendUint32(le.AppendUint32(nil, le.Uint32(pcap[20:24])), 65535)
	idb = le.AppendUint16(le.AppendUint16(idb, 14), 8)
	idb = le.AppendUint32(le.AppendUint64(idb, uint64(sec)), 0)
	epb := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0), 0), 0)
	epb = le.AppendUint32(le.AppendUint32(epb, uint32(len(frame))), uint32(len(frame)))
	epb = append(epb, frame...)
	b := block(nil, 0x0A0D0D0A, shb)
	b = block(b, 1, idb)
	return block(b, 6, epb)
}

// A pcapng if_tsoffset of -2^63 puts a datagram before the year 0000: it
// is shown at the start of that year, and read -F json stays valid JSON.
func TestReadJSONEarliestTime(t *testing.T) {
	path := filepath.Join(tempDir(t), "offset.pcapng")
	if err := os.WriteFile(path, pcapngWithTSOffset(t, -1<<63), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, nil, "read", "-F", "json", path)
	if code != 0 || out == "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("not JSON: %s", line)
		}
	}
	if !strings.Contains(out, `"time":"0000-01-01T00:00:00.000000000Z","ts":-62167219200.000000000,`) {
		t.Errorf("not at the start of the year 0000: %s", out)
	}
}
