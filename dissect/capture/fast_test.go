package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// diffFast reads data with the fast path and with a Reader forced to the
// hardened path, and describes the first difference between the two: in
// opening, in any field of any Packet, in the error that ends them, in the
// notes, stats or the packets OtherPort saw. "" means none. With chunk > 0
// the input arrives chunk bytes per read, as from a pipe, so that records
// straddle the read buffer and take the fast path's copying branch.
func diffFast(data []byte, opt Options, chunk int) string {
	var seen [2][]string
	open := func(hardened bool) (*Reader, error) {
		o := opt
		i := 0
		if hardened {
			i = 1
		}
		o.OtherPort = func(p *Packet) {
			seen[i] = append(seen[i], fmt.Sprintf("%d %v %v %x", p.Frame, p.Src, p.Dst, p.Payload))
		}
		var in io.Reader = bytes.NewReader(data)
		if chunk > 0 {
			in = &chunked{data: data, n: chunk}
		}
		r, err := NewReader(in, "diff", o)
		if r != nil {
			r.hardened = hardened
		}
		return r, err
	}
	fast, ferr := open(false)
	hard, herr := open(true)
	if fmt.Sprint(ferr) != fmt.Sprint(herr) {
		return fmt.Sprintf("open: fast %v, hardened %v", ferr, herr)
	}
	if ferr != nil {
		return ""
	}
	var fp, hp Packet
	for n := 0; ; n++ {
		ferr, herr := fast.Next(&fp), hard.Next(&hp)
		if fmt.Sprintf("%T %v", ferr, ferr) != fmt.Sprintf("%T %v", herr, herr) {
			return fmt.Sprintf("after %d packets: fast %v, hardened %v", n, ferr, herr)
		}
		if ferr != nil {
			break
		}
		if d := diffPacket(&fp, &hp); d != "" {
			return fmt.Sprintf("packet %d (frame %d): %s", n+1, hp.Frame, d)
		}
		if n > 1<<22 {
			return "reader does not stop"
		}
	}
	if f, h := fast.Stats(), hard.Stats(); f != h {
		return fmt.Sprintf("stats: fast %+v, hardened %+v", f, h)
	}
	if f, h := fast.TakeNotes(), hard.TakeNotes(); !reflect.DeepEqual(f, h) {
		return fmt.Sprintf("notes: fast %v, hardened %v", f, h)
	}
	if !reflect.DeepEqual(seen[0], seen[1]) {
		return fmt.Sprintf("OtherPort saw: fast %q, hardened %q", seen[0], seen[1])
	}
	if fast.LinkType() != hard.LinkType() || fast.Plaintext() != hard.Plaintext() || fast.section != hard.section {
		return "reader properties differ"
	}
	return ""
}

// chunked serves data n bytes per Read.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// diffPacket compares every field of two packets, slices by content
// (Payload also by being nil or not: nil means not UDP).
func diffPacket(f, h *Packet) string {
	type cmp struct {
		name string
		f, h any
	}
	for _, c := range []cmp{
		{"Frame", f.Frame, h.Frame},
		{"Time", f.Time, h.Time},
		{"Kind", f.Kind, h.Kind},
		{"Src", f.Src, h.Src},
		{"Dst", f.Dst, h.Dst},
		{"Payload", f.Payload, h.Payload},
		{"Payload nil", f.Payload == nil, h.Payload == nil},
		{"Truncated", f.Truncated, h.Truncated},
		{"Missing", f.Missing, h.Missing},
		{"Fragments", f.Fragments, h.Fragments},
		{"FragsLost", f.FragsLost, h.FragsLost},
		{"Lost", f.Lost, h.Lost},
		{"Data", string(f.Data), string(h.Data)}, // nil or empty as pcapgo's buffer happens to be
		{"PayloadOffset", f.PayloadOffset, h.PayloadOffset},
		{"LinkType", f.LinkType, h.LinkType},
		{"InterfaceIndex", f.InterfaceIndex, h.InterfaceIndex},
		{"CaptureInfo", f.CaptureInfo, h.CaptureInfo},
		{"section", f.section, h.section},
		{"LenExcess", f.LenExcess(), h.LenExcess()},
	} {
		if !reflect.DeepEqual(c.f, c.h) {
			return fmt.Sprintf("%s: fast %v, hardened %v", c.name, c.f, c.h)
		}
	}
	return ""
}

