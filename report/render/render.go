package report

import "github.com/bcdump/bcdump/dissect"

// Rendering out of capture order. A Select in front of a reporter is a
// dissect.Renderer: in Parallel mode its in-order step (Order: filter,
// plan, count) runs after tracking, and the reporter's records are
// rendered on every core by clones of the reporter that share nothing
// mutable, then written in order.

// recordRenderer is a reporter that can render records out of order.
type recordRenderer interface {
	// newRecordRender returns a render function for one goroutine, or nil
	// when a record depends on the ones before or each is flushed.
	newRecordRender() func(b []byte, d *dissect.Datagram, context bool) []byte
	// writeRecords writes what the render functions rendered, in order.
	writeRecords(b []byte) error
}

var (
	_ recordRenderer   = (*Table)(nil)
	_ recordRenderer   = (*Hex)(nil)
	_ recordRenderer   = (*JSON)(nil)
	_ dissect.Renderer = (*Select)(nil)
)

func (j *JSON) newRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
	if j.flush {
		return nil
	}
	c := &JSON{file: j.file}
	return func(b []byte, d *dissect.Datagram, context bool) []byte {
		b = appendDatagramJSONMemo(b, d, &c.memo)
		if context {
			b = appendContextKey(b)
		}
		return append(c.appendFileKey(b), '\n')
	}
}

func (j *JSON) writeRecords(b []byte) error {
	_, err := j.w.Write(b)
	return err
}

func (t *Table) newRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
	// The compact form defines labels on first use and the delta time
	// counts from the record before: both need capture order.
	if t.flush || t.compact != nil || t.clock.format == TimeDelta {
		return nil
	}
	c := &Table{pal: t.pal, clock: clock{format: t.clock.format}}
	return func(b []byte, d *dissect.Datagram, context bool) []byte {
		c.context = context
		return c.appendLine(b, d)
	}
}

func (t *Table) writeRecords(b []byte) error {
	_, err := t.w.Write(b)
	return err
}

func (h *Hex) newRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
	if h.flush || h.clock.format == TimeDelta {
		return nil
	}
	c := &Hex{pal: h.pal, cipher: h.cipher, clock: clock{format: h.clock.format}}
	return func(b []byte, d *dissect.Datagram, context bool) []byte {
		c.context = context
		return c.appendRecord(b, d)
	}
}

func (h *Hex) writeRecords(b []byte) error {
	_, err := h.w.Write(b)
	return err
}

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
	r, ok := s.out.(recordRenderer)
	if !ok {
		return nil
	}
	f := r.newRecordRender()
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
	return s.out.(recordRenderer).writeRecords(b)
}
