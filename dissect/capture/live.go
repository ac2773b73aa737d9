package capture

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
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
	ErrNoPermission  = errors.New("not allowed to capture")
	ErrInterfaceDown = errors.New("interface is down")
	ErrNoNpcap       = errors.New("no Npcap (wpcap.dll not found)")
	ErrLinkType      = errors.New("unsupported link type")
	ErrLiveOS        = errors.New("live capture needs Linux, Windows (Npcap), macOS or a BSD")
	// ErrLiveClosed is returned by Live.Next after Close.
	ErrLiveClosed = errors.New("capture: live capture closed")
)

// LiveError says why capturing on an interface failed, in one line.
type LiveError struct {
	Iface string
	Err   error    // one of the Err* reasons above, or a system error
	Known []string // for ErrNoInterface: the interfaces that do exist
	Cause error    // the system error behind Err, if any

	advice string // for ErrNoPermission: what capturing needs; "" is Linux's
}

// linuxPermissionAdvice completes "capturing on IFACE needs ..." on Linux.
const linuxPermissionAdvice = "root or CAP_NET_RAW"

func (e *LiveError) Error() string {
	cause := ""
	if e.Cause != nil {
		cause = fmt.Sprintf(" (%v)", e.Cause)
	}
	switch e.Err {
	case ErrNoInterface:
		return fmt.Sprintf("live: no interface %q (interfaces: %s; bcdump live --list-interfaces)", e.Iface, strings.Join(e.Known, ", "))
	case ErrNoPermission:
		advice := e.advice
		if advice == "" {
			advice = linuxPermissionAdvice
		}
		return fmt.Sprintf("live: capturing on %s needs %s%s", e.Iface, advice, cause)
	case ErrInterfaceDown:
		return fmt.Sprintf("live: interface %s is down", e.Iface)
	case ErrNoNpcap:
		return "live: Npcap is not installed (wpcap.dll not found); get it from https://npcap.com"
	case ErrLinkType:
		return fmt.Sprintf("live: %s: unsupported link type%s; Ethernet and loopback interfaces work", e.Iface, cause)
	case ErrLiveOS:
		return "live: " + ErrLiveOS.Error()
	}
	return fmt.Sprintf("live: %s: %v", e.Iface, e.Err)
}

func (e *LiveError) Unwrap() error { return e.Err }

// Interface is a network interface a live capture can use, as
// bcdump live --list-interfaces shows it.
type Interface struct {
	Name        string // the system's name: eth0, en0, \Device\NPF_{GUID}
	Friendly    string // Windows' name for it ("Ethernet 2"), if any
	Description string // what it is ("Loopback", the adapter's model)
	Loopback    bool

	link layers.LinkType // where the system does not say: what the capture will see
}

// Label is how the interface is named in lists: its friendly name if it
// has one, else its name.
func (i Interface) Label() string {
	if i.Friendly != "" {
		return i.Friendly
	}
	return i.Name
}

// pickInterface finds what -i names among list: an exact device name, a
// friendly name (any case, as Windows compares them), or a number from
// the --list-interfaces list (counting from 1).
func pickInterface(list []Interface, arg string) (Interface, error) {
	for _, i := range list {
		if i.Name == arg {
			return i, nil
		}
	}
	for _, i := range list {
		if i.Friendly != "" && strings.EqualFold(i.Friendly, arg) {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(arg); err == nil && n >= 1 && n <= len(list) {
		return list[n-1], nil
	}
	return Interface{}, &LiveError{Iface: arg, Err: ErrNoInterface, Known: labels(list)}
}

// labels are the names of list as an error message shows them.
func labels(list []Interface) []string {
	out := make([]string, len(list))
	for k, i := range list {
		out[k] = i.Label()
	}
	return out
}

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

// liveFrames turns captured frames into Packets, the same for every live
// capture: the game ports, the decoder, the frame number and the counts.
type liveFrames struct {
	ports portSet
	dec   decoder
	frame int
	stats Stats
}

func (f *liveFrames) init(ports []uint16) {
	f.ports.set(ports)
	f.dec.init()
}

// fill makes p the next frame: data of link type lt, captured as ci says.
// A datagram the kernel filter passed on a game port is KindMatched though
// the decoder does not know that port.
func (f *liveFrames) fill(p *Packet, lt layers.LinkType, data []byte, ci gopacket.CaptureInfo) {
	f.frame++
	p.reset()
	p.Frame = f.frame
	p.Time = ci.Timestamp
	p.Data = data
	p.LinkType = lt
	p.InterfaceIndex = 0
	p.CaptureInfo = ci
	p.section = 0
	p.Kind = f.dec.decodeFast(p, lt, data)
	if p.Kind == KindOtherPort && (f.ports.has(p.Src.Port()) || f.ports.has(p.Dst.Port())) {
		p.Kind = KindMatched
	}
	f.stats.count(p.Kind)
	if p.Kind == KindMatched && p.Truncated {
		f.stats.Truncated++
	}
}
