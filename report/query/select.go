package query

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/render"
)

// Select is a Sink in front of a Reporter (or any Sink) that passes on
// only the records a display filter selects, up to a count (-c), and on a
// second pass the context a Plan names (-C). It sits after the Session, so
// decoding and flow tracking see every datagram and every mark is what it
// is without the filter.
//
// A record is selected when the filter matches the JSON object `read -F
// json` prints for it: a datagram's, an event's ({"kind":"event",...}), or
// an end-of-capture event's as a one-element summary record
// ({"kind":"summary","anomalies":[...]}), so the summary keeps the
// findings that match. The filter is evaluated on the decoded record
// (Eval), which gives Match's answer on that JSON without rendering it:
// only what is shown is rendered, by out.
type Select struct {
	out  dissect.Sink
	mark render.ContextMarker // out's context marking, or nil
	// matches: out tells matching messages apart (render.MatchMarker),
	// with matched the scratch for Eval.Messages.
	matches render.MatchMarker
	matched []bool
	eval    *Eval // nil: no filter
	limit   int
	plan    *Plan

	ev     []dissect.Event
	n      int // datagrams seen
	shown  int // records shown (context not counted)
	capped bool
	onShow func(d *dissect.Datagram, context bool)
}

// SelectOptions configure a Select.
type SelectOptions struct {
	// Filter selects records; nil selects every record.
	Filter *filter.Filter
	// Limit ends the run (dissect.ErrStop) once this many records were
	// shown; 0 is no limit. The end-of-capture summary is then left out:
	// the capture was not read to its end.
	Limit int
	// Plan, from a first pass (Planner), says which datagrams to show and
	// which of them are context; Filter and Limit then apply to events
	// only.
	Plan *Plan
	// OnShow, if set, hears of every datagram shown (read -w collects the
	// frames).
	OnShow func(d *dissect.Datagram, context bool)
	// File is the capture's name when a run reads several: the filter
	// then sees the "file" key the JSON records carry.
	File string
}

// NewSelect returns a Select passing what it selects to out.
func NewSelect(out dissect.Sink, opt SelectOptions) *Select {
	s := &Select{out: out, eval: newEval(opt.Filter), limit: opt.Limit, plan: opt.Plan, onShow: opt.OnShow}
	s.mark, _ = out.(render.ContextMarker)
	if s.eval != nil {
		s.eval.SetFile(opt.File)
		if mm, ok := out.(render.MatchMarker); ok && mm.WantsMatches() {
			s.matches = mm
		}
	}
	return s
}

// Shown is how many records were shown (context datagrams not counted).
func (s *Select) Shown() int { return s.shown }

// Capped reports whether the run ended at the limit.
func (s *Select) Capped() bool { return s.capped }

// newEval is NewEval, nil for no filter.
func newEval(f *filter.Filter) *Eval {
	if f == nil {
		return nil
	}
	return NewEval(f)
}

// matchDatagram tests d.
func (s *Select) matchDatagram(d *dissect.Datagram) bool {
	return s.eval == nil || s.eval.Datagram(d)
}

func (s *Select) Datagram(d *dissect.Datagram) error {
	mark, err := s.pick(d)
	if mark == 0 {
		return err
	}
	return s.show(d, mark == markContext)
}

// pick decides, in capture order, whether d is shown (markShow), shown as
// context (markContext) or not (0); ErrStop once a capped plan is done.
func (s *Select) pick(d *dissect.Datagram) (uint8, error) {
	i := s.n
	s.n++
	if s.plan != nil {
		switch s.plan.at(i) {
		case planMatch:
			return markShow, nil
		case planContext:
			return markContext, nil
		}
		if s.plan.capped && i > s.plan.last {
			s.capped = true
			return 0, dissect.ErrStop
		}
		return 0, nil
	}
	if !s.matchDatagram(d) {
		return 0, nil
	}
	return markShow, nil
}

// show passes d on, as context or not.
func (s *Select) show(d *dissect.Datagram, context bool) error {
	if s.onShow != nil {
		s.onShow(d, context)
	}
	var err error
	if s.matches != nil && !context {
		m := s.eval.Messages(d, s.matched[:0])
		if m != nil {
			s.matched = m // the grown scratch, kept
		}
		s.matches.MarkMatches(m)
		defer s.matches.MarkMatches(nil)
	}
	switch {
	case context && s.mark != nil:
		s.mark.MarkContext(true)
		err = s.out.Datagram(d)
		s.mark.MarkContext(false)
	default:
		err = s.out.Datagram(d)
	}
	if err != nil || context {
		return err
	}
	s.shown++
	if s.limit > 0 && s.shown >= s.limit && s.plan == nil {
		s.capped = true
		return dissect.ErrStop
	}
	return nil
}

// selectEvents returns the events whose records match, in a reused slice.
func (s *Select) selectEvents(ev []dissect.Event, summary bool) []dissect.Event {
	if s.eval == nil {
		return ev
	}
	s.ev = s.ev[:0]
	for i := range ev {
		if summary && s.eval.Summary(&ev[i]) || !summary && s.eval.Event(&ev[i]) {
			s.ev = append(s.ev, ev[i])
		}
	}
	return s.ev
}

// Events passes on the events (live) whose records match.
func (s *Select) Events(ev []dissect.Event) error {
	if s.capped {
		return nil
	}
	sel := s.selectEvents(ev, false)
	if len(sel) == 0 {
		return nil
	}
	if err := s.out.Events(sel); err != nil {
		return err
	}
	s.shown += len(sel)
	if s.limit > 0 && s.shown >= s.limit {
		s.capped = true
		return dissect.ErrStop
	}
	return nil
}

