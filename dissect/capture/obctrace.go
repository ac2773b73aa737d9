package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"net/netip"
	"time"
)

// OBCTRACE, the binary trace of OpenBC's test harness: the magic, then
// records
//
//	[tick u32 LE][dir 'S' sent | 'R' received][client slot u8][length u16 LE][game payload]
//
// seen from the harness client's side ('S': client to server). It holds game
// messages only: each becomes a datagram of its own, as the client slot's
// peer (byte 0 = slot + 2, the first joiner's id for slot 0) or the server
// (1) would send it, with one unreliable Data message (type 0x32) carrying
// the payload. Clients get placeholder addresses 198.51.100.(slot+1) on
// port 2000 + slot; the time is the tick times the tick length after the
// Unix epoch.
const obcMagic = "OBCTRACE"

// obcMaxPayload is the longest payload an unreliable Data message holds
// (13-bit length including its 3-byte header).
const obcMaxPayload = 0x1fff - 3

type obcReader struct {
	in     *bufio.Reader
	name   string
	server netip.AddrPort
	tick   time.Duration
	note   func(Note)
	off    int64 // byte offset of the next record
	rec    int   // records read
	magic  bool
	buf    []byte
}

func newOBCReader(in *bufio.Reader, name string, server netip.AddrPort, tick time.Duration, note func(Note)) *obcReader {
	return &obcReader{in: in, name: name, server: server, tick: tick, note: note, buf: make([]byte, 0, 512)}
}

// obcClient is the placeholder address of a client slot.
func obcClient(slot byte) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, 100, slot + 1}), 2000+uint16(slot))
}

func (o *obcReader) next(tp *tracePacket) error {
	if !o.magic {
		var m [8]byte
		if _, err := io.ReadFull(o.in, m[:]); err != nil || string(m[:]) != obcMagic {
			return errors.New("not an OBCTRACE file")
		}
		o.magic, o.off = true, 8
	}
	for {
		var h [8]byte
		n, err := io.ReadFull(o.in, h[:])
		if err == io.EOF {
			return io.EOF
		}
		o.rec++
		if err == io.ErrUnexpectedEOF {
			o.cut(n, 8)
			return io.EOF
		}
		if err != nil {
			return err
		}
		tick := binary.LittleEndian.Uint32(h[0:4])
		dir, slot := h[4], h[5]
		size := int(binary.LittleEndian.Uint16(h[6:8]))
		if cap(o.buf) < 5+size { // 5 bytes of transport header go before the payload
			o.buf = make([]byte, 0, size+5)
		}
		payload := o.buf[5 : 5+size]
		if n, err := io.ReadFull(o.in, payload); err != nil {
			if err == io.ErrUnexpectedEOF || err == io.EOF {
				o.cut(8+n, 8+size)
				return io.EOF
			}
			return err
		}
		at := o.off
		o.off += int64(8 + size)
		cli := obcClient(slot)
		var src, dst netip.AddrPort
		var id byte
		switch dir {
		case 'S':
			src, dst, id = cli, o.server, min(slot, 0xfd)+2
		case 'R':
			src, dst, id = o.server, cli, 1
		default:
			o.note(traceNote(netip.AddrPort{}, netip.AddrPort{}, "%s record %d (offset %d): direction %#02x is neither 'S' nor 'R'; skipped", o.name, o.rec, at, dir))
			continue
		}
		switch {
		case size == 0:
			o.note(traceNote(src, dst, "%s record %d (offset %d): no payload; skipped", o.name, o.rec, at))
			continue
		case size > obcMaxPayload:
			o.note(traceNote(src, dst, "%s record %d (offset %d): a %d-byte payload, more than one unfragmented message holds (%d); skipped", o.name, o.rec, at, size, obcMaxPayload))
			continue
		}
		l := size + 3
		b := o.buf[:5+size]
		b[0], b[1], b[2], b[3], b[4] = id, 1, 0x32, byte(l), byte(l>>8)
		tp.src, tp.dst = src, dst
		tp.time = tickTime(tick, o.tick)
		tp.payload = b
		tp.comment = ""
		return nil
	}
}

// cut notes a record the file ends inside.
func (o *obcReader) cut(have, want int) {
	o.note(traceNote(netip.AddrPort{}, netip.AddrPort{}, "%s ends inside record %d (offset %d): %d of its %d bytes; read up to it",
		o.name, o.rec, o.off, have, want))
}

// tickTime is tick ticks of d after 1970, without the overflow of
// time.Duration(tick)*d (tick 0xFFFFFFFF of 3 s is past 2^63 ns and came
// out negative): a time past the year 9999 is then saturated and noted
// by the reader like any other.
func tickTime(tick uint32, d time.Duration) time.Time {
	hi, sec := bits.Mul64(uint64(tick), uint64(d/time.Second))
	if hi != 0 || sec > 1<<62 {
		sec = 1 << 62
	}
	ns := uint64(tick) * uint64(d%time.Second) // < 2^32 * 10^9: no overflow
	return time.Unix(int64(sec+ns/1e9), int64(ns%1e9)).UTC()
}
