package htmlreport

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/story"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Limits that keep a report's size bounded whatever the capture.
const (
	MaxBins         = 1024 // series columns per flow (about one per pixel)
	MaxFlows        = 32   // flows charted; the rest are counted
	MaxMarks        = 300  // anomaly marks per flow
	MaxErrorLadders = 20   // error ladders; the rest are counted
	MaxHandshake    = 80   // datagrams of a handshake ladder
	MaxAnomalyRows  = 2000 // rows of the anomaly table
	ladderBefore    = 10   // datagrams before an error in its ladder
	ladderAfter     = 9    // and after (20 with the error's own)
	firstWidth      = 0.001
	ringLen         = ladderBefore + 1 // one slot for the datagram being added
)

// Options configure a Builder.
type Options struct {
	Sources      []string           // the capture names, for the summary
	Filter       string             // the -Y expression, if any
	Manifest     *checksum.Manifest // enables the checksum tree
	ManifestName string
}

// Builder collects a report. It is a dissect.Sink; use New.
type Builder struct {
	opt   Options
	story *story.Analyzer

	t0        time.Time
	seen      bool
	last      float64
	datagrams int
	epoch     int // counts capture files (frames restart)
	lastFrame int

	flows map[[2]netip.AddrPort]*flowState
	order []*flowState
	// omitted are the flows past MaxFlows, by transport.KeyHash: a few
	// bytes each where a flowState key would take a hundred (a capture
	// can hold millions of flows).
	omitted map[uint64]struct{}

	ladders        []*Ladder
	errLadders     int
	laddersOmitted int
	pending        map[msgKey][]msgRef // ladder messages not yet ACKed
	ackedInLadder  map[msgKey]int      // ladder messages ACKed, by the ACK's frame: their later resends were ACKed too

	rows        []AnomalyRow
	rowsOmitted int
	counts      [4]int // by severity
	byCode      map[anomaly.Code]int

	checks   []*ChecksumPlayer
	resolver *checksum.Resolver
}

type msgKey struct{ epoch, frame, msg int }

type msgRef struct{ ladder, dg, msg int }

// flowState is what the builder keeps per flow.
type flowState struct {
	f      Flow
	key    [2]netip.AddrPort
	bins   bins
	ring   [ringLen]snap
	ringN  int // previous datagrams held (up to ladderBefore)
	ringAt int // the slot of the datagram being added
	hs     int // handshake ladder index+1; 0 none yet
	hsOpen bool
	errLad int // open error ladder index+1
	after  int // datagrams still to add to it
	check  *ChecksumPlayer
}

// snap is a compact copy of a datagram for the ladders; labels are made
// only when a snap enters a ladder.
type snap struct {
	frame int
	t     float64
	dir   dissect.Dir
	n     int
	msgs  []snapMsg
	anoms []anomaly.Code
}

type snapMsg struct {
	typ        transport.Type
	op         *game.Opcode
	seq        uint16
	reliable   bool
	frag       bool
	fragIdx    uint8
	retrans    bool
	first      int // FirstFrame, FirstMsg
	firstMsg   int
	ackResult  transport.AckResult
	ackFrame   int
	ackMsg     int
	ackedBy    int
	reassembly bool
}

// New returns a Builder.
func New(opt Options) *Builder {
	b := &Builder{
		opt:     opt,
		story:   story.New(),
		flows:   make(map[[2]netip.AddrPort]*flowState),
		omitted: make(map[uint64]struct{}),
		pending: make(map[msgKey][]msgRef),
	}
	if opt.Manifest != nil {
		b.resolver = opt.Manifest.Resolver()
	}
	return b
}

func (b *Builder) rel(t time.Time) float64 {
	if !b.seen {
		return 0
	}
	return t.Sub(b.t0).Seconds()
}

