package checksum

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Scripted payloads for handshake tests.

func reqMsg(round uint8) []byte {
	rs := Rounds[roundIndex(round)]
	return AppendRequest(nil, &Request{Round: round, Dir: []byte(rs.Dir), Filter: []byte(rs.Filter), Recursive: rs.Recursive})
}

func plainReqMsg(round uint8) []byte {
	rs := Rounds[roundIndex(round)]
	return AppendRequest(nil, &Request{Round: round, Dir: []byte(rs.Dir), Filter: []byte(rs.Filter), Recursive: rs.Recursive, PlainFlag: true})
}

func respMsg(round uint8) []byte {
	return AppendResponse(nil, respFor(round, nil))
}

func respFor(round uint8, root *Dir) *Response {
	return &Response{Round: round, HasRef: round == 0, RefHash: VersionHash,
		DirHash: StringHash(TrimDir(Rounds[roundIndex(round)].Dir)), Root: root}
}

type step struct {
	fromHost bool
	p        []byte
}

func host(p []byte) step   { return step{true, p} }
func client(p []byte) step { return step{false, p} }

var (
	msgComplete = []byte{OpComplete}
	msgSettings = []byte{0x00, 0x00, 0x00, 0x05, 0x42, 0x61, 0x00, 0x00, 0x00}
	msgGameInit = []byte{0x01}
)

// stockSteps is the stock order: five rounds one at a time, then 0x28,
// Settings, GameInit.
func stockSteps() []step {
	var s []step
	for _, rs := range Rounds {
		s = append(s, host(reqMsg(rs.Round)), client(respMsg(rs.Round)))
	}
	return append(s, host(msgComplete), host(msgSettings), host(msgGameInit))
}

func cat(parts ...[]step) []step {
	var s []step
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

func rounds(rs ...uint8) []step {
	var s []step
	for _, r := range rs {
		s = append(s, host(reqMsg(r)), client(respMsg(r)))
	}
	return s
}

func codes(fs []Finding) []anomaly.Code {
	var c []anomaly.Code
	for _, f := range fs {
		c = append(c, f.Code)
	}
	return c
}

func runSteps(h *Handshake, steps []step) []Finding {
	var out []Finding
	for _, s := range steps {
		out = h.Feed(out, s.fromHost, s.p)
	}
	return out
}

func TestHandshakeScripts(t *testing.T) {
	badVersion := respFor(0, nil)
	badVersion.RefHash = 0x4DAFCB2F // what OpenBC's client sends
	leafHash := respFor(2, nil)
	leafHash.DirHash = 0xB831D315 // StringHash("ships")
	trailing := append(respMsg(1), 0)

	tests := []struct {
		name    string
		partial bool
		steps   []step
		want    []anomaly.Code
	}{
		{"stock order", false, stockSteps(), nil},
		{"stock twice on one flow", false, cat(stockSteps(), stockSteps()), nil},
		{"partial capture from round 3", true, cat(rounds(3, 0xFF), stockSteps()[10:]), nil},
		{"partial capture from Settings", true, stockSteps()[11:], nil},
		{"round sent before response", false,
			[]step{host(reqMsg(0)), host(reqMsg(1)), client(respMsg(0)), client(respMsg(1))},
			[]anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"round 1 skipped", false, rounds(0, 2), []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"0xFF before 3", false, rounds(0, 1, 2, 0xFF), []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"first round not 0", false, rounds(1), []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"round repeated", false, rounds(0, 1, 1), []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"unknown round", false,
			[]step{host(AppendRequest(nil, &Request{Round: 4, Dir: []byte("x"), Filter: []byte("*")}))},
			[]anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"response without request", false, []step{client(respMsg(0))}, []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"response to another round", false,
			[]step{host(reqMsg(0)), client(respMsg(1))}, []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"0x28 before 0xFF answered", false,
			cat(rounds(0, 1, 2, 3), []step{host(reqMsg(0xFF)), host(msgComplete)}), []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"0x28 without rounds", false, []step{host(msgComplete)}, []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"plain flag byte", false,
			cat([]step{host(plainReqMsg(0)), client(respMsg(0))}, rounds(1, 2, 3, 0xFF)),
			[]anomaly.Code{anomaly.ChecksumBitBytePlain}},
		{"Settings without 0x28", false,
			cat(rounds(0, 1, 2, 3, 0xFF), []step{host(msgSettings), host(msgGameInit)}),
			[]anomaly.Code{anomaly.ChecksumMissingComplete}},
		{"GameInit without 0x28", false,
			cat(rounds(0, 1, 2, 3, 0xFF), []step{host(msgGameInit)}),
			[]anomaly.Code{anomaly.ChecksumMissingComplete}},
		{"client opcode 0x00 is not Settings", false,
			cat(rounds(0, 1, 2, 3, 0xFF), []step{client(msgSettings)}), nil},
		{"version", false,
			[]step{host(reqMsg(0)), client(AppendResponse(nil, badVersion))}, []anomaly.Code{anomaly.ChecksumVersion}},
		{"dir hash of the leaf", false,
			cat(rounds(0, 1), []step{host(reqMsg(2)), client(AppendResponse(nil, leafHash))}), []anomaly.Code{anomaly.ChecksumDirHash}},
		{"trailing bytes after tree", false,
			cat(rounds(0), []step{host(reqMsg(1)), client(trailing)}, rounds(2)), []anomaly.Code{anomaly.ChecksumTreeMalformed}},
		{"truncated header", false,
			cat([]step{host(reqMsg(0)), client([]byte{OpResponse, 0, 0x43})}, rounds(1)), []anomaly.Code{anomaly.ChecksumTreeMalformed}},
		{"malformed request ignored", false,
			[]step{host([]byte{OpRequest, 0, 0xFF})}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handshake{Partial: tt.partial}
			got := runSteps(h, tt.steps)
			if !reflect.DeepEqual(codes(got), tt.want) {
				t.Fatalf("codes %v, want %v\n%+v", codes(got), tt.want, got)
			}
			for _, f := range got {
				if f.Severity() == 0 || f.Message() == "" {
					t.Errorf("finding %+v", f)
				}
			}
		})
	}
}

