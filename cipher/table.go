package cipher

// The spec's per-byte schedule (spec/cipher.md section 4) is rewritten here
// so that only one table load, an add and a short XOR tree sit on the serial
// path from one plaintext byte to the next keystream byte. The literal
// schedule lives in reference_test.go and fuzzing checks both agree.
//
// Key bytes: every plaintext byte p is XORed into all ten key bytes, so the
// five 16-bit base words are always the initial words XOR x*0x0101, where x is
// the XOR of all plaintext bytes so far. Everything derived only from the key
// (the words W[r], the cross terms t2[r] = W[r]*CROSS, the advanced words
// W'[r]) is therefore a function of the single byte x.
//
// Running sum: with c0 = t2[0] and cr = r*MUL + t2[r-1] + t2[r] for r >= 1,
// the rounds are S0 = S*MUL + P + c0 and Sr = S(r-1)*MUL + cr. With
// Q = S*MUL + P this unrolls to
//
//	Sr = Q*MUL^r + D[r](x),  D[r] = sum_{i<=r} ci*MUL^(r-i)
//
// and the next byte starts from S = S4, P = t2[4], i.e.
//
//	Q' = S4*MUL + t2[4] = Q*MUL^5 + F(x),  F = D[4]*MUL + t2[4].
//
// The keystream accumulator is XOR_r (Sr ^ W'[r]) = XOR_r Sr ^ XW(x), where
// XW is the XOR of the five advanced words. A fresh state has S = P = 0, so
// Q = 0 and x = 0.

const (
	mul   = 0x4E35 // MUL in the spec
	cross = 0x015A // CROSS in the spec

	m1 = mul
	m2 = m1 * mul & 0xFFFFFFFF
	m3 = m2 * mul & 0xFFFFFFFF
	m4 = m3 * mul & 0xFFFFFFFF
	m5 = m4 * mul & 0xFFFFFFFF
)

// Columns of tab. The table is column-major so a lookup is base + x*4 with a
// constant offset per column: no shift on the serial path.
const (
	d0, d1, d2, d3, d4 = 0, 1, 2, 3, 4
	xw                 = 5
	fq                 = 6
	columns            = 7
)

// key is the initial key "AlbyRules!".
const key = "AlbyRules!"

var tab = buildTable()

func buildTable() (t [columns][256]uint32) {
	for x := range 256 {
		var t2 [5]uint32 // cross terms
		var acc uint32   // XOR of the advanced words
		var w uint32
		for r := range 5 {
			base := (uint32(key[2*r])<<8 | uint32(key[2*r+1])) ^ uint32(x)*0x0101
			if r == 0 {
				w = base
			} else {
				w = base ^ w
			}
			t2[r] = w * cross
			w = w*mul + 1
			acc ^= w
		}
		var d uint32
		for r := range 5 {
			c := t2[r]
			if r > 0 {
				c += uint32(r)*mul + t2[r-1]
			}
			d = d*mul + c
			t[d0+r][x] = d
		}
		t[xw][x] = acc
		t[fq][x] = d*mul + t2[4]
	}
	return t
}

// Tables returns the precomputed columns (d0..d4, the XOR word, the state
// step) and the multipliers MUL^1..MUL^5 that Decrypt uses, for generators
// that port the cipher to another language (the Wireshark plugin).
func Tables() (cols [columns][256]uint32, mults [5]uint32) {
	return tab, [5]uint32{m1, m2, m3, m4, m5}
}

// tabPtr is tab's address in a variable: the compiler cannot fold it into
// a constant, so decryptFrom keeps it in a register and each lookup is one
// load with a constant offset (with tab itself, every lookup first
// materialised the column's address with a LEAQ). DecryptPair gained
// nothing from it (its loop spills registers either way).
var tabPtr = &tab
