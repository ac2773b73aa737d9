package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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

// maxDepth bounds the nesting the flattener follows; the JSON reporter
// nests at most a handful of levels (checksum directory trees).
const maxDepth = 64

// appendLeaves flattens the JSON object or value raw under prefix, keeping
// the key order of the input (the wire order of the fields).
func appendLeaves(ls []Leaf, prefix string, raw []byte) ([]Leaf, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	ls, err := flattenValue(ls, dec, prefix, 0)
	if err != nil {
		return ls, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ls, errors.New("trailing data after value")
	}
	return ls, nil
}

func flattenValue(ls []Leaf, dec *json.Decoder, path string, depth int) ([]Leaf, error) {
	if depth > maxDepth {
		return ls, fmt.Errorf("%s: nested deeper than %d levels", path, maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return ls, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := 0
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return ls, err
				}
				key, ok := kt.(string)
				if !ok {
					return ls, fmt.Errorf("%s: object key is not a string", path)
				}
				if ls, err = flattenValue(ls, dec, joinKey(path, key), depth+1); err != nil {
					return ls, err
				}
				n++
			}
			if _, err := dec.Token(); err != nil {
				return ls, err
			}
			if n == 0 {
				ls = append(ls, Leaf{Path: path, Value: "{}"})
			}
		case '[':
			n := 0
			for dec.More() {
				if ls, err = flattenValue(ls, dec, path+"["+strconv.Itoa(n)+"]", depth+1); err != nil {
					return ls, err
				}
				n++
			}
			if _, err := dec.Token(); err != nil {
				return ls, err
			}
			if n == 0 {
				ls = append(ls, Leaf{Path: path, Value: "[]"})
			}
		default:
			return ls, fmt.Errorf("%s: unexpected %v", path, t)
		}
	case string:
		ls = append(ls, Leaf{Path: path, Value: quote(t)})
	case json.Number:
		ls = append(ls, Leaf{Path: path, Value: t.String()})
	case bool:
		ls = append(ls, Leaf{Path: path, Value: strconv.FormatBool(t)})
	case nil:
		ls = append(ls, Leaf{Path: path, Value: "null"})
	}
	return ls, nil
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// quote renders s as a JSON string, the canonical form of string values.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
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
