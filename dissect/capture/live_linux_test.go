//go:build linux

package capture

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"
)

// needLive skips a test that needs CAP_NET_RAW when it is missing, or fails
// it when BCDUMP_REQUIRE_LIVE=1 (CI runs as root and must not skip).
func needLive(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrNoPermission) {
		if os.Getenv("BCDUMP_REQUIRE_LIVE") == "1" {
			t.Fatalf("BCDUMP_REQUIRE_LIVE=1 but live capture is not permitted: %v", err)
		}
		t.Skipf("live capture not permitted (run as root or with CAP_NET_RAW): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func openLive(t *testing.T, iface string, ports ...uint16) *Live {
	t.Helper()
	l, err := OpenLive(iface, LiveOptions{Ports: ports})
	needLive(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// udpPair is a client and a server socket on a loopback address, the
// server's port serving as the game port.
type udpPair struct {
	cli, srv *net.UDPConn
}

func newPair(t *testing.T, network, addr string) *udpPair {
	t.Helper()
	srv, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if err != nil {
		t.Skipf("%s %s: %v", network, addr, err)
	}
	cli, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); cli.Close() })
	return &udpPair{cli: cli, srv: srv}
}

func (u *udpPair) cliAddr() netip.AddrPort { return u.cli.LocalAddr().(*net.UDPAddr).AddrPort() }
func (u *udpPair) srvAddr() netip.AddrPort { return u.srv.LocalAddr().(*net.UDPAddr).AddrPort() }

// exchange sends n datagrams client to server, each answered, and returns
// them in order as (src, dst, payload).
func (u *udpPair) exchange(t *testing.T, n int) []sent {
	t.Helper()
	var out []sent
	for i := range n {
		q := []byte(fmt.Sprintf("query %d", i))
		a := []byte(fmt.Sprintf("answer %d", i))
		if _, err := u.cli.WriteToUDPAddrPort(q, u.srvAddr()); err != nil {
			t.Fatal(err)
		}
		if _, err := u.srv.WriteToUDPAddrPort(a, u.cliAddr()); err != nil {
			t.Fatal(err)
		}
		out = append(out, sent{u.cliAddr(), u.srvAddr(), q}, sent{u.srvAddr(), u.cliAddr(), a})
	}
	return out
}

type sent struct {
	src, dst netip.AddrPort
	payload  []byte
}

// expect reads len(want) frames and checks each is the datagram sent, once.
func expect(t *testing.T, l *Live, want []sent, lt layers.LinkType) {
	t.Helper()
	var p Packet
	for i, w := range want {
		l.SetDeadline(time.Now().Add(5 * time.Second))
		if err := l.Next(&p); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if p.Kind != KindMatched || p.Src != w.src || p.Dst != w.dst || !bytes.Equal(p.Payload, w.payload) {
			t.Fatalf("datagram %d: %v %v -> %v %q, want %v -> %v %q", i, p.Kind, p.Src, p.Dst, p.Payload, w.src, w.dst, w.payload)
		}
		if p.Frame != i+1 || p.LinkType != lt || p.Truncated || p.CaptureInfo.CaptureLength != len(p.Data) ||
			!bytes.Equal(p.Data[p.PayloadOffset:p.PayloadOffset+len(p.Payload)], p.Payload) {
			t.Fatalf("datagram %d: frame %d link %v trunc %v ci %+v", i, p.Frame, p.LinkType, p.Truncated, p.CaptureInfo)
		}
		if age := time.Since(p.Time); age < 0 || age > time.Minute || p.Time.Location() != time.UTC {
			t.Fatalf("datagram %d: time %v", i, p.Time)
		}
	}
	// Nothing more: every loopback packet was handed out once.
	l.SetDeadline(time.Now().Add(100 * time.Millisecond))
	if err := l.Next(&p); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after the last datagram: %v (frame %d %v %v -> %v)", err, p.Frame, p.Kind, p.Src, p.Dst)
	}
}

// Loopback: every datagram once (the outgoing copy is skipped), framed as
// Ethernet with zero addresses, only the game ports, IPv4 and IPv6.
func TestLiveLoopback(t *testing.T) {
	for _, tt := range []struct{ network, addr string }{{"udp4", "127.0.0.1:0"}, {"udp6", "[::1]:0"}} {
		t.Run(tt.network, func(t *testing.T) {
			u := newPair(t, tt.network, tt.addr)
			l := openLive(t, "lo", u.srvAddr().Port())
			if l.LinkType() != layers.LinkTypeEthernet || l.Name() != "lo" {
				t.Fatalf("link type %v name %q", l.LinkType(), l.Name())
			}
			// Traffic between two other ports is filtered out in the kernel.
			other := newPair(t, tt.network, tt.addr)
			other.exchange(t, 3)
			want := u.exchange(t, 5)
			expect(t, l, want, layers.LinkTypeEthernet)
			st := l.Stats()
			if st.Frames != 10 || st.Matched != 10 || st.Skipped != 10 || st.Drops != 0 {
				t.Errorf("stats %+v, want 10 frames and 10 outgoing copies skipped", st)
			}
		})
	}
}

