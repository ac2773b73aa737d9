// Package dissecttest is test support for bcdump, in the manner of
// net/http/httptest: it builds deterministic BC sessions as packet captures,
// the bundled sample and scripted scenarios for tests (the stock
// fragmented-ACK bug, every anomaly, live-capture replays). Datagrams are
// given as plaintext and enciphered on output, exactly as a stock peer would
// send them. No production package imports it.
//
// The conformance capture (testdata/captures/conformance.pcap) is made
// from the layout table (dissect/game.Layouts), not from captured traffic:
// for every opcode with a layout, messages whose values are chosen so that
// together they take every branch of every layout (each switch case and the
// default, each if both ways, every repeated or paired array empty and not,
// every string at length 0 and at its longest, checksum trees nested to the
// deepest level bcdump accepts), in both directions, each datagram
// enciphered as a stock peer sends it. Then the transport shapes: long
// messages in fragments, a fragmented message retransmitted whole and in
// part, fragments out of order and repeated, retransmitted single
// messages, and the ACK forms (plain, low, fragment, bundled).
//
// Beside it, conformance.truth.jsonl holds what each message decodes to,
// written from the values the generator encoded, not by bcdump's decoders:
// one line per decoded message (frame, index in the datagram, opcode, the
// fields as bcdump's JSON has them, with labels, and the branches it
// takes), one per fragment bcdump must mark a duplicate. go generate
// rewrites both; TestConformanceUpToDate fails when they are stale, and
// TestConformanceCoversLayouts when the table has a branch the generator
// does not reach (a new opcode or branch fails until it is covered).
//
// Values are drawn from a seeded generator, so the output is the same on
// every run: candidate values for a kept variable come from the layout
// (case values, compared values, masks, counts) and the generator keeps
// drawing messages for an opcode while they take branches not yet taken.
// cmd/bcdump's tests hold bcdump's JSON, every output and the Wireshark
// plugin (in tshark) to the capture; BranchesOf, a tracer of the layouts,
// counts the branches the messages of every test capture take
// (TestBranchCoverage prints the table).
package dissecttest

import (
	"encoding/hex"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/bcdump/bcdump/cipher"
)

// Datagram is one plaintext game datagram (or GameSpy text) of a session.
type Datagram struct {
	Time  time.Time
	C2S   bool   // client to server
	Plain []byte // deciphered bytes; enciphered when written unless GameSpy
}

// Session is a scripted exchange between one client and one server.
type Session struct {
	Client, Server netip.AddrPort
	Datagrams      []Datagram
	now            time.Time
}

// New starts a session at start.
func New(client, server netip.AddrPort, start time.Time) *Session {
	return &Session{Client: client, Server: server, now: start}
}

// Add appends a datagram dt after the previous one.
func (s *Session) Add(dt time.Duration, c2s bool, plain []byte) {
	s.now = s.now.Add(dt)
	s.Datagrams = append(s.Datagrams, Datagram{Time: s.now, C2S: c2s, Plain: plain})
}

// AddHex is Add with the datagram in hex (spaces allowed), for dumps copied
// from traces.
func (s *Session) AddHex(dt time.Duration, c2s bool, h string) {
	b, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
	if err != nil {
		panic("dissecttest: bad hex in script: " + err.Error())
	}
	s.Add(dt, c2s, b)
}

// Wire returns the datagram as sent: enciphered, except GameSpy text.
func (d *Datagram) Wire() []byte {
	b := append([]byte(nil), d.Plain...)
	if len(b) > 0 && b[0] != '\\' {
		cipher.Encrypt(b)
	}
	return b
}

// WritePcap writes the session as a classic pcap with Ethernet, IPv4 or
// IPv6, and UDP headers with correct checksums.
func (s *Session) WritePcap(w io.Writer) error {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	for i := range s.Datagrams {
		frame, err := s.Frame(&s.Datagrams[i])
		if err != nil {
			return err
		}
		ci := gopacket.CaptureInfo{Timestamp: s.Datagrams[i].Time, CaptureLength: len(frame), Length: len(frame)}
		if err := pw.WritePacket(ci, frame); err != nil {
			return err
		}
	}
	return nil
}

var (
	macClient = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
	macServer = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
)

// Frame serializes one datagram as an Ethernet frame.
func (s *Session) Frame(d *Datagram) ([]byte, error) {
	src, dst := s.Client, s.Server
	smac, dmac := macClient, macServer
	if !d.C2S {
		src, dst, smac, dmac = dst, src, dmac, smac
	}
	eth := &layers.Ethernet{SrcMAC: smac, DstMAC: dmac, EthernetType: layers.EthernetTypeIPv4}
	udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	var ip gopacket.NetworkLayer
	if src.Addr().Is4() {
		ip4 := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP,
			SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		ip = ip4
	} else {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip = &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP,
			SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		return nil, err
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	err := gopacket.SerializeLayers(buf, opts, eth, ip.(gopacket.SerializableLayer), udp, gopacket.Payload(d.Wire()))
	return buf.Bytes(), err
}