// Datagram adds one decoded datagram.
func (b *Builder) Datagram(d *dissect.Datagram) error {
	if !b.seen {
		b.t0, b.seen = d.Time, true
	}
	if d.Frame <= b.lastFrame {
		b.epoch++
	}
	b.lastFrame = d.Frame
	b.datagrams++
	t := b.rel(d.Time)
	if t > b.last {
		b.last = t
	}
	if err := b.story.Datagram(d); err != nil {
		return err
	}
	var fs *flowState
	if d.Kind == dissect.KindGame {
		fs = b.flow(d, t)
	}
	ladder := ""
	if fs != nil {
		ladder = b.flowDatagram(fs, d, t)
	}
	for _, a := range d.Anomalies {
		flow := ""
		if fs != nil {
			flow = fs.f.ID
			fs.mark(t, d.Frame, a)
		}
		b.row(a, d.Frame, t, flow, ladder)
	}
	return nil
}

func (b *Builder) flow(d *dissect.Datagram, t float64) *flowState {
	key := [2]netip.AddrPort{d.Src, d.Dst}
	if d.Dir == dissect.S2C {
		key = [2]netip.AddrPort{d.Dst, d.Src}
	}
	fs := b.flows[key]
	if fs != nil {
		return fs
	}
	if len(b.order) >= MaxFlows {
		b.omitted[transport.KeyHash(key[0], key[1])] = struct{}{}
		return nil
	}
	fs = &flowState{key: key, bins: newBins()}
	fs.f = Flow{ID: "f" + itoa(len(b.order)+1), Client: key[0].String(), Server: key[1].String(), First: t}
	b.flows[key] = fs
	b.order = append(b.order, fs)
	return fs
}

func (fs *flowState) mark(t float64, frame int, a anomaly.Anomaly) {
	sev := a.Severity()
	if sev >= anomaly.Note && sev <= anomaly.Error {
		fs.f.Anomalies[sev-anomaly.Note]++
	}
	if len(fs.f.Marks) >= MaxMarks {
		fs.f.MarksLeft++
		return
	}
	fs.f.Marks = append(fs.f.Marks, Mark{T: round6(t), Frame: frame, Code: a.Code.String(), Severity: sev.String()})
}

func (b *Builder) row(a anomaly.Anomaly, frame int, t float64, flow, ladder string) {
	sev := a.Severity()
	if int(sev) < len(b.counts) {
		b.counts[sev]++
	}
	if b.byCode == nil {
		b.byCode = make(map[anomaly.Code]int)
	}
	b.byCode[a.Code]++
	if len(b.rows) >= MaxAnomalyRows {
		b.rowsOmitted++
		return
	}
	b.rows = append(b.rows, AnomalyRow{Code: a.Code.String(), Severity: sev.String(), Frame: frame, T: round6(t),
		Flow: flow, Ladder: ladder, Message: a.Message()})
}

