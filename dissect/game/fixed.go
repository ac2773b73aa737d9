package game

import (
	"math"
	"strconv"
)

// appendFixed appends v with prec decimals (0 to 3), exactly as
// strconv.AppendFloat(dst, v, 'f', prec, 64) does: the summaries write
// every position and speed this way, and strconv's general conversion was
// the largest part of a table line's rendering. Values of ordinary size
// are rounded here from their exact scaled value in integers (round half
// to even, as strconv does); NaN, infinities and huge values go to
// strconv.
func appendFixed(dst []byte, v float64, prec int) []byte {
	a := math.Abs(v)
	if !(a*pow10f[prec] < 1<<52) { // also NaN
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	// a = mant x 2^exp exactly, and so a x 10^prec = p x 2^exp with p
	// below 2^63 (mant < 2^53, 10^prec < 2^10). exp < 0 here: a normal
	// a with exp >= 0 is 2^52 or more.
	bits := math.Float64bits(a)
	mant, exp := bits&(1<<52-1), int(bits>>52)
	if exp == 0 {
		exp = 1 // subnormal
	} else {
		mant |= 1 << 52
	}
	p := mant * pow10u[prec]
	var m uint64 // p x 2^exp rounded half to even
	if sh := uint(1075 - exp); sh < 64 {
		m = p >> sh
		rem, half := p&(1<<sh-1), uint64(1)<<(sh-1)
		if rem > half || rem == half && m&1 != 0 {
			m++
		}
	} // else p x 2^exp < 2^63 x 2^-64: below one half, m = 0
	var buf [24]byte // 2^52 has 16 digits
	i := len(buf)
	for range prec {
		i--
		buf[i] = byte('0' + m%10)
		m /= 10
	}
	if prec > 0 {
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = byte('0' + m%10)
		if m /= 10; m == 0 {
			break
		}
	}
	if math.Signbit(v) {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

var (
	pow10f = [...]float64{1, 10, 100, 1000}
	pow10u = [...]uint64{1, 10, 100, 1000}
)
