package profile

import "github.com/bcdump/bcdump/dissect/game"

// The request/response pairs the protocol defines (protocol-facts 4.1,
// 4.2, 7.1, 7.2, 9.1, 9.5, 10 and GameSpy 1.1). The latency of a pair is
// from the first send of the request to the first send of the response,
// both as seen at the capture point.
const (
	pairConnect          = iota // c2s datagram from peer 0xFF (Connect) -> s2c Connect reply (peer id)
	pairPeerInfo                // c2s PeerInfo (type 0x00) -> s2c PeerInfo echo
	pairChecksum                // s2c ChecksumReq round r -> c2s ChecksumResp round r
	pairChecksumNext            // c2s ChecksumResp -> s2c ChecksumReq of the next round
	pairChecksumComplete        // c2s last ChecksumResp -> s2c ChecksumComplete 0x28
	pairNewPlayer               // c2s NewPlayerInGame 0x2A -> s2c MissionInit 0x35
	pairObject                  // c2s ObjNotFound 0x1D / RequestObj 0x1E -> s2c ObjCreate 0x02 / ObjCreateTeam 0x03
	pairGameSpy                 // c2s GameSpy query -> s2c GameSpy reply
	numPairs
)

// pairDef describes a pair for the documents.
type pairDef struct {
	key, request, response string
	// extra: a response with no request waiting is counted (it is abnormal:
	// a second Connect reply, a MissionInit nobody asked for).
	extra bool
}

var pairDefs = [numPairs]pairDef{
	pairConnect:          {"connect", "c2s Connect (from peer id 0xFF)", "s2c Connect reply (type 0x03)", true},
	pairPeerInfo:         {"peer_info", "c2s PeerInfo (type 0x00)", "s2c PeerInfo (type 0x00)", false},
	pairChecksum:         {"checksum_round", "s2c ChecksumReq 0x20", "c2s ChecksumResp 0x21 (same round)", true},
	pairChecksumNext:     {"checksum_next_round", "c2s ChecksumResp 0x21", "s2c next ChecksumReq 0x20", false},
	pairChecksumComplete: {"checksum_complete", "c2s last ChecksumResp 0x21", "s2c ChecksumComplete 0x28", true},
	pairNewPlayer:        {"new_player_mission_init", "c2s NewPlayerInGame 0x2A", "s2c MissionInit 0x35", true},
	pairObject:           {"object_request", "c2s ObjNotFound 0x1D / RequestObj 0x1E", "s2c ObjCreate 0x02 / ObjCreateTeam 0x03", false},
	pairGameSpy:          {"gamespy_query", "c2s GameSpy query", "s2c GameSpy reply", false},
}

// pairStats counts one pair in one flow.
type pairStats struct {
	requests, answered, unanswered, extra uint64
	lat                                   hist // µs
}

// pending holds, per pair, whether a request waits for its response and
// since when, and for checksum rounds the round byte.
type pending struct {
	at    [numPairs]int64
	on    [numPairs]bool
	round byte
}

func (p *pending) waiting(k int) bool { return p.on[k] }

func (p *pending) set(k int, now int64) { p.at[k], p.on[k] = now, true }

func (p *pending) clear(k int) { p.on[k] = false }

// request opens pair k at now. A request still waiting is unanswered.
func (f *flow) request(k int, now int64, round byte) {
	ps := &f.pairs[k]
	if f.pend.waiting(k) {
		ps.unanswered++
	}
	ps.requests++
	f.pend.set(k, now)
	if k == pairChecksum {
		f.pend.round = round
	}
}

// response closes pair k at now, if a request waits.
func (f *flow) response(k int, now int64, round byte) {
	ps := &f.pairs[k]
	if !f.pend.waiting(k) || k == pairChecksum && round != f.pend.round {
		if pairDefs[k].extra {
			ps.extra++
		}
		return
	}
	ps.answered++
	ps.lat.add(uint64(max(now-f.pend.at[k], 0) / 1000))
	f.pend.clear(k)
}

// checksumResp opens the two pairs a ChecksumResp starts, replacing a
// response still waiting: only the last response before the next request
// or ChecksumComplete counts.
func (f *flow) checksumResp(now int64) {
	for _, k := range [...]int{pairChecksumNext, pairChecksumComplete} {
		if !f.pend.waiting(k) {
			f.pairs[k].requests++
		}
		f.pend.set(k, now)
	}
}

// gameMessage drives the pairs that game opcodes open and close.
func (f *flow) gameMessage(di int, now int64, b []byte) {
	op := b[0]
	var round byte
	if len(b) > 1 {
		round = b[1]
	}
	if di == 0 {
		switch op {
		case game.CodeChecksumResp:
			f.response(pairChecksum, now, round)
			f.checksumResp(now)
		case game.CodeNewPlayerInGame:
			f.request(pairNewPlayer, now, 0)
		case game.CodeObjNotFound, game.CodeRequestObj:
			f.request(pairObject, now, 0)
		}
		return
	}
	switch op {
	case game.CodeChecksumReq:
		if f.pend.waiting(pairChecksumNext) {
			f.response(pairChecksumNext, now, 0)
			f.dropRequest(pairChecksumComplete)
		}
		f.request(pairChecksum, now, round)
	case game.CodeChecksumComplete:
		f.response(pairChecksumComplete, now, 0)
		f.dropRequest(pairChecksumNext)
	case game.CodeMissionInit:
		f.response(pairNewPlayer, now, 0)
	case game.CodeObjCreate, game.CodeObjCreateTeam:
		if f.pend.waiting(pairObject) {
			f.response(pairObject, now, 0)
		}
	}
}

// dropRequest forgets a waiting request that turned out to belong to the
// other of two alternatives (the next round or ChecksumComplete).
func (f *flow) dropRequest(k int) {
	if f.pend.waiting(k) {
		f.pairs[k].requests--
		f.pend.clear(k)
	}
}

// closeAll counts the requests still waiting at the end as unanswered.
func (p *pending) closeAll(f *flow) {
	for k := range p.on {
		if p.on[k] {
			f.pairs[k].unanswered++
			p.on[k] = false
		}
	}
}
