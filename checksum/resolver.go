package checksum

// StockNames are names from the stock round 0xFF answer (Scripts/Multiplayer),
// which vanilla-1.1.json lacks. Each one's StringHash occurs in the captured
// stock response (seed 003 packet #24), which the tests check.
var StockNames = []string{
	"Episode", "Episode.pyc",
	"Mission1", "Mission1.pyc", "Mission1Menus.pyc", "Mission1Name.pyc",
	"Mission2", "Mission2.pyc", "Mission2Menus.pyc", "Mission2Name.pyc",
	"Mission3", "Mission3.pyc", "Mission3Menus.pyc", "Mission3Name.pyc",
	"Mission5", "Mission5.pyc", "Mission5Menus.pyc", "Mission5Name.pyc",
	"MissionMenusShared.pyc", "MissionShared.pyc", "Modifier.pyc",
	"MultiplayerGame.pyc", "MultiplayerMenus.pyc",
	"SpeciesToShip.pyc", "SpeciesToSystem.pyc", "SpeciesToTorp.pyc",
	"StarbaseAI.pyc", "__init__.pyc",
}

// Resolver names hashes: file and directory leaf names, round directory
// paths and the version string. A nil *Resolver resolves nothing.
type Resolver struct {
	names map[uint32]string
}

// NewResolver indexes the names of the given manifests (nil ones are
// skipped), plus the stock round directories, "60" and StockNames. When
// two names share a hash, the first one added wins: manifests in argument
// order, then the built-in names.
func NewResolver(ms ...*Manifest) *Resolver {
	r := &Resolver{names: make(map[uint32]string)}
	for _, m := range ms {
		if m == nil {
			continue
		}
		r.add(m.VersionString)
		for i := range m.Directories {
			d := &m.Directories[i]
			r.add(d.Path)
			if _, ok := r.names[uint32(d.DirNameHash)]; !ok && StringHash(d.Path) != uint32(d.DirNameHash) {
				// vanilla-1.1.json hashes the leaf ("ships") here.
				r.names[uint32(d.DirNameHash)] = leaf(d.Path)
			}
			r.addFiles(d.Files)
			r.addDirs(d.Subdirs)
		}
	}
	r.add("60")
	for _, rs := range Rounds {
		r.add(TrimDir(rs.Dir))
	}
	for _, n := range StockNames {
		r.add(n)
	}
	return r
}

// Resolver returns NewResolver(m).
func (m *Manifest) Resolver() *Resolver { return NewResolver(m) }

// Name returns the name whose StringHash is h.
func (r *Resolver) Name(h uint32) (string, bool) {
	if r == nil {
		return "", false
	}
	n, ok := r.names[h]
	return n, ok
}

// All calls fn with every hash known and its name, in no set order.
func (r *Resolver) All(fn func(h uint32, name string)) {
	if r == nil {
		return
	}
	for h, n := range r.names {
		fn(h, n)
	}
}

// Len returns the number of names known.
func (r *Resolver) Len() int {
	if r == nil {
		return 0
	}
	return len(r.names)
}

func (r *Resolver) add(name string) {
	if name == "" {
		return
	}
	h := StringHash(name)
	if _, ok := r.names[h]; !ok {
		r.names[h] = name
	}
}

// addFiles uses the stored name hash, so a manifest whose hashes came from
// elsewhere still resolves what it claims.
func (r *Resolver) addFiles(fs []ManifestFile) {
	for i := range fs {
		if _, ok := r.names[uint32(fs[i].NameHash)]; !ok && fs[i].Filename != "" {
			r.names[uint32(fs[i].NameHash)] = fs[i].Filename
		}
	}
}

func (r *Resolver) addDirs(ds []ManifestDir) {
	for i := range ds {
		if _, ok := r.names[uint32(ds[i].NameHash)]; !ok && ds[i].Name != "" {
			r.names[uint32(ds[i].NameHash)] = ds[i].Name
		}
		r.addFiles(ds[i].Files)
		r.addDirs(ds[i].Subdirs)
	}
}

func leaf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}