// "any" hands out cooked SLL2 frames that name the interface and say the
// packet came in to this host.
func TestLiveAny(t *testing.T) {
	u := newPair(t, "udp4", "127.0.0.1:0")
	l := openLive(t, AnyInterface, u.srvAddr().Port())
	if l.LinkType() != layers.LinkTypeLinuxSLL2 {
		t.Fatalf("link type %v", l.LinkType())
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	want := u.exchange(t, 3)
	var p Packet
	l.SetDeadline(time.Now().Add(5 * time.Second))
	if err := l.Next(&p); err != nil {
		t.Fatal(err)
	}
	var sll layers.LinuxSLL2
	if err := sll.DecodeFromBytes(p.Data, nil); err != nil {
		t.Fatal(err)
	}
	if sll.ProtocolType != layers.EthernetTypeIPv4 || int(sll.InterfaceIndex) != lo.Index ||
		sll.ARPHardwareType != layers.ARPHardwareTypeLoopback || sll.PacketType != layers.LinuxSLL2PacketTypeHost {
		t.Errorf("SLL2 header %+v", sll)
	}
	if p.Src != want[0].src || !bytes.Equal(p.Payload, want[0].payload) {
		t.Errorf("first datagram %v %q", p.Src, p.Payload)
	}
	// A fresh capture sees the rest exactly once each.
	l.Close()
	l = openLive(t, AnyInterface, u.srvAddr().Port())
	expect(t, l, u.exchange(t, 3), layers.LinkTypeLinuxSLL2)
}

// A blocked Next ends at the deadline, and with ErrLiveClosed on Close.
func TestLiveDeadlineAndClose(t *testing.T) {
	l := openLive(t, "lo", 9) // discard: nothing sent there
	var p Packet
	l.SetDeadline(time.Now().Add(20 * time.Millisecond))
	if err := l.Next(&p); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("deadline: %v", err)
	}
	l.SetDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { done <- l.Next(&p) }()
	time.Sleep(20 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrLiveClosed) {
			t.Fatalf("after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a blocked Next")
	}
	if err := l.Next(&p); !errors.Is(err, ErrLiveClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// With a Tick, Next says ErrNoPacket once per period, on a quiet wire and
// on a busy one, and hands out the frames in between.
func TestLiveTick(t *testing.T) {
	u := newPair(t, "udp4", "127.0.0.1:0")
	l, err := OpenLive("lo", LiveOptions{Ports: []uint16{u.srvAddr().Port()}, Tick: 30 * time.Millisecond})
	needLive(t, err)
	t.Cleanup(func() { l.Close() })
	var p Packet
	start := time.Now()
	if err := l.Next(&p); err != ErrNoPacket {
		t.Fatalf("quiet wire: %v", err)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Errorf("ErrNoPacket after %v, before the tick", el)
	}
	want := u.exchange(t, 5)
	got, ticks := 0, 0
	for got < len(want) && ticks < 100 {
		switch err := l.Next(&p); err {
		case nil:
			got++
		case ErrNoPacket:
			ticks++
		default:
			t.Fatal(err)
		}
	}
	if got != len(want) {
		t.Fatalf("%d of %d datagrams", got, len(want))
	}
}

// Next reads into its own buffers: no allocation per frame.
func TestLiveNextDoesNotAllocate(t *testing.T) {
	u := newPair(t, "udp4", "127.0.0.1:0")
	l := openLive(t, "lo", u.srvAddr().Port())
	u.exchange(t, 20)
	l.SetDeadline(time.Now().Add(5 * time.Second))
	var p Packet
	var err error
	allocs := testing.AllocsPerRun(20, func() { err = l.Next(&p) })
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("%v allocations per Next", allocs)
	}
}

func TestOpenLiveNoInterface(t *testing.T) {
	_, err := OpenLive("bcdump-no-such0", LiveOptions{})
	var le *LiveError
	if !errors.As(err, &le) || !errors.Is(err, ErrNoInterface) {
		t.Fatalf("got %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `"bcdump-no-such0"`) || !strings.Contains(msg, "lo, ") || !strings.Contains(msg, ", any;") {
		t.Errorf("message %q should name the interface and list lo and any", msg)
	}
}

func TestOpenLiveTooManyPorts(t *testing.T) {
	_, err := OpenLive("lo", LiveOptions{Ports: portRange(1000, MaxLivePorts+1)})
	if errors.Is(err, ErrNoPermission) {
		t.Skip("not permitted; the port check comes after the socket")
	}
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("got %v", err)
	}
}

// In a network namespace of its own, lo exists and is down.
func TestOpenLiveDown(t *testing.T) {
	errc := make(chan error, 1)
	go func() {
		// This thread changes namespace and is never unlocked, so it
		// ends with the goroutine instead of serving others.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("unshare: %w", err)
			return
		}
		l, err := OpenLive("lo", LiveOptions{})
		if err == nil {
			l.Close()
		}
		errc <- err
	}()
	err := <-errc
	if strings.HasPrefix(fmt.Sprint(err), "unshare") {
		needLive(t, &LiveError{Err: ErrNoPermission, Cause: err})
		t.Skipf("no network namespace: %v", err)
	}
	if !errors.Is(err, ErrInterfaceDown) || err.Error() != "live: interface lo is down" {
		t.Fatalf("got %v", err)
	}
}

