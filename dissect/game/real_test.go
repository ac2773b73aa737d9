package game

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/transport"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

// dataPayloads returns copies of the unfragmented type 0x32 payloads of one
// decrypted datagram.
func dataPayloads(plain []byte) [][]byte {
	var dg transport.Datagram
	transport.Decode(plain, &dg)
	var out [][]byte
	for i := range dg.Messages {
		m := &dg.Messages[i]
		if m.Type == transport.TypeData && !m.Fragment && len(m.Payload) > 0 {
			out = append(out, append([]byte(nil), m.Payload...))
		}
	}
	return out
}

// TestStockExcerpts decodes every 0x32 payload of the stock excerpts (the
// published decrypted stock packets) and requires all of them to fit.
func TestStockExcerpts(t *testing.T) {
	path := filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl")
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var f Fields
	n := 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			Note     string `json:"note"`
			PlainHex string `json:"plain_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		plain, err := hex.DecodeString(row.PlainHex)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range dataPayloads(plain) {
			n++
			op, err := Decode(p, &f)
			if err != nil {
				t.Errorf("%s: %s % X: %v", row.Note, op.Name, p, err)
			}
			if op.Known && op.Decode == nil && !checksumOpcode(op.Code) {
				t.Errorf("%s: known opcode %s has no decoder", row.Note, op.Name)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Fatalf("only %d data payloads in the stock excerpts", n)
	}
}

// checksumOpcode reports the opcodes checksum.go (another file) decodes.
func checksumOpcode(c uint8) bool { return c >= 0x20 && c <= 0x28 }

// opStat counts clean and malformed payloads of one opcode.
type opStat struct{ clean, bad int }

// TestOpenBCCaptures decodes every unfragmented 0x32 payload of the OpenBC
// captures. OpenBC is not the stock game, so a malformed payload is not
// automatically our bug: every kind found is explained by knownOddOpenBC
// (OpenBC's own message shapes, which the spec says to flag, not misread);
// anything unexplained fails the test.
func TestOpenBCCaptures(t *testing.T) {
	for _, tc := range []struct {
		file    string
		minData int
	}{
		{"openbc-session-2.pcap", 90},
		{"openbc-session-3.pcap", 6000},
	} {
		t.Run(tc.file, func(t *testing.T) {
			stats, bad := decodeCapture(t, filepath.Join(testdata, "captures", tc.file))
			var codes []int
			for c := range stats {
				codes = append(codes, int(c))
			}
			sort.Ints(codes)
			total := 0
			for _, c := range codes {
				s := stats[uint8(c)]
				total += s.clean + s.bad
				t.Logf("0x%02X %-18s clean %5d malformed %4d", c, Lookup(uint8(c)).Name, s.clean, s.bad)
			}
			if total < tc.minData {
				t.Errorf("only %d payloads decoded, want at least %d", total, tc.minData)
			}
			why := map[string]int{}
			for _, b := range bad {
				if w := knownOddOpenBC(b.p); w != "" {
					why[w]++
					continue
				}
				t.Errorf("frame %d: %s % X: %v", b.frame, Lookup(b.p[0]).Name, b.p, b.err)
			}
			for w, n := range why {
				t.Logf("%4d malformed, explained: %s", n, w)
			}
		})
	}
}

// knownOddOpenBC explains malformed OpenBC payloads that are OpenBC's own
// message shapes rather than decoder bugs; "" means unexplained.
func knownOddOpenBC(p []byte) string {
	switch {
	case p[0] == 0x19 && len(p) == 19 && p[6]&0x02 != 0:
		return "TorpedoFire in OpenBC's codec (19 bytes, target flag bit 1, 5-byte cv4), not the stock 18-byte form (spec 7.4, 12.6)"
	case (p[0] >= 0x06 && p[0] <= 0x12 || p[0] == 0x1B) && len(p) == 5:
		return "serialized-event opcode carrying only an object id (OpenBC short form; stock sends the 17-byte event prefix)"
	case p[0] == 0x0A && len(p) == 10:
		return "SubsysStatus as object id + 5 bytes (OpenBC short form; stock sends the 18-byte event)"
	case (p[0] == 0x02 || p[0] == 0x03) && len(p) > 8 && ObjectNote(uint32(p[3])|uint32(p[4])<<8|uint32(p[5])<<16|uint32(p[6])<<24) != "":
		return "ObjCreate(Team) with the object id where the stock class id goes (OpenBC's own ship blob)"
	}
	return ""
}

type badPayload struct {
	frame int
	p     []byte
	err   error
}

// decodeCapture decrypts every BC datagram of a classic pcap and decodes its
// unfragmented data payloads.
func decodeCapture(t *testing.T, path string) (map[uint8]*opStat, []badPayload) {
	t.Helper()
	udp := captureUDP(t, path)
	stats := map[uint8]*opStat{}
	var bad []badPayload
	var f Fields
	for i, d := range udp {
		if len(d) == 0 || d[0] == '\\' { // GameSpy text, never enciphered
			continue
		}
		cipher.Decrypt(d)
		for _, p := range dataPayloads(d) {
			s := stats[p[0]]
			if s == nil {
				s = &opStat{}
				stats[p[0]] = s
			}
			_, err := Decode(p, &f)
			checkBalanced(t, &f)
			if err != nil {
				s.bad++
				bad = append(bad, badPayload{i + 1, p, err})
				continue
			}
			s.clean++
		}
	}
	return stats, bad
}

// checkBalanced fails when Object/Array markers and Ends do not pair up.
func checkBalanced(t testing.TB, f *Fields) {
	t.Helper()
	depth := 0
	for _, fl := range f.List {
		switch fl.Kind {
		case KindObject, KindArray:
			depth++
		case KindEnd:
			depth--
			if depth < 0 {
				t.Fatalf("unbalanced End in %v", f.List)
			}
		}
	}
	if depth != 0 {
		t.Fatalf("%d unclosed markers in %v", depth, f.List)
	}
}

// captureUDP returns the UDP payloads on the game port of a classic pcap.
func captureUDP(t testing.TB, path string) [][]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	udp, err := pcapUDPPayloads(raw, 22101)
	if err != nil {
		t.Fatal(err)
	}
	return udp
}

// pcapUDPPayloads is a minimal classic-pcap reader for tests: it returns the
// UDP payload of every IPv4 frame to or from port, in capture order (frames
// that are not such UDP become nil, keeping frame numbers aligned).
func pcapUDPPayloads(b []byte, port uint16) ([][]byte, error) {
	if len(b) < 24 {
		return nil, fmt.Errorf("pcap: %d-byte file", len(b))
	}
	var bo binary.ByteOrder
	switch binary.LittleEndian.Uint32(b) {
	case 0xA1B2C3D4, 0xA1B23C4D:
		bo = binary.LittleEndian
	case 0xD4C3B2A1, 0x4D3CB2A1:
		bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("pcap: bad magic % X", b[:4])
	}
	link := bo.Uint32(b[20:]) & 0xFFFF
	var out [][]byte
	for off := 24; off < len(b); {
		if len(b)-off < 16 {
			return nil, fmt.Errorf("pcap: truncated record header at %d", off)
		}
		n := int(bo.Uint32(b[off+8:]))
		off += 16
		if n > len(b)-off {
			return nil, fmt.Errorf("pcap: record of %d bytes overruns the file at %d", n, off)
		}
		out = append(out, udpPayload(b[off:off+n], link, port))
		off += n
	}
	return out, nil
}

// udpPayload strips the link, IPv4 and UDP headers from one frame.
func udpPayload(fr []byte, link uint32, port uint16) []byte {
	switch link {
	case 1: // Ethernet
		if len(fr) < 14 || binary.BigEndian.Uint16(fr[12:]) != 0x0800 {
			return nil
		}
		fr = fr[14:]
	case 0: // BSD loopback: 4-byte address family
		if len(fr) < 4 {
			return nil
		}
		fr = fr[4:]
	case 101, 12: // raw IP
	case 113: // Linux cooked
		if len(fr) < 16 {
			return nil
		}
		fr = fr[16:]
	default:
		return nil
	}
	if len(fr) < 20 || fr[0]>>4 != 4 || fr[9] != 17 {
		return nil
	}
	ihl := int(fr[0]&0x0F) * 4
	if ihl < 20 || len(fr) < ihl+8 {
		return nil
	}
	u := fr[ihl:]
	if binary.BigEndian.Uint16(u) != port && binary.BigEndian.Uint16(u[2:]) != port {
		return nil
	}
	ulen := int(binary.BigEndian.Uint16(u[4:]))
	if ulen < 8 || ulen > len(u) {
		return nil
	}
	return append([]byte(nil), u[8:ulen]...)
}
