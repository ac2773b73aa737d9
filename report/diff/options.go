package diff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/report/query"
)

// Options say what counts as a difference. The zero value compares the
// normalized conversation: content only.
type Options struct {
	// Context is the number of unchanged messages shown around each
	// difference in the text output (-U).
	Context int
	// Timing, when set, compares each message's time since its flow's
	// first datagram; differences up to Tolerance do not count.
	Timing    bool
	Tolerance time.Duration
	// Addresses makes flow endpoints and the addresses inside control
	// messages (Connect, PeerInfo, Disconnect: fields.ip,
	// fields.port_bytes) count.
	Addresses bool
	// Retransmits makes delivery count: how often each reliable message
	// was resent and whether it was acknowledged.
	Retransmits bool
	// Ignore drops key paths from the comparison (see Ignored).
	Ignore []string
	// SpillBytes is what each store of a diff keeps in memory before it
	// moves to a temporary file (0: DefaultSpillBytes): each side's
	// message content and message records, and the result's edits.
	SpillBytes int
	// Window is the alignment window, in messages of each side (0:
	// DefaultWindow): where the sides differ, the next Window messages of
	// each are aligned at once. Sides that drift further apart than that
	// within a flow direction are not realigned (Summary.Unaligned).
	Window int
	// MaxFlows bounds the flows of each side (0: DefaultMaxFlows): the
	// datagrams of further flows go to one merged flow (RoleMerged), in
	// capture order, where seqs, ACKs and resends are not followed.
	MaxFlows int
}

// DefaultMaxFlows is Options.MaxFlows when 0.
const DefaultMaxFlows = 1 << 16

func (o *Options) spillBytes() int {
	if o.SpillBytes <= 0 {
		return DefaultSpillBytes
	}
	return o.SpillBytes
}

func (o *Options) maxFlows() int {
	if o.MaxFlows <= 0 {
		return DefaultMaxFlows
	}
	return o.MaxFlows
}

// sameCompared says o and p compare the same leaves (the content hashes
// made under one hold for the other).
func (o *Options) sameCompared(p *Options) bool {
	return o.Addresses == p.Addresses && slices.Equal(o.Ignore, p.Ignore)
}

// ParseTolerance reads a --timing value: a Go duration ("50ms", "1.5s") or
// plain seconds ("0.05").
func ParseTolerance(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("timing tolerance %q is negative", s)
		}
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= 0 && f <= 1e9) { // also NaN
		return 0, fmt.Errorf("timing tolerance %q is not a duration (like 50ms) or seconds", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Pseudo-paths of what is compared besides the content leaves; --ignore
// accepts them too.
const (
	PathSeq         = "seq"
	PathTime        = "time"
	PathRetransmits = "retransmits"
	PathAcked       = "acked"
)

// Compared lists the key paths of a message that are compared besides
// its decoded fields (fields.<key>), and the pseudo-paths above, in the
// order --ignore's error lists them.
var Compared = []string{"type", "reliable", "ordered", "opcode", "payload_hex", "text", PathSeq, PathTime, PathRetransmits, PathAcked}

// CheckIgnore returns an error for an --ignore pattern that can match
// nothing: not one of Compared, not "fields" nor a chain of the decoders'
// field names below it (query.FieldSchema; "[n]" and "[]" allowed).
func CheckIgnore(patterns []string) error {
	for _, p := range patterns {
		if !validIgnore(p) {
			return fmt.Errorf("--ignore %q matches nothing; valid paths: %s, gamespy.<key>, fields, fields.<key> (any key `bcdump fields` lists under messages.fields, e.g. fields.game_time or fields.files.content_hash)", p, strings.Join(Compared, ", "))
		}
	}
	return nil
}

func validIgnore(p string) bool {
	bare := stripIndices(strings.ReplaceAll(p, "[]", ""))
	if slices.Contains(Compared, bare) || bare == "fields" || bare == "gamespy" {
		return true
	}
	if key, ok := strings.CutPrefix(bare, "gamespy."); ok {
		return key != "" // GameSpy keys are whatever the server sends
	}
	rest, ok := strings.CutPrefix(bare, "fields.")
	if !ok || rest == "" {
		return false
	}
	_, ok = query.FieldSchema().Field("messages.fields." + rest)
	return ok
}

// Ignored reports whether --ignore patterns drop the leaf at path. A
// pattern matches a path it equals or is a prefix of at a key boundary,
// with or without the array indices: "fields.files" drops the whole list,
// "fields.files.content_hash" (or "fields.files[].content_hash") every
// file's content hash, "fields.files[2]" only the third file.
func (o *Options) Ignored(path string) bool {
	if len(o.Ignore) == 0 {
		return false
	}
	bare := stripIndices(path)
	for _, p := range o.Ignore {
		p = strings.ReplaceAll(p, "[]", "")
		if prefixAt(path, p) || prefixAt(bare, p) {
			return true
		}
	}
	return false
}

func prefixAt(path, p string) bool {
	if p == "" || !strings.HasPrefix(path, p) {
		return false
	}
	if len(path) == len(p) {
		return true
	}
	c := path[len(p)]
	return c == '.' || c == '['
}

// stripIndices removes "[n]" groups: "a[1].b[2]" -> "a.b".
func stripIndices(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '[' {
			for i < len(p) && p[i] != ']' {
				i++
			}
			continue
		}
		sb.WriteByte(p[i])
	}
	return sb.String()
}

// compared says whether leaf l takes part in the comparison.
func (o *Options) compared(l *Leaf) bool {
	if l.note || l.addr && !o.Addresses {
		return false
	}
	return !o.Ignored(l.Path)
}
