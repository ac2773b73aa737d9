package capture

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// fakeSource is a frameSource handing out frames from memory. With a
// driver filter set (as Npcap's is), it runs the program on every frame
// the way the driver does and hands out only what passes, cut to the
// length the program returns.
type fakeSource struct {
	frames  [][]byte
	errs    map[int]error // an error in place of frame i
	drops   uint64
	noDrops bool
	driver  *bpf.VM
	filter  []bpf.RawInstruction
	lt      layers.LinkType
	next    int
	closed  bool
	reads   int // ReadPacketData calls
}

func (f *fakeSource) ReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	for {
		f.reads++
		if f.closed {
			return nil, gopacket.CaptureInfo{}, syscall.EBADF
		}
		if err := f.errs[f.next]; err != nil {
			delete(f.errs, f.next)
			return nil, gopacket.CaptureInfo{}, err
		}
		if f.next >= len(f.frames) {
			return nil, gopacket.CaptureInfo{}, errReadTimeout
		}
		data := f.frames[f.next]
		f.next++
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(f.next) * time.Millisecond).Local(),
			CaptureLength: len(data), Length: len(data)}
		if f.driver != nil {
			n, err := f.driver.Run(data)
			if err != nil || n == 0 {
				continue
			}
			data = data[:min(n, len(data))]
			ci.CaptureLength = len(data)
		}
		return data, ci, nil
	}
}

func (f *fakeSource) Drops() (uint64, bool) { return f.drops, !f.noDrops }
func (f *fakeSource) Close() error          { f.closed = true; return nil }

// npcapHandle
func (f *fakeSource) linkType() layers.LinkType { return f.lt }
func (f *fakeSource) setFilter(raw []bpf.RawInstruction) error {
	prog, ok := bpf.Disassemble(raw)
	if !ok {
		return errors.New("filter does not disassemble")
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		return err
	}
	f.filter, f.driver = raw, vm
	return nil
}

// fakeNpcap is npcapAPI over a fakeSource.
type fakeNpcap struct {
	loadErr, devErr, openErr error
	devs                     []Interface
	src                      *fakeSource
	opened                   string
	snap, buf                int
	timeout                  time.Duration
}

func (f *fakeNpcap) load() error                   { return f.loadErr }
func (f *fakeNpcap) devices() ([]Interface, error) { return f.devs, f.devErr }
func (f *fakeNpcap) open(dev string, snap, buf int, timeout time.Duration) (npcapHandle, error) {
	f.opened, f.snap, f.buf, f.timeout = dev, snap, buf, timeout
	if f.openErr != nil {
		return nil, f.openErr
	}
	return f.src, nil
}

// fakeBPF is bpfAPI over a fakeSource.
type fakeBPF struct {
	devs    []Interface
	src     *fakeSource
	openErr error
	opened  string
	bufLen  int
	timeout time.Duration
}

func (f *fakeBPF) devices() ([]Interface, error) { return f.devs, nil }
func (f *fakeBPF) open(iface string, bufLen int, timeout time.Duration) (frameSource, error) {
	f.opened, f.bufLen, f.timeout = iface, bufLen, timeout
	if f.openErr != nil {
		return nil, f.openErr
	}
	return f.src, nil
}

var npcapDevs = []Interface{
	{Name: `\Device\NPF_{6B1A9E3C-0000-4C1D-9F00-00000000A001}`, Friendly: "Ethernet 2", Description: "Intel(R) Ethernet Connection", link: 0},
	{Name: `\Device\NPF_Loopback`, Description: "Adapter for loopback traffic capture", Loopback: true},
}

var bsdDevs = bpfDevices([]net.Interface{
	{Name: "lo0", Flags: net.FlagLoopback},
	{Name: "en0", HardwareAddr: net.HardwareAddr{2, 0, 0, 0, 0, 1}},
	{Name: "utun0"},
}, layers.LinkTypeNull)

// realFrames are every frame of the Ethernet test captures, game traffic
// and other, with what the Reader makes of each.
func realFrames(t *testing.T) (frames [][]byte, kinds []Kind) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(f, name, Options{AllFrames: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.LinkType() != layers.LinkTypeEthernet {
			f.Close()
			continue
		}
		var p Packet
		for r.Next(&p) == nil {
			if p.Data[12] == 0x81 {
				continue // VLAN tags: stripped before a capture filter sees them
			}
			frames = append(frames, slices.Clone(p.Data))
			kinds = append(kinds, p.Kind)
		}
		f.Close()
	}
	if len(frames) == 0 {
		t.Fatal("no Ethernet captures in testdata")
	}
	return frames, kinds
}

