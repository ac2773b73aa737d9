package diff

import (
	"encoding/binary"
	"strconv"
	"time"
)

// Op is what happened to a message between the two sides.
type Op uint8

const (
	Equal   Op = iota // same content and attributes
	Changed           // same transport type and opcode, other content or attributes
	Added             // only in NEW
	Removed           // only in OLD

	// opSkip stands in the stored edits for a run of equal messages too
	// far from any difference to be shown as context.
	opSkip Op = 255
)

var opNames = [...]string{"equal", "changed", "added", "removed"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "skip"
}

// Edit is one step of a flow direction's alignment.
type Edit struct {
	Op       Op
	Old, New *Message // nil on the side that lacks the message
	Changes  []Change // Changed: what differs, in path order

	run            bool // Changed: a removed and an added message paired in a run
	gapOld, gapNew int  // seq advance on each side (checkAttributes)
}

// Change is one difference inside a changed message (or a flow's
// endpoints). Old and New are JSON values; "" means absent.
type Change struct {
	Path     string
	Old, New string
	Note     string // for people: context the values lack
}

// FlowDiff pairs a flow of OLD with a flow of NEW (either may be nil).
type FlowDiff struct {
	Index    int // 1-based, in output order
	Role     Role
	Old, New *Flow
	Addr     []Change // --addresses: endpoint differences
	Count    [4]int   // edits by Op

	res   *Result
	first [2]int64 // index of the direction's first stored edit
	n     [2]int   // stored edits: differences, context and skips
}

// Differences counts the differences of the flow.
func (f *FlowDiff) Differences() int {
	n := f.Count[Changed] + f.Count[Added] + f.Count[Removed]
	if len(f.Addr) > 0 {
		n++
	}
	return n
}

// Result is the outcome of Compare. Its edits are in a store that spills
// to a temporary file past Options.SpillBytes: Close removes it.
type Result struct {
	Old, New *Conversation
	Opt      Options
	Flows    []*FlowDiff
	Summary  Summary

	edits *spool
}

// Close releases the result's spilled edits, if any.
func (r *Result) Close() error {
	if r == nil {
		return nil
	}
	return r.edits.Close()
}

// Summary counts what Compare found. Differences is Changed + Added +
// Removed plus one per flow whose endpoints differ (--addresses). Flows
// counts the pairs of client flows (game traffic: the flows `bcdump
// stats` counts), GameSpyFlows those of GameSpy-only flows; the merged
// flow (Options.MaxFlows) is in neither. Unaligned counts the alignment
// windows in which the two sides had no message in common, though both
// went on: there the sides drifted further apart than a window, and the
// window's messages were taken as removed and added, in order (see
// Options.Window).
type Summary struct {
	Flows        int `json:"flows"`
	GameSpyFlows int `json:"gamespy_flows"`
	OldMessages  int `json:"old_messages"`
	NewMessages  int `json:"new_messages"`
	Differences  int `json:"differences"`
	Changed      int `json:"changed"`
	Added        int `json:"added"`
	Removed      int `json:"removed"`
	Unaligned    int `json:"unaligned_windows,omitempty"`
}

// Equal reports whether the two conversations are the same.
func (r *Result) Equal() bool { return r.Summary.Differences == 0 }

// DefaultWindow is the alignment window, in messages per side, when
// Options.Window is 0.
const DefaultWindow = 1 << 14

func (o *Options) window() int {
	if o.Window <= 0 {
		return DefaultWindow
	}
	return max(o.Window, 4)
}

// Compare diffs two conversations under opt. It reads both one flow
// direction at a time, in windows (Options.Window), and files the edits
// in a store of its own: what it holds in memory does not grow with the
// number of messages.
func Compare(old, new *Conversation, opt Options) *Result {
	res := &Result{Old: old, New: new, Opt: opt, edits: newSpool(opt.SpillBytes)}
	res.Flows = pairFlows(old, new, &opt)
	al := &aligner[uint64]{}
	for _, fd := range res.Flows {
		fd.res = res
		fd.compare(al, &opt)
		res.Summary.Changed += fd.Count[Changed]
		res.Summary.Added += fd.Count[Added]
		res.Summary.Removed += fd.Count[Removed]
		res.Summary.Differences += fd.Differences()
	}
	if res.edits.Spilled() {
		res.edits.flush()
	}
	for _, fd := range res.Flows {
		switch fd.Role {
		case RoleClient:
			res.Summary.Flows++
		case RoleGameSpy:
			res.Summary.GameSpyFlows++
		}
	}
	res.Summary.OldMessages = old.Messages()
	res.Summary.NewMessages = new.Messages()
	return res
}

