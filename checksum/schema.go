package checksum

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// The manifest schema, checked before decoding so that a message can name
// the key and the line at fault: any other JSON (a stats file, an object
// with other keys) is not a manifest. Unknown keys are errors, the keys
// marked required must be present, and every value must have its type.

type schemaKind int

const (
	kString schemaKind = iota
	kInt
	kBool
	kHash
	kObject
	kArray // of elem; null allowed
)

func (k schemaKind) String() string {
	switch k {
	case kString:
		return "a string"
	case kInt:
		return "an integer"
	case kBool:
		return "true or false"
	case kHash:
		return `a hash ("0x" and up to 8 hex digits, or a number)`
	case kObject:
		return "an object"
	}
	return "a list"
}

type schemaNode struct {
	kind     schemaKind
	keys     map[string]*schemaNode // kObject
	required []string               // kObject
	elem     *schemaNode            // kArray
}

var manifestSchema = func() *schemaNode {
	str := &schemaNode{kind: kString}
	hash := &schemaNode{kind: kHash}
	file := &schemaNode{kind: kObject, keys: map[string]*schemaNode{
		"filename": str, "name_hash": hash, "content_hash": hash,
	}}
	files := &schemaNode{kind: kArray, elem: file}
	dir := &schemaNode{kind: kObject, keys: map[string]*schemaNode{
		"name": str, "name_hash": hash, "files": files,
	}}
	dir.keys["subdirs"] = &schemaNode{kind: kArray, elem: dir}
	round := &schemaNode{kind: kObject, required: []string{"index"}, keys: map[string]*schemaNode{
		"index": {kind: kInt}, "path": str, "filter": str, "recursive": {kind: kBool},
		"dir_name_hash": hash, "files": files, "subdirs": {kind: kArray, elem: dir},
	}}
	meta := &schemaNode{kind: kObject, keys: map[string]*schemaNode{
		"name": str, "generator": str, "generator_version": str,
	}}
	return &schemaNode{kind: kObject, required: []string{"directories"}, keys: map[string]*schemaNode{
		"meta": meta, "version_string": str, "version_string_hash": hash,
		"directories": {kind: kArray, elem: round},
	}}
}()

// schemaChecker walks the JSON tokens of a manifest against the schema.
type schemaChecker struct {
	b   []byte
	dec *json.Decoder
}

// checkSchema returns an error naming the key path and line of the first
// value that does not fit the manifest schema.
func checkSchema(b []byte) error {
	c := &schemaChecker{b: b, dec: json.NewDecoder(bytes.NewReader(b))}
	c.dec.UseNumber()
	if err := c.value(manifestSchema, ""); err != nil {
		return err
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return fmt.Errorf("line %d: text after the manifest object", c.line())
	}
	return nil
}

// line is the 1-based line of the decoder's position.
func (c *schemaChecker) line() int {
	off := min(int(c.dec.InputOffset()), len(c.b))
	return 1 + bytes.Count(c.b[:off], []byte("\n"))
}

// syntax turns a JSON syntax error into a line-numbered message.
func (c *schemaChecker) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := min(int(se.Offset), len(c.b))
		line := 1 + bytes.Count(c.b[:off], []byte("\n"))
		return fmt.Errorf("line %d: not valid JSON (%s)", line, strings.TrimPrefix(se.Error(), "json: "))
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: the JSON ends early", c.line())
	}
	return fmt.Errorf("line %d: not valid JSON", c.line())
}

func describe(path string) string {
	if path == "" {
		return "the manifest"
	}
	return "key " + strconv.Quote(path)
}

func (c *schemaChecker) value(n *schemaNode, path string) error {
	tok, err := c.dec.Token()
	if err != nil {
		return c.syntax(err)
	}
	line := c.line()
	bad := func() error {
		return fmt.Errorf("line %d: %s must be %s, not %s", line, describe(path), n.kind, tokenKind(tok))
	}
	switch n.kind {
	case kString:
		if _, ok := tok.(string); !ok {
			return bad()
		}
	case kBool:
		if _, ok := tok.(bool); !ok {
			return bad()
		}
	case kInt:
		num, ok := tok.(json.Number)
		if !ok {
			return bad()
		}
		if _, err := strconv.ParseInt(num.String(), 10, 64); err != nil {
			return fmt.Errorf("line %d: %s must be an integer, not %s", line, describe(path), num)
		}
	case kHash:
		var h Hash
		switch v := tok.(type) {
		case string:
			if h.UnmarshalJSON([]byte(strconv.Quote(v))) != nil {
				return fmt.Errorf("line %d: %s must be %s, not %q", line, describe(path), n.kind, v)
			}
		case json.Number:
			if h.UnmarshalJSON([]byte(v)) != nil {
				return fmt.Errorf("line %d: %s must be %s, not %s", line, describe(path), n.kind, v)
			}
		default:
			return bad()
		}
	case kArray:
		if tok == nil {
			return nil
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return bad()
		}
		for i := 0; c.dec.More(); i++ {
			if err := c.value(n.elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		if _, err := c.dec.Token(); err != nil {
			return c.syntax(err)
		}
	case kObject:
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return bad()
		}
		seen := map[string]bool{}
		for c.dec.More() {
			kt, err := c.dec.Token()
			if err != nil {
				return c.syntax(err)
			}
			key, _ := kt.(string)
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			child, ok := n.keys[key]
			if !ok {
				return fmt.Errorf("line %d: unknown key %q (a manifest object here has %s)", c.line(), sub, keyList(n))
			}
			seen[key] = true
			if err := c.value(child, sub); err != nil {
				return err
			}
		}
		if _, err := c.dec.Token(); err != nil {
			return c.syntax(err)
		}
		for _, r := range n.required {
			if !seen[r] {
				where := "the manifest"
				if path != "" {
					where = strconv.Quote(path)
				}
				return fmt.Errorf("line %d: %s lacks the key %q", line, where, r)
			}
		}
	}
	return nil
}

func keyList(n *schemaNode) string {
	keys := make([]string, 0, len(n.keys))
	for k := range n.keys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "a list"
	}
	return "something else"
}