// drain reads l until its source is out of frames.
func drain(t *testing.T, l *frameLive, src *fakeSource) []Packet {
	t.Helper()
	var got []Packet
	for {
		var p Packet
		err := l.Next(&p)
		if errors.Is(err, ErrNoPacket) {
			if src.next >= len(src.frames) {
				return got
			}
			continue
		}
		if err != nil {
			t.Fatalf("Next after %d packets: %v", len(got), err)
		}
		p.Data = slices.Clone(p.Data)
		got = append(got, p)
	}
}

// Both adapters hand out the frames of real captures the Linux capture
// would: game datagrams and first fragments, numbered from 1, decoded the
// way the Reader decodes them; the driver (Windows) or the user-space
// filter (BSD) keeps everything else out.
func TestLiveAdaptersRealFrames(t *testing.T) {
	frames, kinds := realFrames(t)
	// The captures hold game traffic only: other traffic, some of it on
	// the game port, goes in between, for the filters to keep out.
	var decoys [][]byte
	for _, c := range filterCases(t) {
		if !c.pass && len(c.frame) > 14 {
			decoys = append(decoys, c.frame)
		}
	}
	var mixed [][]byte
	var mixedKinds []Kind
	for i, f := range frames {
		d := decoys[i%len(decoys)]
		mixed = append(mixed, d, f)
		mixedKinds = append(mixedKinds, KindNonIP, kinds[i]) // a decoy is never wanted
	}
	frames, kinds = mixed, mixedKinds
	var want []Kind
	for _, k := range kinds {
		if k == KindMatched || k == KindFragment {
			want = append(want, k)
		}
	}
	if len(want) == 0 || len(want) == len(frames) {
		t.Fatalf("%d of %d frames are game traffic: the test needs both kinds", len(want), len(frames))
	}
	// A tick shorter than any test run: ErrNoPacket comes when the fake
	// is out of frames (its reads time out) and in between.
	opt := LiveOptions{Tick: time.Millisecond}
	open := map[string]func(src *fakeSource) (*frameLive, error){
		"npcap": func(src *fakeSource) (*frameLive, error) {
			src.lt = layers.LinkTypeEthernet
			return openNpcap(&fakeNpcap{devs: npcapDevs, src: src}, "Ethernet 2", opt)
		},
		"bsd": func(src *fakeSource) (*frameLive, error) {
			return openBPF(&fakeBPF{devs: bsdDevs, src: src}, "en0", opt)
		},
	}
	for name, openFn := range open {
		t.Run(name, func(t *testing.T) {
			src := &fakeSource{frames: frames, drops: 3}
			l, err := openFn(src)
			if err != nil {
				t.Fatal(err)
			}
			if name == "npcap" && (l.filter != nil || src.driver == nil) {
				t.Fatal("npcap: the filter is not in the driver")
			}
			if name == "bsd" && l.filter == nil {
				t.Fatal("bsd: no user-space filter")
			}
			got := drain(t, l, src)
			if len(got) != len(want) {
				t.Fatalf("%d packets, want %d", len(got), len(want))
			}
			for i, p := range got {
				if p.Frame != i+1 || p.Kind != want[i] || p.LinkType != layers.LinkTypeEthernet {
					t.Fatalf("packet %d: frame %d kind %v link %v, want frame %d kind %v", i, p.Frame, p.Kind, p.LinkType, i+1, want[i])
				}
				if p.Time.Location() != time.UTC {
					t.Fatalf("packet %d: time %v not UTC", i, p.Time)
				}
			}
			st := l.Stats()
			if st.Matched != countKind(want, KindMatched) || st.Drops != 3 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func countKind(ks []Kind, k Kind) int {
	n := 0
	for _, x := range ks {
		if x == k {
			n++
		}
	}
	return n
}

// Loopback (NULL framing) on both: lo0 and the Npcap loopback adapter
// carry the address family in host order, AF_INET6 as each system numbers
// it.
func TestLiveAdaptersLoopback(t *testing.T) {
	v4 := ipUDP(t, cli4, srv4, bcPl)
	v6 := ipUDP(t, cli6, srv6, bcPl)
	other := ipUDP(t, cli4, netip.AddrPortFrom(srv4.Addr(), 53), bcPl)
	le, be := binary.LittleEndian, binary.BigEndian
	frames := [][]byte{
		loopback(le, afInet, v4),
		loopback(le, afInet, other),
		loopback(le, afInet6Darwin, v6),
		loopback(be, afInet, v4),
		loopback(le, afInet6Windows, v6),
		loopback(le, 17, v4), // not IP
		loopback(be, afInet6FreeBSD, v6),
	}
	const wantN = 5
	t.Run("bsd", func(t *testing.T) {
		src := &fakeSource{frames: frames}
		l, err := openBPF(&fakeBPF{devs: bsdDevs, src: src}, "lo0", LiveOptions{Tick: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		checkLoopback(t, l, src, wantN)
	})
	t.Run("npcap", func(t *testing.T) {
		src := &fakeSource{frames: frames, lt: layers.LinkTypeNull}
		l, err := openNpcap(&fakeNpcap{devs: npcapDevs, src: src}, "2", LiveOptions{Tick: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		checkLoopback(t, l, src, wantN)
	})
}

func checkLoopback(t *testing.T, l *frameLive, src *fakeSource, want int) {
	t.Helper()
	if l.LinkType() != layers.LinkTypeNull {
		t.Errorf("link type %v", l.LinkType())
	}
	got := drain(t, l, src)
	if len(got) != want {
		t.Fatalf("%d packets, want %d", len(got), want)
	}
	for _, p := range got {
		if p.Kind != KindMatched || string(p.Payload) != string(bcPl) {
			t.Errorf("frame %d: kind %v payload % x", p.Frame, p.Kind, p.Payload)
		}
	}
}

// Why a capture cannot start, in one line each, with the advice of the
// platform.
func TestLiveAdapterErrors(t *testing.T) {
	wifi := &fakeSource{lt: layers.LinkTypeIEEE802_11}
	tests := []struct {
		name   string
		open   func() error
		reason error
		want   string
	}{
		{"npcap missing", func() error {
			_, err := openNpcap(&fakeNpcap{loadErr: errors.New("couldn't load wpcap.dll")}, "1", LiveOptions{})
			return err
		}, ErrNoNpcap, "live: Npcap is not installed (wpcap.dll not found); get it from https://npcap.com"},
		{"npcap no such interface", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs}, "Wi-Fi", LiveOptions{})
			return err
		}, ErrNoInterface, `live: no interface "Wi-Fi" (interfaces: Ethernet 2, \Device\NPF_Loopback; bcdump live --list-interfaces)`},
		{"npcap number out of range", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs}, "3", LiveOptions{})
			return err
		}, ErrNoInterface, `live: no interface "3"`},
		{"npcap denied", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, openErr: errors.New("Permission Denied")}, "ethernet 2", LiveOptions{})
			return err
		}, ErrNoPermission, "live: capturing on Ethernet 2 needs Administrator rights (Npcap is installed to restrict its driver to Administrators"},
		{"npcap driver says access denied", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, openErr: errors.New("Error: failed to open the adapter: Access is denied. (5)")}, "1", LiveOptions{})
			return err
		}, ErrNoPermission, "needs Administrator rights"},
		{"npcap interface down", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, openErr: errors.New("Interface Not Up")}, "1", LiveOptions{})
			return err
		}, ErrInterfaceDown, "live: interface Ethernet 2 is down"},
		{"npcap device gone", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, openErr: errors.New("No Such Device")}, "1", LiveOptions{})
			return err
		}, ErrNoInterface, `live: no interface "1" (interfaces: Ethernet 2, \Device\NPF_Loopback`},
		{"npcap link type", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, src: wifi}, "1", LiveOptions{})
			return err
		}, ErrLinkType, "live: Ethernet 2: unsupported link type (802.11); Ethernet and loopback interfaces work"},
		{"npcap too many ports", func() error {
			_, err := openNpcap(&fakeNpcap{devs: npcapDevs, src: &fakeSource{lt: layers.LinkTypeEthernet}}, "1", LiveOptions{Ports: portRange(1000, MaxLivePorts+1)})
			return err
		}, nil, "at most 100"},
		{"bsd denied", func() error {
			_, err := openBPF(&fakeBPF{devs: bsdDevs, openErr: &os.PathError{Op: "open", Path: "/dev/bpf0", Err: syscall.EACCES}}, "en0", LiveOptions{})
			return err
		}, ErrNoPermission, "live: capturing on en0 needs root or read-write access to /dev/bpf* (macOS: the access_bpf group, which Wireshark's ChmodBPF sets up) (open /dev/bpf0: permission denied)"},
		{"bsd no such interface", func() error {
			_, err := openBPF(&fakeBPF{devs: bsdDevs}, "eth0", LiveOptions{})
			return err
		}, ErrNoInterface, `live: no interface "eth0" (interfaces: lo0, en0, utun0;`},
		{"bsd interface vanished", func() error {
			_, err := openBPF(&fakeBPF{devs: bsdDevs, openErr: syscall.ENXIO}, "en0", LiveOptions{})
			return err
		}, ErrNoInterface, `live: no interface "en0"`},
		{"bsd not ethernet", func() error {
			_, err := openBPF(&fakeBPF{devs: bsdDevs}, "utun0", LiveOptions{})
			return err
		}, ErrLinkType, "live: utun0: unsupported link type; Ethernet and loopback interfaces work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.open()
			if err == nil {
				t.Fatal("no error")
			}
			if tt.reason != nil && !errors.Is(err, tt.reason) {
				t.Errorf("%v is not %v", err, tt.reason)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("got  %q\nwant %q in one line", msg, tt.want)
			}
		})
	}
	if !wifi.closed {
		t.Error("a handle refused for its link type is not closed")
	}
}

