package anomaly

import (
	"fmt"
	"net/netip"
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
			v := t.nums[ni]
			a := netip.AddrFrom4([4]byte{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16)})
			args[n] = netip.AddrPortFrom(a, uint16(v))
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
