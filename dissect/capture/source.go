package capture

import "errors"

// Source is where packets come from: a capture file or stdin (Reader) or a
// network interface (Live). The dissector's Session reads any of them the
// same way.
type Source interface {
	// Next fills p with the next packet; p's slices may alias the source's
	// buffers until the next call. It returns io.EOF at the end of a
	// capture and ErrNoPacket when a live source has had nothing to hand
	// out for a while: no packet, but the caller may call again (and use
	// the pause to fire timeouts). Any other error ends the source.
	Next(p *Packet) error
}

// ErrNoPacket is what a live source's Next returns when its tick period
// (LiveOptions.Tick) has passed: there is no packet this time. It comes on
// a busy wire too, so whatever the caller does on a tick (timeouts, a
// status line, flushing a file) is never held up by traffic.
var ErrNoPacket = errors.New("capture: no packet yet")

var (
	_ Source = (*Reader)(nil)
	_ Source = (*Live)(nil)
)
