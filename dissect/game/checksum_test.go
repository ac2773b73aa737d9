package game

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/checksum"
)

// Helpers here are prefixed ck so they cannot clash with other test files
// of this package.

// ckStockPayload returns the stock payload (captures/stock-excerpts, the
// decrypted seed 003 trace) starting with op and round. Unfragmented
// reliable 0x32 messages carry the payload after a 5-byte header.
func ckStockPayload(t testing.TB, op, round byte) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "captures", "stock-excerpts.source.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			PlainHex string `json:"plain_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		d, err := hex.DecodeString(row.PlainHex)
		if err != nil {
			t.Fatal(err)
		}
		for i := 2; i+7 <= len(d); i++ {
			n := int(d[i+1]) | int(d[i+2]&0x1F)<<8
			if d[i] == 0x32 && d[i+2]&0xE0 == 0x80 && d[i+5] == op && d[i+6] == round && i+n <= len(d) {
				return d[i+5 : i+n]
			}
		}
	}
	t.Fatalf("no stock payload %02X %02X", op, round)
	return nil
}

func ckHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ckCoverage counts how often each payload byte belongs to a value field.
func ckCoverage(p []byte, f *Fields) []int {
	c := make([]int, len(p))
	c[0]++ // the opcode
	for _, fl := range f.List {
		if fl.Kind == KindObject || fl.Kind == KindArray || fl.Kind == KindEnd {
			continue
		}
		for i := fl.Off; i < fl.Off+fl.Len && i < len(p); i++ {
			c[i]++
		}
	}
	return c
}

func ckSummary(t testing.TB, p []byte) (string, *Fields, error) {
	t.Helper()
	var f Fields
	op, err := Decode(p, &f)
	checkBalanced(t, &f)
	return string(op.Summary(nil, p, &f)), &f, err
}

// Spec 9.2 / 9.3 worked examples (the stock trace's round 0 packets).
const (
	ckReq0  = "20 00 0800 736372697074732F 0700 4170702E707963 20"
	ckResp0 = "21 00 43E20C7E 2FCBAF4D 0100 77B63E37 68A7A0F8 00"
)

