package dissect_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// hostileFrame is one UDP datagram of a hostile capture. origLen > 0 claims
// a longer original frame than the bytes present (a snap length cut).
type hostileFrame struct {
	src, dst netip.AddrPort
	at       time.Duration
	payload  []byte
	origLen  int
}

var (
	hServer = netip.MustParseAddrPort("10.0.0.1:22101")
	hClient = netip.MustParseAddrPort("10.0.0.2:40000")
	hEpoch  = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// game enciphers a plaintext datagram as a peer would send it.
func game(plain []byte) []byte {
	b := bytes.Clone(plain)
	cipher.Encrypt(b)
	return b
}

// c2s is a client datagram at t.
func c2s(at time.Duration, plain []byte) hostileFrame {
	return hostileFrame{src: hClient, dst: hServer, at: at, payload: game(plain)}
}

// ipv4UDP builds a raw IPv4/UDP frame (link type RAW).
func ipv4UDP(f hostileFrame) []byte {
	n := 28 + len(f.payload)
	b := make([]byte, 28, n)
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(min(n, 0xFFFF)))
	b[8], b[9] = 64, 17
	s, d := f.src.Addr().As4(), f.dst.Addr().As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	binary.BigEndian.PutUint16(b[20:], f.src.Port())
	binary.BigEndian.PutUint16(b[22:], f.dst.Port())
	binary.BigEndian.PutUint16(b[24:], uint16(min(8+len(f.payload), 0xFFFF)))
	return append(b, f.payload...)
}

