package capture

import (
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// filterCookedVM is filterCooked for bpf.VM, which has no skb->protocol:
// the test frames carry the EtherType in two bytes before the IP header.
// Only where the protocol and IP header come from differs, so the program
// logic under test is the same.
var filterCookedVM = filterLink{proto: bpf.LoadAbsolute{Off: 0, Size: 2}, l3: 2}

// cookedVM turns an untagged Ethernet frame into filterCookedVM's framing.
func cookedVM(frame []byte) []byte { return frame[12:] }

type vmCase struct {
	name  string
	frame []byte // Ethernet
	pass  bool
}

func filterCases(t testing.TB) []vmCase {
	extra := netip.MustParseAddrPort("10.0.0.1:2655")
	other := netip.MustParseAddrPort("10.0.0.1:53")
	cli := netip.MustParseAddrPort("10.0.0.2:53")
	opts := ipUDP(t, cli4, srv4, bcPl)
	// Same datagram with a 4-byte IPv4 option (IHL 6): ports move.
	withOpt := append(append([]byte{0x46}, opts[1:20]...), 1, 1, 1, 0)
	withOpt = append(withOpt, opts[20:]...)
	withOpt[3] += 4
	// A UDP header on other ports whose payload starts with the game port,
	// where a filter ignoring IHL would look for ports in an optioned header.
	decoy := ipUDP(t, cli, other, []byte{0x56, 0x55, 0x56, 0x55})
	tcp := ip4(t, layers.IPProtocolTCP, 0, 0, []byte{0x56, 0x55, 0x56, 0x55, 0, 0, 0, 0})
	return []vmCase{
		{"ipv4/c2s", eth(0x0800, opts), true},
		{"ipv4/s2c", eth(0x0800, ipUDP(t, srv4, cli4, bcPl)), true},
		{"ipv4/ihl6-options", eth(0x0800, withOpt), true},
		{"ipv4/extra-port-dst", eth(0x0800, ipUDP(t, cli4, extra, bcPl)), true},
		{"ipv4/extra-port-src", eth(0x0800, ipUDP(t, extra, cli4, bcPl)), true},
		{"ipv4/other-ports", eth(0x0800, ipUDP(t, cli, other, bcPl)), false},
		{"ipv4/game-port-in-payload", eth(0x0800, decoy), false},
		{"ipv4/tcp-on-game-port", eth(0x0800, tcp), false},
		{"ipv4/first-fragment", eth(0x0800, ip4(t, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, opts[20:])), true},
		{"ipv4/later-fragment", eth(0x0800, ip4(t, layers.IPProtocolUDP, 0, 8, []byte{0x56, 0x55, 0x56, 0x55, 0, 8, 0, 0})), false},
		{"ipv4/cut-before-ports", eth(0x0800, opts[:21]), false},
		{"ipv6/c2s", eth(0x86dd, ipUDP(t, cli6, srv6, bcPl)), true},
		{"ipv6/s2c", eth(0x86dd, ipUDP(t, srv6, cli6, bcPl)), true},
		{"ipv6/other-ports", eth(0x86dd, ipUDP(t, netip.MustParseAddrPort("[2001:db8::2]:53"), netip.MustParseAddrPort("[2001:db8::1]:53"), bcPl)), false},
		// Documented limit: no walk over extension headers.
		{"ipv6/hop-by-hop", eth(0x86dd, ip6Ext(ipUDP(t, cli6, srv6, bcPl), extHopByHop)), false},
		{"arp", eth(0x0806, make([]byte, 28)), false},
		{"empty", nil, false},
		{"ethernet-header-only", eth(0x0800, nil), false},
	}
}

func runVM(t *testing.T, prog []bpf.Instruction, frame []byte) bool {
	t.Helper()
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	n, err := vm.Run(frame)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestGameFilter(t *testing.T) {
	ports := []uint16{DefaultPort, 2655}
	eth, err := gameFilter(filterEthernet, ports, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	cooked, err := gameFilter(filterCookedVM, ports, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range filterCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			if got := runVM(t, eth, tt.frame); got != tt.pass {
				t.Errorf("ethernet: pass %v, want %v", got, tt.pass)
			}
			if len(tt.frame) < 14 {
				return
			}
			if got := runVM(t, cooked, cookedVM(tt.frame)); got != tt.pass {
				t.Errorf("cooked: pass %v, want %v", got, tt.pass)
			}
		})
	}
	// NULL framing (BSD lo0, the Npcap loopback adapter): the same
	// verdicts, whatever the byte order and the system's AF_INET6.
	null, err := gameFilter(filterNull, ports, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range filterCases(t) {
		if len(tt.frame) < 14 {
			continue
		}
		fams := map[uint16][]uint32{0x0800: {afInet}, 0x86dd: {afInet6Linux, afInet6Windows, afInet6BSD, afInet6FreeBSD, afInet6Darwin}}[binary.BigEndian.Uint16(tt.frame[12:])]
		if fams == nil {
			fams, tt.pass = []uint32{17}, false // not IP
		}
		for _, o := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
			for _, fam := range fams {
				if got := runVM(t, null, loopback(o, fam, tt.frame[14:])); got != tt.pass {
					t.Errorf("%s: null %v family %d: pass %v, want %v", tt.name, o, fam, got, tt.pass)
				}
			}
		}
	}
	// The kernel variant assembles, and reads the protocol from skb metadata.
	kernel, err := gameFilter(filterCooked, ports, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bpf.Assemble(kernel); err != nil {
		t.Fatal(err)
	}
	if kernel[0] != (bpf.LoadExtension{Num: bpf.ExtProto}) {
		t.Errorf("cooked program starts with %v", kernel[0])
	}
}

// The snap length is what an accepted frame keeps.
func TestGameFilterSnaplen(t *testing.T) {
	prog, err := gameFilter(filterEthernet, nil, 60)
	if err != nil {
		t.Fatal(err)
	}
	vm, _ := bpf.NewVM(prog)
	frame := eth(0x0800, ipUDP(t, cli4, srv4, make([]byte, 200)))
	if n, _ := vm.Run(frame); n != 60 {
		t.Errorf("kept %d bytes, want 60", n)
	}
}

func TestGameFilterPorts(t *testing.T) {
	tests := []struct {
		name    string
		ports   []uint16
		wantErr bool
	}{
		{"none-means-default", nil, false},
		{"duplicates", []uint16{DefaultPort, DefaultPort, 7000, 7000}, false},
		{"max", portRange(1000, MaxLivePorts), false},
		{"too-many", portRange(1000, MaxLivePorts+1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog, err := gameFilter(filterEthernet, tt.ports, MaxFrameLen)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.ports
			if len(want) == 0 {
				want = []uint16{DefaultPort}
			}
			for _, p := range want {
				for _, fr := range [][]byte{
					eth(0x0800, ipUDP(t, netip.AddrPortFrom(cli4.Addr(), 999), netip.AddrPortFrom(srv4.Addr(), p), bcPl)),
					eth(0x86dd, ipUDP(t, netip.AddrPortFrom(srv6.Addr(), p), netip.AddrPortFrom(cli6.Addr(), 999), bcPl)),
				} {
					if !runVM(t, prog, fr) {
						t.Fatalf("port %d not accepted", p)
					}
				}
			}
			if runVM(t, prog, eth(0x0800, ipUDP(t, netip.AddrPortFrom(cli4.Addr(), 999), netip.AddrPortFrom(srv4.Addr(), 998), bcPl))) {
				t.Error("ports 999/998 accepted")
			}
		})
	}
}

func portRange(from, n int) []uint16 {
	ps := make([]uint16, n)
	for i := range ps {
		ps[i] = uint16(from + i)
	}
	return ps
}

// On every frame of the real captures, the kernel filter keeps exactly what
// the file reader calls a game datagram.
func TestGameFilterRealCaptures(t *testing.T) {
	dir := filepath.Join(testdata, "captures")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pcap"))
	if len(files) == 0 {
		t.Fatalf("no captures in %s", dir)
	}
	prog, err := gameFilter(filterEthernet, nil, MaxFrameLen)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	cooked, _ := gameFilter(filterCookedVM, nil, MaxFrameLen)
	cvm, err := bpf.NewVM(cooked)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := NewReader(f, name, Options{AllFrames: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.LinkType() != layers.LinkTypeEthernet {
				t.Skipf("link type %v", r.LinkType())
			}
			var p Packet
			matched := 0
			for {
				err := r.Next(&p)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if p.Kind == KindFragment {
					continue // first fragments pass, later ones not: tested above
				}
				want := p.Kind == KindMatched
				n, err := vm.Run(p.Data)
				if err != nil || (n > 0) != want {
					t.Fatalf("frame %d (%v): filter kept %d bytes (err %v)", p.Frame, p.Kind, n, err)
				}
				if p.Data[12] == 0x81 { // tagged: the kernel would have untagged it
					continue
				}
				if n, _ := cvm.Run(cookedVM(p.Data)); (n > 0) != want {
					t.Fatalf("frame %d (%v): cooked filter kept %d bytes", p.Frame, p.Kind, n)
				}
				if want {
					matched++
				}
			}
			if matched == 0 {
				t.Error("no game datagram in the capture")
			}
		})
	}
}

// The kernel filter and the frame decoder agree on Ethernet frames: every
// frame the decoder calls a game datagram passes the filter (except where
// the filter is documented not to look: VLAN tags, which the kernel strips
// before the filter runs, IPv6 extension headers, and EtherTypes other than
// IPv4 and IPv6 that gopacket decodes as IP anyway), and every frame the
// filter passes is a game datagram, a fragment or a damaged frame, never
// traffic on other ports or protocols.
func FuzzGameFilter(f *testing.F) {
	for _, c := range filterCases(f) {
		f.Add(c.frame)
	}
	f.Add(vlan([]uint16{0x8100}, 0x0800, ipUDP(f, cli4, srv4, bcPl)))
	prog, err := gameFilter(filterEthernet, []uint16{DefaultPort, 2655}, MaxFrameLen)
	if err != nil {
		f.Fatal(err)
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		f.Fatal(err)
	}
	var ports portSet
	ports.set([]uint16{DefaultPort, 2655})
	var d decoder
	d.init()
	f.Fuzz(func(t *testing.T, frame []byte) {
		n, err := vm.Run(frame)
		if err != nil {
			t.Fatal(err)
		}
		var p Packet
		kind := d.decode(&p, layers.LinkTypeEthernet, frame)
		if kind == KindOtherPort && (ports.has(p.Src.Port()) || ports.has(p.Dst.Port())) {
			kind = KindMatched
		}
		ip4 := len(frame) >= 14 && frame[12] == 0x08 && frame[13] == 0x00
		ip6 := len(frame) >= 21 && frame[12] == 0x86 && frame[13] == 0xdd && frame[20] == ipProtoUDP
		if kind == KindMatched && n == 0 && (ip4 || ip6) {
			t.Fatalf("game datagram %v -> %v dropped by the filter", p.Src, p.Dst)
		}
		if n > 0 && kind != KindMatched && kind != KindFragment && kind != KindMalformed {
			t.Fatalf("filter passed a %v frame", kind)
		}
	})
}