func TestChecksumReqDecode(t *testing.T) {
	s, f, err := ckSummary(t, ckHex(t, ckReq0))
	if err != nil {
		t.Fatal(err)
	}
	if s != `round=0 "scripts/" "App.pyc"` {
		t.Errorf("summary %s", s)
	}
	want := []Field{
		{Name: "round", Kind: KindUint, Off: 1, Len: 1, Bit: -1, U: 0},
		{Name: "directory", Kind: KindString, Off: 2, Len: 10, Bit: -1, B: []byte("scripts/")},
		{Name: "filter", Kind: KindString, Off: 12, Len: 9, Bit: -1, B: []byte("App.pyc")},
		{Name: "recursive", Kind: KindBool, Off: 21, Len: 1, Bit: 0, U: 0},
	}
	if len(f.List) != len(want) {
		t.Fatalf("%d fields: %+v", len(f.List), f.List)
	}
	for i, w := range want {
		g := f.List[i]
		if g.Name != w.Name || g.Kind != w.Kind || g.Off != w.Off || g.Len != w.Len || g.Bit != w.Bit ||
			g.U != w.U || string(g.B) != string(w.B) {
			t.Errorf("field %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestChecksumReqStock(t *testing.T) {
	tests := []struct {
		round byte
		want  string
	}{
		{0, `round=0 "scripts/" "App.pyc"`},
		{1, `round=1 "scripts/" "Autoexec.pyc"`},
		{2, `round=2 "scripts/ships" "*.pyc" recursive`},
		{3, `round=3 "scripts/mainmenu" "*.pyc"`},
		{0xFF, `round=0xFF "Scripts/Multiplayer" "*.pyc" recursive`},
	}
	for _, tt := range tests {
		p := ckStockPayload(t, checksum.OpRequest, tt.round)
		s, f, err := ckSummary(t, p)
		if err != nil || s != tt.want {
			t.Errorf("round %d: %q %v", tt.round, s, err)
		}
		for i, c := range ckCoverage(p, f) {
			if c != 1 {
				t.Errorf("round %d: byte %d covered %d times", tt.round, i, c)
			}
		}
	}
}

func TestChecksumReqPlainFlag(t *testing.T) {
	s, f, err := ckSummary(t, ckHex(t, "20 02 0D00 736372697074732F7368697073 0500 2A2E707963 01"))
	if err != nil {
		t.Fatal(err)
	}
	fl, ok := f.Get("recursive")
	if !ok || fl.Bit != -1 || fl.U != 1 || fl.Note == "" || s != `round=2 "scripts/ships" "*.pyc" recursive` {
		t.Errorf("%+v %q", fl, s)
	}
}

func TestChecksumRespRound0(t *testing.T) {
	s, f, err := ckSummary(t, ckHex(t, ckResp0))
	if err != nil {
		t.Fatal(err)
	}
	if s != "round=0 1 file" {
		t.Errorf("summary %q", s)
	}
	type tok struct {
		name string
		kind Kind
		off  int
		u    uint64
	}
	want := []tok{
		{"round", KindUint, 1, 0},
		{"ref_hash", KindHash, 2, 0x7E0CE243},
		{"dir_hash", KindHash, 6, 0x4DAFCB2F},
		{"file_count", KindUint, 10, 1},
		{"files", KindArray, 12, 0},
		{"", KindObject, 12, 0},
		{"name_hash", KindHash, 12, 0x373EB677},
		{"content_hash", KindHash, 16, 0xF8A0A768},
		{"", KindEnd, 0, 0},
		{"", KindEnd, 0, 0},
		{"subdir_count", KindUint, 20, 0},
		{"subdirs", KindArray, 21, 0},
		{"", KindEnd, 0, 0},
	}
	if len(f.List) != len(want) {
		t.Fatalf("%d fields: %+v", len(f.List), f.List)
	}
	for i, w := range want {
		g := f.List[i]
		if g.Name != w.name || g.Kind != w.kind || g.Off != w.off || g.U != w.u {
			t.Errorf("field %d: %+v, want %+v", i, g, w)
		}
		if g.Kind == KindHash && g.Len != 4 {
			t.Errorf("field %d: hash length %d", i, g.Len)
		}
	}
}

func TestChecksumRespStock(t *testing.T) {
	tests := []struct {
		round byte
		want  string
	}{
		{0, "round=0 1 file"},
		{1, "round=1 1 file"},
		{3, "round=3 4 files"},
		{0xFF, "round=0xFF 28 files 5 dirs"},
	}
	for _, tt := range tests {
		p := ckStockPayload(t, checksum.OpResponse, tt.round)
		s, f, err := ckSummary(t, p)
		if err != nil || s != tt.want {
			t.Errorf("round %d: %q %v", tt.round, s, err)
		}
		for i, c := range ckCoverage(p, f) {
			if c != 1 {
				t.Errorf("round %d: byte %d covered %d times", tt.round, i, c)
			}
		}
	}
	// Round 0xFF nesting: subdirs[0] is Episode, at its name hash (offset 81).
	p := ckStockPayload(t, checksum.OpResponse, 0xFF)
	_, f, _ := ckSummary(t, p)
	sub, ok := f.Get("subdirs")
	if !ok {
		t.Fatal("no subdirs")
	}
	i := 0
	for &f.List[i] != sub {
		i++
	}
	ep := f.List[i+1 : i+4]
	if ep[0].Kind != KindObject || ep[0].Off != 81 || ep[1].Name != "name_hash" || ep[1].U != 0x83C82BA5 ||
		ep[1].Off != 81 || ep[2].Name != "file_count" || ep[2].Off != 85 || ep[2].U != 2 {
		t.Errorf("Episode tokens %+v", ep)
	}
}

// A round 2 answer the size of the stock one: 51 files, and Hardpoints with
// 51 more (the captured one is fragmented and not published in full).
func TestChecksumRespRound2Summary(t *testing.T) {
	hp := &checksum.Dir{NameHash: 0xCAAFFDD4, Files: make([]checksum.File, 51)}
	r := &checksum.Response{Round: 2, DirHash: 0xC017D1C4, Root: &checksum.Dir{Files: make([]checksum.File, 51), Subdirs: []*checksum.Dir{hp}}}
	s, _, err := ckSummary(t, checksum.AppendResponse(nil, r))
	if err != nil || s != "round=2 102 files 1 dir" {
		t.Errorf("%q %v", s, err)
	}
}

func TestChecksumRespMalformed(t *testing.T) {
	tests := []struct {
		name    string
		hex     string
		off     int
		reason  string
		summary string
	}{
		{"round only", "21 01", 2, "dir_hash", "round=1"},
		{"short ref", "21 00 43E2", 2, "ref_hash", "round=0"},
		{"huge file count", "21 01 2FCBAF4D FFFF 00", 6, "file_count", "round=1"},
		{"subdir tree missing", "21 02 C417D1C0 0000 01 A48D1AC5", 8, "subdir_count", "round=2 0 files"},
		{"trailing", ckResp0 + "00", 21, "end", "round=0 1 file"},
		{"nested cut", "21 02 C417D1C0 0100 0102030405060708 01 A48D1AC5 0100 01020304", 21, "file_count", "round=2 1 file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := ckSummary(t, ckHex(t, tt.hex))
			var me *MalformedError
			if !errors.As(err, &me) || me.Off != tt.off || !strings.HasPrefix(me.Reason(), tt.reason) {
				t.Fatalf("err %v, want offset %d %s", err, tt.off, tt.reason)
			}
			if s != tt.summary {
				t.Errorf("summary %q, want %q", s, tt.summary)
			}
		})
	}
	// Every cut of the real round 0xFF payload is malformed and balanced.
	p := ckStockPayload(t, checksum.OpResponse, 0xFF)
	for n := 1; n < len(p); n++ {
		_, _, err := ckSummary(t, p[:n])
		var me *MalformedError
		if !errors.As(err, &me) || me.Off > n {
			t.Fatalf("cut %d: %v", n, err)
		}
	}
}

func TestChecksumReqMalformed(t *testing.T) {
	s, f, err := ckSummary(t, ckHex(t, "20 03 1000 7363726970"))
	var me *MalformedError
	if !errors.As(err, &me) || me.Off != 2 || len(f.List) != 1 || s != "round=3" {
		t.Errorf("%v %+v %q", err, f.List, s)
	}
	_, _, err = ckSummary(t, ckHex(t, "20 00 0100 73 0100 2A 61"))
	if !errors.As(err, &me) || me.Off != 8 || !strings.Contains(me.Reason(), "0x61") {
		t.Errorf("flag 0x61: %v", err)
	}
}

// TestNetFileAlone: 0x27 FileTransferAck is the opcode alone (extra
// bytes shown, not an error: D), and 0x28 counts what follows it.
func TestNetFileAlone(t *testing.T) {
	if s, f, err := ckSummary(t, []byte{0x27}); err != nil || len(f.List) != 0 || s != "" {
		t.Errorf("0x27 alone: %+v %q %v", f.List, s, err)
	}
	s, f, err := ckSummary(t, []byte{0x27, 1, 2, 3})
	if fl, ok := f.Get("extra"); err != nil || !ok || fl.Off != 1 || len(fl.B) != 3 || s != "extra=[3B]" {
		t.Errorf("0x27 extra: %+v %q %v", f.List, s, err)
	}
	if s, f, err := ckSummary(t, []byte{0x28}); err != nil || len(f.List) != 0 || s != "" {
		t.Errorf("0x28: %+v %q %v", f.List, s, err)
	}
	s, f, err = ckSummary(t, []byte{0x28, 9})
	if fl, ok := f.Get("extra"); err != nil || !ok || fl.Off != 1 || len(fl.B) != 1 || s != "1 byte" {
		t.Errorf("0x28 extra: %+v %q %v", f.List, s, err)
	}
}

func FuzzChecksumDecode(f *testing.F) {
	f.Add(ckHex(f, ckReq0))
	f.Add(ckHex(f, ckResp0))
	f.Add(ckHex(f, "21 02 C417D1C0 0100 0102030405060708 01 A48D1AC5 0100 0102030405060708 00"))
	f.Add([]byte{0x28, 1})
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, op := range []byte{checksum.OpRequest, checksum.OpResponse} {
			q := append([]byte{op}, p...)
			var fs Fields
			_, err := Decode(q, &fs)
			checkBalanced(t, &fs)
			if err != nil {
				var me *MalformedError
				if !errors.As(err, &me) {
					t.Fatalf("error type %T", err)
				}
				continue
			}
			for i, c := range ckCoverage(q, &fs) {
				if c != 1 {
					t.Fatalf("byte %d covered %d times", i, c)
				}
			}
		}
	})
}

func BenchmarkChecksumRespDecode(b *testing.B) {
	p := ckStockPayload(b, checksum.OpResponse, 0xFF)
	var f Fields
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := Decode(p, &f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChecksumReqDecode(b *testing.B) {
	p := ckHex(b, ckReq0)
	var f Fields
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := Decode(p, &f); err != nil {
			b.Fatal(err)
		}
	}
}