// diffOptions are the reader options every input is compared under.
var diffOptions = []Options{{}, {AllFrames: true}, {Ports: []uint16{53, 50000}}}

func checkDiff(t *testing.T, data []byte) {
	t.Helper()
	for _, opt := range diffOptions {
		for _, chunk := range []int{0, 1, 97, 1500} {
			if d := diffFast(data, opt, chunk); d != "" {
				t.Fatalf("options %+v, chunk %d: %s", opt, chunk, d)
			}
		}
	}
}

// fastCases are small captures that take each turn of the fast path and
// each way off it.
func fastCases(tb testing.TB) map[string][]byte {
	v4, v6 := ipUDP(tb, cli4, srv4, bcPl), ipUDP(tb, srv6, cli6, bcPl)
	le, be := binary.LittleEndian, binary.BigEndian
	set := func(b []byte, i int, v ...byte) []byte { b = bytes.Clone(b); copy(b[i:], v); return b }
	withOpts := func() []byte { // IHL 6: a NOP option and padding
		b := append(bytes.Clone(v4[:20]), 1, 1, 1, 0)
		b = append(b, v4[20:]...)
		b[0] = 0x46
		binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
		return b
	}()
	tcp := ip4(tb, layers.IPProtocolTCP, 0, 0, make([]byte, 20))
	frags := [][]byte{
		ip4(tb, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, v4[20:24]),
		ip4(tb, layers.IPProtocolUDP, 0, 1, v4[28:]),
	}
	odd := [][]byte{
		v4, v6, withOpts, tcp, frags[0], frags[1],
		set(v4, 2, 0, 0),                        // total length 0 (TSO)
		set(v4, 2, 0, 27),                       // total length below IP+UDP
		set(v4, 2, 0xff, 0xff),                  // total length beyond the frame
		set(v4, 0, 0x44),                        // IHL 4
		set(v4, 0, 0x65),                        // version 6 in an IPv4 slot
		set(v4, 24, 0, 0),                       // UDP length 0 (jumbogram)
		set(v4, 24, 0, 7),                       // UDP length below its header
		set(v4, 24, 0xff, 0),                    // UDP length beyond IP
		set(v4, 24, 0, 9),                       // UDP length below IP's
		set(v4, 6, 0x40, 0),                     // DF
		set(v4, 6, 0x80, 0),                     // reserved flag
		set(v4, 9, 47),                          // GRE
		set(v4, 9, 4),                           // IPIP: gopacket decodes on
		set(v6, 4, 0, 0),                        // payload length 0
		set(v6, 4, 0, 7),                        // payload length below UDP
		set(v6, 4, 0xff, 0xff),                  // payload length beyond the frame
		set(v6, 6, 6),                           // TCP
		set(v6, 6, 58),                          // ICMPv6
		ip6Ext(v6, extHopByHop),                 // extension header
		ip6Ext(v6, extFragment(0, true)),        // fragment
		v4[:27], v4[:20], v6[:47], v6[:39], nil, // cut
		append(bytes.Clone(v4), 0, 0, 0, 0), // trailer after IP
	}
	ethOf := func(list [][]byte) (out [][]byte) {
		for _, b := range list {
			out = append(out, eth(0x0800, b))
			if len(b) > 0 && b[0]>>4 == 6 {
				out[len(out)-1] = eth(0x86dd, b)
			}
		}
		return out
	}
	ethOdd := append(ethOf(odd),
		eth(0x0806, make([]byte, 28)), eth(0x0806, nil), eth(0x0005, v4), eth(0x6558, eth(0x0800, v4)),
		vlan([]uint16{0x8100}, 0x0800, v4), vlan([]uint16{0x88a8, 0x8100}, 0x86dd, v6),
		vlan([]uint16{0x88a8, 0x8100, 0x8100}, 0x0800, v4), vlan([]uint16{0x8100}, 0x0806, nil),
		vlan([]uint16{0x8100}, 0x0800, v4)[:16], eth(0x0800, v4)[:13], append(eth(0x0800, v4), make([]byte, 20)...))
	var sllOdd, sll2Odd, nullOdd [][]byte
	for _, b := range odd {
		sllOdd = append(sllOdd, sll(0x0800, b), sll(0x86dd, b))
		sll2Odd = append(sll2Odd, sll2(0x0800, b), sll2(0x86dd, b))
		nullOdd = append(nullOdd, loopback(le, 2, b), loopback(be, 30, b), loopback(le, 24, b), loopback(be, 7, b))
	}
	sllOdd = append(sllOdd, set(sll(0x0800, v4), 4, 0, 9), sll(0x0806, nil), sll(0x0004, v4), sll(0x0800, v4)[:15])
	sll2Odd = append(sll2Odd, set(sll2(0x0800, v4), 11, 9), set(sll2(0x0800, v4), 8, 0x03, 0x02),
		set(sll2(0x0800, v4), 8, 0x03, 0x0a), set(sll2(0x0800, v4), 8, 0x03, 0x23), sll2(0x0806, nil), sll2(0x0800, v4)[:19])
	cut := frames(eth(0x0800, v4))
	cut[0].data, cut[0].orig = cut[0].data[:40], 60
	long := frames(eth(0x0800, v4))
	long[0].orig = 20 // a broken writer's: captured beyond the original length

	cases := map[string][]byte{
		"pcap/eth-odd":       pcapFile(tb, 1, false, false, frames(ethOdd...)),
		"pcap/eth-odd-ns-be": pcapFile(tb, 1, true, true, frames(ethOdd...)),
		"pcap/eth-odd-ns":    pcapFile(tb, 1, true, false, frames(ethOdd...)),
		"pcap/eth-odd-be":    pcapFile(tb, 1, false, true, frames(ethOdd...)),
		"pcap/raw":           pcapFile(tb, 101, false, false, frames(odd...)),
		"pcap/dlt-raw-12":    pcapFile(tb, 12, false, true, frames(odd...)),
		"pcap/ipv4":          pcapFile(tb, 228, false, false, frames(odd...)),
		"pcap/ipv6":          pcapFile(tb, 229, false, false, frames(odd...)),
		"pcap/sll":           pcapFile(tb, 113, false, false, frames(sllOdd...)),
		"pcap/sll2":          pcapFile(tb, 276, false, false, frames(sll2Odd...)),
		"pcap/null":          pcapFile(tb, 0, false, false, frames(nullOdd...)),
		"pcap/loop":          pcapFile(tb, 108, true, true, frames(nullOdd...)),
		"pcap/unsupported":   pcapFile(tb, 105, false, false, frames(v4)),
		"pcap/snaplen-cut":   pcapFile(tb, 1, false, false, cut),
		"pcap/len-excess":    pcapFile(tb, 1, false, false, long),
		"pcap/fragments":     pcapFile(tb, 1, false, false, frames(ethOf(append(frags, v4, frags[0]))...)),
	}
	cases["pcap/gzip"] = gzipped(tb, cases["pcap/eth-odd"])
	cases["pcap/cut"] = cases["pcap/eth-odd"][:len(cases["pcap/eth-odd"])-9]

	for _, o := range []byteOrder{le, be} {
		n := &ngb{o: o}
		n.shb(n.opt(1, []byte("x"))).idb(1, 0, n.opt(2, []byte("eth0"))).idb(101, 0, n.opt(9, []byte{9}))
		n.idb(113, 0, n.opt(9, []byte{0x80 | 20}), n.opt(14, o.AppendUint64(nil, 1000)))
		n.idb(276, 40, n.opt(9, []byte{3}), n.opt(14, []byte{1, 2})) // short offset: ignored
		n.block(4, []byte{1, 0, 4, 0, 10, 0, 0, 1, 0, 0, 0, 0})      // name resolution
		n.block(0x0BADCAFE, []byte{1, 2, 3, 4})                      // unknown
		for i, b := range ethOdd {
			n.epb(0, uint64(1e9*1700000000+i), b, 0, n.opt(1, []byte("c")))
		}
		for i, b := range odd {
			n.epb(1, uint64(1e9*1700000000+i), b, 0).epb(2, 1<<40+uint64(i), sll(0x0800, b), 0)
			n.epb(3, uint64(i)<<33, sll2(0x86dd, b), 0)
		}
		n.spb(eth(0x0800, v4), 0).spb(eth(0x86dd, v6), 0)
		n.epb(9, 0, eth(0x0800, v4), 0) // interface missing
		name := fmt.Sprintf("pcapng/%v", o)
		cases[name] = bytes.Clone(n.b)
		cases[name+"-cut"] = n.b[:len(n.b)-30]
		// A second section: interfaces start over.
		n.shb().idb(0, 64).spb(loopback(le, 2, v4), 0).epb(0, 5, loopback(le, 2, v4), 0).epb(1, 5, v4, 0)
		n.shb().epb(0, 5, v4, 0)
		cases[name+"-sections"] = n.b
		m := &ngb{o: o}
		m.shb().idb(1, 0, m.opt(9, []byte{64})).epb(0, 1, eth(0x0800, v4), 0) // resolution pcapgo refuses
		cases[name+"-bad-tsresol"] = m.b
	}
	cases["pcapng/writer"] = ngWriterFile(tb, ethOf(odd), odd)
	return cases
}

