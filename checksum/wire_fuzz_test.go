package checksum

import (
	"bytes"
	"testing"
)

func FuzzParseRequest(f *testing.F) {
	f.Add(hexNoSpace(f, specReq0))
	f.Add(hexNoSpace(f, "20FF 0100 53 0500 2A2E707963 01"))
	f.Add(hexNoSpace(f, "2002 0D00 736372697074732F7368697073 0500 2A2E707963 21"))
	for _, p := range stockPayloads(f, OpRequest) {
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
	for _, p := range stockPayloads(f, OpResponse) {
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

// benchPayload is the longest stock checksum response.
func benchPayload(b *testing.B) []byte {
	var best []byte
	for _, p := range stockPayloads(b, OpResponse) {
		if len(p) > len(best) {
			best = p
		}
	}
	return best
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