// flowDatagram adds d to its flow's series, ladders and checksum tree. It
// returns the id of the ladder d entered, if any.
func (b *Builder) flowDatagram(fs *flowState, d *dissect.Datagram, t float64) string {
	f := &fs.f
	f.Last = t
	dir := 0
	if d.Dir == dissect.S2C {
		dir = 1
	}
	f.Datagrams[dir]++
	f.Bytes[dir] += int64(len(d.Raw))
	bin := fs.bins.at(t)
	fs.bins.dg[dir][bin]++
	fs.bins.bytes[dir][bin] += float64(len(d.Raw))

	var s snap
	s.frame, s.t, s.dir, s.n = d.Frame, t, d.Dir, len(d.Raw)
	cur := &fs.ring[fs.ringAt] // reuse its slices
	s.msgs, s.anoms = cur.msgs[:0], cur.anoms[:0]
	connect, inGame, hasErr := false, false, false
	for i := range d.Transport.Messages {
		tm := &d.Transport.Messages[i]
		var m *dissect.Message
		if i < len(d.Msgs) {
			m = &d.Msgs[i]
		}
		sm := snapMsg{typ: tm.Type, seq: tm.Seq, reliable: tm.Reliable, frag: tm.Fragment, fragIdx: tm.FragIdx}
		if m != nil {
			sm.op = m.Opcode
			tr := &m.Track
			sm.retrans, sm.first, sm.firstMsg = tr.Retransmit, tr.FirstFrame, tr.FirstMsg
			if tr.Retransmit && !tr.Keepalive {
				f.Retrans++
				fs.bins.retrans[bin]++
			}
			if tm.Type == transport.TypeACK {
				sm.ackResult, sm.ackFrame, sm.ackMsg = tr.Ack, tr.AckedFrame, tr.AckedMsg
				if tr.Ack == transport.AckMatched {
					b.acked(fs, tr.AckedFrame, tr.AckedMsg, d.Frame)
				}
			}
			if tr.HasRTT {
				f.RTTCount[1-dir]++ // the ACK times the other way's message
				fs.bins.rtt(bin, float64(tr.RTT.Microseconds())/1000)
			}
			if r := m.Reassembled; r != nil {
				sm.reassembly = true
				if r.Opcode != nil {
					sm.op = r.Opcode
					inGame = inGame || r.Opcode.Name == "NewPlayerInGame"
				}
				if b.opt.Manifest != nil && d.Dir == dissect.C2S && r.Opcode != nil && r.Opcode.Code == checksum.OpResponse {
					b.checksum(fs, d.Frame, r.Bytes)
				}
			}
			if m.Opcode != nil {
				inGame = inGame || m.Opcode.Name == "NewPlayerInGame"
				if b.opt.Manifest != nil && d.Dir == dissect.C2S && !tm.Fragment && !tr.Retransmit && m.Opcode.Code == checksum.OpResponse {
					b.checksum(fs, d.Frame, m.Bytes)
				}
			}
		}
		if tm.Type == transport.TypeConnect {
			connect = true
		}
		s.msgs = append(s.msgs, sm)
	}
	for _, a := range d.Anomalies {
		s.anoms = append(s.anoms, a.Code)
		if a.Severity() == anomaly.Error {
			hasErr = true
		}
	}

	ladder := ""
	// The join handshake: from the first Connect to NewPlayerInGame.
	if fs.hs == 0 && connect {
		b.ladders = append(b.ladders, &Ladder{ID: "l" + itoa(len(b.ladders)+1), Kind: "handshake", Flow: f.ID,
			Title: "Join handshake of " + f.Client})
		fs.hs, fs.hsOpen = len(b.ladders), true
		f.Handshake = b.ladders[fs.hs-1].ID
	}
	if fs.hsOpen {
		l := b.ladders[fs.hs-1]
		b.addDg(fs.hs-1, &s)
		ladder = l.ID
		switch {
		case inGame:
			l.Complete, fs.hsOpen = true, false
		case len(l.Datagrams) >= MaxHandshake:
			l.Cut, fs.hsOpen = true, false
		}
	}
	// The datagrams around each error.
	switch {
	case fs.after > 0:
		li := fs.errLad - 1
		b.addDg(li, &s)
		ladder = b.ladders[li].ID
		fs.after--
		if hasErr {
			b.ladderErrors(li, d)
		}
	case hasErr && b.errLadders < MaxErrorLadders:
		b.errLadders++
		first := ""
		for _, a := range d.Anomalies {
			if a.Severity() == anomaly.Error {
				first = a.Code.String()
				break
			}
		}
		b.ladders = append(b.ladders, &Ladder{ID: "l" + itoa(len(b.ladders)+1), Kind: "error", Flow: f.ID,
			Title: first + " at frame " + itoa(d.Frame) + " (" + f.Client + ")", Code: first, Frame: d.Frame})
		li := len(b.ladders) - 1
		for k := 0; k < fs.ringN; k++ {
			idx := (fs.ringAt - fs.ringN + k + ringLen) % ringLen
			b.addDg(li, &fs.ring[idx])
		}
		b.addDg(li, &s)
		b.ladderErrors(li, d)
		ladder = b.ladders[li].ID
		fs.errLad, fs.after = li+1, ladderAfter
	case hasErr:
		for _, a := range d.Anomalies {
			if a.Severity() == anomaly.Error {
				b.laddersOmitted++
			}
		}
	}
	if fs.after == 0 {
		fs.errLad = 0
	}

	fs.ring[fs.ringAt] = s
	fs.ringAt = (fs.ringAt + 1) % ringLen
	if fs.ringN < ladderBefore {
		fs.ringN++
	}
	return ladder
}

