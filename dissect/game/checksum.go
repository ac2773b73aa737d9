package game

import (
	"errors"
	"strconv"

	"github.com/bcdump/bcdump/checksum"
)

// Checksum and NetFile opcodes (protocol-facts 6, 7.6, 9). The wire codec
// lives in package checksum; these decoders turn its offsets into fields.
// Hash names are not resolved here: the dissector fills Field.Note from a
// manifest (checksum.Resolver).

func init() {
	register(checksum.OpRequest, decodeChecksumReq, summarizeChecksumReq)
	register(checksum.OpResponse, decodeChecksumResp, summarizeChecksumResp)
	// The NetFile failure and file-transfer messages (0x22, 0x23, 0x25,
	// 0x27, documented, never captured: 7.6) and 0x28 have decoders
	// generated from their layouts; 0x24 and 0x26 have no known use: no
	// decoder. 0x28's summary counts any bytes after the opcode.
	register(checksum.OpComplete, nil, summarizeNetFileRaw)
}

// decodeChecksumReq reads 0x20 (V): round, directory, filter, recursive.
// Strings cover their u16 length prefix. A recursive flag written as a
// plain byte decodes, with a note (the analyzer raises
// checksum-bitbyte-plain).
func decodeChecksumReq(p []byte, f *Fields) error {
	r, err := checksum.ParseRequest(p)
	if r.Fields >= 1 {
		f.Uint("round", 1, 1, uint64(r.Round))
	}
	if r.Fields >= 2 {
		f.String("directory", r.DirOff, 2+len(r.Dir), r.Dir)
	}
	if r.Fields >= 3 {
		f.String("filter", r.FilterOff, 2+len(r.Filter), r.Filter)
	}
	if r.Fields >= 4 {
		if r.PlainFlag {
			f.Bool("recursive", r.FlagOff, 1, -1, r.Recursive)
			f.Note(NotePlainFlag)
		} else {
			f.Bool("recursive", r.FlagOff, 1, 0, r.Recursive)
		}
	}
	return checksumMalformed(err)
}

// summarizeChecksumReq: round=3 "scripts/mainmenu" "*.pyc" [recursive].
func summarizeChecksumReq(dst, p []byte, _ *Fields) []byte {
	r, _ := checksum.ParseRequest(p)
	if r.Fields < 1 {
		return dst
	}
	dst = appendRound(dst, r.Round)
	if r.Fields >= 2 {
		dst = strconv.AppendQuoteToASCII(append(dst, ' '), string(r.Dir))
	}
	if r.Fields >= 3 {
		dst = strconv.AppendQuoteToASCII(append(dst, ' '), string(r.Filter))
	}
	if r.Fields >= 4 && r.Recursive {
		dst = append(dst, " recursive"...)
	}
	return dst
}

// decodeChecksumResp reads 0x21 (V): round, ref_hash (round 0 only),
// dir_hash, then the tree as nested fields:
//
//	file_count, files [{name_hash, content_hash}...], subdir_count,
//	subdirs [{name_hash, file_count, files, subdir_count, subdirs}...]
//
// A subdirectory object sits at its name hash, which the wire lists before
// the subtrees. Every byte of a well-formed payload belongs to one field.
func decodeChecksumResp(p []byte, f *Fields) error {
	// The visitor lives in f: passed as an interface it would escape, one
	// allocation per payload.
	if f.respVisitor == nil {
		f.respVisitor = new(checksumRespFields)
	}
	v := f.respVisitor
	*v = checksumRespFields{f: f}
	err := checksum.Walk(p, v)
	if !v.header && len(p) >= 2 {
		f.Uint("round", 1, 1, uint64(p[1]))
	}
	for ; v.open > 0; v.open-- {
		f.End() // keep the token stream balanced after a fault
	}
	return checksumMalformed(err)
}

// checksumRespFields is the checksum.Visitor that appends the fields.
type checksumRespFields struct {
	f      *Fields
	open   int // arrays and objects opened and not yet closed
	header bool
}

