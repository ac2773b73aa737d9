package cipher

// refCipher is spec/cipher.md sections 2, 4 and 5 written out literally. It is
// slow on purpose: the fast table-driven code in cipher.go is checked against
// it, so it must stay a line-by-line reading of the spec pseudocode.
func refCipher(datagram []byte, encrypt bool) {
	if len(datagram) <= 1 {
		return
	}
	k := [10]byte{'A', 'l', 'b', 'y', 'R', 'u', 'l', 'e', 's', '!'}
	var s, p uint32
	var w [5]uint32
	const mul, cross = 0x4E35, 0x015A
	for i := 1; i < len(datagram); i++ {
		var acc uint32
		for r := 0; r <= 4; r++ {
			base := uint32(k[2*r])*256 + uint32(k[2*r+1])
			if r == 0 {
				w[0] = base
			} else {
				w[r] = base ^ w[r-1]
			}
			t1 := (s + uint32(r)) * mul
			t2 := w[r] * cross
			s = p + t1 + t2
			p = t2
			w[r] = w[r]*mul + 1
			acc ^= s ^ w[r]
		}
		ks := byte((acc ^ (acc >> 8)) & 0xFF)
		in := datagram[i]
		datagram[i] = in ^ ks
		plain := datagram[i]
		if encrypt {
			plain = in
		}
		for j := range k {
			k[j] ^= plain
		}
	}
}

// refRound0 returns the spec section 6 debugging row values for the first
// keystream byte of a fresh state: per round base, W in, t1, t2, S after,
// W out and acc after.
func refRound0() [5][7]uint32 {
	k := "AlbyRules!"
	var s, p, acc uint32
	var w [5]uint32
	var rows [5][7]uint32
	const mul, cross = 0x4E35, 0x015A
	for r := 0; r <= 4; r++ {
		base := uint32(k[2*r])*256 + uint32(k[2*r+1])
		if r == 0 {
			w[0] = base
		} else {
			w[r] = base ^ w[r-1]
		}
		win := w[r]
		t1 := (s + uint32(r)) * mul
		t2 := w[r] * cross
		s = p + t1 + t2
		p = t2
		w[r] = w[r]*mul + 1
		acc ^= s ^ w[r]
		rows[r] = [7]uint32{base, win, t1, t2, s, w[r], acc}
	}
	return rows
}
