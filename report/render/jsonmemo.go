package render

import (
	"math"
	"net/netip"
	"strconv"
	"time"
)

// recordMemo remembers, for one goroutine rendering JSON records, what
// consecutive records repeat: the second their times fall in, written as a
// date and as epoch seconds, the last few addresses written out, and
// recent floats (positions and game times recur: in the OpenBC battle
// capture 16,623 position floats take 5,426 values). A record is the same
// text with or without it; a nil memo remembers nothing.
type recordMemo struct {
	sec    int64
	known  bool     // sec, date and epoch are set
	date   [19]byte // "2006-01-02T15:04:05"
	epoch  [20]byte // sec in decimal, epochN bytes
	epochN uint8

	addrs [4]memoAddr
	next  int // the entry to replace

	floats [256]memoFloat // direct-mapped on the bits
}

type memoFloat struct {
	bits uint32
	n    uint8 // 0: empty
	s    [16]byte
}

type memoAddr struct {
	ap netip.AddrPort
	n  uint8 // 0: empty
	s  [47]byte
}

// appendTime is appendTimeUTC.
func (m *recordMemo) appendTime(b []byte, t time.Time) []byte {
	if !m.second(t.Unix()) {
		return appendTimeUTC(b, t)
	}
	b = append(b, m.date[:]...)
	b = appendNanos(b, t.Nanosecond())
	return append(b, 'Z')
}

// appendEpoch is appendEpoch.
func (m *recordMemo) appendEpoch(b []byte, t time.Time) []byte {
	if !m.second(t.Unix()) {
		return appendEpoch(b, t)
	}
	b = append(b, m.epoch[:m.epochN]...)
	return appendNanos(b, t.Nanosecond())
}

// second makes sec the remembered second, if the memo can hold it (a
// second from 1970 to 9999).
func (m *recordMemo) second(sec int64) bool {
	if m == nil {
		return false
	}
	if m.known && m.sec == sec {
		return true
	}
	if _, ok := appendDateClock(m.date[:0], sec, 'T'); !ok {
		m.known = false
		return false
	}
	m.sec, m.known = sec, true
	m.epochN = uint8(len(appendInt(m.epoch[:0], sec)))
	return true
}

// appendAddr appends ap as ap.AppendTo does.
func (m *recordMemo) appendAddr(b []byte, ap netip.AddrPort) []byte {
	if m == nil {
		return ap.AppendTo(b)
	}
	for i := range m.addrs {
		if e := &m.addrs[i]; e.n != 0 && e.ap == ap {
			return append(b, e.s[:e.n]...)
		}
	}
	n := len(b)
	b = ap.AppendTo(b)
	if len(b)-n <= len(m.addrs[0].s) {
		e := &m.addrs[m.next]
		m.next = (m.next + 1) % len(m.addrs)
		e.ap, e.n = ap, uint8(copy(e.s[:], b[n:]))
	}
	return b
}

// appendFloat32 is the package's appendFloat32, with the texts of recent
// floats remembered.
func (m *recordMemo) appendFloat32(b []byte, f float32) []byte {
	if e := cv3Lookup(f); e != nil {
		return appendShort(b, &e.s, e.n)
	}
	u := math.Float32bits(f)
	if m == nil {
		return strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	}
	e := &m.floats[u*0x9E3779B1>>24]
	if e.n != 0 && e.bits == u {
		return appendShort(b, &e.s, e.n)
	}
	n := len(b)
	b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
	if len(b)-n <= len(e.s) {
		e.bits, e.n = u, uint8(copy(e.s[:], b[n:]))
	}
	return b
}
