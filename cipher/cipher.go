package cipher

// Decrypt deciphers a whole UDP payload in place. Byte 0 is left as is.
// It does not allocate and accepts any input, including empty slices.
func Decrypt(datagram []byte) {
	if len(datagram) <= 1 {
		return
	}
	var q uint32 // S*MUL + P of the spec state, see table.go
	var x byte   // XOR of all plaintext bytes so far (key drift)
	for i := 1; i < len(datagram); i++ {
		// The ciphertext byte and x are folded into the accumulator's low
		// byte, so the fold directly yields the next x (= x ^ plaintext)
		// instead of going through the plaintext: two fewer dependent steps.
		y := uint32(x ^ datagram[i])
		acc := ((q + tab[d0][x]) ^ (q*m1 + tab[d1][x])) ^
			((q*m2 + tab[d2][x]) ^ (q*m3 + tab[d3][x])) ^
			((q*m4 + tab[d4][x]) ^ (tab[xw][x] ^ y))
		q = q*m5 + tab[fq][x]
		next := byte(acc ^ acc>>8)
		datagram[i] = next ^ x
		x = next
	}
}

// Encrypt enciphers a whole UDP payload in place. Byte 0 is left as is.
// It does not allocate and accepts any input, including empty slices.
func Encrypt(datagram []byte) {
	if len(datagram) <= 1 {
		return
	}
	var q uint32
	var x byte
	for i := 1; i < len(datagram); i++ {
		acc := ((q + tab[d0][x]) ^ (q*m1 + tab[d1][x])) ^
			((q*m2 + tab[d2][x]) ^ (q*m3 + tab[d3][x])) ^
			((q*m4 + tab[d4][x]) ^ tab[xw][x])
		q = q*m5 + tab[fq][x]
		p := datagram[i]
		datagram[i] = p ^ byte(acc^acc>>8)
		x ^= p
	}
}