// What the adapters ask of the handle: the device -i names (number,
// friendly name in any case, device name), the snap length, a buffer,
// a read timeout no longer than the tick.
func TestLiveAdapterOpenOptions(t *testing.T) {
	for _, arg := range []string{"1", "Ethernet 2", "ETHERNET 2", npcapDevs[0].Name} {
		api := &fakeNpcap{devs: npcapDevs, src: &fakeSource{lt: layers.LinkTypeEthernet}}
		l, err := openNpcap(api, arg, LiveOptions{Tick: 100 * time.Millisecond, Snaplen: 200})
		if err != nil {
			t.Fatalf("-i %s: %v", arg, err)
		}
		if api.opened != npcapDevs[0].Name || l.Name() != "Ethernet 2" || api.snap != 200 ||
			api.buf != DefaultLiveBuffer || api.timeout != 100*time.Millisecond {
			t.Errorf("-i %s: opened %q (%q) snap %d buf %d timeout %v", arg, api.opened, l.Name(), api.snap, api.buf, api.timeout)
		}
	}
	api := &fakeBPF{devs: bsdDevs, src: &fakeSource{}}
	if _, err := openBPF(api, "2", LiveOptions{BufferSize: 64 << 20}); err != nil {
		t.Fatal(err)
	}
	if api.opened != "en0" || api.bufLen != bpfBufLen || api.timeout != readTimeout {
		t.Errorf("bsd: opened %q buf %d timeout %v", api.opened, api.bufLen, api.timeout)
	}
}