// TestFastMatchesHardened compares the fast path with the hardened one on
// every capture in testdata, the fuzz corpora and the cases above.
func TestFastMatchesHardened(t *testing.T) {
	inputs := map[string][]byte{}
	for _, dir := range []string{testdata, "testdata"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if body, ok := strings.CutPrefix(string(b), "go test fuzz v1\n[]byte("); ok {
				s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(body), ")"))
				if err != nil {
					return fmt.Errorf("%s: %v", path, err)
				}
				b = []byte(s)
			}
			inputs[path] = b
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range fastCases(t) {
		inputs[name] = b
	}
	for i, b := range fuzzSeeds(t) {
		inputs[fmt.Sprintf("fuzz-seed-%d", i)] = b
	}
	captures := 0
	for name, b := range inputs {
		t.Run(name, func(t *testing.T) {
			if _, err := NewReader(bytes.NewReader(b), "x", Options{}); err == nil {
				captures++
			}
			checkDiff(t, b)
		})
	}
	if captures < 40 {
		t.Errorf("only %d inputs are captures", captures)
	}
}

// TestFastPathTaken makes sure the comparison above is not vacuous: the
// fast path reads and decodes the real captures without the hardened one.
func TestFastPathTaken(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	ng := &ngb{o: binary.LittleEndian}
	ng.shb().idb(1, 0)
	for _, rec := range splitPcap(b) {
		ng.epb(0, 0, rec, 0)
	}
	for _, in := range [][]byte{b, ng.b} {
		r := openBytes(t, in, Options{})
		first := 0
		if r.Format() == "pcapng" { // pcapgo reads the interface, and the packet after it
			var p Packet
			if err := r.Next(&p); err != nil {
				t.Fatal(err)
			}
			first = 1
		}
		for i := first; i < 4325; i++ {
			var ci gopacket.CaptureInfo
			data, lt, ok := r.readFast(&ci)
			if !ok {
				t.Fatalf("record %d not read on the fast path", i+1)
			}
			if _, ok := fastDecode(&Packet{}, lt, data); !ok {
				t.Fatalf("frame %d not decoded on the fast path", i+1)
			}
		}
		if _, _, ok := r.readFast(new(gopacket.CaptureInfo)); ok {
			t.Fatal("read past the end")
		}
	}
}

