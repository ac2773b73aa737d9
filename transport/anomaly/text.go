package anomaly

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// MaxArgs is how many arguments a lazily formatted message can hold.
const MaxArgs = 8

// Most anomalies are never printed (stats count codes only), so their text
// is kept as its parts, in fixed arrays, and built only when asked for:
// recording one allocates nothing.

type argKind uint8

const (
	argNone argKind = iota
	argStr
	argInt
	argUint
	argDur
	argAddr4Port // an IPv4 address and port: address<<16 | port
)

// Arg is one argument of a lazily formatted message (see Newf).
type Arg struct {
	s    string
	n    int64
	kind argKind
}

// S is a string argument; pass only strings that already exist (static
// names, fields of the datagram), or the point of Newf is lost.
func S(s string) Arg { return Arg{s: s, kind: argStr} }

// I is an integer argument.
func I[T ~int | ~int8 | ~int16 | ~int32 | ~int64](n T) Arg {
	return Arg{n: int64(n), kind: argInt}
}

// U is an unsigned integer argument.
func U[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64](n T) Arg {
	return Arg{n: int64(n), kind: argUint}
}

// D is a duration argument (formatted as time.Duration's String does).
func D(d time.Duration) Arg { return Arg{n: int64(d), kind: argDur} }

// AddrPort is an address-and-port argument. An IPv4 one is kept as a
// number; any other is formatted at once (rare on this protocol).
func AddrPort(ap netip.AddrPort) Arg {
	if a := ap.Addr(); a.Is4() {
		b := a.As4()
		v := int64(b[0])<<40 | int64(b[1])<<32 | int64(b[2])<<24 | int64(b[3])<<16 | int64(ap.Port())
		return Arg{n: v, kind: argAddr4Port}
	}
	return S(ap.String())
}

// addr4Port undoes AddrPort's packing of an IPv4 endpoint.
func addr4Port(v int64) netip.AddrPort {
	a := netip.AddrFrom4([4]byte{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16)})
	return netip.AddrPortFrom(a, uint16(v))
}

// Formatter builds the text of a Text it made (see Custom). Implement it on
// a zero-size type, so that storing it in a Text neither allocates nor
// breaks comparing anomalies.
type Formatter interface {
	AppendText(b []byte, t *Text) []byte
}

// Text is a message kept as its parts: a literal, a format with its
// arguments, or parts a Formatter reads back.
type Text struct {
	format string
	f      Formatter
	strs   [MaxArgs / 2]string
	nums   [MaxArgs]int64
	kinds  [MaxArgs]argKind
	ns, nn uint8 // strings and numbers held
}

// Literal is a Text that is s.
func Literal(s string) Text { return Text{format: s} }

// Textf is a Text formatted as fmt.Sprintf(format, args...) would, when
// asked for. It panics when the arguments do not fit (a programming error).
func Textf(format string, args ...Arg) Text {
	if len(args) == 0 && strings.IndexByte(format, '%') >= 0 {
		var none []any
		return Literal(fmt.Sprintf(format, none...)) // "%%" and the like: rare
	}
	t := Text{format: format}
	if len(args) > MaxArgs {
		panic("anomaly: too many arguments for " + format)
	}
	for i, a := range args {
		t.kinds[i] = a.kind
		if a.kind == argStr {
			t.putStr(a.s)
		} else {
			t.nums[t.nn] = a.n
			t.nn++
		}
	}
	return t
}

func (t *Text) putStr(s string) {
	if int(t.ns) == len(t.strs) {
		panic("anomaly: too many string arguments for " + t.format)
	}
	t.strs[t.ns] = s
	t.ns++
}

// Custom is a Text that f builds from the strings and numbers given, which
// it reads back with Str and Num.
func Custom(f Formatter, strs []string, nums []int64) Text {
	t := Text{f: f}
	if len(strs) > len(t.strs) || len(nums) > len(t.nums) {
		panic("anomaly: too many parts for a custom text")
	}
	t.ns, t.nn = uint8(copy(t.strs[:], strs)), uint8(copy(t.nums[:], nums))
	return t
}

// Str returns the i-th string part of a Custom text.
func (t *Text) Str(i int) string { return t.strs[i] }

