package transport

import "encoding/binary"

// The Append* encoders build plaintext datagrams for tests and the sample
// generator. They trust their arguments; decoding real bytes is what the
// dissector is for.

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
	dst = append(dst, byte(TypeACK))
	dst = binary.LittleEndian.AppendUint16(dst, seq)
	dst = append(dst, flags)
	if frag {
		dst = append(dst, fragIdx)
	}
	return dst
}

// AppendLow appends a low-type message (0x00, 0x02-0x05) with its 14-bit
// length header.
func AppendLow(dst []byte, t Type, reliable, ordered bool, seq uint16, payload []byte) []byte {
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
	dst = append(dst, byte(TypeData))
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
