//go:build !linux && !windows && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package capture

import (
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Live is a live capture; this system has none (see ErrLiveOS).
type Live struct{}

// OpenLive always fails here: see ErrLiveOS.
func OpenLive(iface string, opt LiveOptions) (*Live, error) {
	return nil, &LiveError{Iface: iface, Err: ErrLiveOS}
}

// Interfaces always fails here: see ErrLiveOS.
func Interfaces() ([]Interface, error) { return nil, &LiveError{Err: ErrLiveOS} }

func (*Live) Next(*Packet) error          { return ErrLiveClosed }
func (*Live) SetDeadline(time.Time) error { return ErrLiveOS }
func (*Live) Stats() LiveStats            { return LiveStats{} }
func (*Live) Name() string                { return "" }
func (*Live) LinkType() layers.LinkType   { return layers.LinkTypeEthernet }
func (*Live) Close() error                { return nil }
