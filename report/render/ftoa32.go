package render

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// appendFloat32 appends f exactly as strconv.AppendFloat(b, float64(f),
// 'g', -1, 32) does. strconv finds the digits fast (Dragonbox) but spends
// more than half its time in generic formatting; every JSON record has a
// dozen floats, so this is strconv's float32 Dragonbox, ported from Go's
// internal/strconv/ftoadbox.go (BSD licence, The Go Authors), with the
// shortest %g layout written out for it.
func appendFloat32(b []byte, f float32) []byte {
	if e := cv3Lookup(f); e != nil {
		return appendShort(b, &e.s, e.n)
	}
	return formatFloat32(b, math.Float32bits(f))
}

// cv3Lookup returns the text of f if f is a cv3 value k/127, else nil.
func cv3Lookup(f float32) *cv3Entry {
	// A cv3 value times 127 rounds to k: look it up there, and take it
	// only if it is that value to the bit.
	if k := f * 127; k >= -127.5 && k < 127.5 {
		i := int(k + 127.5)
		if i < len(cv3Bits) && cv3Bits[i] == math.Float32bits(f) {
			return &cv3Text[i]
		}
	}
	return nil
}

// formatFloat32 is appendFloat32 without the table.
func formatFloat32(b []byte, u uint32) []byte {
	exp := int(u>>23) & 0xFF
	mant := u & (1<<23 - 1)
	denorm := false
	switch exp {
	case 0xFF: // Inf, NaN: strconv's spelling
		return strconv.AppendFloat(b, float64(math.Float32frombits(u)), 'g', -1, 32)
	case 0:
		exp++
		denorm = true
	default:
		mant |= 1 << 23
	}
	if u>>31 != 0 {
		b = append(b, '-')
	}
	if mant == 0 {
		return append(b, '0')
	}
	q, e10 := dbox32(mant, exp-127-23, denorm)
	nd := decimalLen32(q)
	dp := nd + e10 // the decimal point is after dp digits

	// The text is written in place, digit pairs from the right: appending
	// digit by digit and copying the digits cost more than finding them.
	n := len(b)
	if cap(b)-n < 16 { // at most 15: "-0.000123456789"
		b = grow(b, 16)[:n]
	}
	o := b[n : n+16]
	// Shortest %g: %e when the exponent is < -4 or >= 6, else %f.
	if x := dp - 1; x < -4 || x >= 6 {
		i := 1
		if nd > 1 {
			writeDigits(o[1:nd+1], q)
			o[0], o[1] = o[1], '.'
			i = nd + 1
		} else {
			o[0] = byte('0' + q)
		}
		o[i], o[i+1] = 'e', '+'
		if x < 0 {
			o[i+1], x = '-', -x
		}
		writeDigits(o[i+2:i+4], uint32(x)) // float32: |x| < 100
		return b[:n+i+4]
	}
	switch {
	case dp <= 0: // 0.000ddd
		o[0], o[1] = '0', '.'
		for j := 2; j < 2-dp; j++ {
			o[j] = '0'
		}
		writeDigits(o[2-dp:2-dp+nd], q)
		return b[:n+2-dp+nd]
	case dp >= nd: // ddd000
		writeDigits(o[:nd], q)
		for j := nd; j < dp; j++ {
			o[j] = '0'
		}
		return b[:n+dp]
	}
	p := pow10u32[nd-dp]
	writeDigits(o[:dp], q/p)
	o[dp] = '.'
	writeDigits(o[dp+1:nd+1], q%p)
	return b[:n+nd+1]
}

// cv3Bits[k+127] is the float32 k/127 (dissect/game.CV3, the compressed
// directions of nearly every state update: over half of all floats) and
// cv3Text[k+127] its text. Indexed directly (1 KB of bits to test, in
// cache), not hashed: a hash table's probes missed the cache. Built once,
// then only read, so any goroutine may use them.
var cv3Bits, cv3Text = func() (bits [255]uint32, text [255]cv3Entry) {
	for k := -127; k <= 127; k++ {
		u := math.Float32bits(float32(k) / 127)
		bits[k+127] = u
		e := &text[k+127]
		e.n = uint8(copy(e.s[:], formatFloat32(nil, u)))
	}
	return bits, text
}()

type cv3Entry struct {
	n uint8
	s [16]byte // "-0.015748031" is the longest
}

