package checksum

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

func vanillaBytes(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func vanilla(t testing.TB) *Manifest {
	t.Helper()
	m, err := Load(bytes.NewReader(vanillaBytes(t)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadVanilla(t *testing.T) {
	raw := vanillaBytes(t)
	m, err := Load(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Generator != "openbc-hash" || m.VersionString != "60" || m.VersionStringHash != VersionHash {
		t.Errorf("header %+v %q %08X", m.Meta, m.VersionString, m.VersionStringHash)
	}
	if len(m.Directories) != 4 || m.Round(0xFF) != nil {
		t.Fatalf("%d directories", len(m.Directories))
	}
	r2 := m.Round(2)
	if r2.Path != "scripts/ships" || !r2.Recursive || r2.DirNameHash != 0xB831D315 || len(r2.Files) != 51 ||
		len(r2.Subdirs) != 1 || r2.Subdirs[0].Name != "Hardpoints" || len(r2.Subdirs[0].Files) != 51 {
		t.Errorf("round 2 entry %q %v %08X %d", r2.Path, r2.Recursive, r2.DirNameHash, len(r2.Files))
	}
	// Every stored name hash is StringHash of the stored name, as on disk.
	var check func(files []ManifestFile, dirs []ManifestDir)
	n := 0
	check = func(files []ManifestFile, dirs []ManifestDir) {
		for _, f := range files {
			n++
			if StringHash(f.Filename) != uint32(f.NameHash) {
				t.Errorf("%s: name hash %08X, StringHash %08X", f.Filename, f.NameHash, StringHash(f.Filename))
			}
		}
		for _, d := range dirs {
			if StringHash(d.Name) != uint32(d.NameHash) {
				t.Errorf("%s: name hash %08X", d.Name, d.NameHash)
			}
			check(d.Files, d.Subdirs)
		}
	}
	for _, d := range m.Directories {
		check(d.Files, d.Subdirs)
	}
	if n != 108 {
		t.Errorf("%d files, want 108", n)
	}
	// Saving gives the same bytes.
	var out bytes.Buffer
	if err := m.Save(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), raw) {
		t.Errorf("Save differs from vanilla-1.1.json:\n%s", firstDiff(out.Bytes(), raw))
	}
}

func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: got %q want %q", i+1, la[i], lb[i])
		}
	}
	return "lengths differ"
}

// TestCompareStock checks the real stock responses against vanilla-1.1.json:
// exactly the four low-byte differences of protocol-facts 9.4, and nothing
// for round 0xFF, which the manifest lacks.
func TestCompareStock(t *testing.T) {
	m := vanilla(t)
	tests := []struct {
		round byte
		want  []string // messages' file names
	}{
		{0, []string{"scripts/App.pyc content hash 0xF8A0A768, manifest 0xF8A0A740"}},
		{1, []string{"scripts/Autoexec.pyc content hash 0x17930049, manifest 0x17930067"}},
		{3, []string{
			"scripts/mainmenu/CardSpecificSetup.pyc content hash 0x8909747C, manifest 0x89097430",
			"scripts/mainmenu/KeyboardConfig.pyc content hash 0xB858BBC1, manifest 0xB858BB0B",
		}},
		{0xFF, nil},
	}
	for _, tt := range tests {
		r, err := ParseResponse(stockPayload(t, OpResponse, tt.round))
		if err != nil {
			t.Fatal(err)
		}
		got := m.Compare(nil, r)
		if len(got) != len(tt.want) {
			t.Fatalf("round %d: %+v", tt.round, got)
		}
		for i, f := range got {
			if f.Code != anomaly.ChecksumFileMismatch || f.Severity() != anomaly.Note || f.Round != int(tt.round) ||
				!strings.Contains(f.Message(), tt.want[i]) {
				t.Errorf("round %d: %+v, want %q", tt.round, f, tt.want[i])
			}
		}
	}
}

func TestCompareUnknown(t *testing.T) {
	m := &Manifest{Directories: []ManifestRound{{
		Index: 2, Path: "scripts/ships",
		Files:   []ManifestFile{{Filename: "Akira.pyc", NameHash: 0x3EB23EBA, ContentHash: 0xCCD37170}},
		Subdirs: []ManifestDir{{Name: "Hardpoints", NameHash: 0xCAAFFDD4, Files: []ManifestFile{{Filename: "akira.pyc", NameHash: 0x1AD01BB3, ContentHash: 0xCD42E07B}}}},
	}}}
	r := &Response{Round: 2, Root: &Dir{
		Files: []File{{0x3EB23EBA, 0xCCD37170}, {0x11111111, 0}},
		Subdirs: []*Dir{
			{NameHash: 0xCAAFFDD4, Files: []File{{0x1AD01BB3, 0xCD42E07C}}},
			{NameHash: 0x22222222, Files: []File{{0x33333333, 0}}},
		},
	}}
	got := m.Compare(nil, r)
	want := []anomaly.Code{anomaly.ChecksumFileUnknown, anomaly.ChecksumFileMismatch, anomaly.ChecksumFileUnknown}
	if !reflect.DeepEqual(codes(got), want) {
		t.Fatalf("%+v", got)
	}
	if !strings.Contains(got[1].Message(), "scripts/ships/Hardpoints/akira.pyc") ||
		!strings.Contains(got[0].Message(), "0x11111111") || !strings.Contains(got[2].Message(), "directory 0x22222222") {
		t.Errorf("%+v", got)
	}
	// Through the Handshake.
	h := &Handshake{Manifest: m, Partial: true}
	r.DirHash = StringHash("scripts/ships")
	fs := runSteps(h, []step{host(reqMsg(2)), client(AppendResponse(nil, r))})
	if !reflect.DeepEqual(codes(fs), want) {
		t.Errorf("handshake %+v", fs)
	}
}

// TestResolverStock resolves every hash of the real stock responses with
// vanilla-1.1.json plus the built-in names.
func TestResolverStock(t *testing.T) {
	res := vanilla(t).Resolver()
	named := map[uint32]string{
		0x7E0CE243: "60", 0x4DAFCB2F: "scripts", 0xC017D1C4: "scripts/ships", 0xB831D315: "ships",
		0x3409475D: "scripts/mainmenu", 0x8794D13F: "Scripts/Multiplayer", 0xCAAFFDD4: "Hardpoints",
		0x373EB677: "App.pyc", 0x8501E6A1: "Autoexec.pyc", 0x1AD01BB3: "akira.pyc", 0x3EB23EBA: "Akira.pyc",
		0x2C11712D: "MissionMenusShared.pyc", 0x83C82BA5: "Episode", 0x88D63ABC: "Mission1",
		0xE9DD9FA2: "__init__.pyc",
	}
	for h, want := range named {
		if got, ok := res.Name(h); !ok || got != want {
			t.Errorf("%08X: %q %v, want %q", h, got, ok, want)
		}
	}
	for _, round := range []byte{0, 1, 3, 0xFF} {
		p := stockPayload(t, OpResponse, round)
		l := &eventLog{cover: make([]int, len(p))}
		if err := Walk(p, l); err != nil {
			t.Fatal(err)
		}
		for _, f := range l.files {
			if _, ok := res.Name(f.NameHash); !ok {
				t.Errorf("round %d: file %08X unresolved", round, f.NameHash)
			}
		}
		for _, d := range l.dirs[1:] {
			if _, ok := res.Name(d.NameHash); !ok {
				t.Errorf("round %d: dir %08X unresolved", round, d.NameHash)
			}
		}
	}
	var nilRes *Resolver
	if _, ok := nilRes.Name(1); ok || nilRes.Len() != 0 {
		t.Error("nil resolver resolved")
	}
}

// TestStockNamesInCapture proves each built-in name against the captured
// round 0xFF tree.
func TestStockNamesInCapture(t *testing.T) {
	p := stockPayload(t, OpResponse, 0xFF)
	l := &eventLog{cover: make([]int, len(p))}
	if err := Walk(p, l); err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]bool{}
	for _, f := range l.files {
		seen[f.NameHash] = true
	}
	for _, d := range l.dirs {
		seen[d.NameHash] = true
	}
	for _, n := range StockNames {
		if !seen[StringHash(n)] {
			t.Errorf("%q (%08X) not in the captured round 0xFF tree", n, StringHash(n))
		}
	}
}

