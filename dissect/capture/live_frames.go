package capture

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// frameSource is a capture handle that hands out one frame at a time:
// gopacket's pcap.Handle on Windows, its bsdbpf sniffer on macOS and the
// BSDs, a fake in tests. The Windows and BSD live captures are a
// frameLive around one, so what follows the handle is the same code on
// both, and testable on any system.
type frameSource interface {
	// ReadPacketData returns the next frame; the data may alias the
	// handle's buffer until the next call. errReadTimeout means the
	// handle's read timeout passed without a frame.
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	// Drops is how many frames the kernel (or driver) dropped so far, and
	// whether the handle can tell.
	Drops() (uint64, bool)
	Close() error
}

// errReadTimeout is what a frameSource returns when its read timeout
// passes: nothing yet.
var errReadTimeout = errors.New("capture: read timeout")

// readTimeout is a frameSource's read timeout when there is no tick: how
// long a blocked Next takes to notice Close or its deadline.
const readTimeout = 250 * time.Millisecond

// frameLive is a live capture reading from a frameSource. The game-port
// filter runs in the kernel where the handle takes one (Npcap); where it
// does not (bsdbpf), filter runs it on every frame before decoding.
type frameLive struct {
	name     string
	src      frameSource
	linkType layers.LinkType
	filter   *bpf.VM // nil: the kernel filters
	tick     time.Duration
	nextTick time.Time

	deadline atomic.Int64 // SetDeadline's time in Unix nanoseconds; 0: none
	closed   atomic.Bool

	liveFrames
	drops uint64
}

// filterFor is the game-port filter program of a link type, or
// ErrLinkType.
func filterFor(lt layers.LinkType, ports []uint16, snap int) ([]bpf.Instruction, error) {
	var link filterLink
	switch lt {
	case layers.LinkTypeEthernet:
		link = filterEthernet
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		link = filterNull
	default:
		return nil, ErrLinkType
	}
	return gameFilter(link, ports, uint32(snap))
}

// snapLen is LiveOptions.Snaplen with its default and bound applied.
func snapLen(opt LiveOptions) int {
	if opt.Snaplen <= 0 || opt.Snaplen > MaxFrameLen {
		return MaxFrameLen
	}
	return opt.Snaplen
}

// handleTimeout is the read timeout to give a handle for opt.
func handleTimeout(opt LiveOptions) time.Duration {
	if opt.Tick > 0 && opt.Tick < readTimeout {
		return opt.Tick
	}
	return readTimeout
}

// newFrameLive wraps src; prog, if not nil, is run on every frame in
// user space (the handle has no kernel filter).
func newFrameLive(name string, src frameSource, lt layers.LinkType, prog []bpf.Instruction, opt LiveOptions) (*frameLive, error) {
	l := &frameLive{name: name, src: src, linkType: lt, tick: opt.Tick}
	if prog != nil {
		vm, err := bpf.NewVM(prog)
		if err != nil {
			return nil, err
		}
		l.filter = vm
	}
	if l.tick > 0 {
		l.nextTick = time.Now().Add(l.tick)
	}
	l.liveFrames.init(opt.Ports)
	return l, nil
}

// Next fills p with the next frame the filter passed, as the Linux
// capture does (see there). With LiveOptions.Tick it returns ErrNoPacket
// once per tick period, on a busy wire too; without, os.ErrDeadlineExceeded
// when the SetDeadline time passes. It returns ErrLiveClosed after Close.
func (l *frameLive) Next(p *Packet) error {
	for {
		if l.closed.Load() {
			return ErrLiveClosed
		}
		if d := l.deadline.Load(); l.tick > 0 || d != 0 {
			now := time.Now()
			if l.tick > 0 && !now.Before(l.nextTick) {
				l.nextTick = now.Add(l.tick)
				return ErrNoPacket
			}
			if d != 0 && now.UnixNano() >= d {
				return os.ErrDeadlineExceeded
			}
		}
		data, ci, err := l.src.ReadPacketData()
		if err == errReadTimeout {
			continue
		}
		if err != nil {
			if l.closed.Load() {
				return ErrLiveClosed
			}
			return &LiveError{Iface: l.name, Err: fmt.Errorf("read: %w", err)}
		}
		if l.filter != nil {
			n, err := l.filter.Run(data)
			if err != nil || n == 0 {
				continue
			}
			if n < len(data) {
				data = data[:n]
			}
		}
		ci.CaptureLength = len(data)
		ci.Timestamp = ci.Timestamp.UTC()
		l.fill(p, l.linkType, data, ci)
		return nil
	}
}

// SetDeadline makes a blocked Next return os.ErrDeadlineExceeded at t
// (within the handle's read timeout); the zero time means no deadline.
func (l *frameLive) SetDeadline(t time.Time) error {
	var ns int64
	if !t.IsZero() {
		ns = max(t.UnixNano(), 1)
	}
	l.deadline.Store(ns)
	return nil
}

// Stats returns the counts so far; Drops is the handle's count, or 0
// where the handle cannot tell (bsdbpf).
func (l *frameLive) Stats() LiveStats {
	if !l.closed.Load() {
		if d, ok := l.src.Drops(); ok {
			l.drops = d
		}
	}
	return LiveStats{Stats: l.stats, Drops: l.drops}
}

// Name is the interface's device name.
func (l *frameLive) Name() string { return l.name }

// LinkType is the handle's: Ethernet, or NULL/LOOP on loopback.
func (l *frameLive) LinkType() layers.LinkType { return l.linkType }

// Close stops the capture; a Next blocked in another goroutine returns
// ErrLiveClosed within the handle's read timeout.
func (l *frameLive) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	return l.src.Close()
}
