//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package capture

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"syscall"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/bsdbpf"
	"github.com/gopacket/gopacket/layers"
)

// Live is a live capture from /dev/bpf* through gopacket's bsdbpf
// package (pure Go).
type Live = frameLive

// OpenLive starts capturing on iface (a name, or a number from
// Interfaces). Errors are *LiveError values naming the reason:
// ErrNoInterface, ErrInterfaceDown, ErrNoPermission, ErrLinkType.
func OpenLive(iface string, opt LiveOptions) (*Live, error) {
	return openBPF(bsdBPF{}, iface, opt)
}

// Interfaces lists the system's interfaces; those that are neither
// loopback nor Ethernet say so in their description.
func Interfaces() ([]Interface, error) { return bsdBPF{}.devices() }

// bsdBPF is bpfAPI through bsdbpf.
type bsdBPF struct{}

func (bsdBPF) devices() ([]Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	loop := layers.LinkTypeNull
	if runtime.GOOS == "openbsd" {
		loop = layers.LinkTypeLoop
	}
	return bpfDevices(ifs, loop), nil
}

func (bsdBPF) open(iface string, bufLen int, timeout time.Duration) (frameSource, error) {
	// bsdbpf panics when no /dev/bpf* opens; find out first, and why.
	if err := bpfDeviceFree(); err != nil {
		return nil, err
	}
	tv := syscall.NsecToTimeval(timeout.Nanoseconds())
	s, err := newSniffer(iface, &bsdbpf.Options{ReadBufLen: bufLen, Timeout: &tv, Immediate: true})
	if err != nil {
		return nil, err
	}
	return bpfSniffer{s}, nil
}

// newSniffer is bsdbpf.NewBPFSniffer with its panic turned into an error.
func newSniffer(iface string, opt *bsdbpf.Options) (s *bsdbpf.BPFSniffer, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bsdbpf: %v", r)
		}
	}()
	return bsdbpf.NewBPFSniffer(iface, opt)
}

// bpfDeviceFree says whether a /dev/bpf* device can be opened as bsdbpf
// will open it, and if none can, the error of the first.
func bpfDeviceFree() error {
	var first error
	for i := range 99 {
		fd, err := syscall.Open(fmt.Sprintf("/dev/bpf%d", i), syscall.O_RDWR, 0)
		if err == nil {
			syscall.Close(fd)
			return nil
		}
		if first == nil {
			first = err
		}
		if errors.Is(err, syscall.ENOENT) {
			break
		}
	}
	return fmt.Errorf("open /dev/bpf0: %w", first)
}

// bpfSniffer is a bsdbpf sniffer as a frameSource.
type bpfSniffer struct{ s *bsdbpf.BPFSniffer }

// ReadPacketData reads the next frame. When its read timeout passes,
// bsdbpf hands out an empty frame with a zero header: that is the timeout.
func (b bpfSniffer) ReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	data, ci, err := b.s.ReadPacketData()
	if err == nil && len(data) == 0 && ci.Length == 0 {
		err = errReadTimeout
	}
	if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
		err = errReadTimeout
	}
	return data, ci, err
}

// Drops is unknown: bsdbpf does not expose the descriptor BIOCGSTATS
// needs.
func (bpfSniffer) Drops() (uint64, bool) { return 0, false }

func (b bpfSniffer) Close() error { return b.s.Close() }
