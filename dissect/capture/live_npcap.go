package capture

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// npcapAPI is what the Windows capture uses of Npcap, through gopacket's
// pcap package (live_windows.go); tests drive openNpcap with a fake.
type npcapAPI interface {
	// load loads wpcap.dll; it fails when Npcap is not installed.
	load() error
	// devices lists the capture devices, with Windows' friendly names.
	devices() ([]Interface, error)
	// open activates device with the read timeout given.
	open(device string, snap, buffer int, timeout time.Duration) (npcapHandle, error)
}

// npcapHandle is an activated Npcap capture.
type npcapHandle interface {
	frameSource
	linkType() layers.LinkType
	// setFilter attaches a classic BPF program in the driver.
	setFilter([]bpf.RawInstruction) error
}

// Windows' advice when the driver refuses: Npcap can be installed so
// that only Administrators may capture.
const npcapPermissionAdvice = `Administrator rights (Npcap is installed to restrict its driver to Administrators: run as Administrator, or reinstall Npcap without that option)`

// openNpcap opens iface (a device name, a friendly name or a number from
// --list-interfaces) with the game-port filter in the driver, the same
// program Linux attaches to its socket.
func openNpcap(api npcapAPI, iface string, opt LiveOptions) (*frameLive, error) {
	if err := api.load(); err != nil {
		return nil, &LiveError{Iface: iface, Err: ErrNoNpcap, Cause: err}
	}
	list, err := api.devices()
	if err != nil {
		return nil, &LiveError{Iface: iface, Err: npcapReason(err), Cause: err, advice: npcapPermissionAdvice}
	}
	dev, err := pickInterface(list, iface)
	if err != nil {
		return nil, err
	}
	name := dev.Label()
	snap := snapLen(opt)
	buf := opt.BufferSize
	if buf <= 0 {
		buf = DefaultLiveBuffer
	}
	h, err := api.open(dev.Name, snap, buf, handleTimeout(opt))
	if err != nil {
		e := &LiveError{Iface: name, Err: npcapReason(err), Cause: err, advice: npcapPermissionAdvice}
		if e.Err == ErrNoInterface {
			e.Iface, e.Known = iface, labels(list)
		}
		return nil, e
	}
	lt := h.linkType()
	prog, err := filterFor(lt, opt.Ports, snap)
	if err == nil {
		var raw []bpf.RawInstruction
		if raw, err = bpf.Assemble(prog); err == nil {
			err = h.setFilter(raw)
		}
	}
	if err != nil {
		h.Close()
		if errors.Is(err, ErrLinkType) {
			return nil, &LiveError{Iface: name, Err: ErrLinkType, Cause: fmt.Errorf("%v", lt)}
		}
		return nil, &LiveError{Iface: name, Err: fmt.Errorf("filter: %w", err)}
	}
	return newFrameLive(name, h, lt, nil, opt)
}

// npcapReason maps what wpcap.dll says to a reason: gopacket's pcap
// package reports activation failures as libpcap's status names, and
// Npcap's driver refusals in Windows' words.
func npcapReason(err error) error {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "permission denied"), strings.Contains(msg, "access is denied"),
		strings.Contains(msg, "access denied"):
		return ErrNoPermission
	case strings.Contains(msg, "no such device"):
		return ErrNoInterface
	case strings.Contains(msg, "not up"):
		return ErrInterfaceDown
	case strings.Contains(msg, "wpcap.dll"):
		return ErrNoNpcap
	}
	return err
}