// signature is a flow's conversation signature under opt (sigStep).
func signature(c *Conversation, f *Flow, opt *Options) [2]uint64 {
	if c.opt.sameCompared(opt) {
		return f.sig
	}
	var s [2]uint64
	var m Message
	for d := range 2 {
		it := c.iter(f, d)
		for it.read(&m) {
			s[d] = sigStep(s[d], contentHash(m.Leaves(), opt))
		}
	}
	return s
}

// pairFlows matches flows by role and order of first appearance. A flow
// whose whole conversation equals one of the other side's flows of the same
// role is paired with it first, so flows that merely started in another
// order are not a difference; the rest pair up by position. Whole
// conversations are compared by their signatures (a 64-bit hash of each
// direction's sequence of content hashes, made while the side was read)
// and message counts.
func pairFlows(old, new *Conversation, opt *Options) []*FlowDiff {
	type sigKey struct {
		sig [2]uint64
		n   [2]int
	}
	var out []*FlowDiff
	for _, role := range []Role{RoleClient, RoleGameSpy, RoleMerged} {
		var oi, ni []int
		for i, f := range old.Flows {
			if f.Role == role {
				oi = append(oi, i)
			}
		}
		for i, f := range new.Flows {
			if f.Role == role {
				ni = append(ni, i)
			}
		}
		pair := make([]int, len(oi)) // index into ni, or -1
		taken := make([]bool, len(ni))
		bySig := make(map[sigKey][]int) // untaken NEW flows, in order
		for j, n := range ni {
			f := new.Flows[n]
			k := sigKey{signature(new, f, opt), f.count}
			bySig[k] = append(bySig[k], j)
		}
		for i, o := range oi {
			pair[i] = -1
			f := old.Flows[o]
			k := sigKey{signature(old, f, opt), f.count}
			if js := bySig[k]; len(js) > 0 {
				pair[i], taken[js[0]] = js[0], true
				bySig[k] = js[1:]
			}
		}
		j := 0
		for i := range oi {
			if pair[i] >= 0 {
				continue
			}
			for j < len(ni) && taken[j] {
				j++
			}
			if j < len(ni) {
				pair[i], taken[j] = j, true
			}
		}
		for i, o := range oi {
			fd := &FlowDiff{Role: role, Old: old.Flows[o]}
			if pair[i] >= 0 {
				fd.New = new.Flows[ni[pair[i]]]
			}
			out = append(out, fd)
		}
		for j, n := range ni {
			if !taken[j] {
				out = append(out, &FlowDiff{Role: role, New: new.Flows[n]})
			}
		}
	}
	for i, fd := range out {
		fd.Index = i + 1
	}
	return out
}

func (fd *FlowDiff) compare(al *aligner[uint64], opt *Options) {
	if opt.Addresses && fd.Old != nil && fd.New != nil {
		if fd.Old.Client != fd.New.Client {
			fd.Addr = append(fd.Addr, Change{"client", jsonString(fd.Old.Client), jsonString(fd.New.Client), ""})
		}
		if fd.Old.Server != fd.New.Server {
			fd.Addr = append(fd.Addr, Change{"server", jsonString(fd.Old.Server), jsonString(fd.New.Server), ""})
		}
	}
	for d := range 2 {
		fd.compareDir(al, d, opt)
	}
}

// stream is one side of a flow direction being aligned: the messages read
// and not yet committed, buf[pos:], at most a window of them.
type stream struct {
	it   *dirIter
	c    *Conversation
	opt  *Options
	buf  []Message
	keys []uint64
	pos  int
	done bool // the direction has no more messages to read
	same bool // the conversation's content hashes hold under opt
}