func (b *Builder) ladderErrors(li int, d *dissect.Datagram) {
	l := b.ladders[li]
	for _, a := range d.Anomalies {
		if a.Severity() == anomaly.Error {
			l.Errors = append(l.Errors, LadderErr{Code: a.Code.String(), Frame: d.Frame})
		}
	}
}

// acked records that the ACK in frame cleared the message first sent as
// (frame0, msg0): in the ladders and in the flow's recent datagrams.
func (b *Builder) acked(fs *flowState, frame0, msg0, by int) {
	k := msgKey{b.epoch, frame0, msg0}
	if refs, ok := b.pending[k]; ok {
		for _, r := range refs {
			b.ladders[r.ladder].Datagrams[r.dg].Msgs[r.msg].AckedBy = by
		}
		delete(b.pending, k)
		if b.ackedInLadder == nil {
			b.ackedInLadder = make(map[msgKey]int)
		}
		b.ackedInLadder[k] = by
	}
	for i := range fs.ring {
		s := &fs.ring[i]
		for j := range s.msgs {
			sm := &s.msgs[j]
			if sm.reliable && sm.ackedBy == 0 && key0(s.frame, j, sm) == [2]int{frame0, msg0} {
				sm.ackedBy = by
			}
		}
	}
}

func key0(frame, i int, sm *snapMsg) [2]int {
	if sm.first != 0 {
		return [2]int{sm.first, sm.firstMsg}
	}
	return [2]int{frame, i}
}

// addDg appends a snap to ladder li as an arrow.
func (b *Builder) addDg(li int, s *snap) {
	l := b.ladders[li]
	dg := LadderDg{Frame: s.frame, T: round6(s.t), Dir: s.dir.String(), Len: s.n}
	for j := range s.msgs {
		sm := &s.msgs[j]
		// Only game data is marked lost: the connection messages are answered,
		// not ACKed.
		lm := LadderMsg{Label: label(sm), Reliable: sm.reliable && sm.typ == transport.TypeData, Retransmit: sm.retrans}
		if sm.typ == transport.TypeACK && sm.ackFrame != 0 {
			lm.AckFrame, lm.AckMsg = sm.ackFrame, sm.ackMsg
		}
		if lm.Reliable {
			if sm.ackedBy != 0 {
				lm.AckedBy = sm.ackedBy
			} else {
				k0 := key0(s.frame, j, sm)
				k := msgKey{b.epoch, k0[0], k0[1]}
				if by, ok := b.ackedInLadder[k]; ok {
					lm.AckedBy = by // a resend of a message already ACKed
				} else {
					b.pending[k] = append(b.pending[k], msgRef{li, len(l.Datagrams), len(dg.Msgs)})
				}
			}
		}
		dg.Msgs = append(dg.Msgs, lm)
	}
	for _, c := range s.anoms {
		dg.Anomalies = append(dg.Anomalies, c.String())
	}
	l.Datagrams = append(l.Datagrams, dg)
}

