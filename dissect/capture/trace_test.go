package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// tracePkt is what a test expects of one datagram read from a trace.
type tracePkt struct {
	src, dst string
	time     string // 15:04:05.000 or a full RFC 3339 time
	hex      string
	comment  string
}

// readTrace reads every datagram and note of a trace.
func readTrace(t *testing.T, data []byte, opt Options) (pkts []Packet, payloads [][]byte, notes []Note, err error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "t.log", opt)
	if err != nil {
		return nil, nil, nil, err
	}
	for {
		var p Packet
		err := r.Next(&p)
		if err == io.EOF {
			break
		}
		if err != nil {
			return pkts, payloads, notes, err
		}
		notes = append(notes, p.Lost...)
		p.Lost = nil
		payloads = append(payloads, append([]byte(nil), p.Payload...))
		p.Data, p.Payload = nil, nil
		pkts = append(pkts, p)
	}
	return pkts, payloads, append(notes, r.TakeNotes()...), nil
}

const logHead = "# STBC Dedicated Server - Packet Trace (DECRYPTED)\n# Session started: 2026-01-04 23:59:58\n# legend\n\n"

func TestTraceLog(t *testing.T) {
	tests := []struct {
		name  string
		log   string
		want  []tracePkt
		notes []string // substrings, in order
	}{{
		name: "game, GameSpy, peers past the table, S->?, midnight",
		log: logHead + "# NEW PEER: Peer#0(10.0.0.2:2655)\n" +
			"[23:59:59.250] #1 C->S Peer#0(10.0.0.2:2655) len=6 rc=6 [GameData]\n  Decrypted:\n" +
			"    0000: 02 01 01 00 00 00                                |......|\n      writer decode 00 11: ignored\n\n" +
			"[00:00:00.010] #2 C->S 10.0.0.9:5000 len=9 rc=9 GAMESPY_QUERY [\\status\\]\n  Text: \\status\\.\n  Decoded:\n    status = \n  Hex:\n" +
			"    0000: 5C 73 74 61 74 75 73 5C 00                       |\\status\\.|\n\n" +
			"[00:00:00.020] #3 S->? unknown len=2 rc=-1 [GameData]\n  Decrypted:\n    0000: 01 00                                            |..|\n\n",
		want: []tracePkt{
			{"10.0.0.2:2655", "192.0.2.1:22101", "2026-01-04T23:59:59.25Z", "020101000000", "trace #1 [GameData]"},
			{"10.0.0.9:5000", "192.0.2.1:22101", "2026-01-05T00:00:00.01Z", "5c7374617475735c00", `trace #2 GAMESPY_QUERY [\status\]`},
			{"192.0.2.1:22101", "198.51.100.254:1", "2026-01-05T00:00:00.02Z", "0100", "trace #3 rc=-1 [GameData]"},
		},
	}, {
		name: "truncated entry, malformed lines, len mismatch",
		log: logHead +
			"[10:00:00.000] #1 S->C Peer#0(10.0.0.2:2655) len=2100 rc=2100\n  Decrypted:\n    0000: 01 00 |..|\n    ... (2098 bytes truncated)\n\n" +
			"stray text\n" +
			"[10:00:00.100] #2 X->Y Peer#0(10.0.0.2:2655) len=2 rc=2\n  Decrypted:\n    0000: 01 00 |..|\n\n" +
			"[10:00:00.200] #3 S->C Peer#0(10.0.0.2:2655) len=3 rc=3\n  Decrypted:\n    0000: 01 00 |..|\n\n" +
			"[10:00:00.300] #4 S->C Peer#0(10.0.0.2:2655) len=2 rc=2\n  Decrypted:\n    0010: 01 00 |..|\n\n" +
			"[10:00:00.400] #5 S->C Peer#0(10.0.0.2:2655) len=2 rc=2\n  Decrypted:\n    0000: 01 00 |..|\n\n",
		want: []tracePkt{{"192.0.2.1:22101", "10.0.0.2:2655", "2026-01-05T10:00:00.4Z", "0100", "trace #5"}},
		notes: []string{"line 5: entry #1 is truncated: the log holds 2 of its 2100 bytes",
			"line 10: a line outside any entry", "line 11: entry #2 (line 11) skipped: bad direction",
			"line 15: entry #3 says len=3 but dumps 2", "line 21: entry #4 (line 19) skipped: hex row at offset 0x10"},
	}, {
		name: "cut mid-entry",
		log: logHead + "[10:00:00.000] #1 S->C Peer#0(10.0.0.2:2655) len=2 rc=2\n  Decrypted:\n    0000: 01 00 |..|\n\n" +
			"[10:00:00.100] #2 S->C Peer#0(10.0.0.2:2655) len=20 rc=20\n  Decrypted:\n    0000: 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 |................|\n",
		want:  []tracePkt{{"192.0.2.1:22101", "10.0.0.2:2655", "2026-01-05T10:00:00Z", "0100", "trace #1"}},
		notes: []string{"ends inside entry #2 (line 9), after line 11: the log was cut"},
	}, {
		name: "last entry whole without its empty line, CRLF, no header",
		log:  "[10:00:00.000] #7 C->S 10.0.0.2:2655 len=2 rc=2\r\n  Decrypted:\r\n    0000: 02 00 |..|\r\n",
		want: []tracePkt{{"10.0.0.2:2655", "192.0.2.1:22101", "1970-01-01T10:00:00Z", "0200", "trace #7"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkts, payloads, notes, err := readTrace(t, []byte(tt.log), Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkTrace(t, pkts, payloads, tt.want)
			checkNotes(t, notes, tt.notes)
		})
	}
}

func checkTrace(t *testing.T, pkts []Packet, payloads [][]byte, want []tracePkt) {
	t.Helper()
	if len(pkts) != len(want) {
		t.Fatalf("%d datagrams, want %d", len(pkts), len(want))
	}
	for i, w := range want {
		p := pkts[i]
		wt, err := time.Parse(time.RFC3339Nano, w.time)
		if err != nil {
			t.Fatal(err)
		}
		if p.Src.String() != w.src || p.Dst.String() != w.dst || !p.Time.Equal(wt) ||
			hex.EncodeToString(payloads[i]) != w.hex || p.Comment != w.comment || p.Kind != KindMatched || p.Frame != i+1 {
			t.Errorf("datagram %d: %d %v -> %v %v %x %q kind %v, want %+v", i, p.Frame, p.Src, p.Dst, p.Time, payloads[i], p.Comment, p.Kind, w)
		}
	}
}

func checkNotes(t *testing.T, notes []Note, want []string) {
	t.Helper()
	if len(notes) != len(want) {
		for _, n := range notes {
			t.Log(n.Anomaly.Text.String())
		}
		t.Fatalf("%d notes, want %d", len(notes), len(want))
	}
	for i, w := range want {
		if s := notes[i].Anomaly.Text.String(); !strings.Contains(s, w) {
			t.Errorf("note %d: %q, want it to contain %q", i, s, w)
		}
	}
}

// TestTraceLogSeed reads the stock server's dumps quoted in seed 003.
func TestTraceLogSeed(t *testing.T) {
	data, err := os.ReadFile("testdata/trace/seed003.log")
	if err != nil {
		t.Fatal(err)
	}
	server := netip.MustParseAddrPort("127.0.0.1:22101")
	pkts, payloads, notes, err := readTrace(t, data, Options{Trace: TraceOptions{Server: server}})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %v", notes)
	}
	lens := []int{35, 28, 38, 24, 32, 45, 52, 42, 65}
	if len(pkts) != len(lens) {
		t.Fatalf("%d datagrams, want %d", len(pkts), len(lens))
	}
	for i, n := range lens {
		if len(payloads[i]) != n {
			t.Errorf("datagram %d: %d bytes, want %d", i+1, len(payloads[i]), n)
		}
		if (payloads[i][0] == 1) != (pkts[i].Src == server) {
			t.Errorf("datagram %d: peer id %d from %v", i+1, payloads[i][0], pkts[i].Src)
		}
	}
	if got := hex.EncodeToString(payloads[0][:9]); got != "01020306c000000232" {
		t.Errorf("first datagram starts %s", got)
	}
}

// A packet_trace.log with CR-only line ends (an old Mac editor) reads as
// the same datagrams as with LF and CRLF (issue 38: it read as "no
// packets", exit 0).
func TestTraceLogLineEnds(t *testing.T) {
	data, err := os.ReadFile("testdata/trace/seed003.log")
	if err != nil {
		t.Fatal(err)
	}
	server := netip.MustParseAddrPort("127.0.0.1:22101")
	want, wantPay, _, err := readTrace(t, data, Options{Trace: TraceOptions{Server: server}})
	if err != nil || len(want) != 9 {
		t.Fatalf("LF: %d datagrams, %v", len(want), err)
	}
	for _, eol := range []string{"\r\n", "\r"} {
		pkts, pays, notes, err := readTrace(t, bytes.ReplaceAll(data, []byte("\n"), []byte(eol)), Options{Trace: TraceOptions{Server: server}})
		if err != nil || len(notes) != 0 || len(pkts) != len(want) {
			t.Fatalf("%q: %d datagrams, notes %v, %v", eol, len(pkts), notes, err)
		}
		for i := range pkts {
			if !bytes.Equal(pays[i], wantPay[i]) || !pkts[i].Time.Equal(want[i].Time) || pkts[i].Comment != want[i].Comment {
				t.Errorf("%q: datagram %d differs", eol, i+1)
			}
		}
	}
}

func TestTraceRecognised(t *testing.T) {
	log := logHead + "[10:00:00.000] #1 S->C Peer#0(10.0.0.2:2655) len=2 rc=2\n  Decrypted:\n    0000: 01 00 |..|\n\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(log))
	zw.Close()
	obc := obcFile(obcRec{1, 'S', 0, []byte{0x2c}})
	for _, tt := range []struct {
		name, format string
		data         []byte
	}{{"log", FormatTraceLog, []byte(log)}, {"gzip log", FormatTraceLog, gz.Bytes()}, {"obc", FormatOBCTrace, obc},
		{"BOM log", FormatTraceLog, append([]byte("\xef\xbb\xbf"), log...)}} {
		r, err := NewReader(bytes.NewReader(tt.data), "x", Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var p Packet
		if r.Format() != tt.format || !r.Plaintext() || !r.IsTrace() || r.Next(&p) != nil {
			t.Errorf("%s: format %q plaintext %v", tt.name, r.Format(), r.Plaintext())
		}
	}
	if _, err := NewReader(strings.NewReader("hello\n"), "x", Options{}); !errors.Is(err, ErrNotCapture) {
		t.Errorf("text: %v", err)
	}
}

type obcRec struct {
	tick  uint32
	dir   byte
	slot  byte
	bytes []byte
}

func obcFile(recs ...obcRec) []byte {
	b := []byte(obcMagic)
	for _, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, r.tick)
		b = append(b, r.dir, r.slot)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(r.bytes)))
		b = append(b, r.bytes...)
	}
	return b
}