// The user-space filter keeps the snap length, as the kernel's does; the
// original length stays, so the datagram is marked truncated.
func TestLiveAdapterSnaplen(t *testing.T) {
	big := eth(0x0800, ipUDP(t, cli4, srv4, make([]byte, 300)))
	src := &fakeSource{frames: [][]byte{big}}
	l, err := openBPF(&fakeBPF{devs: bsdDevs, src: src}, "en0", LiveOptions{Snaplen: 100})
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	if err := l.Next(&p); err != nil {
		t.Fatal(err)
	}
	if len(p.Data) != 100 || p.CaptureInfo.Length != len(big) || !p.Truncated {
		t.Errorf("kept %d of %d bytes (length %d), truncated %v", len(p.Data), len(big), p.CaptureInfo.Length, p.Truncated)
	}
}

// Read errors, deadlines, Close and the drop count.
func TestLiveAdapterRead(t *testing.T) {
	frame := eth(0x0800, ipUDP(t, cli4, srv4, bcPl))
	src := &fakeSource{frames: [][]byte{frame, frame}, errs: map[int]error{1: errors.New("the adapter is gone")}, noDrops: true}
	l, err := openBPF(&fakeBPF{devs: bsdDevs, src: src}, "en0", LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	if err := l.Next(&p); err != nil {
		t.Fatal(err)
	}
	err = l.Next(&p)
	var le *LiveError
	if !errors.As(err, &le) || err.Error() != "live: en0: read: the adapter is gone" {
		t.Fatalf("read error: %v", err)
	}
	if err := l.Next(&p); err != nil || p.Frame != 2 {
		t.Fatalf("after the error: %v, frame %d", err, p.Frame)
	}
	// Out of frames, reads time out; a deadline in the past ends Next.
	if err := l.SetDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := l.Next(&p); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	if st := l.Stats(); st.Drops != 0 || st.Matched != 2 {
		t.Errorf("stats %+v (the source cannot count drops)", st)
	}
	l.Close()
	if err := l.Next(&p); !errors.Is(err, ErrLiveClosed) || !src.closed {
		t.Fatalf("after Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A read that fails because Close ran in between is ErrLiveClosed, not a
// read error.
func TestLiveAdapterCloseDuringRead(t *testing.T) {
	src := &fakeSource{errs: map[int]error{0: io.ErrUnexpectedEOF}}
	l, err := openBPF(&fakeBPF{devs: bsdDevs, src: src}, "en0", LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.closed.Store(true) // as Close does first
	var p Packet
	if err := l.Next(&p); !errors.Is(err, ErrLiveClosed) {
		t.Fatalf("got %v", err)
	}
}

func TestPickInterface(t *testing.T) {
	list := []Interface{{Name: "eth0"}, {Name: `\Device\NPF_{X}`, Friendly: "Wi-Fi"}, {Name: "7"}, {Name: "any"}}
	tests := []struct{ arg, want string }{
		{"eth0", "eth0"},
		{"1", "eth0"},
		{"2", `\Device\NPF_{X}`},
		{"wi-fi", `\Device\NPF_{X}`},
		{`\Device\NPF_{X}`, `\Device\NPF_{X}`},
		{"7", "7"}, // a name wins over a number
		{"4", "any"},
		{"0", ""},
		{"5", ""},
		{"-1", ""},
		{"Eth0", ""}, // device names are exact
		{"", ""},
	}
	for _, tt := range tests {
		got, err := pickInterface(list, tt.arg)
		if got.Name != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("%q: got %q, %v; want %q", tt.arg, got.Name, err, tt.want)
		}
		if err != nil && !errors.Is(err, ErrNoInterface) {
			t.Errorf("%q: %v", tt.arg, err)
		}
	}
}

func TestBPFDevices(t *testing.T) {
	want := []struct {
		name string
		link layers.LinkType
	}{{"lo0", layers.LinkTypeNull}, {"en0", layers.LinkTypeEthernet}, {"utun0", linkNone}}
	if len(bsdDevs) != len(want) {
		t.Fatalf("%+v", bsdDevs)
	}
	for i, w := range want {
		if bsdDevs[i].Name != w.name || bsdDevs[i].link != w.link {
			t.Errorf("%d: %+v, want %+v", i, bsdDevs[i], w)
		}
	}
	if !bsdDevs[0].Loopback || bsdDevs[2].Description == "" {
		t.Errorf("%+v", bsdDevs)
	}
}

func TestNpcapReason(t *testing.T) {
	tests := []struct {
		msg  string
		want error
	}{
		{"Permission Denied", ErrNoPermission},
		{"Error: Access is denied.", ErrNoPermission},
		{"No Such Device", ErrNoInterface},
		{"Interface Not Up", ErrInterfaceDown},
		{"couldn't load wpcap.dll", ErrNoNpcap},
	}
	for _, tt := range tests {
		if got := npcapReason(errors.New(tt.msg)); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.msg, got, tt.want)
		}
	}
	other := errors.New("Error: something else")
	if got := npcapReason(other); got != other {
		t.Errorf("unknown error mapped to %v", got)
	}
}

// Next does not allocate per frame, filter in user space included.
func TestLiveAdapterNoAllocs(t *testing.T) {
	frame := eth(0x0800, ipUDP(t, cli4, srv4, bcPl))
	other := eth(0x0800, ipUDP(t, cli4, netip.AddrPortFrom(srv4.Addr(), 53), bcPl))
	src := &fakeSource{frames: [][]byte{other, frame}}
	l, err := openBPF(&fakeBPF{devs: bsdDevs, src: src}, "en0", LiveOptions{Tick: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	allocs := testing.AllocsPerRun(200, func() {
		src.next = 0
		if err := l.Next(&p); err != nil || p.Kind != KindMatched {
			t.Fatalf("%v %v", err, p.Kind)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Next", allocs)
	}
}