func label(sm *snapMsg) string {
	var s string
	switch sm.typ {
	case transport.TypeACK:
		s = "ACK #" + itoa(int(sm.seq))
		if sm.frag {
			s += "." + itoa(int(sm.fragIdx))
		}
		return s
	case transport.TypeData:
		s = "#" + itoa(int(sm.seq)) + " "
		if sm.frag {
			s += "frag " + itoa(int(sm.fragIdx)) + " "
		}
		if sm.op != nil && (!sm.frag || sm.fragIdx == 0 || sm.reassembly) {
			s += sm.op.Name
		} else if !sm.frag {
			s += "Data"
		}
	default:
		s = sm.typ.Name()
		if sm.reliable {
			s += " #" + itoa(int(sm.seq))
		}
	}
	if sm.retrans {
		s += " (retransmit)"
	}
	return s
}

// Events adds events found as they come (live); Finish adds the rest.
func (b *Builder) Events(ev []dissect.Event) error {
	if err := b.story.Events(ev); err != nil {
		return err
	}
	for i := range ev {
		e := &ev[i]
		flow := ""
		t := b.rel(e.Time)
		if e.Time.IsZero() {
			t = 0
		}
		if fs := b.flows[[2]netip.AddrPort{e.Client, e.Server}]; fs != nil {
			flow = fs.f.ID
			fs.mark(t, e.Frame, e.Anomaly)
		}
		b.row(e.Anomaly, e.Frame, t, flow, "")
	}
	return nil
}

// Finish adds the events only the end of the capture revealed.
func (b *Builder) Finish(end []dissect.Event) error { return b.Events(end) }

// Data returns what the page shows. Call it once, after Finish.
func (b *Builder) Data() *Data {
	d := &Data{Version: 1, Sources: b.opt.Sources, Filter: b.opt.Filter, Manifest: b.opt.ManifestName,
		Datagrams: b.datagrams, Duration: round6(b.last), FlowsOmitted: len(b.omitted),
		LaddersOmitted: b.laddersOmitted, AnomaliesOmitted: b.rowsOmitted}
	if b.seen {
		d.First = b.t0.UTC().Format(render.TimeLayout)
	}
	d.Servers = b.story.Documents()
	names := make(map[string]string)
	for _, s := range d.Servers {
		for _, p := range s.Players {
			if p.Name != "" {
				names[p.Address] = p.Name
			} else if p.PeerID != nil {
				names[p.Address] = "peer " + itoa(*p.PeerID)
			}
		}
	}
	d.Flows = make([]Flow, 0, len(b.order))
	for _, fs := range b.order {
		f := fs.f
		f.Name = names[f.Client]
		f.First, f.Last = round6(f.First), round6(f.Last)
		f.Series = fs.bins.series(f.First)
		if f.Marks == nil {
			f.Marks = []Mark{}
		}
		d.Flows = append(d.Flows, f)
	}
	// What no ACK cleared by the end of the capture was lost.
	for _, refs := range b.pending {
		for _, r := range refs {
			b.ladders[r.ladder].Datagrams[r.dg].Msgs[r.msg].Lost = true
		}
	}
	clear(b.pending)
	d.Ladders = make([]Ladder, 0, len(b.ladders))
	frames := make(map[int]string)
	folded := b.foldLadders(names)
	for _, l := range b.ladders {
		if _, gone := folded[l.ID]; gone {
			continue
		}
		d.Ladders = append(d.Ladders, *l)
		for _, dg := range l.Datagrams {
			if _, ok := frames[dg.Frame]; !ok || l.Kind == "error" {
				frames[dg.Frame] = l.ID
			}
		}
	}
	d.Checksums = make([]ChecksumPlayer, 0, len(b.checks))
	for _, c := range b.checks {
		cp := *c
		cp.Name = names[cp.Client]
		d.Checksums = append(d.Checksums, cp)
	}
	slices.SortStableFunc(d.Checksums, func(x, y ChecksumPlayer) int { return cmp.Compare(y.Mismatches, x.Mismatches) })
	d.Anomalies = slices.Clone(b.rows)
	if d.Anomalies == nil {
		d.Anomalies = []AnomalyRow{}
	}
	for i := range d.Anomalies {
		r := &d.Anomalies[i]
		if to, ok := folded[r.Ladder]; ok {
			r.Ladder = to
		}
		if b.epoch == 0 && r.Ladder == "" && r.Frame > 0 {
			r.Ladder = frames[r.Frame]
		}
	}
	for i := range d.Flows {
		if to, ok := folded[d.Flows[i].Handshake]; ok {
			d.Flows[i].Handshake = to
		}
	}
	d.AnomalyCodes = anomalyCodes(d.Anomalies, b.byCode)
	if b.epoch == 0 {
		d.frameLadder = make(map[int]string, len(frames))
		for fr, id := range frames {
			d.frameLadder[fr] = id + "-f" + itoa(fr)
		}
	}
	d.AnomalyCounts = map[string]int{}
	for sev := anomaly.Note; sev <= anomaly.Error; sev++ {
		d.AnomalyCounts[sev.String()] = b.counts[sev]
	}
	escapeText(d)
	return d
}

