package checksum

// Response is a decoded ChecksumResp 0x21 as a tree.
type Response struct {
	Round   uint8
	HasRef  bool   // the wire carries a reference hash exactly in round 0
	RefHash uint32 // VersionHash from a stock 1.1 client
	DirHash uint32 // StringHash(TrimDir(requested directory))
	Root    *Dir
}

// Dir is one directory of a response tree.
type Dir struct {
	NameHash uint32 // StringHash of the leaf name; 0 for the root
	Files    []File // in wire order (byte-wise by name on a stock client)
	Subdirs  []*Dir
}

// File is one file entry of a response tree.
type File struct {
	NameHash    uint32
	ContentHash uint32
}

// Count returns the number of files and of directories below d (d itself
// not counted), at every depth.
func (d *Dir) Count() (files, dirs int) {
	if d == nil {
		return 0, 0
	}
	files = len(d.Files)
	for _, s := range d.Subdirs {
		f, n := s.Count()
		files += f
		dirs += n + 1
	}
	return files, dirs
}

// ParseResponse decodes ChecksumResp payload p (p[0] is the opcode 0x21)
// into a tree. Memory is bounded by len(p): counts are checked against the
// remaining bytes before anything is allocated. Errors are *ParseError.
func ParseResponse(p []byte) (*Response, error) {
	var b treeBuilder
	if err := Walk(p, &b); err != nil {
		return nil, err
	}
	return &b.r, nil
}

// treeBuilder is the Visitor behind ParseResponse.
type treeBuilder struct {
	r     Response
	stack []*Dir // stack[d] is the open directory at depth d
}

func (b *treeBuilder) Header(h Header) {
	b.r.Round, b.r.HasRef, b.r.RefHash, b.r.DirHash = h.Round, h.HasRef, h.RefHash, h.DirHash
}

func (b *treeBuilder) Dir(d DirStart) {
	n := &Dir{NameHash: d.NameHash, Files: make([]File, 0, d.FileCount)}
	if d.Depth == 0 {
		b.r.Root = n
	} else {
		parent := b.stack[d.Depth-1]
		parent.Subdirs = append(parent.Subdirs, n)
	}
	b.stack = append(b.stack[:d.Depth], n)
}

func (b *treeBuilder) File(f FileEntry) {
	d := b.stack[f.Depth]
	d.Files = append(d.Files, File{NameHash: f.NameHash, ContentHash: f.ContentHash})
}

func (b *treeBuilder) Subdirs(s SubdirList) {
	if s.Count > 0 {
		b.stack[s.Depth].Subdirs = make([]*Dir, 0, s.Count)
	}
}

func (b *treeBuilder) EndDir(int, int) {}

// AppendResponse appends the wire form of r (opcode included) to dst. The
// reference hash is written when r.HasRef is set; a well-formed response
// has HasRef == (Round == 0). A nil Root is written as an empty tree.
// Lists longer than the wire counts allow (65535 files, 255 subdirectories)
// are cut.
func AppendResponse(dst []byte, r *Response) []byte {
	dst = append(dst, OpResponse, r.Round)
	if r.HasRef {
		dst = appendU32(dst, r.RefHash)
	}
	dst = appendU32(dst, r.DirHash)
	return appendTree(dst, r.Root)
}

func appendTree(dst []byte, d *Dir) []byte {
	if d == nil {
		return append(dst, 0, 0, 0)
	}
	files := d.Files
	if len(files) > 0xFFFF {
		files = files[:0xFFFF]
	}
	dst = append(dst, byte(len(files)), byte(len(files)>>8))
	for _, f := range files {
		dst = appendU32(appendU32(dst, f.NameHash), f.ContentHash)
	}
	subs := d.Subdirs
	if len(subs) > 0xFF {
		subs = subs[:0xFF]
	}
	dst = append(dst, byte(len(subs)))
	for _, s := range subs {
		var h uint32
		if s != nil {
			h = s.NameHash
		}
		dst = appendU32(dst, h)
	}
	for _, s := range subs {
		dst = appendTree(dst, s)
	}
	return dst
}

func appendU32(dst []byte, v uint32) []byte {
	return append(dst, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}
