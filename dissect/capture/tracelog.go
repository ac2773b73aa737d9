package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// packet_trace.log, the text trace of the stock dedicated server's proxy
// DLL. One entry per datagram the server sent or received:
//
//	[HH:MM:SS.mmm] #SEQ DIR LABEL len=N rc=N TAGS
//	  Decrypted:                       (game datagrams; GameSpy: Text:, Decoded:, Hex:)
//	    0000: 01 02 ... |ascii|        (at most 2048 bytes, then "    ... (N bytes truncated)")
//	      writer's own decode lines    (six spaces or more: ignored)
//	(empty line)
//
// Header lines start with '#'; "# Session started: YYYY-MM-DD HH:MM:SS"
// gives the date (local time, read as UTC). Entry times are times of day:
// the date rolls over when the clock goes back by more than 12 hours (a
// smaller step back is clock jitter and keeps the day).

// Limits of the log format and of this reader.
const (
	// traceLogDumpMax is the most bytes the writer dumps of a datagram.
	traceLogDumpMax = 2048
	// maxTraceLine bounds a line; longer ones are malformed.
	maxTraceLine = 16 << 10
)

type logReader struct {
	in     *bufio.Reader
	name   string
	server netip.AddrPort
	note   func(Note)

	line    int    // number of the last line read
	back    []byte // a line pushed back, or nil
	backLn  int
	day     time.Time // midnight of the current day, UTC
	lastTOD time.Duration
	haveTOD bool
	eof     bool

	e    logEntry
	buf  []byte // the entry's bytes
	long []byte // the start of an overlong line
	eol  byte   // what ends a line: '\n', or '\r' in a file with CR line ends only
}

// logEntry is the entry being read.
type logEntry struct {
	line     int // its entry line
	seq      string
	tod      time.Duration
	fromPeer bool // C->S
	peer     netip.AddrPort
	length   int
	comment  string
	hex      bool // inside a Decrypted:/Hex: dump
	cut      int  // bytes the writer did not dump ("... (N bytes truncated)")
	bad      string
	badLine  int
}

func newLogReader(in *bufio.Reader, name string, server netip.AddrPort, note func(Note)) *logReader {
	return &logReader{in: in, name: name, server: server, note: note,
		day: time.Unix(0, 0).UTC(), buf: make([]byte, 0, traceLogDumpMax), eol: lineEnd(in)}
}

// lineEnd tells how the file's lines end from its first bytes: '\n' (LF
// or CRLF), or '\r' when they hold a CR and no LF (an old Mac editor's
// CR-only line ends, which would otherwise read as one overlong line and
// no datagram).
func lineEnd(in *bufio.Reader) byte {
	head, _ := in.Peek(min(in.Size(), 4096))
	if bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		return '\r'
	}
	return '\n'
}

