package capture

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// AnyInterface captures on every interface at once (Linux cooked framing).
const AnyInterface = "any"

// LiveOptions configure a live capture.
type LiveOptions struct {
	// Ports are the game ports; a datagram is captured when its source or
	// destination port is one of them. Empty means {DefaultPort}.
	Ports []uint16
	// Snaplen is the most bytes kept of a frame; 0 means MaxFrameLen.
	Snaplen int
	// BufferSize is the socket receive buffer in bytes, what absorbs bursts
	// while the decoder catches up; 0 means DefaultLiveBuffer.
	BufferSize int
	// Tick, when positive, makes Next return ErrNoPacket once per period,
	// quiet wire or busy, so the caller gets to its periodic work; 0 means
	// Next blocks until a frame arrives (or the SetDeadline time).
	Tick time.Duration
}

// DefaultLiveBuffer is the default socket receive buffer of a live capture.
const DefaultLiveBuffer = 4 << 20

// Reasons a live capture cannot start; a *LiveError wraps one of them.
var (
	ErrNoInterface   = errors.New("no such interface")
	ErrNoPermission  = errors.New("needs root or CAP_NET_RAW")
	ErrInterfaceDown = errors.New("interface is down")
	ErrLiveOS        = errors.New("live capture needs Linux (AF_PACKET)")
	// ErrLiveClosed is returned by Live.Next after Close.
	ErrLiveClosed = errors.New("capture: live capture closed")
)

// LiveError says why capturing on an interface failed, in one line.
type LiveError struct {
	Iface string
	Err   error    // one of the Err* reasons above, or a system error
	Known []string // for ErrNoInterface: the interfaces that do exist
	Cause error    // the system error behind Err, if any
}

func (e *LiveError) Error() string {
	switch e.Err {
	case ErrNoInterface:
		return fmt.Sprintf("live: no interface %q (interfaces: %s)", e.Iface, strings.Join(append(e.Known, AnyInterface), ", "))
	case ErrNoPermission:
		return fmt.Sprintf("live: capturing on %s needs root or CAP_NET_RAW (%v)", e.Iface, e.Cause)
	case ErrInterfaceDown:
		return fmt.Sprintf("live: interface %s is down", e.Iface)
	case ErrLiveOS:
		return "live: " + ErrLiveOS.Error()
	}
	return fmt.Sprintf("live: %s: %v", e.Iface, e.Err)
}

func (e *LiveError) Unwrap() error { return e.Err }

// LiveStats are the counts of a live capture so far.
type LiveStats struct {
	Stats          // frames handed out by Next, by kind
	Drops   uint64 // frames the kernel filter passed but dropped: socket buffer full
	Skipped int    // outgoing copies of loopback packets, skipped (the incoming copy is kept)
}

// portSet is a bitmap of UDP ports.
type portSet [1024]uint64

// set adds ports; none means DefaultPort.
func (s *portSet) set(ports []uint16) {
	if len(ports) == 0 {
		ports = []uint16{DefaultPort}
	}
	for _, p := range ports {
		s[p>>6] |= 1 << (p & 63)
	}
}

func (s *portSet) has(p uint16) bool { return s[p>>6]&(1<<(p&63)) != 0 }