// writeHostile writes frames as a pcap file and returns its bytes.
func writeHostile(t *testing.T, format string, frames []hostileFrame) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, format, layers.LinkTypeRaw)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		data := ipv4UDP(f)
		ci := gopacket.CaptureInfo{Timestamp: hEpoch.Add(f.at), Length: len(data)}
		if f.origLen > 0 {
			ci.Length = f.origLen
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// dataMsg is one type 0x32 message in a datagram of its own from the client.
func dataMsg(h transporttest.DataHeader, payload []byte) []byte {
	return transporttest.AppendData(transporttest.AppendHeader(nil, 2, 1), h, payload)
}

// fragPayload fills a fragment so the whole message is n bytes long.
func fragPayload(h transporttest.DataHeader, n int) []byte {
	hdr := len(transporttest.AppendData(nil, h, nil))
	p := bytes.Repeat([]byte{0x1C}, n-hdr)
	return p
}

// Hostile inputs through the whole dissector (capture reader, parallel
// pipeline, cipher, codec, tracker, opcode decoders): none may panic or
// hang, each stays within a memory bound, and the damage is reported.
func TestHostileDissect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tests := []struct {
		name    string
		frames  func() []hostileFrame
		cut     int    // bytes cut off the end of the file
		pcapng  bool   // write pcapng and break the last block's trailing length
		wantErr bool   // the reader must fail (damaged file)
		anomaly string // an anomaly code that must be reported, if any
	}{
		{name: "zero-length payload", frames: func() []hostileFrame { return []hostileFrame{c2s(0, nil)} }},
		{name: "one-byte payload", frames: func() []hostileFrame { return []hostileFrame{c2s(0, []byte{2})} }},
		{name: "maximal payload, random", frames: func() []hostileFrame {
			return []hostileFrame{{src: hClient, dst: hServer, payload: randBytes(rng, 65507)}}
		}},
		{name: "255 messages, the first claiming 8191 bytes of 300", frames: func() []hostileFrame {
			p := transporttest.AppendHeader(nil, 2, 255)
			p = append(p, 0x32, 0xFF, 0x1F)
			return []hostileFrame{c2s(0, append(p, randBytes(rng, 300)...))}
		}, anomaly: "length-overrun"},
		{name: "maximal message lengths back to back", frames: func() []hostileFrame {
			p := transporttest.AppendHeader(nil, 2, 255)
			for len(p)+8191 <= 65507 {
				p = transporttest.AppendData(p, transporttest.DataHeader{}, bytes.Repeat([]byte{0x1C}, 8188))
			}
			return []hostileFrame{c2s(0, p)}
		}},
		{name: "256 fragments of 8191 bytes", frames: func() []hostileFrame {
			var fs []hostileFrame
			for i := range 256 {
				h := transporttest.DataHeader{Reliable: true, Seq: 9, Fragment: true, FragIdx: uint8(i), FragTotal: 255}
				fs = append(fs, c2s(time.Duration(i)*time.Millisecond, dataMsg(h, fragPayload(h, 8191))))
			}
			return fs
		}},
		{name: "fragment total of 0", frames: func() []hostileFrame {
			h0 := transporttest.DataHeader{Reliable: true, Seq: 3, Fragment: true, FragIdx: 0, FragTotal: 0}
			h1 := transporttest.DataHeader{Reliable: true, Seq: 3, Fragment: true, FragIdx: 1}
			return []hostileFrame{c2s(0, dataMsg(h0, []byte{0x1C, 1, 2})), c2s(time.Millisecond, dataMsg(h1, []byte{3, 4}))}
		}},
		{name: "seq wrap-around", frames: func() []hostileFrame {
			var fs []hostileFrame
			for i := range 40 {
				seq := uint16(65520 + i) // wraps to 0 after 16
				fs = append(fs, c2s(time.Duration(i)*time.Millisecond,
					dataMsg(transporttest.DataHeader{Reliable: true, Seq: seq}, []byte{0x07, 1, 2, 3, 4, 5})))
				ack := transporttest.AppendACK(transporttest.AppendHeader(nil, 1, 1), seq, false, false, 0)
				fs = append(fs, hostileFrame{src: hServer, dst: hClient, at: time.Duration(i)*time.Millisecond + 100, payload: game(ack)})
			}
			return fs
		}},
		{name: "40,000 flows", frames: func() []hostileFrame {
			var fs []hostileFrame
			for i := range 40000 {
				src := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), uint16(1024+i))
				p := dataMsg(transporttest.DataHeader{Reliable: true, Seq: uint16(i)}, []byte{0x07, 1, 2, 3})
				fs = append(fs, hostileFrame{src: src, dst: hServer, at: time.Duration(i) * time.Microsecond, payload: game(p)})
			}
			return fs
		}},
		{name: "frames cut by snaplen", frames: func() []hostileFrame {
			p := dataMsg(transporttest.DataHeader{Reliable: true, Seq: 1}, bytes.Repeat([]byte{0x07}, 200))
			f := c2s(0, p[:40])
			f.origLen = 28 + len(p)
			return []hostileFrame{f, f}
		}},
		{name: "truncated last record", frames: func() []hostileFrame {
			return []hostileFrame{c2s(0, dataMsg(transporttest.DataHeader{}, []byte{0x1C, 1, 2, 3})),
				c2s(time.Millisecond, dataMsg(transporttest.DataHeader{}, []byte{0x1C, 1, 2, 3}))}
		}, cut: 5, wantErr: true},
		{name: "pcapng block with a wrong length", frames: func() []hostileFrame {
			return []hostileFrame{c2s(0, dataMsg(transporttest.DataHeader{}, []byte{0x1C, 1, 2, 3})),
				c2s(time.Millisecond, dataMsg(transporttest.DataHeader{}, []byte{0x1C, 1, 2, 3}))}
		}, pcapng: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			format := "pcap"
			if tt.pcapng {
				format = "pcapng"
			}
			file := writeHostile(t, format, tt.frames())
			file = file[:len(file)-tt.cut]
			if tt.pcapng {
				binary.LittleEndian.PutUint32(file[len(file)-4:], 0xFFFFFFF0)
			}
			path := filepath.Join(tempDir(t), "hostile.pcap")
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			before := heapInuse()
			r, err := capture.Open(path, capture.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			codes := map[string]int{}
			n := 0
			var during uint64
			runErr := dissect.NewSession(dissect.SessionOptions{}).Run(context.Background(), r, dissect.SinkFuncs{
				OnDatagram: func(dg *dissect.Datagram) error {
					n++
					for _, a := range dg.Anomalies {
						codes[a.Code.String()]++
					}
					return nil
				},
				OnFinish: func(end []dissect.Event) error {
					during = heapInuse()
					for _, e := range end {
						codes[e.Code.String()]++
					}
					return nil
				},
			})
			if (runErr != nil) != tt.wantErr {
				t.Errorf("Run error %v, want error %v", runErr, tt.wantErr)
			}
			if n == 0 {
				t.Error("no datagram reached fn")
			}
			if tt.anomaly != "" && codes[tt.anomaly] == 0 {
				t.Errorf("no %s anomaly; got %v", tt.anomaly, codes)
			}
			// The tracker bounds the state of its flows together
			// (MaxFlowBytes, about 700 KB per hostile flow at most); what
			// is left after Finish must be small.
			if during > before+64<<20 {
				t.Errorf("heap grew by %.1f MB", float64(during-before)/1e6)
			}
			t.Logf("%d datagrams, heap +%.1f MB, anomalies %v", n, (float64(during)-float64(before))/1e6, codes)
		})
	}
}
