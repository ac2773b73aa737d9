package report

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
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
// findings that match. The JSON is rendered into one reused buffer; when
// out is the JSON reporter a match is written as rendered.
type Select struct {
	out   dissect.Sink
	json  *JSON         // out as the JSON reporter, or nil
	mark  contextMarker // out's context marking, or nil
	f     *filter.Filter
	limit int
	plan  *Plan

	buf    []byte
	enc    jsonCaches
	ev     []dissect.Event
	n      int // datagrams seen
	shown  int // records shown (context not counted)
	capped bool
	onShow func(d *dissect.Datagram, context bool)
}

// contextMarker is a Reporter that can show a datagram as context.
type contextMarker interface{ markContext(on bool) }

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
}

// NewSelect returns a Select passing what it selects to out.
func NewSelect(out dissect.Sink, opt SelectOptions) *Select {
	s := &Select{out: out, f: opt.Filter, limit: opt.Limit, plan: opt.Plan, onShow: opt.OnShow}
	s.json, _ = out.(*JSON)
	s.mark, _ = out.(contextMarker)
	return s
}

// Shown is how many records were shown (context datagrams not counted).
func (s *Select) Shown() int { return s.shown }

// Capped reports whether the run ended at the limit.
func (s *Select) Capped() bool { return s.capped }

// matchDatagram renders d into s.buf and tests it.
func (s *Select) matchDatagram(d *dissect.Datagram) bool {
	if s.f == nil {
		return true
	}
	s.buf = appendDatagramJSON(s.buf[:0], d, &s.enc)
	return s.f.Match(s.buf)
}

func (s *Select) Datagram(d *dissect.Datagram) error {
	i := s.n
	s.n++
	if s.plan != nil {
		switch s.plan.at(i) {
		case planMatch:
			return s.show(d, false, false)
		case planContext:
			return s.show(d, true, false)
		}
		if s.plan.capped && i > s.plan.last {
			s.capped = true
			return dissect.ErrStop
		}
		return nil
	}
	if !s.matchDatagram(d) {
		return nil
	}
	return s.show(d, false, s.f != nil)
}

// show passes d on; rendered says s.buf holds its JSON.
func (s *Select) show(d *dissect.Datagram, context, rendered bool) error {
	if s.onShow != nil {
		s.onShow(d, context)
	}
	var err error
	switch {
	case s.json != nil && rendered && !context:
		err = s.json.writeRecord(s.buf)
	case context && s.mark != nil:
		s.mark.markContext(true)
		err = s.out.Datagram(d)
		s.mark.markContext(false)
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
	if s.f == nil {
		return ev
	}
	s.ev = s.ev[:0]
	for i := range ev {
		b := s.buf[:0]
		first := true
		b = append(b, '{')
		if summary {
			b = append(b, `"kind":"summary","anomalies":[`...)
			b = appendEventJSON(b, &ev[i])
			b = append(b, ']')
		} else {
			b = appendKey(b, &first, "kind")
			b = appendStr(b, "event")
			b = appendEventKeys(b, &first, &ev[i])
		}
		b = append(b, '}')
		s.buf = b
		if s.f.Match(b) {
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
func NewPlanner(f *filter.Filter, n, limit int) *Planner {
	return &Planner{sel: Select{f: f, limit: limit}, n: n, flows: map[[2]netip.AddrPort]*planFlow{}}
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
