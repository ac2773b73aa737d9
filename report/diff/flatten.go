package diff

import (
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

// maxDepth bounds the nesting of fields the builder follows. The JSON reporter's
// deepest records are checksum trees: two levels (the subdirs array, a
// subdirectory) per directory level bcdump accepts, below a handful of
// record levels.
const maxDepth = 2*checksum.MaxDepth + 16

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
