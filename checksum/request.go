package checksum

import "fmt"

// Request is a decoded ChecksumReq 0x20 (protocol-facts 9.2):
//
//	20 <round:u8> <u16 len><dir> <u16 len><filter> <recursive: bit group>
//
// Dir and Filter alias the payload; copy them to keep them past it.
type Request struct {
	Round     uint8
	Dir       []byte // e.g. "scripts/" (rounds 0 and 1 keep the slash)
	Filter    []byte // e.g. "*.pyc" or "App.pyc"
	Recursive bool
	// PlainFlag is set when the flag was a plain 0x00/0x01 byte instead of
	// a bit group 0x20/0x21: a stock client reads it as a bit group and
	// loses step (analyzer code checksum-bitbyte-plain).
	PlainFlag bool

	// Offsets from the opcode byte: DirOff and FilterOff point at the u16
	// length prefixes, FlagOff at the flag byte.
	DirOff, FilterOff, FlagOff int

	// Fields counts the fields decoded, in wire order: 1 round,
	// 2 directory, 3 filter, 4 recursive. Less than 4 only with an error.
	Fields int
}

// Bit-group bytes holding one boolean (count 1 in bits 7..5, value in bit 0;
// protocol-facts 8.2).
const (
	bitGroupFalse = 0x20
	bitGroupTrue  = 0x21
)

// ParseRequest decodes a ChecksumReq payload (p[0] is the opcode 0x20).
// On error the returned Request holds the first r.Fields fields, and the
// error is a *ParseError with the offset of the fault.
func ParseRequest(p []byte) (Request, error) {
	var r Request
	if len(p) < 1 || p[0] != OpRequest {
		return r, perr(0, "opcode", ErrOpcode)
	}
	if len(p) < 2 {
		return r, perr(1, "round", ErrShort)
	}
	r.Round = p[1]
	r.Fields = 1
	off := 2
	var err error
	if r.Dir, off, err = readString(p, off, "directory"); err != nil {
		return r, err
	}
	r.DirOff = 2
	r.Fields = 2
	r.FilterOff = off
	if r.Filter, off, err = readString(p, off, "filter"); err != nil {
		r.FilterOff = 0
		return r, err
	}
	r.Fields = 3
	if off >= len(p) {
		return r, perr(off, "recursive", ErrShort)
	}
	switch b := p[off]; b {
	case bitGroupFalse, bitGroupTrue:
		r.Recursive = b == bitGroupTrue
	case 0x00, 0x01:
		r.Recursive = b == 0x01
		r.PlainFlag = true
	default:
		return r, &ParseError{Off: off, Field: "recursive", Err: ErrFlag, Detail: fmt.Sprintf("byte 0x%02X", b)}
	}
	r.FlagOff = off
	r.Fields = 4
	if off+1 != len(p) {
		return r, &ParseError{Off: off + 1, Field: "end", Err: ErrTrailing, Detail: fmt.Sprintf("%d bytes", len(p)-off-1)}
	}
	return r, nil
}

// readString reads a u16-length-prefixed string at off.
func readString(p []byte, off int, field string) ([]byte, int, error) {
	if off+2 > len(p) {
		return nil, off, perr(off, field, ErrShort)
	}
	n := u16(p, off)
	if left := len(p) - off - 2; n > left {
		return nil, off, &ParseError{Off: off, Field: field, Err: ErrShort,
			Detail: fmt.Sprintf("length %d, %d bytes left", n, left)}
	}
	return p[off+2 : off+2+n : off+2+n], off + 2 + n, nil
}

// AppendRequest appends the wire form of r (opcode included) to dst.
// Strings longer than 65535 bytes are cut to fit the u16 length.
func AppendRequest(dst []byte, r *Request) []byte {
	dst = append(dst, OpRequest, r.Round)
	dst = appendString(dst, r.Dir)
	dst = appendString(dst, r.Filter)
	var b byte
	if r.Recursive {
		b = 1
	}
	if !r.PlainFlag {
		b |= bitGroupFalse
	}
	return append(dst, b)
}

func appendString(dst, s []byte) []byte {
	if len(s) > 0xFFFF {
		s = s[:0xFFFF]
	}
	return append(append(dst, byte(len(s)), byte(len(s)>>8)), s...)
}
