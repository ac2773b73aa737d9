package checksum

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hashReadJSONL decodes every non-empty line of a test-vector file.
func hashReadJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	p := filepath.Join(testdata, "vectors", name)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", p)
	}
	return rows
}

func hashParse(t *testing.T, s string) uint32 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		t.Fatalf("bad hash %q: %v", s, err)
	}
	return uint32(v)
}

func hashHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// hashCheckString tests both entry points on one input.
func hashCheckString(t *testing.T, b []byte, want uint32) {
	t.Helper()
	if got := StringHash(string(b)); got != want {
		t.Errorf("StringHash(%q) = 0x%08X, want 0x%08X", b, got, want)
	}
	if got := StringHashBytes(b); got != want {
		t.Errorf("StringHashBytes(%q) = 0x%08X, want 0x%08X", b, got, want)
	}
}

// TestStringHashSpec: check values of protocol-facts 9.4; the directory and
// file names among them were seen in real checksum traffic.
func TestStringHashSpec(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want uint32
	}{
		{"", 0},
		{"60", 0x7E0CE243},
		{"App.pyc", 0x373EB677},
		{"app.pyc", 0x20277067}, // no case folding
		{"Autoexec.pyc", 0x8501E6A1},
		{"scripts", 0x4DAFCB2F},
		{"scripts/", 0x5FF2585F},
		{"scripts/ships", 0xC017D1C4},
		{"scripts/mainmenu", 0x3409475D},
		{"Scripts/Multiplayer", 0x8794D13F},
		{"Hardpoints", 0xCAAFFDD4},
	} {
		t.Run(tc.s, func(t *testing.T) { hashCheckString(t, []byte(tc.s), tc.want) })
	}
}

func TestStringHashVectors(t *testing.T) {
	type row struct {
		S     string `json:"s"`
		Bytes string `json:"bytes_hex"`
		Hash  string `json:"hash"`
	}
	for _, r := range hashReadJSONL[row](t, "stringhash.jsonl") {
		t.Run(r.S, func(t *testing.T) {
			hashCheckString(t, hashHex(t, r.Bytes), hashParse(t, r.Hash))
		})
	}
}

