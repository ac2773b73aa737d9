//go:build !linux

package capture

import (
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Live is a live capture; it exists only on Linux (AF_PACKET).
type Live struct{}

// OpenLive always fails here: live capture needs Linux.
func OpenLive(iface string, opt LiveOptions) (*Live, error) {
	return nil, &LiveError{Iface: iface, Err: ErrLiveOS}
}

func (*Live) Next(*Packet) error          { return ErrLiveClosed }
func (*Live) SetDeadline(time.Time) error { return ErrLiveOS }
func (*Live) Stats() LiveStats            { return LiveStats{} }
func (*Live) Name() string                { return "" }
func (*Live) LinkType() layers.LinkType   { return layers.LinkTypeEthernet }
func (*Live) Close() error                { return nil }
