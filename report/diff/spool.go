package diff

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// spool is an append-only byte log kept in memory up to a budget, then in
// an unlinked temporary file: the storage of a side's message content
// (leafStore), of its messages' fixed records (msgLog) and of a result's
// edits (editLog). Once spilled, only the last flushChunk bytes written
// stay in memory. Bytes already written may be overwritten in place
// (patch), as the builder does when an ACK or a resend arrives for a
// message already filed.
type spool struct {
	budget int
	mem    []byte // everything until spilled; after, the tail not yet in the file
	base   int64  // offset of mem[0]: bytes already in the file
	gen    int    // counts patches of the file, so readers drop stale caches

	f        *os.File
	fileName string
	err      error // the first file error: later reads fail
}

// flushChunk is how much a spilled spool buffers before writing.
const flushChunk = 256 << 10

func newSpool(budget int) *spool {
	if budget <= 0 {
		budget = DefaultSpillBytes
	}
	return &spool{budget: budget}
}

// size is the number of bytes written.
func (s *spool) size() int64 { return s.base + int64(len(s.mem)) }

// append writes b at the end and returns its offset.
func (s *spool) append(b []byte) int64 {
	off := s.size()
	if s.f == nil && s.err == nil && len(s.mem)+len(b) > s.budget {
		s.spill()
	}
	s.mem = append(s.mem, b...)
	if s.f != nil && len(s.mem) >= flushChunk {
		s.flush()
	}
	return off
}

func (s *spool) flush() {
	if len(s.mem) == 0 {
		return
	}
	if s.err == nil {
		if _, err := s.f.WriteAt(s.mem, s.base); err != nil {
			s.err = fmt.Errorf("diff: writing the temporary file: %w", err)
		}
	}
	s.base += int64(len(s.mem))
	s.mem = s.mem[:0]
}

// spill moves the spool to a temporary file, removed at once (it lives
// while open; Close closes it).
func (s *spool) spill() {
	f, err := os.CreateTemp("", "bcdump-diff-*")
	if err != nil {
		s.err = fmt.Errorf("diff: spilling to a temporary file: %w", err)
		return
	}
	// Unlinked at once where the system allows (gone even if bcdump is
	// killed); elsewhere (Windows) Close removes it.
	os.Remove(f.Name())
	s.f, s.fileName = f, f.Name()
	old := s.mem
	s.mem = make([]byte, 0, flushChunk+4096)
	if len(old) > 0 {
		if _, err := f.WriteAt(old, 0); err != nil {
			s.err = fmt.Errorf("diff: writing the temporary file: %w", err)
		}
		s.base = int64(len(old))
	}
}

// patch overwrites bytes written before, at off.
func (s *spool) patch(off int64, b []byte) {
	if off >= s.base {
		if i := off - s.base; i+int64(len(b)) <= int64(len(s.mem)) {
			copy(s.mem[i:], b)
		}
		return
	}
	if s.f == nil || s.err != nil {
		return
	}
	if _, err := s.f.WriteAt(b, off); err != nil {
		s.err = fmt.Errorf("diff: writing the temporary file: %w", err)
	}
	s.gen++
}

// spillFailed returns the error of a spill that could not create its
// temporary file: the spool then holds its bytes in memory past the
// budget, so the diff must stop (its bound would not hold).
func (s *spool) spillFailed() error {
	if s != nil && s.f == nil && s.err != nil {
		return s.err
	}
	return nil
}

// Spilled says the spool moved to a temporary file.
func (s *spool) Spilled() bool { return s != nil && s.f != nil }

// Close closes and removes the temporary file, if any.
func (s *spool) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	os.Remove(s.fileName) // already gone where it could be unlinked while open
	s.f = nil
	s.err = errors.New("diff: temporary file closed")
	return err
}

var errSpoolRange = errors.New("diff: read past the end of a temporary store")

// spoolReader reads a spool back, through a cache of one chunk of its file:
// sequential reads of small records cost one system call per chunk.
type spoolReader struct {
	s     *spool
	chunk int // bytes read from the file at once (0: exactly what is asked)
	buf   []byte
	off   int64 // file offset of buf[0]
	gen   int
}

// read returns the n bytes at off, valid until the next read.
func (r *spoolReader) read(off int64, n int) ([]byte, error) {
	s := r.s
	end := off + int64(n)
	if off < 0 || end > s.size() {
		return nil, errSpoolRange
	}
	if off >= s.base {
		return s.mem[off-s.base : end-s.base], nil
	}
	if end > s.base {
		return nil, errSpoolRange // records never straddle a flush
	}
	if s.err != nil {
		return nil, s.err
	}
	if r.gen == s.gen && off >= r.off && end <= r.off+int64(len(r.buf)) {
		return r.buf[off-r.off : end-r.off], nil
	}
	want := max(n, r.chunk)
	if int64(want) > s.base-off {
		want = int(s.base - off)
	}
	if cap(r.buf) < want {
		r.buf = make([]byte, want)
	}
	r.buf = r.buf[:want]
	k, err := s.f.ReadAt(r.buf, off)
	if k < n {
		if err == nil || err == io.EOF {
			err = errSpoolRange
		}
		r.buf = r.buf[:0]
		return nil, err
	}
	r.buf, r.off, r.gen = r.buf[:k], off, s.gen
	return r.buf[:n], nil
}
