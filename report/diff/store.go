package diff

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
)

// leafStore holds the content (leaves) of one side's messages, encoded,
// outside the messages themselves: a message keeps only where its leaves
// are and a hash of what is compared. Up to budget bytes stay in memory;
// past that the store moves to a temporary file (spills) and reads a
// message's leaves back when they are shown or compared in detail. So a
// side's memory is a fixed size per message, whatever its content.
type leafStore struct {
	sp *spool
	rd spoolReader

	paths   []string
	pathIDs map[string]uint32

	names   []string // type and opcode names; names[0] is ""
	nameIDs map[string]uint16

	enc []byte // scratch
}

// DefaultSpillBytes is what each of a diff's stores (a side's message
// content, a side's message records, a result's edits) keeps in memory
// before spilling to a temporary file.
const DefaultSpillBytes = 32 << 20

func newLeafStore(budget int) *leafStore {
	sp := newSpool(budget)
	return &leafStore{sp: sp, rd: spoolReader{s: sp}, pathIDs: map[string]uint32{}, names: []string{""}, nameIDs: map[string]uint16{"": 0}}
}

// maxNames bounds the distinct type and opcode names of one side (a real
// capture has a few dozen; a hostile trace may name millions): past it a
// name is stored as "?". Names are shown and pair changed messages; the
// type and opcode numbers are what is compared.
const maxNames = 1 << 15

// maxPaths bounds the distinct leaf paths of one side (a real capture has
// a few hundred; a hostile trace may invent millions): past it a new path
// is stored as "fields.?" and its value compared under that name.
const maxPaths = 1 << 16

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
	if len(s.paths) >= maxPaths {
		p = []byte("fields.?")
		if id, ok := s.pathIDs[string(p)]; ok {
			return s.paths[id]
		}
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
			id = s.pathIDs[s.path([]byte(l.Path))]
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
	return s.sp.append(b), uint32(len(b))
}

// Spilled says the store moved to a temporary file.
func (s *leafStore) Spilled() bool { return s.sp.Spilled() }

// get decodes the leaves stored at off.
func (s *leafStore) get(off int64, n uint32) ([]Leaf, error) {
	b, err := s.rd.read(off, int(n))
	if err != nil {
		return nil, err
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
	if s == nil {
		return nil
	}
	return s.sp.Close()
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