func (v *checksumRespFields) Header(h checksum.Header) {
	v.header = true
	v.f.Uint("round", 1, 1, uint64(h.Round))
	if h.HasRef {
		v.f.Hash("ref_hash", h.RefOff, h.RefHash)
	}
	v.f.Hash("dir_hash", h.DirOff, h.DirHash)
}

func (v *checksumRespFields) Dir(d checksum.DirStart) {
	if d.Depth > 0 {
		v.f.Object("", d.NameOff)
		v.open++
		v.f.Hash("name_hash", d.NameOff, d.NameHash)
	}
	v.f.Uint("file_count", d.FileCountOff, 2, uint64(d.FileCount))
	v.f.Array("files", d.FileCountOff+2)
	v.open++
}

func (v *checksumRespFields) File(e checksum.FileEntry) {
	v.f.Object("", e.Off)
	v.f.Hash("name_hash", e.Off, e.NameHash)
	v.f.Hash("content_hash", e.Off+4, e.ContentHash)
	v.f.End()
}

func (v *checksumRespFields) Subdirs(s checksum.SubdirList) {
	v.f.End() // files
	v.open--
	v.f.Uint("subdir_count", s.CountOff, 1, uint64(s.Count))
	v.f.Array("subdirs", s.NamesOff)
	v.open++
}

func (v *checksumRespFields) EndDir(depth, _ int) {
	v.f.End() // subdirs
	v.open--
	if depth > 0 {
		v.f.End() // the subdirectory object
		v.open--
	}
}

// summarizeChecksumResp: round=2 102 files 1 dir (totals over the tree).
// When the dissector named the hashes from a manifest, the directory and a
// lone file are named too: round=0 dir=scripts 1 file App.pyc.
func summarizeChecksumResp(dst, _ []byte, f *Fields) []byte {
	rf, ok := f.Get("round")
	if !ok {
		return dst
	}
	dst = appendRound(dst, uint8(rf.U))
	if df, ok := f.Get("dir_hash"); ok && df.Note != "" {
		dst = append(append(dst, " dir="...), df.Note...)
	}
	files, dirs := 0, -1
	fileName := ""
	for i := range f.List {
		switch f.List[i].Name {
		case "content_hash":
			files++
			if i > 0 && f.List[i-1].Name == "name_hash" {
				fileName = f.List[i-1].Note
			}
		case "file_count":
			dirs++
		}
	}
	if dirs < 0 {
		return dst // the tree did not start
	}
	dst = appendCount(append(dst, ' '), files, "file", "files")
	if files == 1 && fileName != "" {
		dst = append(append(dst, ' '), fileName...)
	}
	if dirs > 0 {
		dst = appendCount(append(dst, ' '), dirs, "dir", "dirs")
	}
	return dst
}

// NotePlainFlag labels a checksum request's recursive flag sent as a plain
// byte (the Wireshark plugin shows the same label).
const NotePlainFlag = "plain byte, not a bit group: a stock client misreads it"

// summarizeNetFileRaw: the size of the raw bytes, if any ("12 bytes").
func summarizeNetFileRaw(dst, p []byte, _ *Fields) []byte {
	if len(p) <= 1 {
		return dst
	}
	return appendCount(dst, len(p)-1, "byte", "bytes")
}

// appendRound appends "round=N", with 0xFF in hex as the spec writes it.
func appendRound(dst []byte, r uint8) []byte {
	dst = append(dst, "round="...)
	if r > 9 {
		const digits = "0123456789ABCDEF"
		return append(dst, '0', 'x', digits[r>>4], digits[r&0xF])
	}
	return strconv.AppendUint(dst, uint64(r), 10)
}

func appendCount(dst []byte, n int, one, many string) []byte {
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, ' ')
	if n == 1 {
		return append(dst, one...)
	}
	return append(dst, many...)
}

// checksumMalformed converts a checksum parse error to the package's
// *MalformedError.
func checksumMalformed(err error) error {
	if err == nil {
		return nil
	}
	var pe *checksum.ParseError
	if errors.As(err, &pe) {
		return NewMalformed(pe.Off, pe.Reason())
	}
	return NewMalformed(0, err.Error())
}