func newStream(c *Conversation, f *Flow, d int, opt *Options) *stream {
	s := &stream{c: c, opt: opt, it: c.iter(f, d), same: c.opt.sameCompared(opt)}
	if f == nil {
		s.done = true
	}
	return s
}

func (s *stream) avail() int { return len(s.buf) - s.pos }

// fill reads until n messages are held or the direction ends.
func (s *stream) fill(n int) {
	if s.done || s.avail() >= n {
		return
	}
	if s.pos > 0 && s.pos >= max(4096, len(s.buf)/2) || s.pos == len(s.buf) {
		k := copy(s.buf, s.buf[s.pos:])
		copy(s.keys, s.keys[s.pos:])
		s.buf, s.keys, s.pos = s.buf[:k], s.keys[:k], 0
	}
	for s.avail() < n {
		s.buf = append(s.buf, Message{})
		m := &s.buf[len(s.buf)-1]
		if !s.it.read(m) {
			s.buf = s.buf[:len(s.buf)-1]
			s.done = true
			return
		}
		k := m.hash
		if !s.same {
			k = contentHash(m.Leaves(), s.opt)
		}
		s.keys = append(s.keys, k)
	}
}

// compareDir aligns direction d of the flow pair. Equal heads are matched
// as they come (a common prefix is part of some optimal alignment); where
// the sides differ, a window of up to W messages of each is aligned
// (Myers) and the alignment is committed up to its last match in the
// first half of both windows, the rest being aligned again with what
// follows. The end of a direction is no window edge: the last window is
// committed whole. When the two windows have no message in common, though
// both sides go on, the first half of each is committed as removed and
// added messages and the window counted in Summary.Unaligned.
func (fd *FlowDiff) compareDir(al *aligner[uint64], d int, opt *Options) {
	res := fd.res
	w := newDirWriter(fd, d, opt)
	a := newStream(res.Old, fd.Old, d, opt)
	b := newStream(res.New, fd.New, d, opt)
	win := opt.window()
	half := win / 2
	al.work = 0
	var edits []Edit
	for {
		for {
			a.fill(1)
			b.fill(1)
			if a.avail() == 0 || b.avail() == 0 || a.keys[a.pos] != b.keys[b.pos] {
				break
			}
			w.add(Edit{Op: Equal, Old: &a.buf[a.pos], New: &b.buf[b.pos]})
			a.pos++
			b.pos++
		}
		if a.avail() == 0 || b.avail() == 0 {
			// One side is over: the rest of the other is removed or added.
			for _, s := range []*stream{a, b} {
				for {
					s.fill(1)
					if s.avail() == 0 {
						break
					}
					if s == a {
						w.add(Edit{Op: Removed, Old: &s.buf[s.pos]})
					} else {
						w.add(Edit{Op: Added, New: &s.buf[s.pos]})
					}
					s.pos++
				}
			}
			break
		}
		a.fill(win)
		b.fill(win)
		ka, kb := a.keys[a.pos:], b.keys[b.pos:]
		match := al.align(ka, kb)
		na, nb := len(ka), len(kb)
		if !a.done || !b.done {
			limA, limB := na, nb
			if !a.done {
				limA = min(na, half)
			}
			if !b.done {
				limB = min(nb, half)
			}
			ci, cj := -1, -1
			for i := limA - 1; i >= 0; i-- {
				if j := int(match[i]); j >= 0 && j < limB {
					ci, cj = i, j
					break
				}
			}
			if ci >= 0 {
				na, nb = ci+1, cj+1
			} else {
				// No match inside: commit up to where the alignment
				// leaves the committed part (its first match, or none).
				i1, j1 := na, nb
				for i := range match {
					if match[i] >= 0 {
						i1, j1 = i, int(match[i])
						break
					}
				}
				na, nb = min(i1, limA), min(j1, limB)
				if i1 == len(ka) && !a.done && !b.done {
					res.Summary.Unaligned++
				}
			}
		}
		edits = buildEdits(edits[:0], a.buf[a.pos:a.pos+na], b.buf[b.pos:b.pos+nb], match[:na])
		for i := range edits {
			w.add(edits[i])
		}
		a.pos += na
		b.pos += nb
	}
	w.finish()
}