// TestManifestNameHashes checks every name hash stored in the vanilla 1.1
// manifest: the version string, each directory's dir_name_hash (the manifest
// stores it for the last path component only, see protocol-facts 9.4), and
// the name_hash of every file and subdirectory, recursively. Content hashes
// need the game files and are not checked here.
func TestManifestNameHashes(t *testing.T) {
	type file struct {
		Name string `json:"filename"`
		Hash string `json:"name_hash"`
	}
	type subdir struct {
		Name    string   `json:"name"`
		Hash    string   `json:"name_hash"`
		Files   []file   `json:"files"`
		Subdirs []subdir `json:"subdirs"`
	}
	var m struct {
		Version     string `json:"version_string"`
		VersionHash string `json:"version_string_hash"`
		Directories []struct {
			Path    string   `json:"path"`
			DirHash string   `json:"dir_name_hash"`
			Files   []file   `json:"files"`
			Subdirs []subdir `json:"subdirs"`
		} `json:"directories"`
	}
	raw, err := os.ReadFile(filepath.Join(testdata, "vanilla-1.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	checked := 0
	check := func(where, name, hash string) {
		t.Helper()
		checked++
		if got, want := StringHash(name), hashParse(t, hash); got != want {
			t.Errorf("%s %q: StringHash = 0x%08X, manifest 0x%08X", where, name, got, want)
		}
	}
	var walk func(dir string, files []file, subs []subdir)
	walk = func(dir string, files []file, subs []subdir) {
		for _, f := range files {
			check(dir+" file", f.Name, f.Hash)
		}
		for _, s := range subs {
			check(dir+" subdir", s.Name, s.Hash)
			walk(dir+"/"+s.Name, s.Files, s.Subdirs)
		}
	}
	check("version", m.Version, m.VersionHash)
	for _, d := range m.Directories {
		check("directory", path.Base(d.Path), d.DirHash)
		walk(d.Path, d.Files, d.Subdirs)
	}
	// 1 version + 4 directories + 108 files + 1 subdirectory in the 1.1 manifest.
	if checked < 100 {
		t.Errorf("only %d hashes checked; manifest layout changed?", checked)
	}
	t.Logf("%d manifest name hashes match", checked)
}

// TestTablesMatchSpec re-reads spec/hash-tables.txt so a transcription slip
// in the embedded tables cannot hide behind vectors that miss it.
func TestTablesMatchSpec(t *testing.T) {
	for lane, tab := range pearson {
		var seen [256]bool
		for _, v := range tab {
			seen[v] = true
		}
		for v, ok := range seen {
			if !ok {
				t.Errorf("lane %d is not a permutation: 0x%02X missing", lane, v)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(testdata, "vectors", "hash-tables.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lane := -1
	var vals [4][]byte
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if n, ok := strings.CutPrefix(line, "table "); ok {
			lane, err = strconv.Atoi(n)
			if err != nil || lane < 0 || lane > 3 {
				t.Fatalf("bad table header %q", line)
			}
			continue
		}
		if line == "" || lane < 0 {
			continue
		}
		for _, f := range strings.Fields(line) {
			vals[lane] = append(vals[lane], hashHex(t, f)...)
		}
	}
	for l := range pearson {
		if !bytes.Equal(vals[l], pearson[l][:]) {
			t.Errorf("lane %d differs from spec/hash-tables.txt", l)
		}
	}
}

// hashFileVectors are short rows of testdata/vectors/filehash.jsonl, kept inline so the
// sign extension and the skipped word 1 read next to the code.
var hashFileVectors = []struct {
	hex  string
	want uint32
}{
	{"", 0x00000000},
	{"7F", 0x000000FE},
	{"80", 0xFFFFFF01}, // tail byte sign-extended
	{"FFFEFD", 0xFFFFFFFF},
	{"01020304", 0x08060402},
	{"01020304AABBCCDD", 0x08060402},   // word 1 skipped
	{"01020304AABBCCDD05", 0x100C080E}, // word 1 skipped, then a tail byte
	{"808182838485868788898A8B8C", 0xCDC1D53F},
}

// hashCheckFile tests FileHash and FileHasher (one Write, and byte by byte).
func hashCheckFile(t *testing.T, data []byte, want uint32) {
	t.Helper()
	if got := FileHash(data); got != want {
		t.Errorf("FileHash(% X) = 0x%08X, want 0x%08X", data, got, want)
	}
	var f FileHasher
	f.Write(data)
	if got := f.Sum32(); got != want {
		t.Errorf("FileHasher(% X) = 0x%08X, want 0x%08X", data, got, want)
	}
	f.Reset()
	for i := range data {
		f.Write(data[i : i+1])
	}
	if got := f.Sum32(); got != want {
		t.Errorf("FileHasher bytewise (% X) = 0x%08X, want 0x%08X", data, got, want)
	}
}

func TestFileHashEmbedded(t *testing.T) {
	for _, v := range hashFileVectors {
		t.Run(v.hex, func(t *testing.T) { hashCheckFile(t, hashHex(t, v.hex), v.want) })
	}
}

func TestFileHashVectors(t *testing.T) {
	type row struct {
		Hex  string `json:"hex"`
		Hash string `json:"hash"`
	}
	for _, r := range hashReadJSONL[row](t, "filehash.jsonl") {
		t.Run(r.Hex, func(t *testing.T) { hashCheckFile(t, hashHex(t, r.Hex), hashParse(t, r.Hash)) })
	}
}

// hashRefFile is protocol-facts 9.4 read literally: one word at a time.
func hashRefFile(data []byte) uint32 {
	var h uint32
	n := len(data) / 4
	for i := 0; i < n; i++ {
		if i == 1 {
			continue
		}
		w := uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		h ^= w
		h = h<<1 | h>>31
	}
	for _, c := range data[4*n:] {
		h ^= uint32(int32(int8(c)))
		h = h<<1 | h>>31
	}
	return h
}

// TestFileHashSplits compares FileHash, the literal reference and FileHasher
// fed in random pieces, for every length up to 70 and a few large ones.
func TestFileHashSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{1000, 4097, 65539}
	for n := range 71 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want := hashRefFile(data)
		if got := FileHash(data); got != want {
			t.Fatalf("len %d: FileHash 0x%08X, reference 0x%08X", n, got, want)
		}
		for range 10 {
			var f FileHasher
			for rest := data; len(rest) > 0; {
				k := min(len(rest), rng.IntN(11))
				f.Write(rest[:k])
				rest = rest[k:]
			}
			if got := f.Sum32(); got != want {
				t.Fatalf("len %d: FileHasher 0x%08X, want 0x%08X", n, got, want)
			}
		}
	}
}

func TestFileHasherInterface(t *testing.T) {
	var f FileHasher
	n, err := f.Write([]byte{0x80})
	if n != 1 || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := f.Sum([]byte{0xAA}); !bytes.Equal(got, []byte{0xAA, 0xFF, 0xFF, 0xFF, 0x01}) {
		t.Errorf("Sum = % X", got)
	}
	if f.Sum32() != 0xFFFFFF01 { // Sum must not change the state
		t.Errorf("Sum32 after Sum = 0x%08X", f.Sum32())
	}
	if f.Size() != 4 || f.BlockSize() != 4 {
		t.Errorf("Size/BlockSize = %d/%d", f.Size(), f.BlockSize())
	}
}

func TestHashNoAllocs(t *testing.T) {
	name := []byte("scripts/Multiplayer")
	data := make([]byte, 4099)
	var f FileHasher
	for name, fn := range map[string]func(){
		"StringHash":      func() { StringHash("scripts/Multiplayer") },
		"StringHashBytes": func() { StringHashBytes(name) },
		"FileHash":        func() { FileHash(data) },
		"FileHasher":      func() { f.Write(data); f.Sum32() },
	} {
		if n := testing.AllocsPerRun(100, fn); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}

// FuzzFileHasher: streaming in two pieces equals the one-shot and literal
// hashes, and StringHash agrees between its entry points.
func FuzzFileHasher(f *testing.F) {
	for _, v := range hashFileVectors {
		f.Add(hashHex(f, v.hex), uint8(3))
	}
	f.Add([]byte("scripts/Multiplayer"), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		want := hashRefFile(data)
		if got := FileHash(data); got != want {
			t.Fatalf("FileHash 0x%08X, reference 0x%08X", got, want)
		}
		k := min(int(cut), len(data))
		var h FileHasher
		h.Write(data[:k])
		h.Write(data[k:])
		if got := h.Sum32(); got != want {
			t.Fatalf("FileHasher split at %d: 0x%08X, want 0x%08X", k, got, want)
		}
		if StringHash(string(data)) != StringHashBytes(data) {
			t.Fatal("StringHash and StringHashBytes disagree")
		}
	})
}

func BenchmarkStringHash(b *testing.B) {
	for _, s := range []string{"App.pyc", "scripts/Multiplayer", strings.Repeat("Multiplayer.Episode.", 4)} {
		b.Run(fmt.Sprint(len(s)), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				StringHash(s)
			}
		})
	}
}

func BenchmarkFileHash(b *testing.B) {
	for _, n := range []int{4096, 1 << 20} {
		data := make([]byte, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				FileHash(data)
			}
		})
	}
}

// BenchmarkFileHasher writes 32 KiB chunks, as io.Copy would.
func BenchmarkFileHasher(b *testing.B) {
	data := make([]byte, 32<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var f FileHasher
	for b.Loop() {
		f.Write(data)
	}
	_ = f.Sum32()
}