// Without CAP_NET_RAW (here: root inside a user namespace of its own, which
// holds no capability over the host's network) the error says what is
// needed. The test binary runs itself in that namespace.
func TestOpenLiveNoPermission(t *testing.T) {
	if os.Getenv("BCDUMP_LIVE_CHILD") == "1" {
		_, err := OpenLive("lo", LiveOptions{})
		fmt.Printf("child: %v\n", err)
		return
	}
	if os.Geteuid() != 0 {
		_, err := OpenLive("lo", LiveOptions{})
		checkNoPermission(t, err)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenLiveNoPermission$", "-test.v")
	cmd.Env = append(os.Environ(), "BCDUMP_LIVE_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot run in a user namespace: %v %s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "child: ")
	if !ok {
		t.Fatalf("child said %s", out)
	}
	line, _, _ := strings.Cut(after, "\n")
	checkNoPermission(t, errors.New(line))
	if !strings.Contains(line, "operation not permitted") {
		t.Errorf("%q should carry the system error", line)
	}
}

func checkNoPermission(t *testing.T, err error) {
	t.Helper()
	want := "live: capturing on lo needs root or CAP_NET_RAW ("
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %q...", err, want)
	}
}

// BenchmarkLiveNext measures a game datagram's way through loopback and
// the packet socket to a decoded Packet (the send is part of each round).
func BenchmarkLiveNext(b *testing.B) {
	srv, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	cli, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	dst := srv.LocalAddr().(*net.UDPAddr).AddrPort()
	l, err := OpenLive("lo", LiveOptions{Ports: []uint16{dst.Port()}})
	if errors.Is(err, ErrNoPermission) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	payload := make([]byte, 100)
	var p Packet
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.WriteToUDPAddrPort(payload, dst); err != nil {
			b.Fatal(err)
		}
		if err := l.Next(&p); err != nil || p.Kind != KindMatched {
			b.Fatalf("%v %v", err, p.Kind)
		}
	}
}

// An interface that goes down ends a blocked Next with ErrInterfaceDown.
// The test brings lo up and down in a network namespace of its own.
func TestLiveInterfaceGoesDown(t *testing.T) {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		errc <- liveUntilDown()
	}()
	var err error
	select {
	case err = <-errc:
	case <-time.After(30 * time.Second):
		t.Fatal("Next did not return after the interface went down")
	}
	var setup *setupError
	if errors.As(err, &setup) {
		needLive(t, &LiveError{Err: ErrNoPermission, Cause: err})
		t.Skipf("no network namespace to test in: %v", err)
	}
	if !errors.Is(err, ErrInterfaceDown) || err.Error() != "live: interface lo is down" {
		t.Fatalf("got %v", err)
	}
}

type setupError struct{ error }

func liveUntilDown() error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return &setupError{err}
	}
	if err := setLinkUp("lo", true); err != nil {
		return &setupError{err}
	}
	l, err := OpenLive("lo", LiveOptions{})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer l.Close()
	// The ioctl needs a socket of this namespace; the socket, once made
	// here, works from any thread.
	ctl, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &setupError{err}
	}
	defer unix.Close(ctl)
	time.AfterFunc(50*time.Millisecond, func() { setFlags(ctl, "lo", false) })
	var p Packet
	l.SetDeadline(time.Now().Add(20 * time.Second))
	return l.Next(&p)
}

// setLinkUp sets or clears IFF_UP through a socket of the calling thread's
// network namespace.
func setLinkUp(name string, up bool) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return setFlags(fd, name, up)
}

func setFlags(fd int, name string, up bool) error {
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	flags := ifr.Uint16()
	if up {
		flags |= unix.IFF_UP
	} else {
		flags &^= unix.IFF_UP
	}
	ifr.SetUint16(flags)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