// buildEdits turns an alignment into edits: unmatched runs become removed
// and added messages, and within a run a removed and an added message of
// the same transport type and opcode pair up, in order, as one changed
// message.
func buildEdits(edits []Edit, om, nm []Message, match []int32) []Edit {
	i, j := 0, 0
	var dels, ins []int
	flush := func() {
		edits = pairRun(edits, om, nm, dels, ins)
		dels, ins = dels[:0], ins[:0]
	}
	for i < len(om) || j < len(nm) {
		if i < len(om) && match[i] < 0 {
			dels = append(dels, i)
			i++
			continue
		}
		if j < len(nm) && (i >= len(om) || int(match[i]) > j) {
			ins = append(ins, j)
			j++
			continue
		}
		flush()
		edits = append(edits, Edit{Op: Equal, Old: &om[i], New: &nm[j]})
		i, j = i+1, j+1
	}
	flush()
	return edits
}

func sameKind(a, b *Message) bool { return a.Type() == b.Type() && a.Opcode() == b.Opcode() }

func pairRun(edits []Edit, om, nm []Message, dels, ins []int) []Edit {
	next := 0 // first insertion not yet emitted
	for _, d := range dels {
		o := &om[d]
		k := -1
		for x := next; x < len(ins); x++ {
			if sameKind(&nm[ins[x]], o) {
				k = x
				break
			}
		}
		if k < 0 {
			edits = append(edits, Edit{Op: Removed, Old: o})
			continue
		}
		for ; next < k; next++ {
			edits = append(edits, Edit{Op: Added, New: &nm[ins[next]]})
		}
		edits = append(edits, Edit{Op: Changed, Old: o, New: &nm[ins[k]], run: true})
		next = k + 1
	}
	for ; next < len(ins); next++ {
		edits = append(edits, Edit{Op: Added, New: &nm[ins[next]]})
	}
	return edits
}

// leafChanges lists the compared leaves that differ, in OLD's order, then
// those only NEW has.
func leafChanges(om, nm *Message, opt *Options) []Change {
	ol, nl := om.Leaves(), nm.Leaves()
	nv := make(map[string]string, len(nl))
	for i := range nl {
		if l := &nl[i]; opt.compared(l) {
			nv[l.Path] = l.Value
		}
	}
	var ch []Change
	seen := make(map[string]bool, len(ol))
	for i := range ol {
		l := &ol[i]
		if !opt.compared(l) {
			continue
		}
		seen[l.Path] = true
		if v, ok := nv[l.Path]; !ok || v != l.Value {
			ch = append(ch, Change{l.Path, l.Value, v, ""})
		}
	}
	for i := range nl {
		if l := &nl[i]; opt.compared(l) && !seen[l.Path] {
			ch = append(ch, Change{l.Path, "", l.Value, ""})
		}
	}
	return ch
}

// seqTrack follows one reliable channel through the edits: the relative
// seq of the last message of each side.
type seqTrack struct{ old, new int }

// attrChanges compares what is not content: the seq advance since the
// previous message of the same channel (so one added message does not shift
// every later seq), and with the options timing and delivery
// (dirWriter.attrsDiffer says whether there is any).
func attrChanges(o, n *Message, gapOld, gapNew int, opt *Options) []Change {
	var ch []Change
	if !opt.Ignored(PathSeq) && o.Channel >= 0 && o.Channel == n.Channel && gapOld != gapNew {
		ch = append(ch, Change{PathSeq, strconv.Itoa(gapOld), strconv.Itoa(gapNew),
			"advance since the previous message of the channel; relative seq " + strconv.Itoa(int(o.Seq)) + " -> " + strconv.Itoa(int(n.Seq))})
	}
	if opt.Timing && !opt.Ignored(PathTime) {
		if d := o.At - n.At; d > opt.Tolerance || -d > opt.Tolerance {
			ch = append(ch, Change{PathTime, seconds(o.At), seconds(n.At), "seconds since the flow's first datagram"})
		}
	}
	if opt.Retransmits && o.Channel >= 0 && n.Channel >= 0 {
		if o.Resends != n.Resends && !opt.Ignored(PathRetransmits) {
			ch = append(ch, Change{PathRetransmits, strconv.Itoa(int(o.Resends)), strconv.Itoa(int(n.Resends)), ""})
		}
		if o.Acked != n.Acked && !opt.Ignored(PathAcked) {
			ch = append(ch, Change{PathAcked, strconv.FormatBool(o.Acked), strconv.FormatBool(n.Acked), ""})
		}
	}
	return ch
}