func TestHandshakeFindingDetails(t *testing.T) {
	h := &Handshake{}
	leaf := respFor(3, nil)
	leaf.DirHash = 0x3F7BF00A
	fs := runSteps(h, cat(rounds(0, 1, 2), []step{host(plainReqMsg(3)), client(AppendResponse(nil, leaf))}))
	if len(fs) != 2 {
		t.Fatalf("%+v", fs)
	}
	if f := fs[0]; f.Code != anomaly.ChecksumBitBytePlain || f.Round != 3 || f.Off != len(plainReqMsg(3))-1 {
		t.Errorf("%+v", f)
	}
	if f := fs[1]; f.Code != anomaly.ChecksumDirHash || f.Round != 3 || f.Off != 2 {
		t.Errorf("%+v", f)
	}
}

// TestHandshakeStockTrace feeds the real stock trace (seed 003 #2..#25) in
// capture order: a stock host and client raise nothing.
func TestHandshakeStockTrace(t *testing.T) {
	h := &Handshake{}
	var got []Finding
	n := 0
	for _, m := range stockMessages(t) {
		if m.Payload[0] == OpRequest || m.Payload[0] == OpResponse {
			n++
		}
		got = h.Feed(got, m.FromHost, m.Payload)
	}
	// Round 2's response is fragmented and not in the excerpts: one
	// round-order finding for the missing answer is all that may appear.
	if n != 9 {
		t.Fatalf("%d checksum messages, want 9 (round 2 response is fragmented)", n)
	}
	if len(got) != 1 || got[0].Code != anomaly.ChecksumRoundOrder || got[0].Round != 3 {
		t.Fatalf("findings %+v", got)
	}
}

// TestHandshakeStockTraceWithRound2 splices a round 2 answer into the real
// trace where the fragmented one was: then nothing is raised.
func TestHandshakeStockTraceWithRound2(t *testing.T) {
	h := &Handshake{}
	var got []Finding
	for _, m := range stockMessages(t) {
		got = h.Feed(got, m.FromHost, m.Payload)
		if m.Payload[0] == OpRequest && m.Payload[1] == 2 {
			got = h.Feed(got, false, respMsg(2))
		}
	}
	if len(got) != 0 {
		t.Fatalf("findings %+v", got)
	}
}

