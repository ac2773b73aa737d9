package transport

import (
	"errors"
	"net/netip"
	"unicode/utf16"
	"unicode/utf8"
)

// Payloads of the connection-management types, as far as protocol-facts 4.2
// documents them.

var (
	errShortPayload = errors.New("payload too short")
	errNoNameEnd    = errors.New("player name has no 00 00 terminator")
)

// PeerInfo is the type 0x00 payload: peer id, IPv4 address and the player
// name in UTF-16LE ending with 00 00.
type PeerInfo struct {
	PeerID  uint8
	Addr    netip.Addr
	Name    string
	NameLen int    // bytes of the name including the terminator
	RawName []byte // the name's UTF-16LE bytes without the terminator (aliases the payload)
}

// ParsePeerInfo decodes a type 0x00 payload.
func ParsePeerInfo(p []byte) (PeerInfo, error) {
	pi, err := ParsePeerInfoRaw(p)
	if len(p) >= 5 {
		pi.Name = string(AppendUTF16LE(nil, pi.RawName))
	}
	return pi, err
}

// ParsePeerInfoRaw is ParsePeerInfo without decoding the name into Name,
// which allocates: decode RawName with AppendUTF16LE where it is needed.
func ParsePeerInfoRaw(p []byte) (PeerInfo, error) {
	var pi PeerInfo
	if len(p) < 5 {
		return pi, errShortPayload
	}
	pi.PeerID = p[0]
	pi.Addr = netip.AddrFrom4([4]byte(p[1:5]))
	name := p[5:]
	for i := 0; i+1 < len(name); i += 2 {
		if name[i] == 0 && name[i+1] == 0 {
			pi.NameLen, pi.RawName = i+2, name[:i:i]
			return pi, nil
		}
	}
	pi.NameLen, pi.RawName = len(name), name
	return pi, errNoNameEnd
}

// AppendUTF16LE appends the UTF-16LE text b as UTF-8, as
// string(utf16.Decode(units)) would: an unpaired surrogate becomes U+FFFD;
// an odd last byte is ignored.
func AppendUTF16LE(dst, b []byte) []byte {
	for i := 0; i+1 < len(b); i += 2 {
		r := rune(uint16(b[i]) | uint16(b[i+1])<<8)
		if utf16.IsSurrogate(r) {
			if i+3 < len(b) {
				r2 := rune(uint16(b[i+2]) | uint16(b[i+3])<<8)
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					dst = utf8.AppendRune(dst, dec)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// ConnectRequest is the type 0x03 payload a client sends from peer id 0xFF:
// its IPv4 address, two bytes that are probably its port (byte order
// unresolved) and four bytes never seen non-zero.
type ConnectRequest struct {
	Addr  netip.Addr
	Port  [2]byte
	Extra []byte
}

// ParseConnectRequest decodes a type 0x03 request payload.
func ParseConnectRequest(p []byte) (ConnectRequest, error) {
	if len(p) < 6 {
		return ConnectRequest{}, errShortPayload
	}
	return ConnectRequest{Addr: netip.AddrFrom4([4]byte(p[0:4])), Port: [2]byte(p[4:6]), Extra: p[6:]}, nil
}

// ParseConnectAssign decodes the host's type 0x03 reply: the peer id the
// client uses from now on.
func ParseConnectAssign(p []byte) (uint8, error) {
	if len(p) < 1 {
		return 0, errShortPayload
	}
	return p[0], nil
}

// Disconnect is the type 0x05 payload: the departing peer's id and IPv4.
type Disconnect struct {
	PeerID uint8
	Addr   netip.Addr
}

// ParseDisconnect decodes a type 0x05 payload.
func ParseDisconnect(p []byte) (Disconnect, error) {
	if len(p) < 5 {
		return Disconnect{}, errShortPayload
	}
	return Disconnect{PeerID: p[0], Addr: netip.AddrFrom4([4]byte(p[1:5]))}, nil
}
