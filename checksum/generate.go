package checksum

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Generator names bcdump in the meta block of manifests it writes.
const (
	GeneratorName    = "bcdump"
	GeneratorVersion = "1"
)

// Generate scans an installed game at gameDir the way a stock client
// answers the five rounds of Rounds: directory, filter and recursion per
// round; names hashed as they are on disk (case kept); files and
// subdirectories in byte-wise name order, as on the wire. Like the Windows
// client, path components and filters match without regard to case (round
// 0xFF asks for "Scripts/Multiplayer"). A round whose directory is missing
// gets an empty entry. dir_name_hash is what clients send (StringHash of
// the path without trailing '/'), unlike vanilla-1.1.json. Meta.Name is
// left for the caller.
func Generate(gameDir string) (*Manifest, error) {
	return GenerateHashing(gameDir, nil)
}

// GenerateHashing is Generate that calls hashed (unless nil) with the path
// of every file it hashes, so that a caller can keep its output off them.
func GenerateHashing(gameDir string, hashed func(path string)) (*Manifest, error) {
	if err := checkGameDir(gameDir); err != nil {
		return nil, err
	}
	m := &Manifest{
		Meta:              ManifestMeta{Generator: GeneratorName, GeneratorVersion: GeneratorVersion},
		VersionString:     "60",
		VersionStringHash: Hash(VersionHash),
	}
	found := false
	for _, rs := range Rounds {
		path := TrimDir(rs.Dir)
		e, ok, err := scanRound(gameDir, int(rs.Round), path, rs.Filter, rs.Recursive, hashed)
		if err != nil {
			return nil, err
		}
		e.DirNameHash = Hash(StringHash(path))
		found = found || ok
		m.Directories = append(m.Directories, e)
	}
	if !found {
		return nil, fmt.Errorf("%s: no scripts directory; not a Bridge Commander install?", gameDir)
	}
	return m, nil
}

func checkGameDir(gameDir string) error {
	fi, err := os.Stat(gameDir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", gameDir)
	}
	return nil
}

// scanRound builds the entry of one round; ok is false when its directory
// does not exist.
func scanRound(gameDir string, index int, path, filter string, recursive bool, hashed func(string)) (ManifestRound, bool, error) {
	e := ManifestRound{Index: index, Path: path, Filter: filter, Recursive: recursive,
		Files: []ManifestFile{}, Subdirs: []ManifestDir{}}
	dir, ok, err := findPath(gameDir, path)
	if err != nil || !ok {
		return e, false, err
	}
	e.Files, e.Subdirs, err = scanDir(dir, filter, recursive, 0, hashed)
	return e, true, err
}

// findPath resolves slash-separated rel below root, taking each component
// as written when it exists and else its only case-insensitive match.
func findPath(root, rel string) (string, bool, error) {
	if err := insideRel(rel); err != nil {
		return "", false, err
	}
	dir := root
	for _, c := range strings.Split(rel, "/") {
		if c == "" {
			continue
		}
		next := filepath.Join(dir, c)
		if fi, err := os.Stat(next); err == nil && fi.IsDir() {
			dir = next
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", false, err
		}
		match := ""
		for _, e := range entries {
			if e.IsDir() && strings.EqualFold(e.Name(), c) {
				if match != "" {
					return "", false, fmt.Errorf("%s: both %q and %q match %q", dir, match, e.Name(), c)
				}
				match = e.Name()
			}
		}
		if match == "" {
			return "", false, nil
		}
		dir = filepath.Join(dir, match)
	}
	return dir, true, nil
}

// insideRel refuses a round path that could leave the game folder: an
// absolute path, a "." or ".." component, a backslash or a drive colon
// (separators on Windows). A manifest is input like any other: verify of
// a path "../../etc" would otherwise list the files of /etc as extra.
func insideRel(rel string) error {
	if strings.HasPrefix(rel, "/") {
		return fmt.Errorf("round path %q is absolute: a manifest's paths are inside the game folder", rel)
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "." || c == ".." || strings.ContainsAny(c, "\\:") {
			return fmt.Errorf("round path %q leaves the game folder (%q): a manifest's paths are inside it", rel, c)
		}
	}
	return nil
}