// appendShort appends s[:n] by copying all 16 bytes of s, a fixed-size
// move instead of a memmove call, and keeping n of them.
func appendShort(b []byte, s *[16]byte, n uint8) []byte {
	if cap(b)-len(b) < len(s) {
		b = slices.Grow(b, len(s))
	}
	l := len(b)
	*(*[16]byte)(b[l : l+16]) = *s
	return b[:l+int(n)]
}

var pow10u32 = [...]uint32{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// decimalLen32 is the number of decimal digits of v (1 for 0).
func decimalLen32(v uint32) int {
	t := bits.Len32(v|1) * 1233 >> 12 // about log10(2^len)
	if v < pow10u32[t] {
		return t
	}
	return t + 1
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// writeDigits fills dst with the last len(dst) decimal digits of v.
func writeDigits(dst []byte, v uint32) {
	i := len(dst)
	for i >= 2 {
		i -= 2
		dd := v % 100 * 2
		v /= 100
		dst[i], dst[i+1] = digitPairs[dd], digitPairs[dd+1]
	}
	if i == 1 {
		dst[0] = byte('0' + v%10)
	}
}

// dbox32 returns the shortest decimal q * 10^e10 that reads back as the
// float32 mant * 2^exp (strconv's dboxFtoa32; comments there).
func dbox32(mant uint32, exp int, denorm bool) (q uint32, e10 int) {
	if mant == 1<<23 && !denorm {
		k0 := -((exp*631305 - 261663) >> 21) // mulLog10_2MinusLog10_4Over3
		φ, β := dboxPow32(k0, exp)
		xi, zi := dboxRange32(φ, β)
		if exp != 2 && exp != 3 {
			xi++
		}
		q := zi / 10
		if xi <= q*10 {
			q, zeros := trimZeros32(q)
			return q, -k0 + 1 + zeros
		}
		yru := dboxRoundUp32(φ, β)
		if exp == -77 && yru%2 != 0 {
			yru--
		} else if yru < xi {
			yru++
		}
		return yru, -k0
	}

	const (
		κ     = 1
		p10κ  = 10
		p10κ1 = p10κ * 10
	)
	k0 := -((exp * 78913) >> 18) // mulLog10_2
	φ, β := dboxPow32(κ+k0, exp)
	zi, exact := dboxMulPow32(uint32(mant*2+1)<<β, φ)
	s, r := zi/p10κ1, uint32(zi%p10κ1)
	δi := uint32(φ >> (64 - 1 - β))

	if r < δi {
		if r != 0 || !exact || mant%2 == 0 {
			s, zeros := trimZeros32(s)
			return s, -k0 + 1 + zeros
		}
		s--
		r = p10κ * 10
	} else if r == δi {
		parity, exact := dboxParity32(mant*2-1, φ, β)
		if parity || (exact && mant%2 == 0) {
			s, zeros := trimZeros32(s)
			return s, -k0 + 1 + zeros
		}
	}

	D := r + p10κ/2 - δi/2
	t, ρ := D/p10κ, D%p10κ
	yru := 10*s + t
	if ρ == 0 {
		parity, exact := dboxParity32(mant*2, φ, β)
		if parity != ((D-p10κ/2)%2 != 0) || exact && yru%2 != 0 {
			yru--
		}
	}
	return yru, -k0
}

func dboxMulPow32(u uint32, φ uint64) (intPart uint32, isInt bool) {
	hi, lo := bits.Mul64(uint64(u), φ)
	r := hi<<32 | lo>>32 // the upper 64 bits of the 96-bit product
	return uint32(r >> 32), uint32(r) == 0
}

func dboxParity32(mant2 uint32, φ uint64, β int) (parity, isInt bool) {
	r := uint64(mant2) * φ
	return (r>>(64-β))&1 != 0, uint32(r>>(32-β)) == 0
}

func dboxRange32(φ uint64, β int) (left, right uint32) {
	left = uint32((φ - (φ >> (23 + 2))) >> (64 - 23 - 1 - β))
	right = uint32((φ + (φ >> (23 + 1))) >> (64 - 23 - 1 - β))
	return left, right
}

func dboxRoundUp32(φ uint64, β int) uint32 {
	return uint32(φ>>(64-23-2-β)+1) / 2
}

// dboxPow32 returns the upper 64 bits of 10^k's mantissa (rounded up
// where 10^k is not exact in them) and the binary exponent β.
func dboxPow32(k, e int) (φ uint64, β int) {
	φ = pow10Hi32[k-pow10Min32]
	if k < 0 || k > 27 {
		φ++
	}
	e1 := 1 + (k*108853)>>15 // 1 + mulLog2_10(k)
	return φ, e + e1 - 1
}

// trimZeros32 removes the trailing zeros of x, returning how many.
func trimZeros32(x uint32) (uint32, int) {
	n := 0
	for x != 0 && x%10 == 0 {
		x /= 10
		n++
	}
	return x, n
}

// pow10Hi32 holds the upper 64 bits of 10^k for the k that float32 needs,
// scaled so the high bit is set and truncated (strconv's pow10Tab; a test
// recomputes them).
const pow10Min32 = -32

var pow10Hi32 = [...]uint64{
	0xcfb11ead453994ba, // 1e-32
	0x81ceb32c4b43fcf4, // 1e-31
	0xa2425ff75e14fc31, // 1e-30
	0xcad2f7f5359a3b3e, // 1e-29
	0xfd87b5f28300ca0d, // 1e-28
	0x9e74d1b791e07e48, // 1e-27
	0xc612062576589dda, // 1e-26
	0xf79687aed3eec551, // 1e-25
	0x9abe14cd44753b52, // 1e-24
	0xc16d9a0095928a27, // 1e-23
	0xf1c90080baf72cb1, // 1e-22
	0x971da05074da7bee, // 1e-21
	0xbce5086492111aea, // 1e-20
	0xec1e4a7db69561a5, // 1e-19
	0x9392ee8e921d5d07, // 1e-18
	0xb877aa3236a4b449, // 1e-17
	0xe69594bec44de15b, // 1e-16
	0x901d7cf73ab0acd9, // 1e-15
	0xb424dc35095cd80f, // 1e-14
	0xe12e13424bb40e13, // 1e-13
	0x8cbccc096f5088cb, // 1e-12
	0xafebff0bcb24aafe, // 1e-11
	0xdbe6fecebdedd5be, // 1e-10
	0x89705f4136b4a597, // 1e-9
	0xabcc77118461cefc, // 1e-8
	0xd6bf94d5e57a42bc, // 1e-7
	0x8637bd05af6c69b5, // 1e-6
	0xa7c5ac471b478423, // 1e-5
	0xd1b71758e219652b, // 1e-4
	0x83126e978d4fdf3b, // 1e-3
	0xa3d70a3d70a3d70a, // 1e-2
	0xcccccccccccccccc, // 1e-1
	0x8000000000000000, // 1e0
	0xa000000000000000, // 1e1
	0xc800000000000000, // 1e2
	0xfa00000000000000, // 1e3
	0x9c40000000000000, // 1e4
	0xc350000000000000, // 1e5
	0xf424000000000000, // 1e6
	0x9896800000000000, // 1e7
	0xbebc200000000000, // 1e8
	0xee6b280000000000, // 1e9
	0x9502f90000000000, // 1e10
	0xba43b74000000000, // 1e11
	0xe8d4a51000000000, // 1e12
	0x9184e72a00000000, // 1e13
	0xb5e620f480000000, // 1e14
	0xe35fa931a0000000, // 1e15
	0x8e1bc9bf04000000, // 1e16
	0xb1a2bc2ec5000000, // 1e17
	0xde0b6b3a76400000, // 1e18
	0x8ac7230489e80000, // 1e19
	0xad78ebc5ac620000, // 1e20
	0xd8d726b7177a8000, // 1e21
	0x878678326eac9000, // 1e22
	0xa968163f0a57b400, // 1e23
	0xd3c21bcecceda100, // 1e24
	0x84595161401484a0, // 1e25
	0xa56fa5b99019a5c8, // 1e26
	0xcecb8f27f4200f3a, // 1e27
	0x813f3978f8940984, // 1e28
	0xa18f07d736b90be5, // 1e29
	0xc9f2c9cd04674ede, // 1e30
	0xfc6f7c4045812296, // 1e31
	0x9dc5ada82b70b59d, // 1e32
	0xc5371912364ce305, // 1e33
	0xf684df56c3e01bc6, // 1e34
	0x9a130b963a6c115c, // 1e35
	0xc097ce7bc90715b3, // 1e36
	0xf0bdc21abb48db20, // 1e37
	0x96769950b50d88f4, // 1e38
	0xbc143fa4e250eb31, // 1e39
	0xeb194f8e1ae525fd, // 1e40
	0x92efd1b8d0cf37be, // 1e41
	0xb7abc627050305ad, // 1e42
	0xe596b7b0c643c719, // 1e43
	0x8f7e32ce7bea5c6f, // 1e44
	0xb35dbf821ae4f38b, // 1e45
	0xe0352f62a19e306e, // 1e46
	0x8c213d9da502de45, // 1e47
}