// editSize is the size of a stored edit: op, run flag, the two seq gaps,
// the two message records (-1: none; a skip's count in the first).
const editSize = 32

// dirWriter files the edits of one flow direction: it follows the seq
// advance of each channel, turns equal pairs whose attributes differ into
// changes, counts, and stores the differences with at most Context equal
// edits on each side of them; longer runs of equal edits are stored as one
// skip.
type dirWriter struct {
	fd  *FlowDiff
	d   int
	opt *Options
	trk [2]seqTrack
	ctx int
	// what attrChanges compares, worked out once
	cmpSeq, cmpTime, cmpResends, cmpAcked bool

	since   int              // equal edits since the last difference
	ring    [][editSize]byte // the last equal edits not stored (at most ctx), encoded
	skipped int64            // equal edits dropped from the ring since the last store
}

func newDirWriter(fd *FlowDiff, d int, opt *Options) *dirWriter {
	ctx := max(opt.Context, 0)
	fd.first[d] = fd.res.edits.size() / editSize
	return &dirWriter{fd: fd, d: d, opt: opt, trk: [2]seqTrack{{-1, -1}, {-1, -1}}, ctx: ctx, since: ctx,
		cmpSeq:     !opt.Ignored(PathSeq),
		cmpTime:    opt.Timing && !opt.Ignored(PathTime),
		cmpResends: opt.Retransmits && !opt.Ignored(PathRetransmits),
		cmpAcked:   opt.Retransmits && !opt.Ignored(PathAcked)}
}

// attrsDiffer says whether attrChanges would list anything for the pair.
func (w *dirWriter) attrsDiffer(o, n *Message, gapOld, gapNew int) bool {
	if w.cmpSeq && o.Channel >= 0 && o.Channel == n.Channel && gapOld != gapNew {
		return true
	}
	if w.cmpTime {
		if d := o.At - n.At; d > w.opt.Tolerance || -d > w.opt.Tolerance {
			return true
		}
	}
	if o.Channel >= 0 && n.Channel >= 0 {
		return w.cmpResends && o.Resends != n.Resends || w.cmpAcked && o.Acked != n.Acked
	}
	return false
}

func (w *dirWriter) add(e Edit) {
	if o := e.Old; o != nil && o.Channel >= 0 {
		e.gapOld = int(o.Seq) - w.trk[o.Channel&1].old
		w.trk[o.Channel&1].old = int(o.Seq)
	}
	if n := e.New; n != nil && n.Channel >= 0 {
		e.gapNew = int(n.Seq) - w.trk[n.Channel&1].new
		w.trk[n.Channel&1].new = int(n.Seq)
	}
	if e.Op == Equal && w.attrsDiffer(e.Old, e.New, e.gapOld, e.gapNew) {
		e.Op = Changed
	}
	w.fd.Count[e.Op]++
	if e.Op == Equal {
		if w.since < w.ctx {
			w.store(&e)
		} else if w.ctx > 0 {
			if len(w.ring) == w.ctx {
				copy(w.ring, w.ring[1:])
				w.ring = w.ring[:w.ctx-1]
				w.skipped++
			}
			w.ring = append(w.ring, encodeEdit(&e))
		} else {
			w.skipped++
		}
		w.since++
		return
	}
	if w.skipped > 0 {
		w.store(&Edit{Op: opSkip, gapOld: int(min(w.skipped, 1<<31-1))})
		w.skipped = 0
	}
	for i := range w.ring {
		w.fd.res.edits.append(w.ring[i][:])
		w.fd.n[w.d]++
	}
	w.ring = w.ring[:0]
	w.store(&e)
	w.since = 0
}

