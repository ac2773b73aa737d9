package game

import (
	"encoding/binary"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// NonStock names a payload that does not fit its stock layout because it
// has a shape another implementation writes (OpenBC's codec): the
// anomaly code, the offset of the deviation and what stock does instead.
// ok is false for every other payload, malformed or not. The Wireshark
// plugin applies the same rules (report/wireshark).
func NonStock(p []byte) (code anomaly.Code, off int, msg string, ok bool) {
	code, off, ok = NonStockCode(p)
	switch {
	case !ok:
		return 0, 0, "", false
	case code == anomaly.NonStockTorpedoFire:
		msg = "TorpedoFire of 19 bytes with flags " + hex2(p[6]) +
			": its target is gated on flags bit 1 and its target offset is 5 bytes, as OpenBC's codec writes it; stock gates the target on flags bit 2 clear and writes a 4-byte offset (18 bytes)"
	default:
		msg = Lookup(p[0]).Name + " ship body without the class id: object id " + hex8(binary.LittleEndian.Uint32(p[off:])) +
			" follows the envelope, as OpenBC writes it; stock writes the class id (0x00008008 ship, 0x00008009 torpedo) before the object id"
	}
	return code, off, msg, true
}

// NonStockCode is NonStock without the message (which allocates), for
// the table's brief line.
func NonStockCode(p []byte) (code anomaly.Code, off int, ok bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	switch p[0] {
	case 0x19:
		// Target gated on bit 1, 5-byte offset: 19 bytes. Stock: bit 2
		// clear means a target, 4-byte offset, 18 bytes.
		if len(p) == 19 && p[6]&0x06 == 0x02 {
			return anomaly.NonStockTorpedoFire, 6, true
		}
	case 0x02, 0x03:
		env := 2
		if p[0] == 0x03 {
			env = 3
		}
		if len(p) < env+4 {
			break
		}
		id := binary.LittleEndian.Uint32(p[env:])
		if id != classShip && id != classTorpedo && id >= PlayerIDBase && id != 0xFFFFFFFF && (id-PlayerIDBase)/PlayerIDStride < 64 {
			return anomaly.NonStockObjCreate, env, true
		}
	}
	return 0, 0, false
}

func hex2(b byte) string {
	const digits = "0123456789ABCDEF"
	return "0x" + string([]byte{digits[b>>4], digits[b&0xF]})
}

func hex8(v uint32) string {
	const digits = "0123456789ABCDEF"
	b := []byte("0x00000000")
	for i := 9; i >= 2; i-- {
		b[i] = digits[v&0xF]
		v >>= 4
	}
	return string(b)
}
