//go:build linux

package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Live captures the game traffic of one interface, or of all of them, from
// an AF_PACKET socket. It hands out the same Packets a Reader does, so the
// decode downstream is identical, and writes nothing itself.
//
// It is written against the socket directly rather than pcapgo's
// EthernetHandle because it needs what that hides: the packet type (to drop
// the second copy of every loopback packet), an unbound socket for "any",
// and a filter attached before the socket sees its first packet.
//
// A Live is not safe for concurrent use, except that Close may be called
// from another goroutine to end a blocked Next.
type Live struct {
	name     string
	file     *os.File
	rc       syscall.RawConn
	readFn   func(fd uintptr) bool // l.readOnce, bound once so Next does not allocate
	cooked   bool                  // SOCK_DGRAM: Next prepends an SLL2 header
	linkType layers.LinkType
	closed   atomic.Bool
	tick     time.Duration // LiveOptions.Tick
	armed    bool          // the tick deadline is set

	buf []byte // frame: [SLL2 header when cooked][packet]
	oob []byte
	sa  unix.RawSockaddrLinklayer
	iov unix.Iovec
	msg unix.Msghdr
	n   uintptr
	eno syscall.Errno

	liveFrames
	drops   uint64
	skipped int
}

const sll2Len = 20 // LINKTYPE_LINUX_SLL2 header

// OpenLive starts capturing on iface (AnyInterface for all). The kernel
// filter passes only UDP on the game ports, so other traffic is never
// copied to user space. Errors are *LiveError values naming the reason:
// ErrNoInterface, ErrInterfaceDown, ErrNoPermission.
func OpenLive(iface string, opt LiveOptions) (*Live, error) {
	snap := opt.Snaplen
	if snap <= 0 || snap > MaxFrameLen {
		snap = MaxFrameLen
	}
	ifindex := 0
	if iface != AnyInterface {
		ifi, err := net.InterfaceByName(iface)
		if err != nil {
			// Not a name: a number from --list-interfaces, or nothing.
			list, lerr := Interfaces()
			if lerr != nil {
				return nil, &LiveError{Iface: iface, Err: lerr}
			}
			pick, perr := pickInterface(list, iface)
			if perr != nil {
				return nil, perr
			}
			if pick.Name == AnyInterface {
				return OpenLive(AnyInterface, opt)
			}
			if ifi, err = net.InterfaceByName(pick.Name); err != nil {
				return nil, &LiveError{Iface: iface, Err: ErrNoInterface, Known: labels(list), Cause: err}
			}
			iface = pick.Name
		}
		if ifi.Flags&net.FlagUp == 0 {
			return nil, &LiveError{Iface: iface, Err: ErrInterfaceDown}
		}
		ifindex = ifi.Index
	}
	fd, cooked, err := openPacketSocket(ifindex)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, &LiveError{Iface: iface, Err: ErrNoPermission, Cause: err}
		}
		return nil, &LiveError{Iface: iface, Err: err}
	}
	l, err := newLive(fd, iface, ifindex, cooked, snap, opt)
	if err != nil {
		if errors.Is(err, unix.ENETDOWN) {
			err = ErrInterfaceDown
		}
		return nil, &LiveError{Iface: iface, Err: err}
	}
	return l, nil
}

// openPacketSocket opens a packet socket that receives nothing yet
// (protocol 0), raw on Ethernet-framed devices (loopback is one on Linux)
// and cooked everywhere else.
func openPacketSocket(ifindex int) (fd int, cooked bool, err error) {
	fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return -1, false, fmt.Errorf("socket: %w", err)
	}
	if ifindex != 0 {
		// Binding with protocol 0 selects the device without hooking the
		// socket up; the device type is then in the socket's own address.
		if err := unix.Bind(fd, &unix.SockaddrLinklayer{Ifindex: ifindex}); err != nil {
			unix.Close(fd)
			return -1, false, fmt.Errorf("bind: %w", err)
		}
		sa, err := unix.Getsockname(fd)
		if ll, ok := sa.(*unix.SockaddrLinklayer); err == nil && ok &&
			(ll.Hatype == unix.ARPHRD_ETHER || ll.Hatype == unix.ARPHRD_LOOPBACK) {
			return fd, false, nil
		}
	}
	unix.Close(fd)
	fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return -1, false, fmt.Errorf("socket: %w", err)
	}
	return fd, true, nil
}

