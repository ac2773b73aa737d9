package story

import (
	"encoding/json"
	"strings"

	"github.com/bcdump/bcdump/report/filter"
)

// The session.* fields: a player's verdict and who it is, for `bcdump
// session -Y` (which then lists only the matching players and their
// timeline lines). They are not fields of the datagram records; an
// expression names either these or datagram fields, not both.
var Fields = []struct {
	Path    string
	Type    filter.Type
	Meaning string
}{
	{"session.verdict", filter.String, `"entered", "never entered" or "unknown" (joined before the capture started, no StateUpdate seen)`},
	{"session.cause", filter.String, "the rule that decided the verdict: entered, already-in-game, already-connected, server-full, checksum-mismatch, booted (causes the capture proves), checksum-unanswered, client-disconnected, timed-out, removed, capture-ended (where the join stopped, not why)"},
	{"session.entered", filter.Bool, "the player entered the game"},
	{"session.name", filter.String, "player name"},
	{"session.peer_id", filter.Number, "peer id"},
	{"session.address", filter.String, "client address:port"},
	{"session.checksum", filter.String, "checksum handshake verdict: passed, failed, kicked, left, pending, not-seen"},
	{"session.left_how", filter.String, "how it left: still-connected, disconnect, host-disconnect, booted, removed, timeout"},
	{"session.server", filter.String, "server address:port"},
}

// FieldPrefix starts every session field.
const FieldPrefix = "session."

// Schema adds the session fields to a filter schema.
type Schema struct{ filter.Schema }

// Field answers for the session fields, and asks the wrapped schema for
// the rest.
func (s Schema) Field(path string) (filter.Type, bool) {
	for _, f := range Fields {
		if f.Path == path {
			return f.Type, true
		}
	}
	if path == "session" {
		return filter.Object, true
	}
	return s.Schema.Field(path)
}

// Values forwards to the wrapped schema's values (filter.Valuer).
func (s Schema) Values(path string) []string {
	if v, ok := s.Schema.(filter.Valuer); ok {
		return v.Values(path)
	}
	return nil
}

// Names lists the session fields after the wrapped schema's.
func (s Schema) Names() []string {
	names := s.Schema.Names()
	for _, f := range Fields {
		names = append(names, f.Path)
	}
	return names
}

// Flat forwards the wrapped schema's flattened roots.
func (s Schema) Flat() []string {
	if fl, ok := s.Schema.(filter.Flattener); ok {
		return fl.Flat()
	}
	return nil
}

// OnSession reports whether a compiled expression reads session fields
// only (true), datagram fields only (false), or both (an error's case:
// mixed).
func OnSession(f *filter.Filter) (session, mixed bool) {
	n := 0
	fs := f.Fields()
	for _, p := range fs {
		if p == "session" || strings.HasPrefix(strings.TrimPrefix(p, filter.Prefix), FieldPrefix) {
			n++
		}
	}
	return n > 0 && n == len(fs), n > 0 && n < len(fs)
}

// SetPlayerFilter keeps only the players whose session record matches f
// (and the timeline lines about them or about no one).
func (a *Analyzer) SetPlayerFilter(f *filter.Filter) { a.players = f }

type sessionRecord struct {
	Session playerRecord `json:"session"`
}

type playerRecord struct {
	Verdict  string `json:"verdict"`
	Cause    string `json:"cause"`
	Entered  bool   `json:"entered"`
	Name     string `json:"name,omitempty"`
	PeerID   *int   `json:"peer_id,omitempty"`
	Address  string `json:"address"`
	Checksum string `json:"checksum"`
	LeftHow  string `json:"left_how"`
	Server   string `json:"server"`
}

// keep reports whether the player filter keeps player d of server srv.
func (a *Analyzer) keep(srv string, d *PlayerDoc) bool {
	if a.players == nil {
		return true
	}
	rec, err := json.Marshal(sessionRecord{playerRecord{Verdict: d.Verdict.Verdict, Cause: d.Verdict.Cause,
		Entered: d.Verdict.Verdict == VerdictEntered, Name: d.Name, PeerID: d.PeerID, Address: d.Address,
		Checksum: d.Checksum.Verdict, LeftHow: d.LeftHow, Server: srv}})
	return err == nil && a.players.Match(rec)
}