// readLine returns the next line without its end (\n, \r\n or, in a
// CR-only file, \r), or io.EOF.
// An overlong line is returned cut, with long set.
func (l *logReader) readLine() (line []byte, long bool, err error) {
	if l.back != nil {
		line, l.back = l.back, nil
		l.line = l.backLn
		return line, false, nil
	}
	line, err = l.in.ReadSlice(l.eol)
	if err == bufio.ErrBufferFull { // keep the start, drop the rest
		long = true
		l.long = append(l.long[:0], line[:64]...)
		for err == bufio.ErrBufferFull {
			_, err = l.in.ReadSlice(l.eol)
		}
		line = l.long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	l.line++
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > maxTraceLine {
		line, long = line[:maxTraceLine], true
	}
	return line, long, nil
}

func (l *logReader) unread(line []byte) {
	l.back = append(l.back[:0:0], line...)
	l.backLn = l.line
}

func (l *logReader) next(tp *tracePacket) error {
	for {
		if l.eof {
			return io.EOF
		}
		ok, err := l.entry()
		if err != nil {
			return err
		}
		if ok && l.emit(tp) {
			return nil
		}
	}
}

// entry reads lines up to the end of the next entry; ok is false at the end
// of the file without one.
func (l *logReader) entry() (ok bool, err error) {
	in := false
	for {
		line, long, err := l.readLine()
		if err == io.EOF {
			l.eof = true
			return in && l.cutEntry(), nil
		}
		if err != nil {
			return false, err
		}
		switch {
		case len(line) == 0 || isBlank(line):
			if in {
				return true, nil
			}
		case line[0] == '#' || line[0] == '[':
			if in { // no empty line before it: the entry ends here
				l.unread(line)
				return true, nil
			}
			if line[0] == '#' {
				l.header(line)
				continue
			}
			in = true
			l.startEntry(line, long)
		case !in:
			l.note(traceNote(netip.AddrPort{}, netip.AddrPort{},
				"%s line %d: a line outside any entry (%q), skipped", l.name, l.line, clip(line)))
		default:
			l.entryLine(line, long)
		}
	}
}

// cutEntry handles an entry the file ends in, without its empty line: it
// reports whether the entry is whole all the same.
func (l *logReader) cutEntry() bool {
	e := &l.e
	if e.bad != "" || e.cut > 0 || len(l.buf) == e.length && e.length > 0 {
		return true // emit says what is wrong with it, if anything
	}
	src, dst := l.addrs()
	l.note(traceNote(src, dst, "%s ends inside entry #%s (line %d), after line %d: the log was cut (the server stopped?); read up to the cut",
		l.name, e.seq, e.line, l.line))
	return false
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

// header reads a '#' line: only the session date matters.
func (l *logReader) header(line []byte) {
	const started = "# Session started: "
	if !bytes.HasPrefix(line, []byte(started)) {
		return
	}
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(string(line[len(started):])))
	if err != nil {
		l.note(traceNote(netip.AddrPort{}, netip.AddrPort{}, "%s line %d: a session start that is not YYYY-MM-DD HH:MM:SS: %q", l.name, l.line, clip(line)))
		return
	}
	l.day = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	l.lastTOD = time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second
	l.haveTOD = true
}

// startEntry parses an entry line.
func (l *logReader) startEntry(line []byte, long bool) {
	l.e = logEntry{line: l.line}
	l.buf = l.buf[:0]
	e := &l.e
	s := string(line)
	bad := func(why string) { e.bad, e.badLine = why, l.line }
	if long {
		bad("the entry line is too long")
		return
	}
	if len(s) < 14 || s[13] != ']' {
		bad(fmt.Sprintf("not an entry line %q", clip(line)))
		return
	}
	tod, ok := parseTOD(s[1:13])
	if !ok {
		bad(fmt.Sprintf("bad time %q", s[1:13]))
		return
	}
	e.tod = tod
	f := strings.Fields(s[14:])
	if len(f) < 5 || len(f[0]) < 2 || f[0][0] != '#' {
		bad(fmt.Sprintf("an entry line without #SEQ DIR LABEL len= rc=: %q", clip(line)))
		return
	}
	e.seq = f[0][1:]
	if _, err := strconv.ParseUint(e.seq, 10, 64); err != nil {
		bad(fmt.Sprintf("bad SEQ %q", f[0]))
		return
	}
	switch f[1] {
	case "C->S":
		e.fromPeer = true
	case "S->C", "S->?":
	default:
		bad(fmt.Sprintf("bad direction %q", f[1]))
		return
	}
	e.peer, ok = parsePeerLabel(f[2])
	if !ok {
		bad(fmt.Sprintf("bad peer %q", f[2]))
		return
	}
	n, ok := intField(f[3], "len=")
	if !ok || n < 0 || n > maxTracePayload {
		bad(fmt.Sprintf("bad length %q", f[3]))
		return
	}
	e.length = n
	rc, ok := intField(f[4], "rc=")
	if !ok {
		bad(fmt.Sprintf("bad rc %q", f[4]))
		return
	}
	// The comment carries what the datagram's bytes do not: SEQ, rc when
	// it is not the length, and the writer's tags.
	c := "trace #" + e.seq
	if rc != n {
		c += " rc=" + strconv.Itoa(rc)
	}
	if i := strings.Index(s, f[4]); i >= 0 {
		if tags := strings.TrimSpace(s[i+len(f[4]):]); tags != "" {
			c += " " + tags
		}
	}
	e.comment = c
}

// parseTOD reads HH:MM:SS.mmm.
func parseTOD(s string) (time.Duration, bool) {
	if len(s) != 12 || s[2] != ':' || s[5] != ':' || s[8] != '.' {
		return 0, false
	}
	num := func(a string, max int) (int, bool) {
		v := 0
		for _, c := range []byte(a) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, v <= max
	}
	h, ok1 := num(s[0:2], 23)
	m, ok2 := num(s[3:5], 59)
	sec, ok3 := num(s[6:8], 60)
	ms, ok4 := num(s[9:12], 999)
	if !(ok1 && ok2 && ok3 && ok4) {
		return 0, false
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond, true
}

// parsePeerLabel reads Peer#N(a.b.c.d:port), a.b.c.d:port or "unknown".
func parsePeerLabel(s string) (netip.AddrPort, bool) {
	if s == "unknown" {
		return traceUnknownPeer, true
	}
	if strings.HasPrefix(s, "Peer#") {
		i := strings.IndexByte(s, '(')
		if i < 0 || !strings.HasSuffix(s, ")") {
			return netip.AddrPort{}, false
		}
		if _, err := strconv.ParseUint(s[5:i], 10, 32); err != nil {
			return netip.AddrPort{}, false
		}
		s = s[i+1 : len(s)-1]
	}
	a, err := netip.ParseAddrPort(s)
	if err != nil || !a.Addr().Is4() {
		return netip.AddrPort{}, false
	}
	return a, true
}

func intField(s, key string) (int, bool) {
	if !strings.HasPrefix(s, key) {
		return 0, false
	}
	v, err := strconv.Atoi(s[len(key):])
	return v, err == nil
}

// entryLine reads a line inside an entry.
func (l *logReader) entryLine(line []byte, long bool) {
	e := &l.e
	if e.bad != "" {
		return
	}
	switch {
	case bytes.HasPrefix(line, []byte("  Decrypted:")) || bytes.HasPrefix(line, []byte("  Hex:")):
		e.hex = true
	case bytes.HasPrefix(line, []byte("  Text:")) || bytes.HasPrefix(line, []byte("  Decoded:")):
		e.hex = false
	case bytes.HasPrefix(line, []byte("      ")):
		// The writer's own decode: ignored.
	case e.hex && bytes.HasPrefix(line, []byte("    ... (")):
		var n int
		if _, err := fmt.Sscanf(string(line), "    ... (%d bytes truncated)", &n); err != nil || n <= 0 {
			e.bad, e.badLine = fmt.Sprintf("bad truncation line %q", clip(line)), l.line
			return
		}
		e.cut = n
	case e.hex && len(line) > 4 && bytes.HasPrefix(line, []byte("    ")) && isHex(line[4]):
		if long {
			e.bad, e.badLine = "a hex row too long", l.line
			return
		}
		if why := l.hexRow(line[4:]); why != "" {
			e.bad, e.badLine = why, l.line
		}
	case e.hex:
		e.bad, e.badLine = fmt.Sprintf("not a hex row: %q", clip(line)), l.line
	default:
		// Text and key = value lines of a GameSpy entry.
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f'
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// hexRow appends the bytes of "OOOO: XX XX ... |ascii|" to the entry.
func (l *logReader) hexRow(row []byte) string {
	i := bytes.IndexByte(row, ':')
	if i < 1 || i > 8 {
		return fmt.Sprintf("a hex row without an offset: %q", clip(row))
	}
	off := 0
	for _, c := range row[:i] {
		if !isHex(c) {
			return fmt.Sprintf("bad hex row offset %q", row[:i])
		}
		off = off<<4 | int(hexVal(c))
	}
	if off != len(l.buf) {
		return fmt.Sprintf("hex row at offset %#x, expected %#x", off, len(l.buf))
	}
	rest := row[i+1:]
	n := 0
	for len(rest) > 0 && n < 16 {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]) && (len(rest) == 2 || rest[2] == ' ') {
			if len(l.buf) >= traceLogDumpMax {
				return "more than 2048 bytes dumped"
			}
			l.buf = append(l.buf, hexVal(rest[0])<<4|hexVal(rest[1]))
			rest = rest[2:]
			n++
			continue
		}
		break
	}
	if n == 0 {
		return fmt.Sprintf("a hex row without bytes: %q", clip(row))
	}
	return ""
}

// addrs are the entry's source and destination.
func (l *logReader) addrs() (src, dst netip.AddrPort) {
	if l.e.fromPeer {
		return l.e.peer, l.server
	}
	return l.server, l.e.peer
}

// emit turns the entry read into tp, or notes why it is skipped.
func (l *logReader) emit(tp *tracePacket) bool {
	e := &l.e
	src, dst := l.addrs()
	skip := func(format string, args ...any) bool {
		if !src.IsValid() {
			src, dst = netip.AddrPort{}, netip.AddrPort{}
		}
		l.note(traceNote(src, dst, format, args...))
		return false
	}
	switch {
	case e.bad != "":
		return skip("%s line %d: entry #%s (line %d) skipped: %s", l.name, e.badLine, e.seq, e.line, e.bad)
	case e.cut > 0:
		return skip("%s line %d: entry #%s is truncated: the log holds %d of its %d bytes; skipped", l.name, e.line, e.seq, len(l.buf), len(l.buf)+e.cut)
	case len(l.buf) == 0:
		return skip("%s line %d: entry #%s has no bytes; skipped", l.name, e.line, e.seq)
	case len(l.buf) != e.length:
		return skip("%s line %d: entry #%s says len=%d but dumps %d bytes; skipped", l.name, e.line, e.seq, e.length, len(l.buf))
	}
	if l.haveTOD && e.tod < l.lastTOD-12*time.Hour {
		l.day = l.day.AddDate(0, 0, 1) // past midnight
	}
	l.lastTOD, l.haveTOD = e.tod, true
	tp.src, tp.dst = src, dst
	tp.time = l.day.Add(e.tod)
	tp.payload = l.buf
	tp.comment = e.comment
	return true
}