// Num returns the i-th number part of a Custom text.
func (t *Text) Num(i int) int64 { return t.nums[i] }

// Append appends the text to b.
func (t *Text) Append(b []byte) []byte {
	if t.f != nil {
		return t.f.AppendText(b, t)
	}
	if t.kinds[0] == argNone {
		return append(b, t.format...)
	}
	if b2, ok := t.appendFast(b); ok {
		return b2
	}
	var args [MaxArgs]any
	n, si, ni := 0, 0, 0
	for ; n < MaxArgs && t.kinds[n] != argNone; n++ {
		switch t.kinds[n] {
		case argStr:
			args[n] = t.strs[si]
			si++
			continue
		case argInt:
			args[n] = t.nums[ni]
		case argUint:
			args[n] = uint64(t.nums[ni])
		case argDur:
			args[n] = time.Duration(t.nums[ni])
		case argAddr4Port:
			args[n] = addr4Port(t.nums[ni])
		}
		ni++
	}
	return fmt.Appendf(b, t.format, args[:n]...)
}

// String returns the text.
func (t Text) String() string {
	if t.f == nil && t.kinds[0] == argNone {
		return t.format
	}
	return string(t.Append(nil))
}

// appendFast formats t without fmt for the verbs messages use (%d, %s, %v
// on strings, integers, durations and IPv4 endpoints, %q on strings, %x and
// %X with a zero-padded width, %%), so that printing an anomaly allocates
// nothing; ok is false for anything else, and Append then uses fmt.
// TestAppendFastMatchesFmt checks it against fmt.
func (t *Text) appendFast(b []byte) (_ []byte, ok bool) {
	start := len(b)
	f := t.format
	n, si, ni := 0, 0, 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			b = append(b, '%')
			continue
		}
		zero := false
		if i < len(f) && f[i] == '0' {
			zero = true
			i++
		}
		width := 0
		for i < len(f) && f[i] >= '1' && f[i] <= '9' || width > 0 && i < len(f) && f[i] == '0' {
			width = width*10 + int(f[i]-'0')
			i++
		}
		if i >= len(f) || n >= MaxArgs || t.kinds[n] == argNone || width > 0 && !zero {
			return b[:start], false
		}
		verb, kind := f[i], t.kinds[n]
		n++
		switch kind {
		case argStr:
			switch {
			case width > 0:
				return b[:start], false
			case verb == 's' || verb == 'v':
				b = append(b, t.strs[si]...)
			case verb == 'q':
				b = strconv.AppendQuote(b, t.strs[si])
			default:
				return b[:start], false
			}
			si++
			continue
		case argInt, argUint:
			v := t.nums[ni]
			ni++
			switch verb {
			case 'd', 'v':
				if width > 0 {
					return b[:start], false
				}
				if kind == argInt {
					b = strconv.AppendInt(b, v, 10)
				} else {
					b = strconv.AppendUint(b, uint64(v), 10)
				}
			case 'x', 'X':
				if kind == argInt && v < 0 {
					return b[:start], false
				}
				b = appendHexWidth(b, uint64(v), width, verb == 'X')
			default:
				return b[:start], false
			}
		case argAddr4Port:
			if (verb != 's' && verb != 'v') || width > 0 {
				return b[:start], false
			}
			b = addr4Port(t.nums[ni]).AppendTo(b)
			ni++
		case argDur:
			if (verb != 's' && verb != 'v') || width > 0 {
				return b[:start], false
			}
			// String is inlined and its result does not escape: no allocation.
			b = append(b, time.Duration(t.nums[ni]).String()...)
			ni++
		default:
			return b[:start], false
		}
	}
	if n < MaxArgs && t.kinds[n] != argNone {
		return b[:start], false // more arguments than verbs: fmt's EXTRA form
	}
	return b, true
}

// appendHexWidth appends v in hex, zero-padded to width digits.
func appendHexWidth(b []byte, v uint64, width int, upper bool) []byte {
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	n := 1
	for x := v >> 4; x != 0; x >>= 4 {
		n++
	}
	for ; width > n; width-- {
		b = append(b, '0')
	}
	for i := n - 1; i >= 0; i-- {
		b = append(b, digits[(v>>(4*uint(i)))&0xF])
	}
	return b
}