func TestOBCTrace(t *testing.T) {
	long := make([]byte, obcMaxPayload+1)
	tests := []struct {
		name  string
		data  []byte
		opt   Options
		want  []tracePkt
		notes []string
	}{{
		name: "both directions, slots, tick",
		data: obcFile(obcRec{0, 'S', 0, []byte{0x2c, 1}}, obcRec{3, 'R', 1, []byte{0x28}}),
		opt:  Options{Trace: TraceOptions{Tick: 50 * time.Millisecond}},
		want: []tracePkt{
			{"198.51.100.1:2000", "192.0.2.1:22101", "1970-01-01T00:00:00Z", "0201320500" + "2c01", ""},
			{"192.0.2.1:22101", "198.51.100.2:2001", "1970-01-01T00:00:00.15Z", "0101320400" + "28", ""},
		},
	}, {
		name: "bad direction, empty, too long, cut",
		data: append(obcFile(obcRec{0, 'X', 0, []byte{1}}, obcRec{1, 'S', 0, nil}, obcRec{2, 'S', 0, long}, obcRec{3, 'R', 0, []byte{0x28}}), 9, 0, 0),
		want: []tracePkt{{"192.0.2.1:22101", "198.51.100.1:2000", "1970-01-01T00:00:00.3Z", "0101320400" + "28", ""}},
		notes: []string{"record 1 (offset 8): direction 0x58", "record 2 (offset 17): no payload",
			"record 3 (offset 25): a 8189-byte payload", "ends inside record 5 (offset 8231): 3 of its 8 bytes"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pkts, payloads, notes, err := readTrace(t, tt.data, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkTrace(t, pkts, payloads, tt.want)
			checkNotes(t, notes, tt.notes)
		})
	}
}

func traceSeeds() [][]byte {
	seed, _ := os.ReadFile("testdata/trace/seed003.log")
	return [][]byte{seed,
		[]byte(logHead + "[10:00:00.000] #1 S->C Peer#0(10.0.0.2:2655) len=2100 rc=2100\n  Decrypted:\n    0000: 01 00 |..|\n    ... (2098 bytes truncated)\n\n"),
		[]byte("[00:00:00.020] #3 S->? unknown len=2 rc=-1 [GameData]\n  Hex:\n    0000: 01 00\n      x\n"),
		obcFile(obcRec{0, 'S', 0, []byte{0x2c, 1}}, obcRec{3, 'R', 1, []byte{0x28}}),
		obcFile(obcRec{0, 'X', 0, nil})[:12],
	}
}

// FuzzTrace holds both trace parsers to: no panic, no hang, bounded
// output, and every datagram a well-formed synthetic frame.
func FuzzTrace(f *testing.F) {
	for _, s := range traceSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz", Options{})
		if err != nil {
			return
		}
		defer r.Close()
		var p Packet
		for i := 0; ; i++ {
			err := r.Next(&p)
			if err != nil {
				return
			}
			if i > len(data) {
				t.Fatalf("more datagrams (%d) than input bytes", i)
			}
			if len(p.Data) != udp4Header+len(p.Payload) || p.Kind != KindMatched {
				t.Fatalf("frame %d: %d bytes for a %d-byte payload, kind %v", p.Frame, len(p.Data), len(p.Payload), p.Kind)
			}
			if len(p.Lost) > maxTraceNotes {
				t.Fatalf("%d notes", len(p.Lost))
			}
		}
	})
}
