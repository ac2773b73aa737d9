package cipher

// Decrypt deciphers a whole UDP payload in place. Byte 0 is left as is.
// It does not allocate and accepts any input, including empty slices.
func Decrypt(datagram []byte) {
	decryptFrom(datagram, 1, 0, 0)
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

// DecryptPair deciphers two independent datagrams in place, as Decrypt
// does each. The cipher is one serial dependency chain per datagram (each
// keystream byte needs the previous plaintext byte), so a single datagram
// leaves most of the CPU's execution units idle; stepping two chains in the
// same loop lets the CPU overlap them. a and b must not overlap. It does
// not allocate and accepts any inputs, including empty slices.
func DecryptPair(a, b []byte) {
	n := min(len(a), len(b))
	if n <= 1 {
		Decrypt(a)
		Decrypt(b)
		return
	}
	a, b = a[:len(a):len(a)], b[:len(b):len(b)]
	var qa, qb uint32
	var xa, xb byte
	i := 1
	for ; i < n; i++ {
		ya := uint32(xa ^ a[i])
		yb := uint32(xb ^ b[i])
		acca := ((qa + tab[d0][xa]) ^ (qa*m1 + tab[d1][xa])) ^
			((qa*m2 + tab[d2][xa]) ^ (qa*m3 + tab[d3][xa])) ^
			((qa*m4 + tab[d4][xa]) ^ (tab[xw][xa] ^ ya))
		accb := ((qb + tab[d0][xb]) ^ (qb*m1 + tab[d1][xb])) ^
			((qb*m2 + tab[d2][xb]) ^ (qb*m3 + tab[d3][xb])) ^
			((qb*m4 + tab[d4][xb]) ^ (tab[xw][xb] ^ yb))
		qa = qa*m5 + tab[fq][xa]
		qb = qb*m5 + tab[fq][xb]
		na := byte(acca ^ acca>>8)
		nb := byte(accb ^ accb>>8)
		a[i] = na ^ xa
		b[i] = nb ^ xb
		xa, xb = na, nb
	}
	// Finish the longer one alone, from the state reached.
	if len(a) > n {
		decryptFrom(a, n, qa, xa)
	} else if len(b) > n {
		decryptFrom(b, n, qb, xb)
	}
}

// decryptFrom deciphers datagram from index i on, with q and x the state
// after byte i-1 (a fresh datagram starts at i = 1 with q = x = 0).
func decryptFrom(datagram []byte, i int, q uint32, x byte) {
	tab := tabPtr // see tabPtr
	for ; i < len(datagram); i++ {
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