func TestHashJSON(t *testing.T) {
	tests := []struct {
		in   string
		want Hash
		ok   bool
	}{
		{`"0x7E0CE243"`, 0x7E0CE243, true},
		{`"0x7e0ce243"`, 0x7E0CE243, true},
		{`"7E0CE243"`, 0x7E0CE243, true},
		{`2114773571`, 0x7E0CE243, true},
		{`"0x17E0CE243"`, 0, false},
		{`"0xZZ"`, 0, false},
		{`-1`, 0, false},
		{`4294967296`, 0, false},
		{`true`, 0, false},
	}
	for _, tt := range tests {
		var h Hash
		err := h.UnmarshalJSON([]byte(tt.in))
		if (err == nil) != tt.ok || h != tt.want {
			t.Errorf("%s: %08X %v", tt.in, h, err)
		}
	}
	if b, _ := Hash(0xA7).MarshalJSON(); string(b) != `"0x000000A7"` {
		t.Errorf("marshal %s", b)
	}
}

func deepManifest(depth int) string {
	s := `{"name":"x","name_hash":"0x1","files":[],"subdirs":[]}`
	for i := 1; i < depth; i++ {
		s = `{"name":"x","name_hash":"0x1","files":[],"subdirs":[` + s + `]}`
	}
	return `{"directories":[{"index":2,"path":"p","subdirs":[` + s + `]}]}`
}

