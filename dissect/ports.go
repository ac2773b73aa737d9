package dissect

import (
	"bytes"
	"cmp"
	"net/netip"
	"slices"

	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
)

// LooksLikeGame reports whether a UDP payload deciphers (unless plain) and
// frames as a BC game datagram: a peer id, at least one message, every
// message of a known type, the header's count matching, no anomaly. Random
// payloads almost never pass all of it.
func LooksLikeGame(payload []byte, plain bool) bool {
	_, ok := gameFrame(payload, plain)
	return ok
}

// gameFrame is LooksLikeGame, with the sender's peer id.
func gameFrame(payload []byte, plain bool) (peer uint8, ok bool) {
	if len(payload) < 3 || IsGameSpy(payload) {
		return 0, false
	}
	b := append([]byte(nil), payload...)
	if !plain {
		cipher.Decrypt(b)
	}
	var d transport.Datagram
	transport.Decode(b, &d)
	if len(d.Anomalies) > 0 || len(d.Messages) == 0 || int(d.MsgCount) != len(d.Messages) {
		return 0, false
	}
	for i := range d.Messages {
		if !d.Messages[i].Type.Known() {
			return 0, false
		}
	}
	return d.PeerID, true
}

// PortFinder looks for BC traffic on UDP ports other than the game ports
// (bcdump -p auto, and the hint when a capture has nothing on them). Add
// every UDP datagram; Ports names the server ports of the endpoint pairs
// that exchanged enough datagrams that frame as BC.
type PortFinder struct {
	plain bool
	pairs map[[2]netip.AddrPort]*pairVotes
}

// pairVotes is what one pair of endpoints (lower one first) exchanged.
type pairVotes struct {
	game int    // datagrams that frame as BC
	srv  [2]int // evidence that endpoint 0 or 1 is the server
}

// maxFinderPairs bounds the endpoint pairs a PortFinder remembers.
const maxFinderPairs = 4096

// MinGameDatagrams is how many BC-looking datagrams a pair of endpoints
// must exchange before PortFinder names its server port.
const MinGameDatagrams = 3

// NewPortFinder returns an empty PortFinder; plain says payloads are
// deciphered already.
func NewPortFinder(plain bool) *PortFinder {
	return &PortFinder{plain: plain, pairs: map[[2]netip.AddrPort]*pairVotes{}}
}

// gameSpyReply is what a BC host's GameSpy status reply carries.
var gameSpyReply = []byte(`\gamename\bcommander`)

// Add looks at one packet (UDP on any port; others are ignored).
func (f *PortFinder) Add(p *capture.Packet) {
	if p.Kind != capture.KindMatched && p.Kind != capture.KindOtherPort {
		return
	}
	src, dst := p.Src, p.Dst
	key, si := [2]netip.AddrPort{src, dst}, 0
	if cmp.Or(src.Addr().Compare(dst.Addr()), cmp.Compare(src.Port(), dst.Port())) > 0 {
		key, si = [2]netip.AddrPort{dst, src}, 1
	}
	di := 1 - si
	server := -1 // index of the endpoint this datagram says is the server
	game := false
	if IsGameSpy(p.Payload) {
		if !bytes.Contains(p.Payload, gameSpyReply) {
			return
		}
		server = si // a BC host's status reply
	} else {
		peer, ok := gameFrame(p.Payload, f.plain)
		if !ok {
			return
		}
		game = true
		server = di // a client's datagram: no peer id yet (0xFF) or a client's
		if peer == 1 {
			server = si // the host is peer 1
		}
	}
	v := f.pairs[key]
	if v == nil {
		if len(f.pairs) >= maxFinderPairs {
			return
		}
		v = &pairVotes{}
		f.pairs[key] = v
	}
	if game {
		v.game++
	}
	v.srv[server]++
}

// Ports returns the server ports found, in order, without the ones in
// known.
func (f *PortFinder) Ports(known []uint16) []uint16 {
	var out []uint16
	for key, v := range f.pairs {
		if v.game < MinGameDatagrams || v.srv[0] == v.srv[1] {
			continue
		}
		port := key[0].Port()
		if v.srv[1] > v.srv[0] {
			port = key[1].Port()
		}
		if !slices.Contains(known, port) {
			out = append(out, port)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