// scanDir lists the files matching filter in dir, and with recursive every
// subdirectory (matching files or not) the same way. os.ReadDir returns
// names sorted byte-wise, the wire order. Symbolic links to directories are
// not followed, so a link loop cannot recurse.
func scanDir(dir, filter string, recursive bool, depth int, hashed func(string)) ([]ManifestFile, []ManifestDir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	files, subs := []ManifestFile{}, []ManifestDir{}
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(dir, name)
		if e.IsDir() {
			if !recursive {
				continue
			}
			if depth+1 > MaxDepth {
				return nil, nil, fmt.Errorf("%s: directories nested deeper than %d", full, MaxDepth)
			}
			f, s, err := scanDir(full, filter, recursive, depth+1, hashed)
			if err != nil {
				return nil, nil, err
			}
			subs = append(subs, ManifestDir{Name: name, NameHash: Hash(StringHash(name)), Files: f, Subdirs: s})
			continue
		}
		if !MatchFilter(filter, name) || !isRegular(e, full) {
			continue
		}
		if hashed != nil {
			hashed(full)
		}
		h, err := hashFile(full)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, ManifestFile{Filename: name, NameHash: Hash(StringHash(name)), ContentHash: Hash(h)})
	}
	return files, subs, nil
}

// isRegular reports a regular file, or a symbolic link to one.
func isRegular(e fs.DirEntry, full string) bool {
	if e.Type().IsRegular() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(full)
	return err == nil && fi.Mode().IsRegular()
}

// hashFile streams a file through FileHash, so size does not matter.
func hashFile(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h FileHasher
	if _, err := io.Copy(&h, f); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return h.Sum32(), nil
}

// MatchFilter reports whether name matches a round filter: '*' matches any
// run of bytes, '?' one byte, other bytes match without ASCII case (as
// Windows matches "*.pyc").
func MatchFilter(filter, name string) bool {
	// Iterative wildcard match with one backtrack point: linear in
	// practice, never exponential.
	f, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case f < len(filter) && filter[f] == '*':
			star, mark = f, n
			f++
		case f < len(filter) && (filter[f] == '?' || lower(filter[f]) == lower(name[n])):
			f++
			n++
		case star >= 0:
			mark++
			f, n = star+1, mark
		default:
			return false
		}
	}
	for f < len(filter) && filter[f] == '*' {
		f++
	}
	return f == len(filter)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// DiffKind says how an installed game differs from a manifest.
type DiffKind uint8

const (
	DiffMissing DiffKind = iota + 1 // in the manifest, not on disk
	DiffExtra                       // on disk, not in the manifest
	DiffContent                     // content hash differs
)

func (k DiffKind) String() string {
	switch k {
	case DiffMissing:
		return "missing"
	case DiffExtra:
		return "extra"
	case DiffContent:
		return "content"
	}
	return fmt.Sprintf("diff(%d)", uint8(k))
}

// Diff is one difference found by Verify.
type Diff struct {
	Round uint8
	Kind  DiffKind
	Path  string // e.g. "scripts/ships/Hardpoints/akira.pyc"
	Dir   bool   // Path is a directory (Missing or Extra only)
	Want  uint32 // manifest content hash (DiffContent, DiffMissing files)
	Got   uint32 // disk content hash (DiffContent, DiffExtra files)
}

func (d Diff) String() string {
	switch {
	case d.Kind == DiffContent:
		return fmt.Sprintf("round %s: %s: content 0x%08X, manifest 0x%08X", RoundName(d.Round), d.Path, d.Got, d.Want)
	case d.Dir:
		return fmt.Sprintf("round %s: %s/: directory %s", RoundName(d.Round), d.Path, d.Kind)
	}
	return fmt.Sprintf("round %s: %s: %s", RoundName(d.Round), d.Path, d.Kind)
}

// Verify scans gameDir for every round m lists (with the entry's own path,
// filter and recursion) and returns how the disk differs. Entries match by
// name hash; directory hashes are not compared (see the Manifest caveats).
// Rounds m does not list are not scanned. An empty result means the
// install matches.
func Verify(m *Manifest, gameDir string) ([]Diff, error) {
	return VerifyHashing(m, gameDir, nil)
}