// TestHandshakeOpenBC runs the OpenBC server/client capture (five joins):
// its client sends the wrong round 0 reference hash and leaf/zero dir
// hashes, which stock does not.
func TestHandshakeOpenBC(t *testing.T) {
	f, err := os.Open(filepath.Join(testdata, "captures", "openbc-session-2.truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flows := map[string]*Handshake{}
	count := map[anomaly.Code]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			Src, Dst, Direction, Kind, PlainHex string `json:"-"`
			Msgs                                []struct {
				Opcode        string `json:"opcode"`
				Fragment      bool   `json:"fragment"`
				PayloadOffset int    `json:"payload_offset"`
				PayloadLen    int    `json:"payload_len"`
			} `json:"msgs"`
		}
		var head struct {
			Src       string `json:"src"`
			Dst       string `json:"dst"`
			Direction string `json:"direction"`
			Kind      string `json:"kind"`
			PlainHex  string `json:"plain_hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatal(err)
		}
		if head.Kind != "bc" {
			continue
		}
		d, err := hex.DecodeString(head.PlainHex)
		if err != nil {
			t.Fatal(err)
		}
		peer := head.Src
		if head.Direction == "s2c" {
			peer = head.Dst
		}
		h := flows[peer]
		if h == nil {
			h = &Handshake{}
			flows[peer] = h
		}
		for _, m := range row.Msgs {
			if m.Opcode == "" || m.Fragment {
				continue
			}
			p := d[m.PayloadOffset : m.PayloadOffset+m.PayloadLen]
			for _, fd := range h.Feed(nil, head.Direction == "s2c", p) {
				count[fd.Code]++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Per join: round 0 ref 0x4DAFCB2F (version), dir hashes of rounds
	// 2 and 3 hash the leaf and round 0xFF sends 0 (dir-hash x3).
	joins := len(flows)
	if joins < 5 {
		t.Fatalf("%d client flows, want at least 5", joins)
	}
	want := map[anomaly.Code]int{anomaly.ChecksumVersion: joins, anomaly.ChecksumDirHash: 3 * joins}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("findings %v, want %v", count, want)
	}
}

// A pending request keeps only a capped copy of its directory: hostile
// 64 KB directory strings must not pile up (maxPending per flow), while the
// dir_hash check still uses the whole string.
func TestHandshakeLongDirectory(t *testing.T) {
	dir := make([]byte, 60000)
	for i := range dir {
		dir[i] = 'a' + byte(i%26)
	}
	var h Handshake
	h.Feed(nil, true, AppendRequest(nil, &Request{Round: 0, Dir: dir, Filter: []byte("App.pyc")}))
	if got := len(h.pending[0].dir); got > maxDirText+3 {
		t.Errorf("pending directory text is %d bytes, want at most %d", got, maxDirText+3)
	}
	good := &Response{Round: 0, HasRef: true, RefHash: VersionHash, DirHash: StringHashBytes(dir)}
	if fs := h.Feed(nil, false, AppendResponse(nil, good)); len(fs) != 0 {
		t.Errorf("matching dir_hash: findings %v", fs)
	}
	h.Feed(nil, true, AppendRequest(nil, &Request{Round: 1, Dir: dir, Filter: []byte("x")}))
	bad := &Response{Round: 1, DirHash: 1}
	fs := h.Feed(nil, false, AppendResponse(nil, bad))
	if len(fs) != 1 || fs[0].Code != anomaly.ChecksumDirHash || len(fs[0].Message()) > 300 {
		t.Errorf("wrong dir_hash: findings %v", fs)
	}
}

// TestHandshakeUnseen: once the caller learns the capture missed client
// messages, the outstanding request is not blamed on the next one, and a
// late answer still matches.
func TestHandshakeUnseen(t *testing.T) {
	tests := []struct {
		name   string
		unseen bool
		late   bool // the round 1 answer arrives after round 2 was requested
		want   []anomaly.Code
	}{
		{"answer missed, nothing known", false, false, []anomaly.Code{anomaly.ChecksumRoundOrder}},
		{"answer missed, gap known", true, false, nil},
		{"answer late, gap known", true, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Handshake{}
			var got []Finding
			got = h.Feed(got, true, reqMsg(0))
			got = h.Feed(got, false, respMsg(0))
			got = h.Feed(got, true, reqMsg(1))
			if tt.unseen {
				h.Unseen()
			}
			got = h.Feed(got, true, reqMsg(2))
			if tt.late {
				got = h.Feed(got, false, respMsg(1))
			}
			got = h.Feed(got, false, respMsg(2))
			var codes []anomaly.Code
			for _, f := range got {
				codes = append(codes, f.Code)
			}
			if !reflect.DeepEqual(codes, tt.want) {
				t.Errorf("findings %v, want %v", codes, tt.want)
			}
		})
	}
}
