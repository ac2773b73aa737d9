package checksum

import (
	"errors"

	"github.com/bcdump/bcdump/transport/anomaly"
	"unsafe"
)

// maxPending bounds the requests a Handshake remembers while waiting for
// their responses; a stock host has at most one outstanding.
const maxPending = 8

// Handshake checks one client's checksum exchange against the stock
// sequence (protocol-facts 9.1 and 9.5): rounds 0, 1, 2, 3, 0xFF, each sent
// only after the previous response, then 0x28, Settings and GameInit. Feed
// it every delivered game payload of the flow in capture order. The zero
// value is ready; it is not safe for concurrent use.
type Handshake struct {
	// Manifest, when set, is compared with every well-formed response
	// (checksum-file-mismatch, checksum-file-unknown).
	Manifest *Manifest
	// Partial says the capture may have begun after the handshake started
	// (the flow's connect was not seen). Then the first checksum message
	// sets the position instead of being checked against round 0, and
	// Settings before any checksum message is not flagged.
	Partial bool

	seen     bool // a checksum message was seen
	next     int  // index in Rounds of the round expected next
	pending  []pendingReq
	complete bool  // 0x28 seen in this handshake
	flagged  bool  // checksum-missing-complete raised in this handshake
	answered bool  // the last round requested was answered
	lastReq  uint8 // the last round requested
}

// pendingReq is a request still waiting for its response. reported marks
// one already blamed for a later request, so one lost answer raises one
// finding, while its late arrival still matches.
type pendingReq struct {
	round    uint8
	dir      string // TrimDir of the directory, cut to maxDirText (for messages)
	dirHash  uint32 // StringHash of the whole TrimDir'd directory
	reported bool
}

// StateBytes estimates the memory h holds (for a tracker's bound on
// per-flow state).
func (h *Handshake) StateBytes() int {
	n := int(unsafe.Sizeof(*h)) + cap(h.pending)*int(unsafe.Sizeof(pendingReq{}))
	for _, p := range h.pending {
		n += len(p.dir)
	}
	return n
}

// maxDirText caps the directory text a pending request keeps for messages,
// so hostile 64 KB directory strings do not pile up across flows.
const maxDirText = 128

// waiting returns the newest request not yet answered nor reported.
func (h *Handshake) waiting() (uint8, bool) {
	for i := len(h.pending) - 1; i >= 0; i-- {
		if !h.pending[i].reported {
			return h.pending[i].round, true
		}
	}
	return 0, false
}

// strict reports whether order findings apply yet.
func (h *Handshake) strict() bool { return h.seen || !h.Partial }

// Feed analyzes game payload p (p[0] is the opcode) and appends findings to
// dst. fromHost says the host (peer id 1) sent it; it matters only for
// Settings 0x00 and GameInit 0x01, which only the host sends. Payloads of
// other opcodes are ignored. A ChecksumReq that does not parse is ignored
// too: the opcode decoder reports it.
func (h *Handshake) Feed(dst []Finding, fromHost bool, p []byte) []Finding {
	if len(p) == 0 {
		return dst
	}
	switch p[0] {
	case OpRequest:
		return h.request(dst, p)
	case OpResponse:
		return h.response(dst, p)
	case OpComplete:
		return h.checksumComplete(dst)
	case 0x00, 0x01:
		if fromHost {
			return h.gameStart(dst, p[0])
		}
	}
	return dst
}

func (h *Handshake) request(dst []Finding, p []byte) []Finding {
	r, err := ParseRequest(p)
	if err != nil {
		return dst
	}
	round := int(r.Round)
	if r.PlainFlag {
		dst = append(dst, finding(anomaly.ChecksumBitBytePlain, round, r.FlagOff,
			"round %s recursive flag is the plain byte 0x%02X, not a bit group (0x20/0x21): a stock client misreads it",
			RoundName(r.Round), p[r.FlagOff]))
	}
	idx := roundIndex(r.Round)
	last, waiting := h.waiting()
	if r.Round == 0 && !waiting && (h.complete || (h.next == len(Rounds) && h.answered)) {
		h.restart() // a new handshake on the same flow
	}
	strict := h.strict()
	switch {
	case waiting:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"round %s requested before the response to round %s arrived", RoundName(r.Round), RoundName(last)))
		for i := range h.pending {
			h.pending[i].reported = true
		}
	case idx < 0:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"round %s is not a stock round (0, 1, 2, 3, 0xFF)", RoundName(r.Round)))
	case !strict || idx == h.next:
	case idx > h.next && r.Round == 0xFF:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"round 0xFF requested before round %s", RoundName(Rounds[h.next].Round)))
	case idx > h.next:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"round %s requested, skipping round %s", RoundName(r.Round), RoundName(Rounds[h.next].Round)))
	default:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"round %s requested again (round %s expected next)", RoundName(r.Round), nextName(h.next)))
	}
	if idx >= 0 {
		h.next = idx + 1
	}
	h.seen = true
	h.answered = false
	if len(h.pending) == maxPending {
		h.pending = append(h.pending[:0], h.pending[1:]...)
	}
	dir := r.Dir
	for len(dir) > 0 && dir[len(dir)-1] == '/' {
		dir = dir[:len(dir)-1]
	}
	req := pendingReq{round: r.Round, dirHash: StringHashBytes(dir)}
	if len(dir) > maxDirText {
		req.dir = string(dir[:maxDirText]) + "..."
	} else {
		req.dir = internDir(dir)
	}
	h.pending = append(h.pending, req)
	h.lastReq = r.Round
	return dst
}

