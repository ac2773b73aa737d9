// Package transporttest builds plaintext BC transport datagrams for tests
// and the sample generator (dissect/dissecttest). The Append* encoders trust
// their arguments; decoding real bytes is what package transport is for.
//
// It does not import package transport, so transport's own tests can use
// it: the wire constants below are written from the protocol, not shared
// with the decoder, which keeps the encoder an independent check on it.
package transporttest

import (
	"encoding/binary"
	"unicode/utf16"
)

// Transport types the encoders write themselves.
const (
	typeACK  = 0x01
	typeData = 0x32
)

// flags_len bits.
const (
	flagReliable = 0x8000
	flagOrdered  = 0x4000
	flagFragment = 0x2000 // type 0x32 only
	lowLenMask   = 0x3FFF // 14-bit length of the low types
	dataLenMask  = 0x1FFF // 13-bit length of type 0x32
)

// ACK flag bits.
const (
	ackFlagFrag = 0x01 // a fragment is acknowledged; frag_idx follows
	ackFlagLow  = 0x02 // acknowledges a low-type message
)

// AppendHeader appends the datagram header: sender peer id and msg_count.
func AppendHeader(dst []byte, peerID, msgCount uint8) []byte {
	return append(dst, peerID, msgCount)
}

// AppendACK appends an ACK for seq. frag adds the fragment index byte; low
// marks an ACK for a low-type message.
func AppendACK(dst []byte, seq uint16, low, frag bool, fragIdx uint8) []byte {
	var flags uint8
	if frag {
		flags |= ackFlagFrag
	}
	if low {
		flags |= ackFlagLow
	}
	dst = append(dst, typeACK)
	dst = binary.LittleEndian.AppendUint16(dst, seq)
	dst = append(dst, flags)
	if frag {
		dst = append(dst, fragIdx)
	}
	return dst
}

// AppendLow appends a low-type message (0x00, 0x02-0x05) with its 14-bit
// length header. t is the message type: a transport.Type or a plain byte.
func AppendLow[T ~uint8](dst []byte, t T, reliable, ordered bool, seq uint16, payload []byte) []byte {
	hdr := 3
	if reliable {
		hdr += 2
	}
	fl := uint16(hdr+len(payload)) & lowLenMask
	if reliable {
		fl |= flagReliable
	}
	if ordered {
		fl |= flagOrdered
	}
	dst = append(dst, byte(t))
	dst = binary.LittleEndian.AppendUint16(dst, fl)
	if reliable {
		dst = binary.LittleEndian.AppendUint16(dst, seq)
	}
	return append(dst, payload...)
}

// DataHeader describes a type 0x32 message for AppendData.
type DataHeader struct {
	Reliable, Ordered bool
	Seq               uint16
	Fragment          bool
	FragIdx           uint8
	FragTotal         uint8 // written only on fragment 0
}

// AppendData appends a type 0x32 message with its 13-bit length header.
func AppendData(dst []byte, h DataHeader, payload []byte) []byte {
	hdr := 3
	if h.Reliable {
		hdr += 2
	}
	if h.Fragment {
		hdr++
		if h.FragIdx == 0 {
			hdr++
		}
	}
	fl := uint16(hdr+len(payload)) & dataLenMask
	if h.Reliable {
		fl |= flagReliable
	}
	if h.Ordered {
		fl |= flagOrdered
	}
	if h.Fragment {
		fl |= flagFragment
	}
	dst = append(dst, typeData)
	dst = binary.LittleEndian.AppendUint16(dst, fl)
	if h.Reliable {
		dst = binary.LittleEndian.AppendUint16(dst, h.Seq)
	}
	if h.Fragment {
		dst = append(dst, h.FragIdx)
		if h.FragIdx == 0 {
			dst = append(dst, h.FragTotal)
		}
	}
	return append(dst, payload...)
}

// AppendPeerInfo appends a type 0x00 payload: peer id, IPv4 address and the
// player name in UTF-16LE with a 0x0000 terminator.
func AppendPeerInfo(dst []byte, peerID uint8, addr [4]byte, name string) []byte {
	dst = append(dst, peerID)
	dst = append(dst, addr[:]...)
	for _, r := range utf16.Encode([]rune(name)) {
		dst = append(dst, byte(r), byte(r>>8))
	}
	return append(dst, 0, 0)
}
