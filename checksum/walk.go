package checksum

import "fmt"

// A ChecksumResp 0x21 (protocol-facts 9.3) is
//
//	21 <round:u8> [<ref_hash:u32>, round 0 only] <dir_hash:u32> <tree>
//
// and a tree, the same at every level, is
//
//	u16 file_count, file_count x {u32 name_hash, u32 content_hash},
//	u8 subdir_count, subdir_count x u32 name_hash (all names first),
//	subdir_count x tree (then each subtree, in the same order).
//
// Walk reports the elements in wire order with their offsets, so a
// dissector can annotate every byte; ParseResponse builds a tree on top.

// Header is the fixed part of a response.
type Header struct {
	Round   uint8
	HasRef  bool // round 0 carries a reference (version) hash
	RefHash uint32
	RefOff  int // -1 without a reference hash
	DirHash uint32
	DirOff  int
}

// DirStart opens one directory node. The root (depth 0) is the requested
// directory: its hash is Header.DirHash, so it has no NameHash.
type DirStart struct {
	Depth        int
	Index        int    // position among the parent's subdirectories; 0 for the root
	NameHash     uint32 // StringHash of the leaf name, from the parent's name list
	NameOff      int    // offset of NameHash; -1 for the root
	FileCount    int
	FileCountOff int // offset of the u16 file count
}

// FileEntry is one file of the directory opened last.
type FileEntry struct {
	Depth       int
	Index       int
	NameHash    uint32 // StringHash of the file name
	ContentHash uint32 // FileHash of the file bytes
	Off         int    // NameHash at Off, ContentHash at Off+4
}

// SubdirList follows the last file of a directory. Subtree i (visited next,
// in order) takes its name hash from NamesOff+4*i.
type SubdirList struct {
	Depth    int
	Count    int
	CountOff int // offset of the u8 count
	NamesOff int // offset of the first u32 name hash
}

// Visitor receives the elements of a response in wire order: Header, then
// for each directory Dir, its Files, Subdirs, its subtrees, EndDir. When
// Walk fails, the calls made so far describe the bytes before the fault.
type Visitor interface {
	Header(h Header)
	Dir(d DirStart)
	File(f FileEntry)
	Subdirs(s SubdirList)
	EndDir(depth, end int) // end: offset just past the directory's last byte
}

// Each file takes 8 bytes; the smallest subtree (no files, no subdirs) takes
// 3 bytes plus its 4-byte name. Counts are checked against these minimums
// before anything is visited or allocated.
const (
	fileSize      = 8
	minSubdirSize = 4 + 3
)

// Walk decodes ChecksumResp payload p (p[0] is the opcode 0x21) and reports
// its elements to v. Errors are *ParseError values; bytes after the tree
// are an error (ErrTrailing).
func Walk(p []byte, v Visitor) error {
	h, off, err := parseHeader(p)
	if err != nil {
		return err
	}
	v.Header(h)
	w := walker{p: p, v: v}
	end, err := w.dir(off, 0, 0, 0, -1)
	if err != nil {
		return err
	}
	if end != len(p) {
		return &ParseError{Off: end, Field: "end", Err: ErrTrailing, Detail: fmt.Sprintf("%d bytes after the tree", len(p)-end)}
	}
	return nil
}

func parseHeader(p []byte) (Header, int, error) {
	h := Header{RefOff: -1}
	if len(p) < 1 || p[0] != OpResponse {
		return h, 0, perr(0, "opcode", ErrOpcode)
	}
	if len(p) < 2 {
		return h, 1, perr(1, "round", ErrShort)
	}
	h.Round = p[1]
	off := 2
	if h.Round == 0 {
		if len(p) < off+4 {
			return h, off, perr(off, "ref_hash", ErrShort)
		}
		h.HasRef, h.RefHash, h.RefOff = true, u32(p, off), off
		off += 4
	}
	if len(p) < off+4 {
		return h, off, perr(off, "dir_hash", ErrShort)
	}
	h.DirHash, h.DirOff = u32(p, off), off
	return h, off + 4, nil
}

type walker struct {
	p []byte
	v Visitor
}

// dir walks the tree at off and returns the offset just past it.
func (w *walker) dir(off, depth, index int, name uint32, nameOff int) (int, error) {
	p := w.p
	if depth > MaxDepth {
		return off, &ParseError{Off: off, Field: "file_count", Err: ErrDepth,
			Detail: fmt.Sprintf("more than %d levels", MaxDepth)}
	}
	if off+2 > len(p) {
		return off, perr(off, "file_count", ErrShort)
	}
	n := u16(p, off)
	if left := len(p) - off - 2; n*fileSize+1 > left {
		return off, &ParseError{Off: off, Field: "file_count", Err: ErrCount,
			Detail: fmt.Sprintf("%d files and the subdir count need %d bytes, %d left", n, n*fileSize+1, left)}
	}
	w.v.Dir(DirStart{Depth: depth, Index: index, NameHash: name, NameOff: nameOff, FileCount: n, FileCountOff: off})
	fo := off + 2
	for i := 0; i < n; i++ {
		w.v.File(FileEntry{Depth: depth, Index: i, NameHash: u32(p, fo), ContentHash: u32(p, fo+4), Off: fo})
		fo += fileSize
	}
	m := int(p[fo]) // present: the count check above reserved its byte
	if left := len(p) - fo - 1; m*minSubdirSize > left {
		return fo, &ParseError{Off: fo, Field: "subdir_count", Err: ErrCount,
			Detail: fmt.Sprintf("%d subdirectories need at least %d bytes, %d left", m, m*minSubdirSize, left)}
	}
	names := fo + 1
	w.v.Subdirs(SubdirList{Depth: depth, Count: m, CountOff: fo, NamesOff: names})
	next := names + 4*m
	for i := 0; i < m; i++ {
		var err error
		if next, err = w.dir(next, depth+1, i, u32(p, names+4*i), names+4*i); err != nil {
			return next, err
		}
	}
	w.v.EndDir(depth, next)
	return next, nil
}
