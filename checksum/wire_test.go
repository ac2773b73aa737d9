package checksum

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
)

// Spec 9.2 / 9.3 worked examples (verified against the seed 003 trace,
// packets #2 and #7).
const (
	specReq0  = "2000080073637269707473 2F0700 4170702E70796320"
	specResp0 = "2100 43E20C7E 2FCBAF4D 0100 77B63E37 68A7A0F8 00"
)

func hexNoSpace(t testing.TB, s string) []byte {
	return mustHex(t, string(bytes.ReplaceAll([]byte(s), []byte(" "), nil)))
}

func TestParseRequestStock(t *testing.T) {
	// The five requests of the stock trace (seed 003 #2 #8 #11 #21 #23).
	tests := []struct {
		round     byte
		dir       string
		filter    string
		recursive bool
	}{
		{0x00, "scripts/", "App.pyc", false},
		{0x01, "scripts/", "Autoexec.pyc", false},
		{0x02, "scripts/ships", "*.pyc", true},
		{0x03, "scripts/mainmenu", "*.pyc", false},
		{0xFF, "Scripts/Multiplayer", "*.pyc", true},
	}
	for _, tt := range tests {
		p := stockPayload(t, OpRequest, tt.round)
		r, err := ParseRequest(p)
		if err != nil {
			t.Fatalf("round %d: %v", tt.round, err)
		}
		if r.Round != tt.round || string(r.Dir) != tt.dir || string(r.Filter) != tt.filter ||
			r.Recursive != tt.recursive || r.PlainFlag || r.Fields != 4 {
			t.Errorf("round %d: got %+v", tt.round, r)
		}
		if r.DirOff != 2 || r.FilterOff != 4+len(tt.dir) || r.FlagOff != len(p)-1 {
			t.Errorf("round %d: offsets %d %d %d", tt.round, r.DirOff, r.FilterOff, r.FlagOff)
		}
		if got := AppendRequest(nil, &r); !bytes.Equal(got, p) {
			t.Errorf("round %d: re-encoded % X, want % X", tt.round, got, p)
		}
	}
	// The spec example equals the captured round 0 request.
	if p := hexNoSpace(t, specReq0); !bytes.Equal(p, stockPayload(t, OpRequest, 0)) {
		t.Errorf("spec 9.2 example differs from capture")
	}
}

func TestParseRequestBad(t *testing.T) {
	tests := []struct {
		name   string
		hex    string
		err    error
		off    int
		fields int
	}{
		{"empty", "", ErrOpcode, 0, 0},
		{"wrong-opcode", "21000000", ErrOpcode, 0, 0},
		{"no-round", "20", ErrShort, 1, 0},
		{"no-dir-len", "2000", ErrShort, 2, 1},
		{"half-dir-len", "200008", ErrShort, 2, 1},
		{"dir-overruns", "2000 0800 736372", ErrShort, 2, 1},
		{"dir-len-max", "2000 FFFF 73", ErrShort, 2, 1},
		{"no-filter", "2000 0100 73", ErrShort, 5, 2},
		{"filter-overruns", "2000 0100 73 0500 2A2E", ErrShort, 5, 2},
		{"no-flag", "2000 0100 73 0100 2A", ErrShort, 8, 3},
		{"flag-3-bits", "2000 0100 73 0100 2A 61", ErrFlag, 8, 3},
		{"flag-count-0-high-bit", "2000 0100 73 0100 2A 02", ErrFlag, 8, 3},
		{"trailing", "2000 0100 73 0100 2A 20 00", ErrTrailing, 9, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRequest(hexNoSpace(t, tt.hex))
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if pe.Off != tt.off || r.Fields != tt.fields {
				t.Errorf("off %d fields %d, want %d %d", pe.Off, r.Fields, tt.off, tt.fields)
			}
		})
	}
}

func TestParseRequestPlainFlag(t *testing.T) {
	for _, tt := range []struct {
		b         byte
		recursive bool
	}{{0x00, false}, {0x01, true}} {
		p := append(hexNoSpace(t, "20FF 0100 53 0500 2A2E707963"), tt.b)
		r, err := ParseRequest(p)
		if err != nil {
			t.Fatal(err)
		}
		if !r.PlainFlag || r.Recursive != tt.recursive {
			t.Errorf("byte %02X: %+v", tt.b, r)
		}
		if got := AppendRequest(nil, &r); !bytes.Equal(got, p) {
			t.Errorf("byte %02X: re-encoded % X", tt.b, got)
		}
	}
}

