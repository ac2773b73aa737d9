package capture

import (
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// bpfAPI is what the macOS and BSD capture uses of /dev/bpf, through
// gopacket's bsdbpf package (live_bsd_bpf.go); tests drive openBPF with a
// fake.
type bpfAPI interface {
	// devices lists the interfaces with the link type a capture sees.
	devices() ([]Interface, error)
	// open starts capturing on iface with a read buffer of about bufLen
	// bytes and the read timeout given.
	open(iface string, bufLen int, timeout time.Duration) (frameSource, error)
}

// BSD advice when /dev/bpf* cannot be opened.
const bpfPermissionAdvice = `root or read-write access to /dev/bpf* (macOS: the access_bpf group, which Wireshark's ChmodBPF sets up)`

// bpfBufLen bounds the BPF read buffer: macOS refuses more than
// debug.bpf_maxbufsize, 512 KiB by default. Without a kernel filter every
// frame of the interface comes through it, so it is as large as allowed.
// (bsdbpf allocates a fresh buffer of this size for every read(2), which
// may hold one frame or many: the one allocation bcdump's hot path has on
// these systems.)
const bpfBufLen = 512 << 10

// openBPF opens iface (a name or a number from --list-interfaces). bsdbpf
// takes no kernel filter, so the game-port filter, the program Linux
// attaches to its socket, runs on each frame before it is decoded.
func openBPF(api bpfAPI, iface string, opt LiveOptions) (*frameLive, error) {
	list, err := api.devices()
	if err != nil {
		return nil, &LiveError{Iface: iface, Err: err}
	}
	dev, err := pickInterface(list, iface)
	if err != nil {
		return nil, err
	}
	if dev.link == linkNone {
		return nil, &LiveError{Iface: dev.Name, Err: ErrLinkType}
	}
	snap := snapLen(opt)
	prog, err := filterFor(dev.link, opt.Ports, snap)
	if err != nil {
		return nil, &LiveError{Iface: dev.Name, Err: err}
	}
	buf := opt.BufferSize
	if buf <= 0 || buf > bpfBufLen {
		buf = bpfBufLen
	}
	src, err := api.open(dev.Name, buf, handleTimeout(opt))
	if err != nil {
		return nil, &LiveError{Iface: dev.Name, Err: bpfReason(err), Cause: err, advice: bpfPermissionAdvice}
	}
	return newFrameLive(dev.Name, src, dev.link, prog, opt)
}

// bpfReason maps a /dev/bpf error to a reason.
func bpfReason(err error) error {
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return ErrNoPermission
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV):
		return ErrNoInterface
	case errors.Is(err, syscall.ENETDOWN):
		return ErrInterfaceDown
	}
	return err
}

// linkNone marks an interface whose framing a BPF capture cannot decode.
const linkNone layers.LinkType = 0xffff

// bpfDevices lists the interfaces of ifs that a BPF capture can decode:
// loopback (NULL framing, LOOP on OpenBSD) and Ethernet (a 6-byte
// hardware address, Wi-Fi included); others are listed with no link
// type, and refused when chosen.
func bpfDevices(ifs []net.Interface, loop layers.LinkType) []Interface {
	list := make([]Interface, 0, len(ifs))
	for _, i := range ifs {
		it := Interface{Name: i.Name, Loopback: i.Flags&net.FlagLoopback != 0}
		switch {
		case it.Loopback:
			it.Description, it.link = "Loopback", loop
		case len(i.HardwareAddr) == 6:
			it.link = layers.LinkTypeEthernet
		default:
			it.Description, it.link = "not Ethernet: cannot capture", linkNone
		}
		list = append(list, it)
	}
	return list
}
