package dissect

import "time"

// Chain returns a Sink that hands what a Session decodes to each of ss in
// order: a datagram or event stops at the first error, Finish reaches every
// sink (each flushes) and returns the first error, a tick reaches those
// that are Tickers. It is FieldBlind when every sink is. When the last sink
// is a Renderer, so is the chain: the sinks before it see every datagram in
// Order, and the last one renders, on every core in Parallel mode. One sink
// is returned as it is.
func Chain(ss ...Sink) Sink {
	if len(ss) == 1 {
		return ss[0]
	}
	c := chain(ss)
	if len(ss) > 0 {
		if r, ok := ss[len(ss)-1].(Renderer); ok {
			return renderChain{c, r}
		}
	}
	return c
}

type chain []Sink

func (c chain) Datagram(dg *Datagram) error {
	for _, s := range c {
		if err := s.Datagram(dg); err != nil {
			return err
		}
	}
	return nil
}

func (c chain) Events(ev []Event) error {
	for _, s := range c {
		if err := s.Events(ev); err != nil {
			return err
		}
	}
	return nil
}

func (c chain) Finish(end []Event) error {
	var first error
	for _, s := range c {
		if err := s.Finish(end); first == nil {
			first = err
		}
	}
	return first
}

func (c chain) FieldBlind() bool {
	for _, s := range c {
		if fb, ok := s.(FieldBlind); !ok || !fb.FieldBlind() {
			return false
		}
	}
	return true
}

func (c chain) Tick(now time.Time) error {
	for _, s := range c {
		if t, ok := s.(Ticker); ok {
			if err := t.Tick(now); err != nil {
				return err
			}
		}
	}
	return nil
}

// renderChain is a chain whose last sink, r, is a Renderer.
type renderChain struct {
	chain
	r Renderer
}

func (c renderChain) Order(dg *Datagram) (uint8, error) {
	for _, s := range c.chain[:len(c.chain)-1] {
		if err := s.Datagram(dg); err != nil {
			return 0, err
		}
	}
	return c.r.Order(dg)
}

func (c renderChain) NewRender() func([]byte, *Datagram, uint8) []byte { return c.r.NewRender() }

func (c renderChain) Write(b []byte) error { return c.r.Write(b) }