func (w *dirWriter) finish() {}

func (w *dirWriter) store(e *Edit) {
	b := encodeEdit(e)
	w.fd.res.edits.append(b[:])
	w.fd.n[w.d]++
}

func encodeEdit(e *Edit) (b [editSize]byte) {
	le := binary.LittleEndian
	b[0] = byte(e.Op)
	if e.run {
		b[1] = 1
	}
	le.PutUint32(b[4:], uint32(int32(e.gapOld)))
	le.PutUint32(b[8:], uint32(int32(e.gapNew)))
	rec := func(m *Message) uint64 {
		if m == nil {
			return ^uint64(0)
		}
		return uint64(m.rec)
	}
	le.PutUint64(b[16:], rec(e.Old))
	le.PutUint64(b[24:], rec(e.New))
	return b
}

// editReader reads a result's stored edits back, with the messages they
// name.
type editReader struct {
	res      *Result
	r        spoolReader
	old, new *msgReader
	om, nm   Message
}

func (r *Result) reader() *editReader {
	er := &editReader{res: r, r: spoolReader{s: r.edits, chunk: 16 << 10}}
	if r.Old != nil && r.Old.log != nil {
		er.old = newMsgReader(r.Old, 4<<10)
	}
	if r.New != nil && r.New.log != nil {
		er.new = newMsgReader(r.New, 4<<10)
	}
	return er
}

// op returns the Op of the k-th stored edit of direction d of fd.
func (er *editReader) op(fd *FlowDiff, d, k int) Op {
	b, err := er.r.read((fd.first[d]+int64(k))*editSize, editSize)
	if err != nil {
		return opSkip
	}
	return Op(b[0])
}

// edit returns the k-th stored edit of direction d of fd, its changes
// listed. The messages are valid until the next call.
func (er *editReader) edit(fd *FlowDiff, d, k int) Edit {
	b, err := er.r.read((fd.first[d]+int64(k))*editSize, editSize)
	if err != nil {
		return Edit{Op: opSkip}
	}
	le := binary.LittleEndian
	e := Edit{Op: Op(b[0]), run: b[1] != 0, gapOld: int(int32(le.Uint32(b[4:]))), gapNew: int(int32(le.Uint32(b[8:])))}
	if e.Op == opSkip {
		return e
	}
	if o := int64(le.Uint64(b[16:])); o >= 0 && er.old != nil {
		if _, ok := er.old.get(o, &er.om); ok {
			e.Old = &er.om
		}
	}
	if n := int64(le.Uint64(b[24:])); n >= 0 && er.new != nil {
		if _, ok := er.new.get(n, &er.nm); ok {
			e.New = &er.nm
		}
	}
	if (e.Op == Equal || e.Op == Changed) && (e.Old == nil || e.New == nil) {
		return Edit{Op: opSkip} // a store that could not be read back
	}
	if e.Op == Changed {
		if e.run {
			e.Changes = leafChanges(e.Old, e.New, &er.res.Opt)
		}
		e.Changes = append(e.Changes, attrChanges(e.Old, e.New, e.gapOld, e.gapNew, &er.res.Opt)...)
	}
	if (e.Op == Removed && e.Old == nil) || (e.Op == Added && e.New == nil) {
		return Edit{Op: opSkip}
	}
	return e
}

// Edits returns the stored edits of direction d: every difference, with
// up to Options.Context equal edits on each side of it (for tests and
// small inputs; the outputs read them one at a time).
func (fd *FlowDiff) Edits(d int) []Edit {
	er := fd.res.reader()
	var out []Edit
	for k := range fd.n[d] {
		e := er.edit(fd, d, k)
		if e.Op == opSkip {
			continue
		}
		if e.Old != nil {
			m := *e.Old
			e.Old = &m
		}
		if e.New != nil {
			m := *e.New
			e.New = &m
		}
		out = append(out, e)
	}
	return out
}

// seconds renders a duration as a JSON number of seconds.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
