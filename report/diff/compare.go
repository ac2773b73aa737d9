package diff

import (
	"hash/fnv"
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
)

var opNames = [...]string{"equal", "changed", "added", "removed"}

func (o Op) String() string { return opNames[o] }

// Edit is one step of a flow direction's alignment.
type Edit struct {
	Op       Op
	Old, New *Message // nil on the side that lacks the message
	Changes  []Change // Changed: what differs, in path order
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
	Addr     []Change  // --addresses: endpoint differences
	Dirs     [2][]Edit // C2S, S2C
	Count    [4]int    // edits by Op
	oldKeys  [2][]uint32
	newKeys  [2][]uint32
}

// Differences counts the differences of the flow.
func (f *FlowDiff) Differences() int {
	n := f.Count[Changed] + f.Count[Added] + f.Count[Removed]
	if len(f.Addr) > 0 {
		n++
	}
	return n
}

// Result is the outcome of Compare.
type Result struct {
	Old, New *Conversation
	Opt      Options
	Flows    []*FlowDiff
	Summary  Summary
}

// Summary counts what Compare found. Differences is Changed + Added +
// Removed plus one per flow whose endpoints differ (--addresses). Flows
// counts the pairs of client flows (game traffic: the flows `bcdump
// stats` counts), GameSpyFlows those of GameSpy-only flows.
type Summary struct {
	Flows        int `json:"flows"`
	GameSpyFlows int `json:"gamespy_flows"`
	OldMessages  int `json:"old_messages"`
	NewMessages  int `json:"new_messages"`
	Differences  int `json:"differences"`
	Changed      int `json:"changed"`
	Added        int `json:"added"`
	Removed      int `json:"removed"`
}

// Equal reports whether the two conversations are the same.
func (r *Result) Equal() bool { return r.Summary.Differences == 0 }

// Compare diffs two conversations under opt.
func Compare(old, new *Conversation, opt Options) *Result {
	res := &Result{Old: old, New: new, Opt: opt}
	in := &interner{ids: make(map[uint64]uint32), opt: &opt}
	oldKeys := in.keysOf(old)
	newKeys := in.keysOf(new)
	res.Flows = pairFlows(old, new, oldKeys, newKeys)
	for _, fd := range res.Flows {
		fd.compare(&opt)
		res.Summary.Changed += fd.Count[Changed]
		res.Summary.Added += fd.Count[Added]
		res.Summary.Removed += fd.Count[Removed]
		res.Summary.Differences += fd.Differences()
	}
	for _, fd := range res.Flows {
		if fd.Role == RoleClient {
			res.Summary.Flows++
		} else {
			res.Summary.GameSpyFlows++
		}
	}
	res.Summary.OldMessages = old.Messages()
	res.Summary.NewMessages = new.Messages()
	return res
}

// interner gives every distinct compared content one small id, so that the
// alignment compares integers: equal ids mean equal content hashes
// (contentHash, made while the conversation was built).
type interner struct {
	ids map[uint64]uint32
	opt *Options
}

func (in *interner) key(c *Conversation, m *Message) uint32 {
	h := m.hash
	if !c.opt.sameCompared(in.opt) {
		h = contentHash(m.Leaves(), in.opt)
	}
	id, ok := in.ids[h]
	if !ok {
		id = uint32(len(in.ids))
		in.ids[h] = id
	}
	return id
}

// keysOf returns the content ids of every message, per flow and direction.
func (in *interner) keysOf(c *Conversation) [][2][]uint32 {
	out := make([][2][]uint32, len(c.Flows))
	for fi, f := range c.Flows {
		for d := range 2 {
			ks := make([]uint32, len(f.Msgs[d]))
			for i := range f.Msgs[d] {
				ks[i] = in.key(c, &f.Msgs[d][i])
			}
			out[fi][d] = ks
		}
	}
	return out
}

func signature(ks [2][]uint32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for d := range 2 {
		for _, k := range ks[d] {
			b[0], b[1], b[2], b[3] = byte(k), byte(k>>8), byte(k>>16), byte(k>>24)
			h.Write(b[:])
		}
		h.Write([]byte{0xff, 0xff, 0xff, 0xff, byte(d)})
	}
	return h.Sum64()
}

