package checksum

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../testdata"

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
	f, err := os.Open(filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl"))
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

// stockPayloads returns the stock payloads starting with the given opcode.
func stockPayloads(t testing.TB, op byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, m := range stockMessages(t) {
		if len(m.Payload) > 0 && m.Payload[0] == op {
			out = append(out, m.Payload)
		}
	}
	return out
}

// stockPayload returns the first stock payload starting with the given
// opcode and round byte.
func stockPayload(t testing.TB, op, round byte) []byte {
	t.Helper()
	for _, p := range stockPayloads(t, op) {
		if len(p) >= 2 && p[1] == round {
			return p
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