// foldLadders names each ladder's player and folds ladders of the same
// arrows (directions, labels, findings; frames and times aside) into the
// first of them, which counts them (Repeats) and names them (Same): 27
// checksum ladders of the same bots are one. It returns the ids folded
// away and the id each went into.
func (b *Builder) foldLadders(names map[string]string) map[string]string {
	folded := make(map[string]string)
	first := make(map[string]*Ladder)
	client := make(map[string]string) // flow id -> client address
	for _, fs := range b.order {
		client[fs.f.ID] = fs.f.Client
	}
	var sig strings.Builder
	for _, l := range b.ladders {
		addr := client[l.Flow]
		l.Player = names[addr]
		who := addr
		if l.Player != "" {
			who = l.Player + " (" + addr + ")"
		}
		switch l.Kind {
		case "handshake":
			l.Title = "Join handshake of " + who
		case "error":
			l.Title = l.Code + " at frame " + itoa(l.Frame) + " (" + who + ")"
		}
		sig.Reset()
		sig.WriteString(l.Kind + "\x00" + l.Code)
		for _, dg := range l.Datagrams {
			sig.WriteString("\x00" + dg.Dir)
			for _, m := range dg.Msgs {
				sig.WriteString("\x01" + m.Label)
				if m.Lost {
					sig.WriteString(" lost")
				}
			}
			for _, a := range dg.Anomalies {
				sig.WriteString("\x02" + a)
			}
		}
		k := sig.String()
		if f := first[k]; f != nil {
			f.Repeats++
			f.Same = append(f.Same, l.Title)
			folded[l.ID] = f.ID
			continue
		}
		first[k] = l
		l.Repeats = 1
	}
	for _, l := range b.ladders {
		if l.Repeats == 1 {
			l.Repeats = 0
		}
	}
	return folded
}

// anomalyCodes is the anomaly table: one row per code, by severity (errors
// first), then count.
func anomalyCodes(rows []AnomalyRow, counts map[anomaly.Code]int) []AnomalyCode {
	out := make([]AnomalyCode, 0, len(counts))
	at := make(map[string]int, len(counts))
	for c, n := range counts {
		at[c.String()] = len(out)
		out = append(out, AnomalyCode{Code: c.String(), Severity: c.Severity().String(), Count: n, First: -1})
	}
	for i := range rows {
		ac := &out[at[rows[i].Code]]
		ac.Listed++
		if ac.First < 0 {
			ac.First = i
		}
	}
	sevRank := map[string]int{"error": 0, "warn": 1, "note": 2}
	slices.SortFunc(out, func(x, y AnomalyCode) int {
		return cmp.Or(cmp.Compare(sevRank[x.Severity], sevRank[y.Severity]), cmp.Compare(y.Count, x.Count), cmp.Compare(x.Code, y.Code))
	})
	return out
}