// newLive sets the socket up and wraps it; it owns fd and closes it on
// failure.
func newLive(fd int, name string, ifindex int, cooked bool, snap int, opt LiveOptions) (*Live, error) {
	f := os.NewFile(uintptr(fd), "packet:"+name)
	l, err := setupLive(f, fd, ifindex, cooked, snap, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	l.name = name
	return l, nil
}

// setupLive configures fd, which f wraps (the poller needs the *os.File
// for deadlines and Close; the options are set on the raw descriptor).
func setupLive(f *os.File, fd int, ifindex int, cooked bool, snap int, opt LiveOptions) (*Live, error) {
	link, lt, off := filterEthernet, layers.LinkTypeEthernet, 0
	if cooked {
		link, lt, off = filterCooked, layers.LinkTypeLinuxSLL2, sll2Len
	}
	prog, err := gameFilter(link, opt.Ports, uint32(snap))
	if err != nil {
		return nil, err
	}
	if err := attachFilter(fd, prog); err != nil {
		return nil, err
	}
	bufSize := opt.BufferSize
	if bufSize <= 0 {
		bufSize = DefaultLiveBuffer
	}
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, bufSize) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, bufSize) // capped by rmem_max; best effort
	}
	oobLen := 0
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) == nil {
		oobLen = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))
	}
	// Hooked up last, with the filter in place: nothing unfiltered is queued.
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifindex}); err != nil {
		return nil, fmt.Errorf("bind: %w", err)
	}
	l := &Live{
		file:     f,
		cooked:   cooked,
		linkType: lt,
		buf:      make([]byte, off+snap),
		oob:      make([]byte, oobLen),
	}
	if l.rc, err = f.SyscallConn(); err != nil {
		return nil, err
	}
	l.readFn = l.readOnce
	l.tick = opt.Tick
	l.iov.Base = &l.buf[off]
	l.iov.SetLen(len(l.buf) - off)
	l.msg.Name = (*byte)(unsafe.Pointer(&l.sa))
	l.msg.Iov = &l.iov
	l.msg.Iovlen = 1
	if oobLen > 0 {
		l.msg.Control = &l.oob[0]
	}
	l.liveFrames.init(opt.Ports)
	return l, nil
}

func attachFilter(fd int, prog []bpf.Instruction) error {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return err
	}
	f := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		f[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fp := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &fp); err != nil {
		return fmt.Errorf("attach filter: %w", err)
	}
	return nil
}

// Next fills p with the next frame the kernel filter passed: normally a
// game datagram (KindMatched); a first IP fragment or a damaged frame gets
// its own Kind, so that a caller writing every frame out can keep it. Of a
// packet looped back on a loopback device only the incoming copy is kept,
// as tcpdump does. Frames are numbered from 1 in the order handed out. p's
// slices alias the Live's buffer until the next call.
//
// Next blocks until a frame arrives. With LiveOptions.Tick it returns
// ErrNoPacket once per tick period; without, an error satisfying
// errors.Is(err, os.ErrDeadlineExceeded) when the SetDeadline time passes.
// It returns ErrLiveClosed after Close, and a *LiveError if the interface
// goes down.
func (l *Live) Next(p *Packet) error {
	off := 0
	if l.cooked {
		off = sll2Len
	}
	if l.tick > 0 && !l.armed {
		// One deadline per period, not per frame: under load the ticks
		// still come on time, and Next sets no timer per packet.
		if err := l.file.SetReadDeadline(time.Now().Add(l.tick)); err != nil {
			return l.readError(err)
		}
		l.armed = true
	}
	for {
		if l.closed.Load() {
			return ErrLiveClosed
		}
		l.msg.Namelen = uint32(unsafe.Sizeof(l.sa))
		l.msg.SetControllen(len(l.oob))
		if err := l.rc.Read(l.readFn); err != nil {
			return l.readError(err)
		}
		if l.eno != 0 {
			return l.readError(l.eno)
		}
		if l.sa.Pkttype == unix.PACKET_OUTGOING && l.sa.Hatype == unix.ARPHRD_LOOPBACK {
			l.skipped++ // the same packet comes back in as PACKET_HOST
			continue
		}
		n := int(l.n) // MSG_TRUNC: the length before truncation to the buffer
		data := l.buf[:off+min(n, len(l.buf)-off)]
		if l.cooked {
			l.putSLL2(data)
		}
		ci := gopacket.CaptureInfo{Timestamp: l.timestamp(), CaptureLength: len(data), Length: off + n}
		l.fill(p, l.linkType, data, ci)
		return nil
	}
}

