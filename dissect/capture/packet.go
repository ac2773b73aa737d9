package capture

import (
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// DefaultPort is the UDP port Bridge Commander 1.1 hosts listen on.
const DefaultPort = 22101

// Options select what a Reader returns.
type Options struct {
	// Ports are the UDP ports of interest; a datagram matches when its source
	// or destination port is one of them. Empty means {DefaultPort}.
	Ports []uint16
	// AllFrames makes Next return every frame, not only matching datagrams,
	// so that a caller can copy a whole capture (decrypt -w). Frames that do
	// not match carry a Kind other than KindMatched.
	AllFrames bool
	// OtherPort, when set, sees every UDP datagram on no selected port
	// before it is skipped (p is valid only during the call), so a caller
	// can look for BC traffic on other ports in the same pass. It runs on
	// the goroutine calling Next.
	OtherPort func(p *Packet)
	// Trace fills in what trace files do not record.
	Trace TraceOptions
}

// TraceOptions fill in what trace files (trace.go) do not record.
type TraceOptions struct {
	// Server is the server's address; zero means DefaultTraceServer.
	// IPv4 only.
	Server netip.AddrPort
	// Tick is the length of an OBCTRACE tick; 0 means DefaultTraceTick.
	Tick time.Duration
}

// Kind says what a frame turned out to be. Every frame gets exactly one kind,
// and Stats counts frames per kind.
type Kind uint8

const (
	KindMatched     Kind = iota // UDP with a selected source or destination port
	KindOtherPort               // UDP on other ports
	KindNonUDP                  // IP, but not UDP
	KindNonIP                   // link layer carries something other than IP
	KindFragment                // IP fragment other than a whole datagram
	KindUnsupported             // link type this package does not decode
	KindMalformed               // headers cut short or invalid
)

var kindNames = [...]string{"matched", "other-port", "non-udp", "non-ip", "fragment", "unsupported-link", "malformed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Packet is one frame as returned by Reader.Next. The slices alias the
// reader's buffer: they are valid until the next call to Next, and a caller
// that keeps them must copy. Callers may modify Payload in place (decryption)
// and then write Data out; see FixUDPChecksum.
type Packet struct {
	Frame     int       // 1-based index among all frames of the file, as Wireshark counts
	Time      time.Time // capture time, UTC
	Kind      Kind
	Src, Dst  netip.AddrPort // set for KindMatched and KindOtherPort
	Payload   []byte         // UDP payload as captured (may be shorter than the UDP length)
	Truncated bool           // the capture holds less of the datagram than its headers claim
	// Missing is how many bytes of the UDP payload the capture lacks (the
	// UDP length minus what was captured): set when the snap length cut
	// the datagram, 0 when the payload is whole or its length unknown.
	Missing int
	// Fragments is the number of IP fragments the datagram was reassembled
	// from (0: it was not fragmented). Frame and Time are then those of the
	// fragment that completed it, and Data is the reassembled IP packet
	// (LinkType raw IP).
	Fragments int
	// FragFrames are the frames of those fragments, in capture order (nil
	// when not fragmented): what a copy of the datagram must write. Valid
	// until the next Next.
	FragFrames []int
	// FragsLost, on a datagram some of whose IP fragments the capture
	// lacks, says which (the ip-fragment-incomplete note): the datagram is
	// returned cut after the bytes received from its start (Missing).
	FragsLost string
	// Lost lists the fragmented datagrams given up since the previous
	// datagram returned whose first fragment, with the ports, the capture
	// lacks: they cannot be placed in a flow, so the flows between their
	// hosts may have lost messages before this datagram (the
	// ip-fragment-incomplete note). Usually nil; a new slice when set.
	Lost []Note
	// Comment is what a trace file says of the datagram besides its bytes
	// (packet_trace.log: its SEQ, rc and tags); "" for captures.
	Comment string
	// TimeNote says how the record's time was mended, "" when it was read
	// as written: a fraction of a second out of range read as 0, a time
	// outside the years 0000-9999 set to the nearest end (the
	// capture-time note).
	TimeNote string

	Data           []byte // the whole captured frame
	PayloadOffset  int    // Payload == Data[PayloadOffset:PayloadOffset+len(Payload)]
	LinkType       layers.LinkType
	InterfaceIndex int // pcapng interface within its section; 0 for pcap
	CaptureInfo    gopacket.CaptureInfo

	section int // pcapng section the interface index refers to
}

// reset clears what the previous frame left behind.
func (p *Packet) reset() {
	p.Src, p.Dst = netip.AddrPort{}, netip.AddrPort{}
	p.Payload = nil
	p.PayloadOffset = 0
	p.Truncated = false
	p.Missing = 0
	p.Fragments = 0
	p.FragFrames = nil
	p.FragsLost = ""
	p.Lost = nil
	p.Comment = ""
	p.TimeNote = ""
}

// LenExcess is how many captured bytes exceed the record's original length
// (CaptureInfo.Length): 0 except for records of broken writers, which are
// read as Wireshark reads them, every captured byte kept and decoded.
func (p *Packet) LenExcess() int {
	return max(p.CaptureInfo.CaptureLength-p.CaptureInfo.Length, 0)
}

// Stats counts frames by what happened to them. Frames is the sum of all
// other fields except UDP, Truncated, Reassembled and LenExcess.
type Stats struct {
	Frames      int // all frames read, returned or not
	UDP         int // Matched + OtherPort
	Matched     int // UDP on a selected port
	Truncated   int // of Matched: payload cut short by the snap length
	OtherPort   int // UDP, neither port selected
	NonUDP      int // IPv4/IPv6 carrying another protocol
	NonIP       int // ARP, LLC, unknown loopback families, ...
	Fragments   int // IP fragments (MF set or a non-zero offset) other than those that completed a datagram
	Reassembled int // of Matched and OtherPort: datagrams reassembled from IP fragments (counted once, on their last fragment)
	Incomplete  int // fragmented UDP datagrams given up with fragments missing (not frames: their fragments count in Fragments)
	LenExcess   int // records whose captured length exceeds their original length
	Unsupported int // frames on an interface with a link type not decoded here
	Malformed   int // link, IP or UDP header cut short or invalid
}

func (s *Stats) count(k Kind) {
	s.Frames++
	switch k {
	case KindMatched:
		s.Matched++
		s.UDP++
	case KindOtherPort:
		s.OtherPort++
		s.UDP++
	case KindNonUDP:
		s.NonUDP++
	case KindNonIP:
		s.NonIP++
	case KindFragment:
		s.Fragments++
	case KindUnsupported:
		s.Unsupported++
	default:
		s.Malformed++
	}
}
