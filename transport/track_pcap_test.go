package transport

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"testing"
	"time"
)

// A test-only classic-pcap reader (the capture package is someone else's):
// enough to turn the reference captures into UDP payloads with endpoints.

type trkUDP struct {
	Time     time.Time
	Src, Dst netip.AddrPort
	Payload  []byte
}

func trkReadPcap(t testing.TB, path string) []trkUDP {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 24 {
		t.Fatalf("%s: too short for a pcap header", path)
	}
	var bo binary.ByteOrder
	nano := false
	switch binary.LittleEndian.Uint32(b) {
	case 0xA1B2C3D4:
		bo = binary.LittleEndian
	case 0xA1B23C4D:
		bo, nano = binary.LittleEndian, true
	case 0xD4C3B2A1:
		bo = binary.BigEndian
	case 0x4D3CB2A1:
		bo, nano = binary.BigEndian, true
	default:
		t.Fatalf("%s: not a classic pcap file", path)
	}
	link := bo.Uint32(b[20:]) & 0xFFFF
	var out []trkUDP
	for off := 24; off+16 <= len(b); {
		sec, frac := bo.Uint32(b[off:]), bo.Uint32(b[off+4:])
		incl := int(bo.Uint32(b[off+8:]))
		off += 16
		if incl > len(b)-off {
			t.Fatalf("%s: truncated record at %d", path, off)
		}
		pkt := b[off : off+incl]
		off += incl
		if !nano {
			frac *= 1000
		}
		ip, err := trkLinkStrip(link, pkt)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		u, ok := trkUDPOf(ip)
		if !ok {
			continue
		}
		u.Time = time.Unix(int64(sec), int64(frac)).UTC()
		out = append(out, u)
	}
	return out
}

// trkLinkStrip returns the IP packet inside a link-layer frame.
func trkLinkStrip(link uint32, p []byte) ([]byte, error) {
	switch link {
	case 1: // Ethernet, optional 802.1Q tags
		off, et := 12, 0
		for {
			if len(p) < off+2 {
				return nil, fmt.Errorf("short Ethernet frame")
			}
			et = int(binary.BigEndian.Uint16(p[off:]))
			off += 2
			if et != 0x8100 && et != 0x88A8 {
				break
			}
			off += 2
		}
		return p[off:], nil
	case 0, 108: // BSD loopback: 4-byte family
		if len(p) < 4 {
			return nil, fmt.Errorf("short loopback frame")
		}
		return p[4:], nil
	case 101, 228, 229: // raw IP
		return p, nil
	case 113: // Linux cooked
		if len(p) < 16 {
			return nil, fmt.Errorf("short SLL frame")
		}
		return p[16:], nil
	}
	return nil, fmt.Errorf("link type %d not supported by the test reader", link)
}

func trkUDPOf(ip []byte) (trkUDP, bool) {
	if len(ip) < 1 {
		return trkUDP{}, false
	}
	var src, dst netip.Addr
	var udp []byte
	switch ip[0] >> 4 {
	case 4:
		ihl := int(ip[0]&15) * 4
		if len(ip) < 20 || ip[9] != 17 || len(ip) < ihl+8 {
			return trkUDP{}, false
		}
		src, dst = netip.AddrFrom4([4]byte(ip[12:16])), netip.AddrFrom4([4]byte(ip[16:20]))
		udp = ip[ihl:]
	case 6:
		if len(ip) < 48 || ip[6] != 17 {
			return trkUDP{}, false
		}
		src, dst = netip.AddrFrom16([16]byte(ip[8:24])), netip.AddrFrom16([16]byte(ip[24:40]))
		udp = ip[40:]
	default:
		return trkUDP{}, false
	}
	n := int(binary.BigEndian.Uint16(udp[4:]))
	if n < 8 || n > len(udp) {
		n = len(udp)
	}
	return trkUDP{
		Src:     netip.AddrPortFrom(src, binary.BigEndian.Uint16(udp)),
		Dst:     netip.AddrPortFrom(dst, binary.BigEndian.Uint16(udp[2:])),
		Payload: udp[8:n],
	}, true
}

// testdata is the module's testdata directory, relative to this package.
const testdata = "../testdata"
