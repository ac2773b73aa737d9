package dissecttest

import (
	"encoding/binary"
	"io"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport/transporttest"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// ManyFlows writes a classic pcap of flows clients connecting to one
// server within span: each client (its own address in 10.0.0.0/8 and port)
// sends the stock connect request, and with reply the server answers it
// with the connect assignment and checksum request of the sample (a
// reliable message each way, so every flow holds window state). It is the
// capture for the tracker's memory bound: every flow is active at once
// when span is under the flow idle limit.
func ManyFlows(w io.Writer, flows int, span time.Duration, reply bool) error {
	s := Sample()
	var connect, assign []byte
	for i := range s.Datagrams {
		d := &s.Datagrams[i]
		if len(d.Plain) > 0 && d.Plain[0] == 0xFF && d.C2S && connect == nil {
			f, err := s.Frame(d)
			if err != nil {
				return err
			}
			connect = f
		} else if connect != nil && !d.C2S && assign == nil {
			f, err := s.Frame(d)
			if err != nil {
				return err
			}
			assign = f
		}
	}
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	start := SampleStart
	step := span / time.Duration(max(flows, 1))
	for i := range flows {
		client := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		port := uint16(1024 + i%60000)
		t := start.Add(time.Duration(i) * step)
		if err := writeFrom(pw, connect, t, client, port, true); err != nil {
			return err
		}
		if reply {
			if err := writeFrom(pw, assign, t.Add(step/2), client, port, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeFrom writes an Ethernet/IPv4/UDP frame of the sample with the
// client's address and port put in (IP checksum recomputed, UDP checksum
// left out, which IPv4 allows).
func writeFrom(pw *pcapgo.Writer, frame []byte, t time.Time, client netip.Addr, port uint16, c2s bool) error {
	ip := frame[14:34]
	a := client.As4()
	if c2s {
		copy(ip[12:16], a[:])
		binary.BigEndian.PutUint16(frame[34:36], port)
	} else {
		copy(ip[16:20], a[:])
		binary.BigEndian.PutUint16(frame[36:38], port)
	}
	binary.BigEndian.PutUint16(frame[40:42], 0)
	binary.BigEndian.PutUint16(ip[10:12], 0)
	var sum uint32
	for i := 0; i < 20; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(ip[i:]))
	}
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	binary.BigEndian.PutUint16(ip[10:12], ^uint16(sum))
	ci := gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(frame), Length: len(frame)}
	return pw.WritePacket(ci, frame)
}

// ManyFragmentFlows writes a classic pcap of flows clients within span,
// each sending one datagram: fragment 0 of a reliable message of three
// fragments whose other two never come (64 payload bytes, the opening of
// a PythonEvent). Every flow then holds an incomplete reassembly until it
// times out or is evicted: the capture for the bounds of reassembly state
// per flow (bcdump's tracker, the Wireshark plugin's flows table).
func ManyFragmentFlows(w io.Writer, flows int, span time.Duration) error {
	payload := make([]byte, 64)
	payload[0] = 0x06
	for i := 1; i < len(payload); i++ {
		payload[i] = byte(i)
	}
	dg := transporttest.AppendHeader(nil, 2, 1)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Seq: 1, Fragment: true, FragTotal: 3}, payload)
	s := New(netip.MustParseAddrPort("10.0.0.1:1024"), netip.MustParseAddrPort("192.168.1.1:22101"), SampleStart)
	s.Add(0, true, dg)
	frame, err := s.Frame(&s.Datagrams[0])
	if err != nil {
		return err
	}
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	step := span / time.Duration(max(flows, 1))
	for i := range flows {
		client := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		port := uint16(1024 + i%60000)
		if err := writeFrom(pw, frame, SampleStart.Add(time.Duration(i)*step), client, port, true); err != nil {
			return err
		}
	}
	return nil
}