func TestParseResponseStockSmall(t *testing.T) {
	tests := []struct {
		round  byte
		ref    uint32
		dir    uint32
		files  []File
		source []byte // nil: from the capture
	}{
		{0, VersionHash, 0x4DAFCB2F, []File{{0x373EB677, 0xF8A0A768}}, hexNoSpace(t, specResp0)},
		{0, VersionHash, 0x4DAFCB2F, []File{{0x373EB677, 0xF8A0A768}}, nil},
		{1, 0, 0x4DAFCB2F, []File{{0x8501E6A1, 0x17930049}}, nil},
		{3, 0, 0x3409475D, []File{
			{0x5846668B, 0x8909747C}, // CardSpecificSetup.pyc
			{0x4370D29D, 0xB858BBC1}, // KeyboardConfig.pyc
			{0xE9DD9FA2, 0x2C8CD0AD}, // __init__.pyc
			{0xB54D1D23, 0x2DB130A7}, // mainmenu.pyc
		}, nil},
	}
	for _, tt := range tests {
		p := tt.source
		if p == nil {
			p = stockPayload(t, OpResponse, tt.round)
		}
		r, err := ParseResponse(p)
		if err != nil {
			t.Fatalf("round %d: %v", tt.round, err)
		}
		if r.Round != tt.round || r.HasRef != (tt.round == 0) || r.RefHash != tt.ref || r.DirHash != tt.dir {
			t.Errorf("round %d: header %+v", tt.round, r)
		}
		if len(r.Root.Subdirs) != 0 || !equalFiles(r.Root.Files, tt.files) {
			t.Errorf("round %d: files %X subdirs %d", tt.round, r.Root.Files, len(r.Root.Subdirs))
		}
		if got := AppendResponse(nil, r); !bytes.Equal(got, p) {
			t.Errorf("round %d: re-encoded % X, want % X", tt.round, got, p)
		}
	}
}

