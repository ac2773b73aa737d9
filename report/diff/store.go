package diff

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
)

// leafStore holds the content (leaves) of one side's messages, encoded,
// outside the messages themselves: a message keeps only where its leaves
// are and a hash of what is compared. Up to budget bytes stay in memory;
// past that the store moves to a temporary file (spills) and reads a
// message's leaves back when they are shown or compared in detail. So a
// side's memory is a fixed size per message, whatever its content.
type leafStore struct {
	budget int
	mem    []byte // everything, while not spilled

	f        *os.File // the spill file, once spilled
	fileName string   // its path (removed at once where the system allows)
	w        *bufio.Writer
	size     int64 // bytes in the store (memory or file)
	err      error // the first spill error: reads then fail soft (no leaves)

	paths   []string
	pathIDs map[string]uint32

	names   []string // type and opcode names; names[0] is ""
	nameIDs map[string]uint16

	enc []byte // scratch
	rd  []byte // scratch for reads
}

// DefaultSpillBytes is the encoded content one side keeps in memory before
// spilling to a temporary file.
const DefaultSpillBytes = 32 << 20

func newLeafStore(budget int) *leafStore {
	if budget <= 0 {
		budget = DefaultSpillBytes
	}
	return &leafStore{budget: budget, pathIDs: map[string]uint32{}, names: []string{""}, nameIDs: map[string]uint16{"": 0}}
}

// maxNames bounds the distinct type and opcode names of one side (a real
// capture has a few dozen; a hostile trace may name millions): past it a
// name is stored as "?". Names are shown and pair changed messages; the
// type and opcode numbers are what is compared.
const maxNames = 1 << 15

// nameID interns a type or opcode name.
func (s *leafStore) nameID(n string) uint16 {
	if id, ok := s.nameIDs[n]; ok {
		return id
	}
	if len(s.names) >= maxNames {
		n = "?"
		if id, ok := s.nameIDs[n]; ok {
			return id
		}
	}
	id := uint16(len(s.names))
	s.nameIDs[n] = id
	s.names = append(s.names, n)
	return id
}

// name is the name of an id from nameID.
func (s *leafStore) name(id uint16) string {
	if s == nil || int(id) >= len(s.names) {
		return ""
	}
	return s.names[id]
}

// path interns a leaf path: every message of a kind has the same paths.
func (s *leafStore) path(p []byte) string {
	if id, ok := s.pathIDs[string(p)]; ok {
		return s.paths[id]
	}
	str := string(p)
	s.pathIDs[str] = uint32(len(s.paths))
	s.paths = append(s.paths, str)
	return str
}

// put stores ls and returns where.
func (s *leafStore) put(ls []Leaf) (off int64, n uint32) {
	b := s.enc[:0]
	b = binary.AppendUvarint(b, uint64(len(ls)))
	for i := range ls {
		l := &ls[i]
		id, ok := s.pathIDs[l.Path]
		if !ok {
			s.path([]byte(l.Path))
			id = s.pathIDs[l.Path]
		}
		v := uint64(id) << 2
		if l.note {
			v |= 2
		}
		if l.addr {
			v |= 1
		}
		b = binary.AppendUvarint(b, v)
		b = binary.AppendUvarint(b, uint64(len(l.Value)))
		b = append(b, l.Value...)
	}
	s.enc = b
	off = s.size
	s.size += int64(len(b))
	if s.f == nil && len(s.mem)+len(b) > s.budget && s.err == nil {
		s.spill()
	}
	if s.f != nil {
		if _, err := s.w.Write(b); err != nil && s.err == nil {
			s.err = err
		}
	} else {
		s.mem = append(s.mem, b...)
	}
	return off, uint32(len(b))
}

// spill moves the store to a temporary file, removed at once (it lives
// while open; Close closes it).
func (s *leafStore) spill() {
	f, err := os.CreateTemp("", "bcdump-diff-*")
	if err != nil {
		s.err = fmt.Errorf("diff: spilling to a temporary file: %w", err)
		return
	}
	// Unlinked at once where the system allows (gone even if bcdump is
	// killed); elsewhere (Windows) Close removes it.
	os.Remove(f.Name())
	s.f, s.fileName, s.w = f, f.Name(), bufio.NewWriterSize(f, 256<<10)
	if _, err := s.w.Write(s.mem); err != nil {
		s.err = err
	}
	s.mem = nil
}

// Spilled says the store moved to a temporary file.
func (s *leafStore) Spilled() bool { return s.f != nil }

// get decodes the leaves stored at off.
func (s *leafStore) get(off int64, n uint32) ([]Leaf, error) {
	var b []byte
	if s.f == nil {
		if off+int64(n) > int64(len(s.mem)) {
			return nil, errors.New("diff: leaf store out of range")
		}
		b = s.mem[off : off+int64(n)]
	} else {
		if s.w.Buffered() > 0 {
			if err := s.w.Flush(); err != nil {
				return nil, err
			}
		}
		if cap(s.rd) < int(n) {
			s.rd = make([]byte, n)
		}
		b = s.rd[:n]
		if _, err := s.f.ReadAt(b, off); err != nil {
			return nil, err
		}
	}
	cnt, k := binary.Uvarint(b)
	if k <= 0 || cnt > uint64(len(b)) {
		return nil, errors.New("diff: bad leaf store")
	}
	b = b[k:]
	ls := make([]Leaf, 0, cnt)
	for range cnt {
		v, k := binary.Uvarint(b)
		if k <= 0 || v>>2 >= uint64(len(s.paths)) {
			return nil, errors.New("diff: bad leaf store")
		}
		b = b[k:]
		ln, k := binary.Uvarint(b)
		if k <= 0 || ln > uint64(len(b)-k) {
			return nil, errors.New("diff: bad leaf store")
		}
		b = b[k:]
		ls = append(ls, Leaf{Path: s.paths[v>>2], Value: string(b[:ln]), note: v&2 != 0, addr: v&1 != 0})
		b = b[ln:]
	}
	return ls, nil
}

// Close removes the spill file, if any.
func (s *leafStore) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	os.Remove(s.fileName) // already gone where it could be unlinked while open
	s.f, s.w = nil, nil
	return err
}

// hashSeed is the seed of content hashes: one per process, so both sides
// of a comparison hash alike.
var hashSeed = maphash.MakeSeed()

// contentHash hashes the compared leaves of a message (Options.compared):
// the alignment compares these hashes, so two messages are equal when
// their compared leaves hash alike (64 bits: a collision is as likely as
// 1 in 2^64 per pair).
func contentHash(ls []Leaf, opt *Options) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	for i := range ls {
		l := &ls[i]
		if !opt.compared(l) {
			continue
		}
		h.WriteString(l.Path)
		h.WriteByte(0)
		h.WriteString(l.Value)
		h.WriteByte(0)
	}
	return h.Sum64()
}
