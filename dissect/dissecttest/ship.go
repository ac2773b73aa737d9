package dissecttest

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/bcdump/bcdump/transport/transporttest"
)

// ShipCreate is the stock join's start, then a client datagram holding a
// well-formed ship ObjCreateTeam (class 0x8008: position, an orientation
// array of four unnamed f32 values, the player's and the set's names,
// subsystem state) followed by a Chat in the same datagram: a message
// shape the bundled captures lack, whose unnamed floats the Wireshark
// plugin once added to a field declared FT_NONE.
func ShipCreate() *Session {
	s := connectPrefix()
	dg := transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendData(dg, rel(1), shipCreateTeam())
	dg = transporttest.AppendData(dg, rel(2), chat("ready"))
	s.Add(200*time.Millisecond, true, dg)
	return s
}

// shipCreateTeam is an ObjCreateTeam 0x03 of a Sovereign (species 5) for
// the player in slot 1, team 2 (protocol-facts 7.2).
func shipCreateTeam() []byte {
	f32 := func(b []byte, v float32) []byte { return binary.LittleEndian.AppendUint32(b, math.Float32bits(v)) }
	p := []byte{0x03, 1, 2}
	p = binary.LittleEndian.AppendUint32(p, 0x00008008)
	p = binary.LittleEndian.AppendUint32(p, 0x40040001)
	p = append(p, 5)
	for _, v := range []float32{12.5, -3.25, 100} {
		p = f32(p, v)
	}
	for _, v := range []float32{1, 0, 0.5, -0.25} {
		p = f32(p, v)
	}
	p = f32(p, 7.75)
	p = append(p, 0, 0, 0)
	p = append(p, 5)
	p = append(p, "Cady2"...)
	p = append(p, 8)
	p = append(p, "Mission1"...)
	return append(p, 0xFF, 0x40, 0x00, 0x7F)
}