func equalFiles(a, b []File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParseResponseStockFinal decodes the full 268-byte round 0xFF payload
// (seed 003 #24, captures frame 10).
func TestParseResponseStockFinal(t *testing.T) {
	p := stockPayload(t, OpResponse, 0xFF)
	if len(p) != 268 {
		t.Fatalf("payload %d bytes, want 268", len(p))
	}
	r, err := ParseResponse(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.HasRef || r.DirHash != 0x8794D13F {
		t.Errorf("header %+v", r)
	}
	root := r.Root
	if len(root.Files) != 9 || root.Files[0] != (File{0x2C11712D, 0x86CE738F}) ||
		root.Files[8].NameHash != 0xE9DD9FA2 {
		t.Errorf("root files %X", root.Files)
	}
	if len(root.Subdirs) != 1 || root.Subdirs[0].NameHash != 0x83C82BA5 {
		t.Fatalf("root subdirs %+v", root.Subdirs)
	}
	ep := root.Subdirs[0]
	if len(ep.Files) != 2 || ep.Files[0].NameHash != 0x712E2686 {
		t.Errorf("Episode files %X", ep.Files)
	}
	wantMissions := []struct {
		hash  uint32
		files int
	}{{0x88D63ABC, 4}, {0x587DA208, 4}, {0x72ED3851, 4}, {0x16F2E8DA, 5}}
	if len(ep.Subdirs) != len(wantMissions) {
		t.Fatalf("Episode subdirs %d", len(ep.Subdirs))
	}
	for i, w := range wantMissions {
		if d := ep.Subdirs[i]; d.NameHash != w.hash || len(d.Files) != w.files || len(d.Subdirs) != 0 {
			t.Errorf("mission %d: %08X %d files", i, d.NameHash, len(d.Files))
		}
	}
	if files, dirs := root.Count(); files != 9+2+17 || dirs != 5 {
		t.Errorf("Count = %d files %d dirs", files, dirs)
	}
	if got := AppendResponse(nil, r); !bytes.Equal(got, p) {
		t.Errorf("re-encoded differs")
	}
}

// eventLog records Walk's calls and checks that they cover every byte of
// the payload exactly once.
type eventLog struct {
	cover []int
	dirs  []DirStart
	files []FileEntry
	subs  []SubdirList
	ends  []int
}

func (l *eventLog) mark(off, n int) {
	for i := off; i < off+n; i++ {
		l.cover[i]++
	}
}

func (l *eventLog) Header(h Header) {
	l.mark(0, 2)
	if h.HasRef {
		l.mark(h.RefOff, 4)
	}
	l.mark(h.DirOff, 4)
}
func (l *eventLog) Dir(d DirStart)        { l.dirs = append(l.dirs, d); l.mark(d.FileCountOff, 2) }
func (l *eventLog) File(f FileEntry)      { l.files = append(l.files, f); l.mark(f.Off, 8) }
func (l *eventLog) EndDir(depth, end int) { l.ends = append(l.ends, end) }
func (l *eventLog) Subdirs(s SubdirList) {
	l.subs = append(l.subs, s)
	l.mark(s.CountOff, 1)
	l.mark(s.NamesOff, 4*s.Count)
}

func TestWalkOffsets(t *testing.T) {
	p := stockPayload(t, OpResponse, 0xFF)
	l := &eventLog{cover: make([]int, len(p))}
	if err := Walk(p, l); err != nil {
		t.Fatal(err)
	}
	for i, c := range l.cover {
		if c != 1 {
			t.Fatalf("byte %d covered %d times", i, c)
		}
	}
	// Root: dir_hash at 2, file count at 6, files from 8, subdir count at 80.
	if d := l.dirs[0]; d.Depth != 0 || d.NameOff != -1 || d.FileCountOff != 6 || d.FileCount != 9 {
		t.Errorf("root %+v", d)
	}
	if f := l.files[0]; f.Off != 8 || f.NameHash != 0x2C11712D {
		t.Errorf("first file %+v", f)
	}
	if s := l.subs[0]; s.CountOff != 80 || s.NamesOff != 81 || s.Count != 1 {
		t.Errorf("root subdirs %+v", s)
	}
	if d := l.dirs[1]; d.Depth != 1 || d.NameHash != 0x83C82BA5 || d.NameOff != 81 || d.FileCountOff != 85 {
		t.Errorf("Episode %+v", d)
	}
	if d := l.dirs[5]; d.Depth != 2 || d.Index != 3 || d.NameHash != 0x16F2E8DA {
		t.Errorf("Mission5 %+v", d)
	}
	if last := l.ends[len(l.ends)-1]; last != len(p) {
		t.Errorf("root ends at %d", last)
	}
}

// nested returns a tree n directories deep below the root.
func nested(n int) *Dir {
	root := &Dir{}
	d := root
	for i := 0; i < n; i++ {
		c := &Dir{NameHash: uint32(i + 1)}
		d.Subdirs = []*Dir{c}
		d = c
	}
	return root
}

func TestParseResponseBad(t *testing.T) {
	deepOK := AppendResponse(nil, &Response{Round: 2, Root: nested(MaxDepth)})
	deepBad := AppendResponse(nil, &Response{Round: 2, Root: nested(MaxDepth + 1)})
	if _, err := ParseResponse(deepOK); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	tests := []struct {
		name string
		p    []byte
		err  error
		off  int
	}{
		{"empty", nil, ErrOpcode, 0},
		{"wrong-opcode", hexNoSpace(t, "20 01 00000000 0000 00"), ErrOpcode, 0},
		{"no-round", hexNoSpace(t, "21"), ErrShort, 1},
		{"round0-short-ref", hexNoSpace(t, "2100 43E20C"), ErrShort, 2},
		{"round0-no-dir", hexNoSpace(t, "2100 43E20C7E"), ErrShort, 6},
		{"round1-short-dir", hexNoSpace(t, "2101 2FCBAF"), ErrShort, 2},
		{"no-tree", hexNoSpace(t, "2101 2FCBAF4D"), ErrShort, 6},
		{"no-subdir-count", hexNoSpace(t, "2101 2FCBAF4D 0000"), ErrCount, 6},
		{"file-count-huge", hexNoSpace(t, "2101 2FCBAF4D FFFF 0102030405060708 00"), ErrCount, 6},
		{"file-count-one-short", hexNoSpace(t, "2101 2FCBAF4D 0200 0102030405060708 00"), ErrCount, 6},
		{"subdir-count-huge", hexNoSpace(t, "2102 C417D1C0 0000 FF 01020304 000000"), ErrCount, 8},
		{"subdir-tree-missing", hexNoSpace(t, "2102 C417D1C0 0000 01 01020304 0000"), ErrCount, 8},
		{"trailing", hexNoSpace(t, specResp0+"00"), ErrTrailing, 21},
		{"too-deep", deepBad, ErrDepth, len(deepBad) - 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseResponse(tt.p)
			var pe *ParseError
			if r != nil || !errors.As(err, &pe) || !errors.Is(err, tt.err) {
				t.Fatalf("r=%v err = %v, want %v", r, err, tt.err)
			}
			if pe.Off != tt.off {
				t.Errorf("off %d, want %d (%v)", pe.Off, tt.off, err)
			}
		})
	}
}

// Every prefix of a real payload fails cleanly; none panics or succeeds.
func TestParseResponseTruncated(t *testing.T) {
	p := stockPayload(t, OpResponse, 0xFF)
	for n := 0; n < len(p); n++ {
		if _, err := ParseResponse(p[:n]); err == nil {
			t.Fatalf("prefix %d parsed", n)
		}
	}
}

func TestParseResponseAllocBound(t *testing.T) {
	// 64 KiB of 0xFF bytes: counts claim far more than the bytes hold, and
	// are rejected before anything proportional is allocated.
	p := append([]byte{OpResponse, 1}, bytes.Repeat([]byte{0xFF}, 1<<16)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 10; i++ {
		if _, err := ParseResponse(p); err == nil {
			t.Fatal("parsed")
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 10*1024 {
		t.Errorf("%d bytes allocated for 10 rejected payloads", n)
	}
}
