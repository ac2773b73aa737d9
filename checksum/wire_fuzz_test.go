package checksum

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// optionalStock returns the stock payloads with the given opcode when the
// shared tree is present, for seeding fuzz corpora (never skips).
func optionalStock(op byte) [][]byte {
	for _, dir := range []string{"../../shared", "../shared"} {
		b, err := os.ReadFile(filepath.Join(dir, "captures", "stock-excerpts.source.jsonl"))
		if err != nil {
			continue
		}
		var out [][]byte
		for _, line := range bytes.Split(b, []byte("\n")) {
			var row struct {
				PlainHex string `json:"plain_hex"`
			}
			if json.Unmarshal(line, &row) != nil {
				continue
			}
			d, err := hex.DecodeString(row.PlainHex)
			if err != nil {
				continue
			}
			// Unfragmented 0x32 payloads appear right after the 5-byte
			// reliable header; a byte search is enough for seeding.
			for i := 0; i+6 < len(d); i++ {
				if d[i] == 0x32 && d[i+2]&0xE0 == 0x80 && d[i+5] == op {
					n := int(d[i+1]) | int(d[i+2]&0x1F)<<8
					if i+n <= len(d) && n > 5 {
						out = append(out, d[i+5:i+n])
					}
				}
			}
		}
		return out
	}
	return nil
}

func FuzzParseRequest(f *testing.F) {
	f.Add(hexNoSpace(f, specReq0))
	f.Add(hexNoSpace(f, "20FF 0100 53 0500 2A2E707963 01"))
	f.Add(hexNoSpace(f, "2002 0D00 736372697074732F7368697073 0500 2A2E707963 21"))
	for _, p := range optionalStock(OpRequest) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		r, err := ParseRequest(p)
		if err != nil {
			return
		}
		// A request that parses re-encodes to the same bytes.
		if got := AppendRequest(nil, &r); !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X, want % X", got, p)
		}
	})
}

func FuzzParseResponse(f *testing.F) {
	f.Add(hexNoSpace(f, specResp0))
	f.Add(hexNoSpace(f, "2102 C417D1C0 0000 01 01020304 000000"))
	f.Add(AppendResponse(nil, &Response{Round: 2, Root: nested(3)}))
	for _, p := range optionalStock(OpResponse) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		l := &eventLog{cover: make([]int, len(p))}
		werr := Walk(p, l)
		r, err := ParseResponse(p)
		if (werr == nil) != (err == nil) {
			t.Fatalf("Walk %v, ParseResponse %v", werr, err)
		}
		if err != nil {
			return
		}
		for i, c := range l.cover {
			if c != 1 {
				t.Fatalf("byte %d covered %d times", i, c)
			}
		}
		if got := AppendResponse(nil, r); !bytes.Equal(got, p) {
			t.Fatalf("re-encoded % X, want % X", got, p)
		}
	})
}

func benchPayload(b *testing.B) []byte {
	if ps := optionalStock(OpResponse); len(ps) > 0 {
		best := ps[0]
		for _, p := range ps {
			if len(p) > len(best) {
				best = p
			}
		}
		return best
	}
	// Without the shared tree: a synthetic tree shaped like round 0xFF.
	root := &Dir{Files: make([]File, 9)}
	ep := &Dir{NameHash: 1, Files: make([]File, 2)}
	for i := 0; i < 4; i++ {
		ep.Subdirs = append(ep.Subdirs, &Dir{NameHash: uint32(i + 2), Files: make([]File, 4)})
	}
	root.Subdirs = []*Dir{ep}
	return AppendResponse(nil, &Response{Round: 0xFF, DirHash: 0x8794D13F, Root: root})
}

func BenchmarkParseResponse(b *testing.B) {
	p := benchPayload(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := ParseResponse(p); err != nil {
			b.Fatal(err)
		}
	}
}

type nopVisitor struct{ files int }

func (v *nopVisitor) Header(Header)      {}
func (v *nopVisitor) Dir(DirStart)       {}
func (v *nopVisitor) File(FileEntry)     { v.files++ }
func (v *nopVisitor) Subdirs(SubdirList) {}
func (v *nopVisitor) EndDir(int, int)    {}

func BenchmarkWalk(b *testing.B) {
	p := benchPayload(b)
	v := &nopVisitor{}
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if err := Walk(p, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRequest(b *testing.B) {
	p := hexNoSpace(b, specReq0)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := ParseRequest(p); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseRequestNoAlloc(t *testing.T) {
	p := hexNoSpace(t, specReq0)
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseRequest(p) }); n != 0 {
		t.Errorf("ParseRequest allocates %v times", n)
	}
}
