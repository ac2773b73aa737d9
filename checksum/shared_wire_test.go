package checksum

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// sharedRoot locates the read-only reference tree ../shared next to the repo
// root. Tests skip without it unless BCDUMP_REQUIRE_SHARED=1. Every test
// of this package that reads ../shared goes through it.
func sharedRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			dir = ""
			break
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if fi, err := os.Stat(shared); dir == "" || err != nil || !fi.IsDir() {
		if os.Getenv("BCDUMP_REQUIRE_SHARED") == "1" {
			t.Fatalf("shared reference tree not found (looked for %s); BCDUMP_REQUIRE_SHARED=1", shared)
		}
		t.Skipf("shared reference tree not found at %s; skipping tests on shared material", shared)
	}
	return shared
}

// gameMsg is one unfragmented 0x32 payload of a decrypted datagram.
type gameMsg struct {
	Frame    int  // 1-based row of the source file
	FromHost bool // datagram byte 0 is the host's peer id 1
	Payload  []byte
}

// stockMessages returns the game payloads of captures/stock-excerpts.source.jsonl
// (decrypted stock datagrams, seed 003 trace included) in capture order.
func stockMessages(t testing.TB) []gameMsg {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedRoot(t), "captures", "stock-excerpts.source.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []gameMsg
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for frame := 1; sc.Scan(); frame++ {
		var row struct {
			PlainHex string `json:"plain_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("frame %d: %v", frame, err)
		}
		d, err := hex.DecodeString(row.PlainHex)
		if err != nil {
			t.Fatalf("frame %d: %v", frame, err)
		}
		for _, p := range dataPayloads(t, d) {
			out = append(out, gameMsg{Frame: frame, FromHost: d[0] == 1, Payload: p})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dataPayloads splits a decrypted datagram (protocol-facts 3 and 4) and
// returns its unfragmented type 0x32 payloads. Test-only: the transport
// package owns the real framing, and checksum must not import it.
func dataPayloads(t testing.TB, d []byte) [][]byte {
	t.Helper()
	if len(d) < 2 {
		return nil
	}
	var out [][]byte
	off := 2
	for i := 0; i < int(d[1]) && off < len(d); i++ {
		switch typ := d[off]; {
		case typ == 0x01: // ACK: seq u16, flags, [frag]
			n := 4
			if off+3 < len(d) && d[off+3]&1 != 0 {
				n = 5
			}
			off += n
		case typ <= 0x05 || typ == 0x32:
			fl := int(d[off+1]) | int(d[off+2])<<8
			mask := 0x3FFF
			if typ == 0x32 {
				mask = 0x1FFF
			}
			n := fl & mask
			if off+n > len(d) || n < 3 {
				t.Fatalf("bad message length %d at %d in % X", n, off, d)
			}
			if typ == 0x32 && fl&0x2000 == 0 {
				h := 3
				if fl&0x8000 != 0 {
					h = 5
				}
				out = append(out, d[off+h:off+n])
			}
			off += n
		default:
			t.Fatalf("unknown transport type 0x%02X at %d", typ, off)
		}
	}
	return out
}

// stockPayload returns the first stock payload starting with the given
// opcode and round byte.
func stockPayload(t testing.TB, op, round byte) []byte {
	t.Helper()
	for _, m := range stockMessages(t) {
		if len(m.Payload) >= 2 && m.Payload[0] == op && m.Payload[1] == round {
			return m.Payload
		}
	}
	t.Fatalf("no stock payload %02X %02X", op, round)
	return nil
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