// VerifyHashing is Verify that calls hashed (unless nil) with the path of
// every file it hashes.
func VerifyHashing(m *Manifest, gameDir string, hashed func(path string)) ([]Diff, error) {
	if err := checkGameDir(gameDir); err != nil {
		return nil, err
	}
	var out []Diff
	for i := range m.Directories {
		want := &m.Directories[i]
		got, _, err := scanRound(gameDir, want.Index, want.Path, want.Filter, want.Recursive, hashed)
		if err != nil {
			return nil, err
		}
		out = diffDir(out, uint8(want.Index), want.Path, want.Files, want.Subdirs, got.Files, got.Subdirs)
	}
	return out, nil
}

func diffDir(out []Diff, round uint8, path string, wantF []ManifestFile, wantD []ManifestDir, gotF []ManifestFile, gotD []ManifestDir) []Diff {
	gotFiles := make(map[Hash]*ManifestFile, len(gotF))
	for i := range gotF {
		gotFiles[gotF[i].NameHash] = &gotF[i]
	}
	wantFiles := make(map[Hash]bool, len(wantF))
	for _, w := range wantF {
		wantFiles[w.NameHash] = true
		g, ok := gotFiles[w.NameHash]
		switch {
		case !ok:
			out = append(out, Diff{Round: round, Kind: DiffMissing, Path: path + "/" + w.Filename, Want: uint32(w.ContentHash)})
		case g.ContentHash != w.ContentHash:
			out = append(out, Diff{Round: round, Kind: DiffContent, Path: path + "/" + w.Filename,
				Want: uint32(w.ContentHash), Got: uint32(g.ContentHash)})
		}
	}
	for _, g := range gotF {
		if !wantFiles[g.NameHash] {
			out = append(out, Diff{Round: round, Kind: DiffExtra, Path: path + "/" + g.Filename, Got: uint32(g.ContentHash)})
		}
	}
	gotDirs := make(map[Hash]*ManifestDir, len(gotD))
	for i := range gotD {
		gotDirs[gotD[i].NameHash] = &gotD[i]
	}
	wantDirs := make(map[Hash]bool, len(wantD))
	for i := range wantD {
		w := &wantD[i]
		wantDirs[w.NameHash] = true
		sub := path + "/" + w.Name
		if g, ok := gotDirs[w.NameHash]; ok {
			out = diffDir(out, round, sub, w.Files, w.Subdirs, g.Files, g.Subdirs)
		} else {
			out = append(out, Diff{Round: round, Kind: DiffMissing, Path: sub, Dir: true})
		}
	}
	for _, g := range gotD {
		if !wantDirs[g.NameHash] {
			out = append(out, Diff{Round: round, Kind: DiffExtra, Path: path + "/" + g.Name, Dir: true})
		}
	}
	return out
}

// Response builds the answer a client with exactly these files would send
// for round r: reference hash in round 0, dir_hash = StringHash(Path) (the
// wire value, whatever DirNameHash says), files and subdirectories sorted
// byte-wise by name as a stock client sends them. ok is false when m has
// no entry for r.
func (m *Manifest) Response(r uint8) (resp *Response, ok bool) {
	e := m.Round(r)
	if e == nil {
		return nil, false
	}
	return &Response{
		Round:   r,
		HasRef:  r == 0,
		RefHash: uint32(m.VersionStringHash),
		DirHash: StringHash(e.Path),
		Root:    responseDir(0, e.Files, e.Subdirs),
	}, true
}

func responseDir(name Hash, files []ManifestFile, subs []ManifestDir) *Dir {
	d := &Dir{NameHash: uint32(name), Files: make([]File, 0, len(files))}
	fs := slices.Clone(files)
	slices.SortStableFunc(fs, func(a, b ManifestFile) int { return strings.Compare(a.Filename, b.Filename) })
	for _, f := range fs {
		d.Files = append(d.Files, File{NameHash: uint32(f.NameHash), ContentHash: uint32(f.ContentHash)})
	}
	ss := slices.Clone(subs)
	slices.SortStableFunc(ss, func(a, b ManifestDir) int { return strings.Compare(a.Name, b.Name) })
	for i := range ss {
		d.Subdirs = append(d.Subdirs, responseDir(ss[i].NameHash, ss[i].Files, ss[i].Subdirs))
	}
	return d
}
