package filter

import (
	"strconv"
	"strings"
)

// number keeps integers exact (hashes and ids above 2^53 must compare
// exactly) and everything else as float64.
type number struct {
	isInt bool
	neg   bool   // integers: sign
	mag   uint64 // integers: magnitude
	f     float64
}

// parseLiteralNumber reads a number as written in an expression: decimal,
// 0x hex, an optional sign, a fraction or exponent.
func parseLiteralNumber(s string) (number, bool) {
	neg := false
	body := s
	if strings.HasPrefix(body, "-") || strings.HasPrefix(body, "+") {
		neg = body[0] == '-'
		body = body[1:]
	}
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		u, err := strconv.ParseUint(body[2:], 16, 64)
		if err != nil {
			return number{}, false
		}
		return intNumber(neg, u), true
	}
	return parseJSONNumber([]byte(s))
}

func intNumber(neg bool, mag uint64) number {
	f := float64(mag)
	if neg {
		f = -f
	}
	return number{isInt: true, neg: neg && mag != 0, mag: mag, f: f}
}

// parseJSONNumber reads a JSON number without allocating for integers.
func parseJSONNumber(b []byte) (number, bool) {
	if len(b) == 0 {
		return number{}, false
	}
	i, neg := 0, false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return number{}, false
	}
	var mag uint64
	integer := true
	for j := i; j < len(b); j++ {
		c := b[j]
		if c < '0' || c > '9' {
			integer = false
			break
		}
		d := uint64(c - '0')
		if mag > (1<<64-1-d)/10 {
			integer = false // too large for exactness: compare as float
			break
		}
		mag = mag*10 + d
	}
	if integer {
		return intNumber(neg, mag), true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return number{}, false
	}
	return number{f: f}, true
}

// cmpNumber returns -1, 0 or +1, and 2 when either side is NaN (no
// relation holds).
func cmpNumber(a, b number) int {
	if a.isInt && b.isInt {
		switch {
		case a.neg != b.neg:
			if a.neg {
				return -1
			}
			return 1
		case a.mag == b.mag:
			return 0
		case (a.mag < b.mag) != a.neg:
			return -1
		default:
			return 1
		}
	}
	switch {
	case a.f != a.f || b.f != b.f:
		return 2
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	}
	return 0
}

// parseHexText reads a hex field's text ("0x7E0CE243") as a number.
func parseHexText(b []byte) (number, bool) {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') || len(b) > 18 {
		return number{}, false
	}
	var u uint64
	for _, c := range b[2:] {
		d, ok := hexDigit(c)
		if !ok {
			return number{}, false
		}
		u = u<<4 | uint64(d)
	}
	return intNumber(false, u), true
}

// hexDigit is the value of one hex digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// containsFold reports whether sub is within s, ASCII letters compared
// without case (hex digits).
func containsFold(s, sub []byte) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lower(s[i+j]) == lower(sub[j]) {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
