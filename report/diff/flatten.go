package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/report/render"
)

// Leaf is one scalar of a message's content: its JSON key path (e.g.
// "fields.files[3].content_hash") and its value as canonical JSON text. An
// empty object or array is a leaf of its own ("{}", "[]"), so that it is not
// the same as an absent one.
type Leaf struct {
	Path  string
	Value string
	note  bool // a "<key>_name" label of a sibling: shown, never compared
	addr  bool // an address inside a control message: compared with --addresses
}

// maxDepth bounds the nesting the flattener follows. The JSON reporter's
// deepest records are checksum trees: two levels (the subdirs array, a
// subdirectory) per directory level bcdump accepts, below a handful of
// record levels.
const maxDepth = 2*checksum.MaxDepth + 16

// appendLeaves flattens the JSON object or value raw under prefix, keeping
// the key order of the input (the wire order of the fields). raw must be
// valid JSON (it comes out of encoding/json, which checked it); the
// flattener still fails cleanly on anything else.
func appendLeaves(ls []Leaf, prefix string, raw []byte) ([]Leaf, error) {
	fl := flattener{b: raw, ls: ls}
	err := fl.value(prefix, 0)
	if err == nil {
		fl.space()
		if fl.i != len(fl.b) {
			err = errors.New("trailing data after value")
		}
	}
	return fl.ls, err
}

// flattener is a small recursive-descent reader of JSON values: far fewer
// allocations than encoding/json's token stream, one leaf per scalar.
type flattener struct {
	b  []byte
	i  int
	ls []Leaf
}

var errBadJSON = errors.New("malformed JSON value")

func (f *flattener) space() {
	for f.i < len(f.b) {
		switch f.b[f.i] {
		case ' ', '\t', '\r', '\n':
			f.i++
		default:
			return
		}
	}
}

func (f *flattener) value(path string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", path, maxDepth)
	}
	f.space()
	if f.i >= len(f.b) {
		return errBadJSON
	}
	switch c := f.b[f.i]; {
	case c == '{':
		f.i++
		n := 0
		for {
			f.space()
			if f.i < len(f.b) && f.b[f.i] == '}' && n == 0 {
				f.i++
				f.ls = append(f.ls, Leaf{Path: path, Value: "{}"})
				return nil
			}
			key, err := f.str()
			if err != nil {
				return err
			}
			f.space()
			if f.i >= len(f.b) || f.b[f.i] != ':' {
				return errBadJSON
			}
			f.i++
			if err := f.value(joinKey(path, key), depth+1); err != nil {
				return err
			}
			n++
			f.space()
			if f.i >= len(f.b) {
				return errBadJSON
			}
			if f.b[f.i] == '}' {
				f.i++
				return nil
			}
			if f.b[f.i] != ',' {
				return errBadJSON
			}
			f.i++
		}
	case c == '[':
		f.i++
		for n := 0; ; n++ {
			f.space()
			if f.i < len(f.b) && f.b[f.i] == ']' && n == 0 {
				f.i++
				f.ls = append(f.ls, Leaf{Path: path, Value: "[]"})
				return nil
			}
			if err := f.value(path+"["+strconv.Itoa(n)+"]", depth+1); err != nil {
				return err
			}
			f.space()
			if f.i >= len(f.b) {
				return errBadJSON
			}
			if f.b[f.i] == ']' {
				f.i++
				return nil
			}
			if f.b[f.i] != ',' {
				return errBadJSON
			}
			f.i++
		}
	case c == '"':
		start := f.i
		s, err := f.str()
		if err != nil {
			return err
		}
		v := string(f.b[start:f.i])
		if bytes.ContainsAny(f.b[start:f.i], "\\\x7f") {
			v = jsonString(s)
		}
		f.ls = append(f.ls, Leaf{Path: path, Value: v})
		return nil
	default:
		// true, false, null or a number: kept as written.
		start := f.i
		for f.i < len(f.b) && !strings.ContainsRune(" \t\r\n,]}", rune(f.b[f.i])) {
			f.i++
		}
		if f.i == start {
			return errBadJSON
		}
		f.ls = append(f.ls, Leaf{Path: path, Value: string(f.b[start:f.i])})
		return nil
	}
}

// str reads a JSON string and returns its value.
func (f *flattener) str() (string, error) {
	if f.i >= len(f.b) || f.b[f.i] != '"' {
		return "", errBadJSON
	}
	start := f.i
	esc := false
	for f.i++; f.i < len(f.b); f.i++ {
		switch f.b[f.i] {
		case '\\':
			esc = true
			f.i++
		case '"':
			f.i++
			raw := f.b[start:f.i]
			if !esc {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", err
			}
			return s, nil
		}
	}
	return "", errBadJSON
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonString renders s as a JSON string the way the JSON reporter writes it
// (only quote, backslash and control characters escaped), the canonical
// form of string values: a trace that escapes more still compares equal.
func jsonString(s string) string {
	return string(render.AppendJSONString(nil, s))
}

// isNote says whether leaf path p is a "<key>_name" label whose sibling
// "<key>" exists in ls: labels are derived from the value (and from the
// manifest the trace was read with), so they are shown but not compared.
func isNote(ls []Leaf, i int) bool {
	p := ls[i].Path
	base, ok := strings.CutSuffix(p, "_name")
	if !ok || base == "" || strings.HasSuffix(base, ".") {
		return false
	}
	// The sibling is written just before its label.
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		if ls[j].Path == base || strings.HasPrefix(ls[j].Path, base+"[") || strings.HasPrefix(ls[j].Path, base+".") {
			return true
		}
	}
	return false
}