func TestLoadBad(t *testing.T) {
	manyFiles := `{"directories":[{"index":2,"files":[` + strings.Repeat(`{},`, MaxManifestEntries) + `{}]}]}`
	manyBraces := `{"directories":[{"index":2,"files":[` + strings.Repeat(`{},`, MaxManifestEntries+300) + `{}]}]}`
	tests := []struct {
		name string
		in   string
	}{
		{"not json", `{"meta":`},
		{"wrong type", `{"directories":{}}`},
		{"index too big", `{"directories":[{"index":256}]}`},
		{"index negative", `{"directories":[{"index":-1}]}`},
		{"hash too wide", `{"version_string_hash":"0x100000000"}`},
		{"hash not hex", `{"directories":[{"index":0,"files":[{"name_hash":"0xG"}]}]}`},
		{"too deep", deepManifest(MaxDepth + 1)},
		{"too many entries", manyFiles},
		{"too many objects", manyBraces},
		{"too big", `{"meta":{"name":"` + strings.Repeat("x", MaxManifestSize) + `"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(strings.NewReader(tt.in))
			if m != nil || !errors.Is(err, ErrManifest) {
				t.Fatalf("m=%v err=%v", m != nil, err)
			}
		})
	}
	if _, err := Load(strings.NewReader(deepManifest(MaxDepth))); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
}

func TestSaveEmptyLists(t *testing.T) {
	m := &Manifest{Directories: []ManifestRound{{Index: 0xFF, Path: "Scripts/Multiplayer"}}}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "null") || !strings.Contains(b.String(), "\"files\": [\n      ],") {
		t.Errorf("%s", b.String())
	}
	m2, err := Load(&b)
	if err != nil || m2.Round(0xFF) == nil {
		t.Fatal(err)
	}
}

func FuzzLoadManifest(f *testing.F) {
	f.Add([]byte(`{"meta":{"name":"n"},"version_string":"60","version_string_hash":"0x7E0CE243","directories":[{"index":0,"path":"scripts","filter":"App.pyc","recursive":false,"dir_name_hash":"0x4DAFCB2F","files":[{"filename":"App.pyc","name_hash":"0x373EB677","content_hash":"0xF8A0A740"}],"subdirs":[]}]}`))
	f.Add([]byte(deepManifest(3)))
	f.Add([]byte(`{"directories":[{"index":255,"files":null,"subdirs":[{"name":"a","name_hash":1}]}]}`))
	f.Add(vanillaBytes(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		// What loads saves, and the saved form is a fixed point.
		var s1, s2 bytes.Buffer
		if err := m.Save(&s1); err != nil {
			t.Fatal(err)
		}
		m2, err := Load(bytes.NewReader(s1.Bytes()))
		if err != nil {
			t.Fatalf("reload: %v\n%s", err, s1.Bytes())
		}
		if err := m2.Save(&s2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s1.Bytes(), s2.Bytes()) {
			t.Fatalf("save not stable:\n%s\n%s", s1.Bytes(), s2.Bytes())
		}
		_ = m.Resolver()
		_ = m.Compare(nil, &Response{Root: &Dir{Files: []File{{1, 2}}, Subdirs: []*Dir{{NameHash: 1}}}})
	})
}

// Anything that is not a manifest is rejected with the key and line at
// fault, in words rather than the decoder's.
func TestLoadSchema(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"not":"a manifest"}`, `line 1: unknown key "not"`},
		{"{\n  \"flows\": [],\n  \"captures\": 1\n}", `line 2: unknown key "flows"`},
		{`{"meta":{}}`, `line 1: the manifest lacks the key "directories"`},
		{"{\"directories\": [\n {\"index\": \"2\"}]}", `line 2: key "directories[0].index" must be an integer, not a string`},
		{"{\"directories\": [{\"index\": 0,\n\"files\": [{\"filename\": \"a\", \"size\": 3}]}]}", `line 2: unknown key "directories[0].files[0].size"`},
		{`{"directories":[{"index":-1.5}]}`, `key "directories[0].index" must be an integer, not -1.5`},
		{`{"directories":[{"path":"x"}]}`, `"directories[0]" lacks the key "index"`},
		{`{"version_string_hash":"-1","directories":[]}`, `key "version_string_hash" must be a hash`},
		{"{\"directories\":[]}\n{}", "line 2: text after the manifest object"},
		{"{\n\"directories\":[}", "line 2: not valid JSON"},
		{`[1,2]`, "the manifest must be an object, not a list"},
	}
	for _, tt := range tests {
		_, err := Load(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.in, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "strconv")) {
			t.Errorf("%s: %v leaks Go internals", tt.in, err)
		}
	}
}
