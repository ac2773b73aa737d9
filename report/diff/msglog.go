package diff

import (
	"encoding/binary"
	"time"
)

// msgLog holds the fixed-size records of one side's messages (recSize
// bytes each, record i at i*recSize) in a spool: in memory up to its
// budget, then in the temporary file. The records of one flow direction
// are chained (each names the next), so a direction is read back in order
// without an index in memory; the builder patches a record in place when
// the message's ACK or a resend arrives, and the previous record's link
// when the next message of its direction comes.
type msgLog struct {
	sp  *spool
	n   int64 // records
	enc [recSize]byte
}

const recSize = 64

// Record layout (little endian).
const (
	recAt      = 0  // int64 nanoseconds since the flow's first datagram
	recHash    = 8  // uint64 content hash
	recOff     = 16 // int64 leaf store offset
	recN       = 24 // uint32 leaf store length
	recTyp     = 28 // uint16
	recOp      = 30 // uint16
	recFrame   = 32 // int32
	recSeq     = 36 // int32
	recFrags   = 40 // int32
	recResends = 44 // int32
	recMsg     = 48 // int16
	recChannel = 50 // int8
	recAcked   = 51 // uint8
	recNext    = 56 // int64: index of the next record of the direction, -1 none
)

func newMsgLog(budget int) *msgLog { return &msgLog{sp: newSpool(budget)} }

// add files m as the next record and returns its index.
func (l *msgLog) add(m *Message) int64 {
	b := l.enc[:]
	le := binary.LittleEndian
	le.PutUint64(b[recAt:], uint64(m.At))
	le.PutUint64(b[recHash:], m.hash)
	le.PutUint64(b[recOff:], uint64(m.off))
	le.PutUint32(b[recN:], m.n)
	le.PutUint16(b[recTyp:], m.typ)
	le.PutUint16(b[recOp:], m.op)
	le.PutUint32(b[recFrame:], uint32(m.Frame))
	le.PutUint32(b[recSeq:], uint32(m.Seq))
	le.PutUint32(b[recFrags:], uint32(m.Frags))
	le.PutUint32(b[recResends:], uint32(m.Resends))
	le.PutUint16(b[recMsg:], uint16(m.Msg))
	b[recChannel] = byte(m.Channel)
	b[recAcked] = 0
	if m.Acked {
		b[recAcked] = 1
	}
	le.PutUint32(b[52:], 0)
	le.PutUint64(b[recNext:], ^uint64(0))
	l.sp.append(b)
	l.n++
	return l.n - 1
}

// link makes record next follow record i in its direction.
func (l *msgLog) link(i, next int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(next))
	l.sp.patch(i*recSize+recNext, b[:])
}

// deliver sets the resend count and ACK of record i.
func (l *msgLog) deliver(i int64, resends int32, acked bool) {
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:], uint32(resends))
	l.sp.patch(i*recSize+recResends, b[:4])
	if acked {
		b[0] = 1
	} else {
		b[0] = 0
	}
	l.sp.patch(i*recSize+recAcked, b[:1])
}

// msgReader reads records of one log back.
type msgReader struct {
	log   *msgLog
	store *leafStore
	r     spoolReader
}

func newMsgReader(c *Conversation, chunk int) *msgReader {
	return &msgReader{log: c.log, store: c.store, r: spoolReader{s: c.log.sp, chunk: chunk}}
}

// get decodes record i into m; next is the index of the direction's next
// record (-1: none). ok is false when the record cannot be read.
func (r *msgReader) get(i int64, m *Message) (next int64, ok bool) {
	b, err := r.r.read(i*recSize, recSize)
	if err != nil {
		return -1, false
	}
	le := binary.LittleEndian
	*m = Message{
		At:      time.Duration(le.Uint64(b[recAt:])),
		hash:    le.Uint64(b[recHash:]),
		store:   r.store,
		off:     int64(le.Uint64(b[recOff:])),
		n:       le.Uint32(b[recN:]),
		typ:     le.Uint16(b[recTyp:]),
		op:      le.Uint16(b[recOp:]),
		rec:     i,
		Frame:   int32(le.Uint32(b[recFrame:])),
		Seq:     int32(le.Uint32(b[recSeq:])),
		Frags:   int32(le.Uint32(b[recFrags:])),
		Resends: int32(le.Uint32(b[recResends:])),
		Msg:     int16(le.Uint16(b[recMsg:])),
		Channel: int8(b[recChannel]),
		Acked:   b[recAcked] != 0,
	}
	return int64(le.Uint64(b[recNext:])), true
}

// dirIter reads one flow direction's messages in order.
type dirIter struct {
	r    *msgReader
	next int64
	left int // messages still to read (guards a damaged chain)
}

func (c *Conversation) iter(f *Flow, d int) *dirIter {
	if f == nil || c == nil {
		return &dirIter{next: -1}
	}
	return &dirIter{r: newMsgReader(c, 64<<10), next: f.head[d], left: f.count[d]}
}

// read decodes the next message into m; false at the end.
func (it *dirIter) read(m *Message) bool {
	if it.next < 0 || it.left <= 0 {
		return false
	}
	next, ok := it.r.get(it.next, m)
	if !ok {
		it.next = -1
		return false
	}
	it.next, it.left = next, it.left-1
	return true
}
