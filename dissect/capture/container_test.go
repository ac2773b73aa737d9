package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// want describes one packet a container test expects.
type want struct {
	frame int
	ts    time.Time
	lt    layers.LinkType
	iface int
	kind  Kind
	src   netip.AddrPort
}

func TestContainers(t *testing.T) {
	v4, v6 := ipUDP(t, cli4, srv4, bcPl), ipUDP(t, srv6, cli6, bcPl)
	arp := eth(0x0806, make([]byte, 28))
	ethFrames := frames(eth(0x0800, v4), arp, eth(0x86dd, v6))
	us := func(ts time.Time) time.Time { return ts.Truncate(time.Microsecond) }
	pcapWant := func(trunc func(time.Time) time.Time) []want {
		return []want{
			{1, trunc(ethFrames[0].ts), 1, 0, KindMatched, cli4},
			{2, trunc(ethFrames[1].ts), 1, 0, KindNonIP, netip.AddrPort{}},
			{3, trunc(ethFrames[2].ts), 1, 0, KindMatched, srv6},
		}
	}
	id := func(ts time.Time) time.Time { return ts }

	// pcapng written by pcapgo: interface 0 Ethernet, 1 raw IP, interleaved.
	ngLE := ngWriterFile(t, [][]byte{eth(0x0800, v4), arp}, [][]byte{v6, ipUDP(t, srv4, cli4, nil)})
	ngLEWant := []want{
		{1, t0, 1, 0, KindMatched, cli4},
		{2, t0.Add(1 * time.Millisecond), 101, 1, KindMatched, srv6},
		{3, t0.Add(2 * time.Millisecond), 1, 0, KindNonIP, netip.AddrPort{}},
		{4, t0.Add(3 * time.Millisecond), 101, 1, KindMatched, srv4},
	}

	// Big-endian pcapng by hand: µs and ns interfaces, blocks pcapgo would
	// keep or choke on (name resolution, statistics, custom), packet
	// options, a simple packet block, then a second section whose
	// interface 0 has another link type.
	nb := &ngb{o: binary.BigEndian}
	nb.shb(nb.opt(4, []byte("bcdump test")))
	nb.idb(layers.LinkTypeEthernet, 0, nb.opt(2, []byte("eth0")), nb.opt(9, []byte{6}), nb.opt(1, []byte("a comment")))
	nb.block(4, []byte{0, 1, 0, 8, 10, 0, 0, 1, 'h', 'o', 's', 't', 0, 0, 0, 0, 0, 0, 0, 0}) // NRB
	nb.idb(layers.LinkTypeIPv6, 0, nb.opt(9, []byte{9}))
	usTS := uint64(t0.UnixMicro())
	nsTS := uint64(t0.UnixNano())
	nb.epb(0, usTS, eth(0x0800, v4), 0, nb.opt(1, []byte("packet comment")), nb.opt(2, []byte{1, 0, 0, 0}))
	nb.block(5, make([]byte, 12))          // ISB for interface 0
	nb.block(0x00000BAD, []byte("custom")) // custom block, dropped
	nb.epb(1, nsTS+5, v6, 0)
	nb.spb(eth(0x0806, make([]byte, 28)), 0)
	nb.shb()
	nb.idb(layers.LinkTypeLinuxSLL2, 0, nb.opt(9, []byte{9}))
	nb.epb(0, nsTS+7, sll2(0x0800, v4), 0)
	ngBEWant := []want{
		{1, us(t0), 1, 0, KindMatched, cli4},
		{2, t0.Add(5), 229, 1, KindMatched, srv6},
		{3, time.Time{}, 1, 0, KindNonIP, netip.AddrPort{}},
		{4, t0.Add(7), 276, 0, KindMatched, cli4},
	}

	tests := []struct {
		name   string
		file   []byte
		format string
		want   []want
	}{
		{"pcap/le-us", pcapFile(t, 1, false, false, ethFrames), "pcap", pcapWant(us)},
		{"pcap/le-ns", pcapFile(t, 1, true, false, ethFrames), "pcap", pcapWant(id)},
		{"pcap/be-us", pcapFile(t, 1, false, true, ethFrames), "pcap", pcapWant(us)},
		{"pcap/be-ns", pcapFile(t, 1, true, true, ethFrames), "pcap", pcapWant(id)},
		{"pcap/gzip", gzipped(t, pcapFile(t, 1, true, true, ethFrames)), "pcap", pcapWant(id)},
		{"pcapng/le-pcapgo-two-interfaces", ngLE, "pcapng", ngLEWant},
		{"pcapng/be-two-sections", nb.b, "pcapng", ngBEWant},
		{"pcapng/gzip", gzipped(t, nb.b), "pcapng", ngBEWant},
		{"pcap/xz", xzed(t, pcapFile(t, 1, true, true, ethFrames)), "pcap", pcapWant(id)},
		{"pcapng/xz", xzed(t, nb.b), "pcapng", ngBEWant},
		{"pcap/zstd", zstded(t, pcapFile(t, 1, true, true, ethFrames)), "pcap", pcapWant(id)},
		{"pcapng/zstd", zstded(t, nb.b), "pcapng", ngBEWant},
		{"pcapng/le-section-then-be-sections", append(bytes.Clone(ngLE), nb.b...), "pcapng", append(slices.Clone(ngLEWant), renumber(ngBEWant, 4)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := openBytes(t, tc.file, Options{AllFrames: true})
			if r.Format() != tc.format || r.Compressed() != (bytes.HasPrefix(tc.file, gzipMagic) || bytes.HasPrefix(tc.file, xzMagic) || bytes.HasPrefix(tc.file, zstdMagic)) {
				t.Errorf("format %q compressed %v", r.Format(), r.Compressed())
			}
			got, err := readAll(t, r)
			if err != io.EOF {
				t.Fatalf("after %d packets: %v", len(got), err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d packets, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				p := got[i]
				if p.Frame != w.frame || !p.Time.Equal(w.ts) || p.LinkType != w.lt || p.InterfaceIndex != w.iface || p.Kind != w.kind || p.Src != w.src {
					t.Errorf("packet %d: frame %d %v link %v iface %d %v src %v\nwant           %d %v link %v iface %d %v src %v",
						i, p.Frame, p.Time, p.LinkType, p.InterfaceIndex, p.Kind, p.Src, w.frame, w.ts, w.lt, w.iface, w.kind, w.src)
				}
			}
		})
	}
}

// renumber shifts the frame numbers of ws by n.
func renumber(ws []want, n int) []want {
	out := make([]want, len(ws))
	for i, w := range ws {
		w.frame += n
		out[i] = w
	}
	return out
}

// writeTemp writes b to dir/name and returns the path.
func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(tempDir(t), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenFileAndProgress(t *testing.T) {
	file := gzipped(t, pcapFile(t, 1, false, false, frames(eth(0x0800, ipUDP(t, cli4, srv4, bcPl)))))
	r, err := Open(writeTemp(t, "x.pcap.whatever", file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, total := r.Progress(); total != int64(len(file)) {
		t.Errorf("total %d, want %d", total, len(file))
	}
	if got, err := readAll(t, r); err != io.EOF || len(got) != 1 {
		t.Fatalf("got %d, %v", len(got), err)
	}
	if done, total := r.Progress(); done != total {
		t.Errorf("progress %d/%d at end", done, total)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r, err = Open(writeTemp(t, "y.pcap", file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	var p Packet
	if err := r.Next(&p); err == nil || err == io.EOF {
		t.Errorf("Next after Close: %v", err)
	}
	if _, err := Open(filepath.Join(tempDir(t), "missing.pcap"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// "-" reads stdin, here a gzipped pcapng.
func TestStdin(t *testing.T) {
	file := gzipped(t, ngWriterFile(t, [][]byte{eth(0x0800, ipUDP(t, cli4, srv4, bcPl))}, nil))
	f, err := os.Open(writeTemp(t, "in", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()

	r, err := Open("-", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Name() != "stdin" || r.Format() != "pcapng" || !r.Compressed() {
		t.Errorf("name %q format %q compressed %v", r.Name(), r.Format(), r.Compressed())
	}
	if _, total := r.Progress(); total != -1 {
		t.Errorf("stdin size %d, want -1", total)
	}
	got, err := readAll(t, r)
	if err != io.EOF || len(got) != 1 || got[0].Src != cli4 {
		t.Fatalf("got %d packets, %v", len(got), err)
	}
}

// A file cut inside frame 13 yields frames 1..12, then an error naming the
// file and frame 13, then the same error again.
func TestTruncatedFile(t *testing.T) {
	var datas [][]byte
	for i := range 20 {
		datas = append(datas, eth(0x0800, ipUDP(t, cli4, srv4, []byte{byte(i), 1, 2, 3, 4, 5, 6, 7})))
	}
	pcap := pcapFile(t, 1, false, false, frames(datas...))
	rec := 16 + len(datas[0])
	at13 := 24 + 12*rec // start of record 13
	nb := &ngb{o: binary.LittleEndian}
	nb.shb().idb(1, 0)
	ngHead := len(nb.b)
	for i, d := range datas {
		nb.epb(0, uint64(i), d, 0)
	}
	ngRec := (len(nb.b) - ngHead) / 20
	ng13 := ngHead + 12*ngRec

	tests := []struct {
		name string
		file []byte
	}{
		{"pcap/in-data", pcap[:at13+16+30]},
		{"pcap/in-record-header", pcap[:at13+7]},
		{"pcapng/in-data", nb.b[:ng13+40]},
		{"pcapng/in-block-header", nb.b[:ng13+5]},
		{"pcapng/before-trailer", nb.b[:ng13+ngRec-2]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(writeTemp(t, "capture.pcap", tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := readAll(t, r)
			if len(got) != 12 || got[11].Frame != 12 {
				t.Fatalf("got %d packets before the error, want 12", len(got))
			}
			const msg = "capture.pcap: frame 13: truncated record (unexpected EOF)"
			var fe *FrameError
			if !errors.As(err, &fe) || fe.Frame != 13 || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasSuffix(err.Error(), string(filepath.Separator)+msg) {
				t.Fatalf("error %v, want ...%s", err, msg)
			}
			var p Packet
			if again := r.Next(&p); again != err {
				t.Errorf("second call: %v", again)
			}
		})
	}

	// A cut gzip stream also ends in a FrameError after the frames before it.
	gz := gzipped(t, pcap)
	r := openBytes(t, gz[:len(gz)*2/3], Options{})
	got, err := readAll(t, r)
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Frame != len(got)+1 || len(got) == 0 {
		t.Fatalf("cut gzip: %d packets, %v", len(got), err)
	}
}

func TestNotACapture(t *testing.T) {
	tests := []struct {
		name string
		file []byte
		msg  string
	}{
		{"text", []byte("hello, this is not a capture\n"), "capture.pcap: not a pcap or pcapng file"},
		{"empty", nil, "capture.pcap: not a pcap or pcapng file (empty file)"},
		{"three-bytes", []byte{0xd4, 0xc3, 0xb2}, "capture.pcap: not a pcap or pcapng file"},
		{"gzipped-text", gzipped(t, []byte("still not a capture")), "capture.pcap: not a pcap or pcapng file"},
		{"modified-pcap-magic", []byte{0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0}, "capture.pcap: not a pcap or pcapng file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(writeTemp(t, "capture.pcap", tc.file), Options{})
			if !errors.Is(err, ErrNotCapture) || !strings.HasSuffix(err.Error(), string(filepath.Separator)+tc.msg) {
				t.Fatalf("error %q, want %q", err, tc.msg)
			}
		})
	}
}
