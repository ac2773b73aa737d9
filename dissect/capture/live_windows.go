//go:build windows

package capture

import (
	"strings"
	"time"
	"unsafe"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcap"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/windows"
)

// Live is a live capture through Npcap: gopacket's pcap package loads
// wpcap.dll at run time, so the binary needs no cgo and runs (without
// live capture) where Npcap is not installed.
type Live = frameLive

// OpenLive starts capturing on iface: a device name (\Device\NPF_{GUID}),
// a friendly name ("Ethernet 2") or a number from Interfaces. The driver
// filters for the game ports. Errors are *LiveError values naming the
// reason: ErrNoNpcap, ErrNoInterface, ErrInterfaceDown, ErrNoPermission,
// ErrLinkType.
func OpenLive(iface string, opt LiveOptions) (*Live, error) {
	return openNpcap(npcapDLL{}, iface, opt)
}

// Interfaces lists Npcap's capture devices, with Windows' friendly names.
func Interfaces() ([]Interface, error) {
	api := npcapDLL{}
	if err := api.load(); err != nil {
		return nil, &LiveError{Err: ErrNoNpcap, Cause: err}
	}
	return api.devices()
}

// npcapDLL is npcapAPI through gopacket's pcap package.
type npcapDLL struct{}

func (npcapDLL) load() error { return pcap.LoadWinPCAP() }

func (npcapDLL) devices() ([]Interface, error) {
	devs, err := pcap.FindAllDevs()
	if err != nil {
		return nil, err
	}
	friendly := friendlyNames()
	list := make([]Interface, 0, len(devs))
	for _, d := range devs {
		it := Interface{Name: d.Name, Description: d.Description, Loopback: d.Flags&pcapIfLoopback != 0}
		if i := strings.Index(d.Name, "{"); i >= 0 {
			it.Friendly = friendly[strings.ToUpper(d.Name[i:])]
		}
		list = append(list, it)
	}
	return list, nil
}

// pcapIfLoopback is libpcap's PCAP_IF_LOOPBACK flag.
const pcapIfLoopback = 1

// friendlyNames maps adapter GUIDs ("{...}", upper case) to the names
// Windows shows ("Ethernet 2"); Npcap's device names end in the GUID.
func friendlyNames() map[string]string {
	names := make(map[string]string)
	size := uint32(16 << 10)
	for range 3 {
		buf := make([]byte, size)
		first := (*windows.IpAdapterAddresses)(unsafe.Pointer(&buf[0]))
		err := windows.GetAdaptersAddresses(windows.AF_UNSPEC, windows.GAA_FLAG_INCLUDE_ALL_INTERFACES, 0, first, &size)
		if err == windows.ERROR_BUFFER_OVERFLOW {
			continue
		}
		if err != nil {
			return names
		}
		for a := first; a != nil; a = a.Next {
			guid := windows.BytePtrToString(a.AdapterName)
			names[strings.ToUpper(guid)] = windows.UTF16PtrToString(a.FriendlyName)
		}
		return names
	}
	return names
}

func (npcapDLL) open(device string, snap, buffer int, timeout time.Duration) (npcapHandle, error) {
	in, err := pcap.NewInactiveHandle(device)
	if err != nil {
		return nil, err
	}
	defer in.CleanUp()
	for _, set := range []func() error{
		func() error { return in.SetSnapLen(snap) },
		func() error { return in.SetBufferSize(buffer) },
		func() error { return in.SetTimeout(timeout) },
		func() error { return in.SetImmediateMode(true) },
	} {
		if err := set(); err != nil {
			return nil, err
		}
	}
	h, err := in.Activate()
	if err != nil {
		return nil, err
	}
	return npcapLive{h}, nil
}

// npcapLive is an activated pcap.Handle as an npcapHandle.
type npcapLive struct{ h *pcap.Handle }

func (n npcapLive) ReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	data, ci, err := n.h.ZeroCopyReadPacketData()
	if err == pcap.NextErrorTimeoutExpired {
		err = errReadTimeout
	}
	return data, ci, err
}

func (n npcapLive) Drops() (uint64, bool) {
	st, err := n.h.Stats()
	if err != nil {
		return 0, false
	}
	return uint64(st.PacketsDropped) + uint64(st.PacketsIfDropped), true
}

func (n npcapLive) Close() error { n.h.Close(); return nil }

func (n npcapLive) linkType() layers.LinkType { return n.h.LinkType() }

func (n npcapLive) setFilter(raw []bpf.RawInstruction) error {
	ins := make([]pcap.BPFInstruction, len(raw))
	for i, r := range raw {
		ins[i] = pcap.BPFInstruction{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return n.h.SetBPFInstructionFilter(ins)
}
