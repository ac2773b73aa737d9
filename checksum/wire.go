package checksum

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Opcodes of the checksum exchange (protocol-facts sections 6 and 9).
const (
	OpRequest  = 0x20 // host -> client: hash this directory
	OpResponse = 0x21 // client -> host: the hash tree
	OpComplete = 0x28 // host -> client: all rounds passed
)

// VersionHash is the round 0 reference hash: StringHash("60"), the game
// version string of BC 1.1.
const VersionHash = 0x7E0CE243

// MaxDepth bounds the nesting of a response tree (the requested directory is
// depth 0). Stock trees go two levels deep (Multiplayer/Episode/Mission1);
// the limit keeps hostile input from recursing without end.
const MaxDepth = 32

// Sentinel errors; a *ParseError wraps one of them.
var (
	ErrOpcode   = errors.New("wrong opcode")
	ErrShort    = errors.New("payload too short")
	ErrCount    = errors.New("count exceeds the remaining bytes")
	ErrDepth    = errors.New("tree nested too deep")
	ErrFlag     = errors.New("recursive flag is neither a bit group (0x20/0x21) nor a plain byte (0x00/0x01)")
	ErrTrailing = errors.New("trailing bytes after the message")
)

// ParseError says where in a payload decoding stopped. Off counts from the
// opcode byte (offset 0), like every offset in this package.
type ParseError struct {
	Off    int
	Field  string // the field being read, e.g. "file_count"
	Err    error  // one of the sentinel errors
	Detail string // numbers behind Err, e.g. "65535 files need 524281 bytes, 9 left"; may be empty
}

func (e *ParseError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("checksum: %s at offset %d: %v (%s)", e.Field, e.Off, e.Err, e.Detail)
	}
	return fmt.Sprintf("checksum: %s at offset %d: %v", e.Field, e.Off, e.Err)
}

// Reason is the error without the package prefix and offset, for callers
// that show the offset themselves.
func (e *ParseError) Reason() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s: %v (%s)", e.Field, e.Err, e.Detail)
	}
	return fmt.Sprintf("%s: %v", e.Field, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

func perr(off int, field string, err error) error {
	return &ParseError{Off: off, Field: field, Err: err}
}

// u16 and u32 read little-endian values; callers check the length first.
func u16(p []byte, off int) int { return int(binary.LittleEndian.Uint16(p[off:])) }

func u32(p []byte, off int) uint32 { return binary.LittleEndian.Uint32(p[off:]) }

// TrimDir returns the directory string whose StringHash a client sends as
// the response's dir_hash: the requested string without trailing '/'
// ("scripts/" -> "scripts").
func TrimDir(dir string) string {
	for len(dir) > 0 && dir[len(dir)-1] == '/' {
		dir = dir[:len(dir)-1]
	}
	return dir
}