// Tick passes a live session's tick on to out, if it wants it.
func (s *Select) Tick(now time.Time) error {
	if t, ok := s.out.(dissect.Ticker); ok {
		return t.Tick(now)
	}
	return nil
}

// Finish passes on the end-of-capture events that match, none when the
// run ended at the limit.
func (s *Select) Finish(end []dissect.Event) error {
	if s.capped {
		return s.out.Finish(nil)
	}
	return s.out.Finish(s.selectEvents(end, true))
}

// Plan is what a first pass over a capture found for read -C: by datagram
// (in the order a Session hands them out), whether it matched or is
// context of a match in its flow.
type Plan struct {
	marks  []uint8
	last   int  // the last datagram marked
	capped bool // the first pass ended at the limit: so does the second
}

const (
	planNone uint8 = iota
	planMatch
	planContext
)

func (p *Plan) at(i int) uint8 {
	if i < len(p.marks) {
		return p.marks[i]
	}
	return planNone
}

func (p *Plan) set(i int, m uint8) {
	for len(p.marks) <= i {
		p.marks = append(p.marks, planNone)
	}
	if p.marks[i] != planMatch {
		p.marks[i] = m
	}
	p.last = max(p.last, i)
}

// Planner is the first pass of read -C: a Sink that marks, per flow (a
// client and its server), the matching datagrams and the n datagrams
// before and after each.
type Planner struct {
	sel   Select
	n     int
	flows map[[2]netip.AddrPort]*planFlow
	plan  Plan
	i     int
}

type planFlow struct {
	before []int // the last n datagrams not shown, a ring
	next   int
	after  int // datagrams still to mark after a match
}

// NewPlanner returns a first pass for context n around matches of f, up
// to limit matches (0: no limit).
func NewPlanner(f *filter.Filter, n, limit int, file string) *Planner {
	p := &Planner{sel: Select{eval: newEval(f), limit: limit}, n: n, flows: map[[2]netip.AddrPort]*planFlow{}}
	if p.sel.eval != nil {
		p.sel.eval.SetFile(file) // see SelectOptions.File
	}
	return p
}

// Plan returns what the pass found.
func (p *Planner) Plan() *Plan { return &p.plan }

// ClientServer is the flow d belongs to: its client and its game server.
func ClientServer(d *dissect.Datagram) [2]netip.AddrPort {
	if d.Dir == dissect.S2C {
		return [2]netip.AddrPort{d.Dst, d.Src}
	}
	return [2]netip.AddrPort{d.Src, d.Dst}
}

func (p *Planner) Datagram(d *dissect.Datagram) error {
	i := p.i
	p.i++
	key := ClientServer(d)
	fl := p.flows[key]
	if fl == nil {
		fl = &planFlow{before: make([]int, 0, p.n)}
		p.flows[key] = fl
	}
	if p.sel.matchDatagram(d) {
		for _, j := range fl.before {
			p.plan.set(j, planContext)
		}
		fl.before, fl.next = fl.before[:0], 0
		p.plan.set(i, planMatch)
		fl.after = p.n
		p.sel.shown++
		if p.sel.limit > 0 && p.sel.shown >= p.sel.limit {
			p.plan.capped = true
			return dissect.ErrStop
		}
		return nil
	}
	if fl.after > 0 {
		fl.after--
		p.plan.set(i, planContext)
		return nil
	}
	if p.n == 0 {
		return nil
	}
	if len(fl.before) < p.n {
		fl.before = append(fl.before, i)
	} else {
		fl.before[fl.next] = i
		fl.next = (fl.next + 1) % p.n
	}
	return nil
}

func (p *Planner) Events([]dissect.Event) error { return nil }
func (p *Planner) Finish([]dissect.Event) error { return nil }

var _ dissect.Renderer = (*Select)(nil)

// Marks Order gives a datagram.
const (
	markShow    uint8 = 1 + iota // shown
	markContext                  // shown as context (read -C)
)

// Order is Datagram without the rendering (dissect.Renderer): it decides,
// in capture order, whether d is shown and counts it.
func (s *Select) Order(d *dissect.Datagram) (uint8, error) {
	mark, err := s.pick(d)
	if mark == 0 {
		return 0, err
	}
	if s.onShow != nil {
		s.onShow(d, mark == markContext)
	}
	if mark == markContext {
		return mark, nil
	}
	s.shown++
	if s.limit > 0 && s.shown >= s.limit && s.plan == nil {
		s.capped = true
		return mark, dissect.ErrStop
	}
	return mark, nil
}

// NewRender renders for out when it can render out of order, else nil
// (dissect.Renderer).
func (s *Select) NewRender() func([]byte, *dissect.Datagram, uint8) []byte {
	r, ok := s.out.(render.RecordRenderer)
	if !ok || s.matches != nil {
		return nil
	}
	f := r.NewRecordRender()
	if f == nil {
		return nil
	}
	return func(b []byte, d *dissect.Datagram, mark uint8) []byte {
		return f(b, d, mark == markContext)
	}
}

// Write writes records rendered by NewRender's functions to out
// (dissect.Renderer).
func (s *Select) Write(b []byte) error {
	return s.out.(render.RecordRenderer).WriteRecords(b)
}
