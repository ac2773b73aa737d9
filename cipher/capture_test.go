package cipher

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../testdata"

// udpPayloads returns the UDP payloads of a classic little-endian pcap file
// with Ethernet framing and IPv4, which is how all captures in testdata are
// written. Just enough of a reader for these tests; frames it cannot read
// are a test failure.
func udpPayloads(t testing.TB, name string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", name))
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if len(raw) < 24 || le.Uint32(raw) != 0xA1B2C3D4 || le.Uint32(raw[20:]) != 1 {
		t.Fatalf("%s: not a little-endian Ethernet pcap", name)
	}
	var out [][]byte
	for off := 24; off < len(raw); {
		if off+16 > len(raw) {
			t.Fatalf("%s: truncated record header at %d", name, off)
		}
		n := int(le.Uint32(raw[off+8:]))
		frame := raw[off+16:]
		if n > len(frame) {
			t.Fatalf("%s: truncated frame at %d", name, off)
		}
		frame = frame[:n]
		off += 16 + n
		if len(frame) < 14+20 || frame[12] != 0x08 || frame[13] != 0x00 {
			t.Fatalf("%s: frame %d is not IPv4", name, len(out)+1)
		}
		ip := frame[14:]
		ihl := int(ip[0]&0x0F) * 4
		if ip[9] != 17 || len(ip) < ihl+8 {
			t.Fatalf("%s: frame %d is not UDP", name, len(out)+1)
		}
		udp := ip[ihl:]
		ulen := int(binary.BigEndian.Uint16(udp[4:]))
		if ulen < 8 || ulen > len(udp) {
			t.Fatalf("%s: frame %d: bad UDP length %d", name, len(out)+1, ulen)
		}
		out = append(out, udp[8:ulen])
	}
	return out
}

// TestStockExcerpts: the published stock-game packets (decrypted dumps from
// the stock server and client) as written to stock-excerpts.pcap.
func TestStockExcerpts(t *testing.T) {
	frames := udpPayloads(t, "stock-excerpts.pcap")
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []cipherRow
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r cipherRow
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) != len(frames) {
		t.Fatalf("%d source rows, %d frames", len(rows), len(frames))
	}
	for i, r := range rows {
		t.Run(r.Note, func(t *testing.T) {
			ciphertext := unhex(t, r.Cipher)
			if !bytes.Equal(frames[i], ciphertext) {
				t.Fatalf("frame %d differs from cipher_hex", i+1)
			}
			checkPair(t, unhex(t, r.Plain), ciphertext)
		})
	}
}

// TestSessionTruth decrypts every BC datagram of a real OpenBC server
// capture and compares it with the independently produced truth file.
func TestSessionTruth(t *testing.T) {
	frames := udpPayloads(t, "openbc-session-2.pcap")
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", "openbc-session-2.truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r struct {
			Frame int    `json:"frame"`
			Kind  string `json:"kind"`
			Plain string `json:"plain_hex"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Frame < 1 || r.Frame > len(frames) {
			t.Fatalf("truth frame %d outside the capture (%d frames)", r.Frame, len(frames))
		}
		payload := frames[r.Frame-1]
		if r.Kind != "bc" {
			if len(payload) == 0 || payload[0] != '\\' {
				t.Errorf("frame %d: kind %q but byte 0 is not '\\'", r.Frame, r.Kind)
			}
			continue
		}
		got := bytes.Clone(payload)
		Decrypt(got)
		if want := unhex(t, r.Plain); !bytes.Equal(got, want) {
			t.Errorf("frame %d:\n got % X\nwant % X", r.Frame, got, want)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no BC datagrams in truth file")
	}
	t.Logf("%d datagrams match the truth file", checked)
}

// TestSessionSanity applies the spec's decoder checklist (section 8) to
// every game datagram of the long battle capture: after deciphering, byte 2
// must be a known transport type whenever byte 1 announces messages.
func TestSessionSanity(t *testing.T) {
	bad, games := 0, 0
	for i, p := range udpPayloads(t, "openbc-session-3.pcap") {
		if len(p) == 0 || p[0] == '\\' {
			continue
		}
		games++
		d := bytes.Clone(p)
		Decrypt(d)
		if len(d) < 3 || d[1] == 0 {
			continue
		}
		switch d[2] {
		case 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x32: // 0x06: OpenBC's disconnect
		default:
			bad++
			if bad <= 5 {
				t.Errorf("frame %d: transport type 0x%02X after deciphering: % X", i+1, d[2], d[:min(len(d), 16)])
			}
		}
	}
	if games == 0 {
		t.Fatal("no game datagrams")
	}
	t.Logf("%d game datagrams, %d with an unknown first transport type", games, bad)
}
