package game

import (
	"strconv"
	"strings"
)

// render writes fields as `key=value` tokens so tests can state expected
// decodes compactly: floats with 5 significant digits, ids in hex, notes in
// parentheses, nesting as {...} and [...].
func render(f *Fields) string {
	var sb strings.Builder
	for i := range f.List {
		fl := &f.List[i]
		if fl.Kind == KindEnd {
			s := strings.TrimSuffix(sb.String(), " ")
			sb.Reset()
			sb.WriteString(s)
			sb.WriteString(closer(f, i))
			sb.WriteByte(' ')
			continue
		}
		if fl.Name != "" {
			sb.WriteString(fl.Name)
			sb.WriteByte('=')
		}
		switch fl.Kind {
		case KindUint:
			sb.WriteString(strconv.FormatUint(fl.U, 10))
		case KindInt:
			sb.WriteString(strconv.FormatInt(fl.I, 10))
		case KindFloat:
			sb.WriteString(fmtFloat(fl.F))
		case KindBool:
			sb.WriteString(strconv.FormatBool(fl.U != 0))
		case KindString:
			sb.WriteString(strconv.Quote(string(fl.B)))
		case KindHash, KindHex:
			sb.Write(appendHex(nil, fl.U, fl.Len))
		case KindBytes:
			sb.WriteByte('<')
			for j, c := range fl.B {
				if j > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			}
			sb.WriteByte('>')
		case KindVec:
			sb.WriteString("(" + fmtFloat(fl.V[0]) + "," + fmtFloat(fl.V[1]) + "," + fmtFloat(fl.V[2]) + ")")
		case KindObject:
			sb.WriteByte('{')
		case KindArray:
			sb.WriteByte('[')
		}
		if fl.Note != "" && fl.Kind != KindObject && fl.Kind != KindArray {
			sb.WriteString("(" + fl.Note + ")")
		}
		if fl.Kind != KindObject && fl.Kind != KindArray {
			sb.WriteByte(' ')
		}
	}
	return strings.TrimSpace(sb.String())
}

// closer finds the marker End at index i closes.
func closer(f *Fields, i int) string {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch f.List[j].Kind {
		case KindEnd:
			depth++
		case KindObject, KindArray:
			if depth == 0 {
				if f.List[j].Kind == KindObject {
					return "}"
				}
				return "]"
			}
			depth--
		}
	}
	return "?"
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', 5, 64) }
