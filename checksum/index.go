package checksum

import "github.com/bcdump/bcdump/transport/anomaly"

// manifestIndex answers "which file or directory has this name hash here"
// in constant time, so comparing a hostile response against a large
// manifest stays linear in the response.
type manifestIndex struct {
	rounds map[uint8]int32   // round byte -> node
	dirs   map[nodeKey]int32 // (parent node, name hash) -> node
	files  map[nodeKey]*ManifestFile
	paths  []string // node -> path, e.g. "scripts/ships/Hardpoints"
}

type nodeKey struct {
	node int32
	hash uint32
}

func (m *Manifest) index() *manifestIndex {
	m.once.Do(func() {
		x := &manifestIndex{
			rounds: make(map[uint8]int32),
			dirs:   make(map[nodeKey]int32),
			files:  make(map[nodeKey]*ManifestFile),
		}
		for i := range m.Directories {
			d := &m.Directories[i]
			r := uint8(d.Index)
			if _, dup := x.rounds[r]; dup {
				continue // the first entry of a round wins, as in Round
			}
			node := x.add(d.Path, d.Files)
			x.rounds[r] = node
			x.addDirs(node, d.Subdirs)
		}
		m.idx = x
	})
	return m.idx
}

func (x *manifestIndex) add(path string, files []ManifestFile) int32 {
	node := int32(len(x.paths))
	x.paths = append(x.paths, path)
	for i := range files {
		k := nodeKey{node, uint32(files[i].NameHash)}
		if _, dup := x.files[k]; !dup {
			x.files[k] = &files[i]
		}
	}
	return node
}

func (x *manifestIndex) addDirs(parent int32, ds []ManifestDir) {
	for i := range ds {
		k := nodeKey{parent, uint32(ds[i].NameHash)}
		if _, dup := x.dirs[k]; dup {
			continue
		}
		node := x.add(x.paths[parent]+"/"+ds[i].Name, ds[i].Files)
		x.dirs[k] = node
		x.addDirs(node, ds[i].Subdirs)
	}
}

// Compare checks response r against the manifest entry for its round and
// appends a note for every file whose content hash differs
// (checksum-file-mismatch) and every file or directory name hash the
// manifest does not list there (checksum-file-unknown). A round without an
// entry (0xFF in vanilla-1.1.json) yields nothing. Files the manifest lists
// but the response lacks are not reported. Directory hashes are not
// compared (see the Manifest caveats; the Handshake checks them against
// the request instead).
func (m *Manifest) Compare(dst []Finding, r *Response) []Finding {
	if m == nil || r == nil || r.Root == nil {
		return dst
	}
	x := m.index()
	node, ok := x.rounds[r.Round]
	if !ok {
		return dst
	}
	return x.compare(dst, int(r.Round), node, r.Root)
}

func (x *manifestIndex) compare(dst []Finding, round int, node int32, d *Dir) []Finding {
	path := x.paths[node]
	for _, f := range d.Files {
		mf, ok := x.files[nodeKey{node, f.NameHash}]
		switch {
		case !ok:
			dst = append(dst, finding(anomaly.ChecksumFileUnknown, round, NoOffset,
				"round %s: file 0x%08X in %s is not in the manifest", RoundName(uint8(round)), f.NameHash, path))
		case uint32(mf.ContentHash) != f.ContentHash:
			dst = append(dst, finding(anomaly.ChecksumFileMismatch, round, NoOffset,
				"round %s: %s/%s content hash 0x%08X, manifest 0x%08X",
				RoundName(uint8(round)), path, mf.Filename, f.ContentHash, uint32(mf.ContentHash)))
		}
	}
	for _, s := range d.Subdirs {
		child, ok := x.dirs[nodeKey{node, s.NameHash}]
		if !ok {
			dst = append(dst, finding(anomaly.ChecksumFileUnknown, round, NoOffset,
				"round %s: directory 0x%08X in %s is not in the manifest", RoundName(uint8(round)), s.NameHash, path))
			continue
		}
		dst = x.compare(dst, round, child, s)
	}
	return dst
}