// splitPcap returns the frames of a little-endian pcap file.
func splitPcap(b []byte) (out [][]byte) {
	for rest := b[24:]; len(rest) >= 16; {
		n := int(binary.LittleEndian.Uint32(rest[8:12]))
		out = append(out, rest[16:16+n])
		rest = rest[16+n:]
	}
	return out
}

// FuzzFastPath feeds arbitrary bytes to both paths; they must agree on
// everything (and, like FuzzReader, neither may panic or hang).
func FuzzFastPath(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	for _, s := range fastCases(f) {
		f.Add(s)
	}
	for _, name := range []string{"openbc-session-2.pcap", "stock-excerpts.pcap"} {
		b, err := os.ReadFile(filepath.Join(testdata, "captures", name))
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 3000)]
		f.Add(b)
		for _, i := range []int{24 + 8, 24 + 16 + 12, 24 + 16 + 14 + 2, 24 + 16 + 14 + 9, 24 + 16 + 14 + 20 + 4, 24 + 16 + 14 + 20 + 5} {
			m := bytes.Clone(b)
			m[i] ^= 0x5a
			f.Add(m)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range diffOptions[:2] {
			for _, chunk := range []int{0, 61} {
				if d := diffFast(data, opt, chunk); d != "" {
					t.Fatalf("options %+v, chunk %d: %s", opt, chunk, d)
				}
			}
		}
	})
}