// readOnce is the RawConn read callback: one recvmsg, asking to be called
// again (after the poller says so) only when nothing was there.
func (l *Live) readOnce(fd uintptr) bool {
	l.n, _, l.eno = unix.Syscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&l.msg)), unix.MSG_TRUNC)
	return l.eno != unix.EAGAIN
}

func (l *Live) readError(err error) error {
	switch {
	case l.closed.Load():
		return ErrLiveClosed
	case errors.Is(err, os.ErrDeadlineExceeded):
		if l.tick > 0 {
			l.armed = false
			return ErrNoPacket
		}
		return err
	case errors.Is(err, unix.ENETDOWN), errors.Is(err, unix.ENXIO), errors.Is(err, unix.ENODEV):
		return &LiveError{Iface: l.name, Err: ErrInterfaceDown, Cause: err}
	}
	return &LiveError{Iface: l.name, Err: fmt.Errorf("read: %w", err)}
}

// putSLL2 writes the cooked header the socket address describes.
func (l *Live) putSLL2(b []byte) {
	sa := &l.sa
	// Protocol is in network order already: copy its bytes as they are.
	binary.NativeEndian.PutUint16(b[0:], sa.Protocol)
	binary.BigEndian.PutUint16(b[2:], 0)
	binary.BigEndian.PutUint32(b[4:], uint32(sa.Ifindex))
	binary.BigEndian.PutUint16(b[8:], sa.Hatype)
	b[10] = sa.Pkttype
	b[11] = min(sa.Halen, 8)
	copy(b[12:20], sa.Addr[:])
}

// timestamp reads the SO_TIMESTAMPNS control message of the last read.
func (l *Live) timestamp() time.Time {
	hdr := unix.CmsgSpace(0)
	oob := l.oob[:min(int(l.msg.Controllen), len(l.oob))]
	for len(oob) >= hdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		n := int(h.Len)
		if n < hdr || n > len(oob) {
			break
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS && n >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[hdr]))
			return time.Unix(int64(ts.Sec), int64(ts.Nsec)).UTC()
		}
		oob = oob[min(len(oob), unix.CmsgSpace(n-hdr)):]
	}
	return time.Now().UTC()
}

// SetDeadline makes a blocked Next return os.ErrDeadlineExceeded at t; the
// zero time means no deadline. It is for captures without LiveOptions.Tick,
// which sets the deadline itself.
func (l *Live) SetDeadline(t time.Time) error { return l.file.SetReadDeadline(t) }

// Stats returns the counts so far, with the kernel's drop count brought up
// to date (the kernel resets its counters on every query).
func (l *Live) Stats() LiveStats {
	if !l.closed.Load() {
		_ = l.rc.Control(func(fd uintptr) {
			if st, err := unix.GetsockoptTpacketStats(int(fd), unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
				l.drops += uint64(st.Drops)
			}
		})
	}
	return LiveStats{Stats: l.stats, Drops: l.drops, Skipped: l.skipped}
}

// Name is the interface name given to OpenLive.
func (l *Live) Name() string { return l.name }

// LinkType is Ethernet for Ethernet and loopback devices and Linux SLL2
// for "any" and other devices.
func (l *Live) LinkType() layers.LinkType { return l.linkType }

// Close stops the capture; a Next blocked in another goroutine returns
// ErrLiveClosed. Stats then keeps the counts of its last call; call it
// before Close for the final kernel drop count.
func (l *Live) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	return l.file.Close()
}

// Interfaces lists the interfaces live can capture on, in the order of
// the system's interface indexes, then "any".
func Interfaces() ([]Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	list := make([]Interface, 0, len(ifs)+1)
	for _, i := range ifs {
		it := Interface{Name: i.Name, Loopback: i.Flags&net.FlagLoopback != 0}
		if it.Loopback {
			it.Description = "Loopback"
		}
		list = append(list, it)
	}
	return append(list, Interface{Name: AnyInterface, Description: "all interfaces"}), nil
}

func htons(v uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], v)
	return binary.NativeEndian.Uint16(b[:])
}
