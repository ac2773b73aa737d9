package checksum

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"sync"
)

// Manifest lists the files a client hashes in each round, in the JSON
// format of vanilla-1.1.json (OpenBC's manifest format; every field of that
// file is kept; unknown keys are errors).
//
// Caveats of that vanilla manifest (protocol-facts 9.4): its dir_name_hash
// for rounds 2 and 3 hashes the last path component ("ships"), not the
// requested path the client sends; it has no round 0xFF entry; and four
// content hashes differ from stock captures in the low byte. So a manifest
// is advice: mismatches against it are notes, not errors.
//
// Do not modify a Manifest after its first Compare or Resolver call: both
// use an index built once.
type Manifest struct {
	Meta              ManifestMeta    `json:"meta"`
	VersionString     string          `json:"version_string"`      // "60"
	VersionStringHash Hash            `json:"version_string_hash"` // StringHash(VersionString)
	Directories       []ManifestRound `json:"directories"`

	once sync.Once
	idx  *manifestIndex
}

// ManifestMeta says what the manifest describes and what wrote it.
type ManifestMeta struct {
	Name             string `json:"name"`
	Generator        string `json:"generator"`
	GeneratorVersion string `json:"generator_version"`
}

// ManifestRound is the expected answer to one round.
type ManifestRound struct {
	Index       int            `json:"index"`  // the round byte (0..3; 255 for 0xFF)
	Path        string         `json:"path"`   // requested directory without trailing '/'
	Filter      string         `json:"filter"` // file name or wildcard
	Recursive   bool           `json:"recursive"`
	DirNameHash Hash           `json:"dir_name_hash"` // see the Manifest caveats
	Files       []ManifestFile `json:"files"`
	Subdirs     []ManifestDir  `json:"subdirs"`
}

// ManifestDir is a subdirectory of a recursive round.
type ManifestDir struct {
	Name     string         `json:"name"`      // leaf name, as on disk
	NameHash Hash           `json:"name_hash"` // StringHash(Name)
	Files    []ManifestFile `json:"files"`
	Subdirs  []ManifestDir  `json:"subdirs"`
}

// ManifestFile is one file: its name as on disk and its two hashes.
type ManifestFile struct {
	Filename    string `json:"filename"`
	NameHash    Hash   `json:"name_hash"`    // StringHash(Filename)
	ContentHash Hash   `json:"content_hash"` // FileHash(contents)
}

// Hash is a 32-bit hash written in JSON as "0x%08X" (upper-case hex). It
// also reads plain JSON numbers and lower-case hex.
type Hash uint32

func (h Hash) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `"0x%08X"`, uint32(h)), nil
}

func (h *Hash) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
		if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
			s = s[2:]
		}
		v, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			return fmt.Errorf("hash %s: want \"0x\" and up to 8 hex digits", b)
		}
		*h = Hash(v)
		return nil
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return fmt.Errorf("hash %s: want a hex string or a 32-bit number", b)
	}
	*h = Hash(v)
	return nil
}

// Limits of Load. The vanilla manifest is 17 KB with 108 files; a heavily
// modded install has a few thousand.
const (
	MaxManifestSize    = 8 << 20 // bytes of JSON
	MaxManifestEntries = 1 << 16 // files plus directories
)

// ErrManifest is wrapped by every error Load returns for bad content.
var ErrManifest = errors.New("bad manifest")

// Load reads a manifest in the vanilla-1.1.json format, checked against
// its schema first (unknown keys, missing "directories" or "index", values
// of the wrong type are errors naming the key and the line). It reads at most
// MaxManifestSize bytes and rejects more, and checks round indexes (0..255),
// nesting (MaxDepth) and the entry count (MaxManifestEntries).
func Load(r io.Reader) (*Manifest, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxManifestSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxManifestSize {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrManifest, MaxManifestSize)
	}
	// Every entry is a JSON object: counting braces first bounds what
	// decoding allocates (a few bytes of "{}," must not become megabytes).
	if n := bytes.Count(b, []byte("{")); n > MaxManifestEntries+256+2 {
		return nil, fmt.Errorf("%w: %d objects (at most %d entries)", ErrManifest, n, MaxManifestEntries)
	}
	if err := checkSchema(b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	m := new(Manifest)
	if err := json.Unmarshal(b, m); err != nil {
		// checkSchema let through only what decodes; this is a backstop
		// that keeps the decoder's wording out of the message.
		return nil, fmt.Errorf("%w: values do not fit the manifest format", ErrManifest)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrManifest, err)
	}
	return m, nil
}

// LoadFile reads a manifest file with Load.
func LoadFile(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func (m *Manifest) check() error {
	if len(m.Directories) > 256 {
		return fmt.Errorf("%d directory entries (at most 256 rounds)", len(m.Directories))
	}
	n := 0
	for i := range m.Directories {
		d := &m.Directories[i]
		if d.Index < 0 || d.Index > 255 {
			return fmt.Errorf("directory %q: index %d is not a round byte", d.Path, d.Index)
		}
		n += len(d.Files)
		if err := checkDirs(d.Subdirs, 1, &n); err != nil {
			return fmt.Errorf("directory %q: %v", d.Path, err)
		}
	}
	if n > MaxManifestEntries {
		return fmt.Errorf("%d entries (at most %d)", n, MaxManifestEntries)
	}
	return nil
}

func checkDirs(ds []ManifestDir, depth int, n *int) error {
	if len(ds) > 0 && depth > MaxDepth {
		return fmt.Errorf("subdirectories nested deeper than %d", MaxDepth)
	}
	for i := range ds {
		*n += 1 + len(ds[i].Files)
		if err := checkDirs(ds[i].Subdirs, depth+1, n); err != nil {
			return err
		}
	}
	return nil
}

// Round returns the entry for round byte r, or nil.
func (m *Manifest) Round(r uint8) *ManifestRound {
	for i := range m.Directories {
		if m.Directories[i].Index == int(r) {
			return &m.Directories[i]
		}
	}
	return nil
}

// emptyList matches an empty or null list as json.MarshalIndent writes it.
var emptyList = regexp.MustCompile(`(?m)^( *)("(?:files|subdirs|directories)": )(?:\[\]|null)(,?)$`)

// Save writes m in the layout of vanilla-1.1.json: two-space indent, hashes
// as "0x%08X", empty lists opened and closed on two lines, final newline.
// Loading that file and saving it gives the same bytes.
func (m *Manifest) Save(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	out := emptyList.ReplaceAll(buf.Bytes(), []byte("$1$2[\n$1]$3"))
	_, err := w.Write(out)
	return err
}
