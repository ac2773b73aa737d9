package capture

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

// Real captures (see testdata/README.md): every frame is a UDP
// datagram to or from port 22101 on Ethernet.
func TestRealCaptures(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	for _, tc := range []struct {
		file      string
		datagrams int
	}{
		{"openbc-session-2.pcap", 160},
		{"stock-excerpts.pcap", 18},
		{"openbc-session-3.pcap", 4325},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, gz := range []bool{false, true} {
				in := raw
				if gz {
					in = gzipped(t, raw)
				}
				r := openBytes(t, in, Options{})
				got, err := readAll(t, r)
				if err != io.EOF {
					t.Fatal(err)
				}
				want := Stats{Frames: tc.datagrams, UDP: tc.datagrams, Matched: tc.datagrams}
				if len(got) != tc.datagrams || r.Stats() != want || r.Format() != "pcap" || r.LinkType() != layers.LinkTypeEthernet {
					t.Fatalf("gzip=%v: %d datagrams, stats %+v, %s %v", gz, len(got), r.Stats(), r.Format(), r.LinkType())
				}
				for i, p := range got {
					if p.Frame != i+1 || p.Truncated {
						t.Fatalf("datagram %d: frame %d truncated %v", i, p.Frame, p.Truncated)
					}
				}
			}
		})
	}
}

// Every row of openbc-session-2.truth.jsonl (from an independent parser)
// agrees with the reader on frame number, addresses, time and payload length.
func TestSessionTwoTruth(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	r, err := Open(filepath.Join(dir, "openbc-session-2.pcap"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readAll(t, r)
	if err != io.EOF {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "openbc-session-2.truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			Frame  int         `json:"frame"`
			Src    string      `json:"src"`
			Dst    string      `json:"dst"`
			TS     json.Number `json:"ts"`
			PayLen int         `json:"udp_payload_len"`
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&row); err != nil {
			t.Fatal(err)
		}
		if rows >= len(got) {
			t.Fatalf("truth has more rows than the reader returned (%d)", len(got))
		}
		p := got[rows]
		rows++
		if p.Frame != row.Frame || p.Src != netip.MustParseAddrPort(row.Src) || p.Dst != netip.MustParseAddrPort(row.Dst) ||
			len(p.Payload) != row.PayLen || !p.Time.Equal(decimalTime(t, string(row.TS))) {
			t.Errorf("row %d: got frame %d %v > %v len %d at %v; truth frame %d %s > %s len %d at %s",
				rows, p.Frame, p.Src, p.Dst, len(p.Payload), p.Time, row.Frame, row.Src, row.Dst, row.PayLen, row.TS)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 160 || rows != len(got) {
		t.Errorf("%d truth rows, %d datagrams", rows, len(got))
	}
}

// decimalTime parses "seconds.fraction" exactly (no float rounding).
func decimalTime(t *testing.T, s string) time.Time {
	t.Helper()
	sec, frac, _ := strings.Cut(s, ".")
	frac = (frac + "000000000")[:9]
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad ts %q", s)
	}
	return time.Unix(a, b)
}

// stock-excerpts.pcap holds exactly the cipher_hex of each source row.
func TestStockExcerptsPayloads(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	r, err := Open(filepath.Join(dir, "stock-excerpts.pcap"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := readAll(t, r)
	if err != io.EOF {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "stock-excerpts.source.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	if len(lines) != len(got) {
		t.Fatalf("%d source rows, %d datagrams", len(lines), len(got))
	}
	cli, srv := netip.MustParseAddrPort("127.0.0.1:50000"), netip.MustParseAddrPort("127.0.0.1:22101")
	for i, line := range lines {
		var row struct {
			CipherHex string `json:"cipher_hex"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		want, err := hex.DecodeString(row.CipherHex)
		if err != nil {
			t.Fatal(err)
		}
		p := got[i]
		if !bytes.Equal(p.Payload, want) {
			t.Errorf("frame %d: payload %X, want %X", p.Frame, p.Payload, want)
		}
		if !(p.Src == cli && p.Dst == srv || p.Src == srv && p.Dst == cli) {
			t.Errorf("frame %d: %v > %v", p.Frame, p.Src, p.Dst)
		}
	}
}

// Copying a real pcap through the writer reproduces it byte for byte.
func TestRealCopyIsIdentical(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	_, out := copyThrough(t, raw, nil)
	if !bytes.Equal(out, raw) {
		t.Errorf("copy differs: %d bytes vs %d", len(out), len(raw))
	}
}