// Unseen tells h that the capture missed messages the client sent on this
// flow (the host ACKed data the capture does not hold): the outstanding
// requests may have been answered out of sight, so the next request is not
// blamed on them. A response that still arrives later matches as usual.
func (h *Handshake) Unseen() {
	if len(h.pending) == 0 {
		return
	}
	for i := range h.pending {
		h.pending[i].reported = true
	}
	h.answered = true
}

// Gap tells h that the capture cut messages of this flow short (snap
// length) that may have been part of the handshake: its position is lost,
// so, as for a partial handshake, the next checksum message sets it and
// nothing is checked against what came before.
func (h *Handshake) Gap() {
	h.seen, h.Partial, h.answered = false, true, true
	h.pending = h.pending[:0]
}

func nextName(i int) string {
	if i >= len(Rounds) {
		return "none"
	}
	return RoundName(Rounds[i].Round)
}

func (h *Handshake) restart() {
	h.next, h.complete, h.flagged, h.answered = 0, false, false, false
}

func (h *Handshake) response(dst []Finding, p []byte) []Finding {
	strict := h.strict()
	h.seen = true
	hdr, _, herr := parseHeader(p)
	if herr != nil {
		if len(p) >= 2 {
			// The round byte is there: count the round as answered, so
			// one bad answer does not also break the order checks.
			if _, found := h.take(p[1]); found && p[1] == h.lastReq {
				h.answered = true
			}
		}
		return append(dst, treeFinding(p, herr))
	}
	round := int(hdr.Round)
	// Match the outstanding request of the same round.
	req, found := h.take(hdr.Round)
	switch {
	case found:
		if hdr.DirHash != req.dirHash {
			dst = append(dst, findingf(anomaly.ChecksumDirHash, round, hdr.DirOff,
				"round %s dir_hash 0x%08X, want 0x%08X = StringHash(%q)",
				anomaly.S(RoundName(hdr.Round)), anomaly.U(hdr.DirHash), anomaly.U(req.dirHash), anomaly.S(req.dir)))
		}
		if hdr.Round == h.lastReq {
			h.answered = true
		}
	case strict:
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, round, 1,
			"response for round %s, which is not outstanding", RoundName(hdr.Round)))
	}
	if hdr.HasRef && hdr.RefHash != VersionHash {
		dst = append(dst, finding(anomaly.ChecksumVersion, round, hdr.RefOff,
			"round 0 reference hash 0x%08X, want 0x%08X = StringHash(\"60\") (BC 1.1)", hdr.RefHash, uint32(VersionHash)))
	}
	r, err := ParseResponse(p)
	if err != nil {
		return append(dst, treeFinding(p, err))
	}
	if h.Manifest != nil {
		dst = h.Manifest.Compare(dst, r)
	}
	return dst
}

func treeFinding(p []byte, err error) Finding {
	round, off := NoRound, NoOffset
	if len(p) >= 2 {
		round = int(p[1])
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		off = pe.Off
	}
	return finding(anomaly.ChecksumTreeMalformed, round, off, "ChecksumResp does not parse: %v", err)
}

// take removes and returns the oldest outstanding request of round r.
func (h *Handshake) take(r uint8) (pendingReq, bool) {
	for i, q := range h.pending {
		if q.round == r {
			h.pending = append(h.pending[:i], h.pending[i+1:]...)
			return q, true
		}
	}
	return pendingReq{}, false
}

func (h *Handshake) checksumComplete(dst []Finding) []Finding {
	if h.seen && (h.next != len(Rounds) || !h.answered) {
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, NoRound, 0,
			"ChecksumComplete 0x28 sent before round 0xFF was answered"))
	} else if !h.seen && !h.Partial {
		dst = append(dst, finding(anomaly.ChecksumRoundOrder, NoRound, 0,
			"ChecksumComplete 0x28 sent without any checksum round"))
	}
	h.complete = true
	return dst
}

func (h *Handshake) gameStart(dst []Finding, op byte) []Finding {
	if h.complete || h.flagged || !h.strict() {
		return dst
	}
	h.flagged = true
	name := "Settings 0x00"
	if op == 0x01 {
		name = "GameInit 0x01"
	}
	return append(dst, finding(anomaly.ChecksumMissingComplete, NoRound, 0,
		"%s sent without a preceding ChecksumComplete 0x28", name))
}

// internDir returns dir as a string, the stock round's own when it is one
// (the usual case): requests repeat per player, their text is rarely shown.
func internDir(dir []byte) string {
	for _, rs := range Rounds {
		if d := TrimDir(rs.Dir); d == string(dir) {
			return d
		}
	}
	return string(dir)
}