// pairFlows matches flows by role and order of first appearance. A flow
// whose whole conversation equals one of the other side's flows of the same
// role is paired with it first, so flows that merely started in another
// order are not a difference; the rest pair up by position.
func pairFlows(old, new *Conversation, ok, nk [][2][]uint32) []*FlowDiff {
	var out []*FlowDiff
	for _, role := range []Role{RoleClient, RoleGameSpy} {
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
		nsig := make([]uint64, len(ni))
		for j, n := range ni {
			nsig[j] = signature(nk[n])
		}
		for i, o := range oi {
			pair[i] = -1
			s := signature(ok[o])
			for j := range ni {
				if !taken[j] && nsig[j] == s && sameKeys(ok[o], nk[ni[j]]) {
					pair[i], taken[j] = j, true
					break
				}
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
			fd := &FlowDiff{Role: role, Old: old.Flows[o], oldKeys: ok[o]}
			if pair[i] >= 0 {
				n := ni[pair[i]]
				fd.New, fd.newKeys = new.Flows[n], nk[n]
			}
			out = append(out, fd)
		}
		for j, n := range ni {
			if !taken[j] {
				out = append(out, &FlowDiff{Role: role, New: new.Flows[n], newKeys: nk[n]})
			}
		}
	}
	for i, fd := range out {
		fd.Index = i + 1
	}
	return out
}

func sameKeys(a, b [2][]uint32) bool {
	for d := range 2 {
		if len(a[d]) != len(b[d]) {
			return false
		}
		for i := range a[d] {
			if a[d][i] != b[d][i] {
				return false
			}
		}
	}
	return true
}

func (fd *FlowDiff) compare(opt *Options) {
	if opt.Addresses && fd.Old != nil && fd.New != nil {
		if fd.Old.Client != fd.New.Client {
			fd.Addr = append(fd.Addr, Change{"client", jsonString(fd.Old.Client), jsonString(fd.New.Client), ""})
		}
		if fd.Old.Server != fd.New.Server {
			fd.Addr = append(fd.Addr, Change{"server", jsonString(fd.Old.Server), jsonString(fd.New.Server), ""})
		}
	}
	for d := range 2 {
		var om, nm []Message
		if fd.Old != nil {
			om = fd.Old.Msgs[d]
		}
		if fd.New != nil {
			nm = fd.New.Msgs[d]
		}
		match := align(fd.oldKeys[d], fd.newKeys[d])
		fd.Dirs[d] = buildEdits(om, nm, match, opt)
		for _, e := range fd.Dirs[d] {
			fd.Count[e.Op]++
		}
	}
	fd.oldKeys, fd.newKeys = [2][]uint32{}, [2][]uint32{}
}

// buildEdits turns an alignment into edits: unmatched runs become removed
// and added messages, and within a run a removed and an added message of
// the same transport type and opcode pair up, in order, as one changed
// message. Matched pairs are then checked for seq, timing and delivery.
func buildEdits(om, nm []Message, match []int32, opt *Options) []Edit {
	edits := make([]Edit, 0, max(len(om), len(nm)))
	i, j := 0, 0
	var dels, ins []int
	flush := func() {
		edits = pairRun(edits, om, nm, dels, ins, opt)
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
	checkAttributes(edits, opt)
	return edits
}

func kindOf(m *Message) string { return m.Type() + "\x00" + m.Opcode() }

func pairRun(edits []Edit, om, nm []Message, dels, ins []int, opt *Options) []Edit {
	next := 0 // first insertion not yet emitted
	for _, d := range dels {
		o := &om[d]
		k := -1
		for x := next; x < len(ins); x++ {
			if kindOf(&nm[ins[x]]) == kindOf(o) {
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
		n := &nm[ins[k]]
		edits = append(edits, Edit{Op: Changed, Old: o, New: n, Changes: leafChanges(o, n, opt)})
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

// checkAttributes compares what is not content: the seq advance since the
// previous message of the same channel (so one added message does not shift
// every later seq), and with the options timing and delivery. A matched pair
// that differs there becomes Changed.
func checkAttributes(edits []Edit, opt *Options) {
	trk := [2]seqTrack{{-1, -1}, {-1, -1}}
	cmpSeq := !opt.Ignored(PathSeq)
	for i := range edits {
		e := &edits[i]
		var gapOld, gapNew int
		if o := e.Old; o != nil && o.Channel >= 0 {
			gapOld = int(o.Seq) - trk[o.Channel].old
			trk[o.Channel].old = int(o.Seq)
		}
		if n := e.New; n != nil && n.Channel >= 0 {
			gapNew = int(n.Seq) - trk[n.Channel].new
			trk[n.Channel].new = int(n.Seq)
		}
		if e.Old == nil || e.New == nil {
			continue
		}
		o, n := e.Old, e.New
		var ch []Change
		if cmpSeq && o.Channel >= 0 && o.Channel == n.Channel && gapOld != gapNew {
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
		if len(ch) > 0 {
			e.Op = Changed
			e.Changes = append(e.Changes, ch...)
		}
	}
}

// seconds renders a duration as a JSON number of seconds.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
