package render

import "github.com/bcdump/bcdump/dissect"

// Rendering out of capture order. A query.Select in front of a reporter
// is a dissect.Renderer: in Parallel mode its in-order step (filter,
// plan, count) runs after tracking, and the reporter's records are
// rendered on every core by clones of the reporter that share nothing
// mutable, then written in order.

// RecordRenderer is a reporter that can render records out of order.
type RecordRenderer interface {
	// NewRecordRender returns a render function for one goroutine, or nil
	// when a record depends on the ones before or each is flushed.
	NewRecordRender() func(b []byte, d *dissect.Datagram, context bool) []byte
	// WriteRecords writes what the render functions rendered, in order.
	WriteRecords(b []byte) error
}

// ContextMarker is a reporter that can show a datagram as context of a
// match (read -C).
type ContextMarker interface{ MarkContext(on bool) }

// MatchMarker is a reporter that can tell the messages a filter matched
// from the others in a datagram it shows (the table: matching messages
// first on a line that is cut, --only-matching). When WantsMatches, a
// query.Select calls MarkMatches before each datagram it shows, in
// capture order (it then renders in order).
type MatchMarker interface {
	WantsMatches() bool
	MarkMatches(m []bool)
}

var (
	_ RecordRenderer = (*Table)(nil)
	_ RecordRenderer = (*Hex)(nil)
	_ RecordRenderer = (*JSON)(nil)
	_ ContextMarker  = (*Table)(nil)
	_ ContextMarker  = (*Hex)(nil)
	_ ContextMarker  = (*JSON)(nil)
	_ MatchMarker    = (*Table)(nil)
)

func (j *JSON) NewRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
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

func (j *JSON) WriteRecords(b []byte) error {
	_, err := j.w.Write(b)
	return err
}

func (t *Table) NewRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
	// The compact form defines labels on first use and the delta time
	// counts from the record before: both need capture order.
	if t.flush || t.compact != nil || t.only || t.clock.format == TimeDelta {
		return nil
	}
	c := &Table{pal: t.pal, clock: clock{format: t.clock.format}, memo: new(recordMemo)}
	return func(b []byte, d *dissect.Datagram, context bool) []byte {
		c.context = context
		return c.appendLine(b, d)
	}
}

func (t *Table) WriteRecords(b []byte) error {
	_, err := t.w.Write(b)
	return err
}

func (h *Hex) NewRecordRender() func([]byte, *dissect.Datagram, bool) []byte {
	if h.flush || h.clock.format == TimeDelta {
		return nil
	}
	c := &Hex{pal: h.pal, cipher: h.cipher, clock: clock{format: h.clock.format}, noTree: h.noTree, noDump: h.noDump}
	return func(b []byte, d *dissect.Datagram, context bool) []byte {
		c.context = context
		return c.appendRecord(b, d)
	}
}

func (h *Hex) WriteRecords(b []byte) error {
	_, err := h.w.Write(b)
	return err
}
