package replay

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bcdump/bcdump/dissect/game"
)

// Phase is a stage of a client's session.
type Phase uint8

const (
	PhaseConnect  Phase = iota + 1 // Connect and the id the host assigns
	PhaseChecksum                  // checksum rounds 0x20-0x27 and 0x28
	PhaseSettings                  // Settings 0x00, GameInit 0x01, UISettings 0x16
	PhaseMission                   // MissionInit, scores, player list
	PhaseInGame                    // everything else
)

var phaseNames = [...]string{PhaseConnect: "connect", PhaseChecksum: "checksum", PhaseSettings: "settings",
	PhaseMission: "mission", PhaseInGame: "in game"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) && phaseNames[p] != "" {
		return phaseNames[p]
	}
	return "?"
}

// Phases lists the phases in session order.
var Phases = []Phase{PhaseConnect, PhaseChecksum, PhaseSettings, PhaseMission, PhaseInGame}

// phaseOf is the phase a game opcode belongs to.
func phaseOf(op int) Phase {
	switch {
	case op >= 0x20 && op <= 0x28:
		return PhaseChecksum
	case op == 0x00 || op == 0x01 || op == 0x16:
		return PhaseSettings
	case op == 0x35 || op == 0x37 || op == 0x3F || op == 0x40 || op == 0x17:
		return PhaseMission
	}
	return PhaseInGame
}

// Kind says how a row was compared.
type Kind string

const (
	Exact       Kind = "exact"       // message by message, field by field
	Statistical Kind = "statistical" // counts, rates and sizes within a tolerance
	Run         Kind = "run"         // what the live run itself ran into
)

// Row is one line of a comparison.
type Row struct {
	Client   string `json:"client"`
	Phase    string `json:"phase"`
	Kind     Kind   `json:"kind"`
	Item     string `json:"item"`
	Recorded string `json:"recorded"`
	Live     string `json:"live"`
	Differs  bool   `json:"differs"`
}

// Tolerances of the comparison.
type Tolerances struct {
	Float float64 // relative difference of float fields (1e-3)
	Rate  float64 // relative difference of rates and mean sizes (0.3)
	// MinCount is the fewest recorded messages of an opcode whose rate is
	// compared (5); fewer are compared as present or absent.
	MinCount int
}

func (t Tolerances) withDefaults() Tolerances {
	if t.Float <= 0 {
		t.Float = 1e-3
	}
	if t.Rate <= 0 {
		t.Rate = 0.3
	}
	if t.MinCount <= 0 {
		t.MinCount = 5
	}
	return t
}

// Compare sets a live run against its recording: the messages of side
// (FromServer for Drive, FromClient for Serve) against the recorded ones.
// speed is the run's Options.Speed: live times are scaled back by it
// before rates are compared (0, max, compares counts, not rates).
func Compare(live *Live, side Dir, speed float64, tol Tolerances) []Row {
	tol = tol.withDefaults()
	c := live.Conv
	name := c.Label()
	var rows []Row
	add := func(p Phase, k Kind, item, rec, got string, differs bool) {
		rows = append(rows, Row{Client: name, Phase: p.String(), Kind: k, Item: item, Recorded: rec, Live: got, Differs: differs})
	}

	add(PhaseConnect, Exact, "peer id", idText(c.PeerID), idText(live.PeerID), c.PeerID != 0 && c.PeerID != live.PeerID)

	rec := c.side(side)
	back := live.Ident.reverse()
	var got []Message
	for _, m := range live.Messages {
		if m.Dir == side {
			m.Payload = remap(m.Payload, back)
			got = append(got, m)
		}
	}
	for _, p := range []Phase{PhaseChecksum, PhaseSettings, PhaseMission} {
		rows = append(rows, exactPhase(name, p, inPhase(rec, p), inPhase(got, p), tol)...)
	}
	rows = append(rows, statPhase(name, inPhase(rec, PhaseInGame), inPhase(got, PhaseInGame), speed, tol)...)
	if live.Dropped > 0 {
		add(PhaseInGame, Run, "answers over the bound", "", fmt.Sprintf("%d counted, not kept", live.Dropped), true)
	}
	for _, f := range live.Findings {
		add(f.Phase, Run, "finding", "", f.Text, true)
	}
	return rows
}

func idText(id uint8) string {
	if id == 0 {
		return "none"
	}
	return fmt.Sprint(id)
}

func inPhase(ms []Message, p Phase) []Message {
	var out []Message
	for _, m := range ms {
		if phaseOf(m.Opcode()) == p && (p == PhaseInGame || m.Reliable) {
			out = append(out, m)
		}
	}
	return out
}

// exactPhase aligns two message lists by opcode (longest common
// subsequence) and compares the pairs field by field.
func exactPhase(client string, p Phase, rec, got []Message, tol Tolerances) []Row {
	var rows []Row
	row := func(item, r, g string, differs bool) {
		rows = append(rows, Row{Client: client, Phase: p.String(), Kind: Exact, Item: item, Recorded: r, Live: g, Differs: differs})
	}
	pairs := align(rec, got)
	same := 0
	for _, pr := range pairs {
		switch {
		case pr.r < 0:
			g := &got[pr.g]
			row(opName(g.Opcode())+" (extra)", "absent", summary(g), true)
		case pr.g < 0:
			r := &rec[pr.r]
			row(opName(r.Opcode())+" (missing)", fmt.Sprintf("%s [frame %d]", summary(r), r.Frame), "absent", true)
		default:
			diffs := fieldDiffs(rec[pr.r].Payload, got[pr.g].Payload, tol)
			if len(diffs) == 0 {
				same++
				continue
			}
			for _, d := range diffs {
				row(fmt.Sprintf("%s %s", opName(rec[pr.r].Opcode()), d.name), d.rec+fmt.Sprintf(" [frame %d]", rec[pr.r].Frame), d.got, true)
			}
		}
	}
	row("messages equal", fmt.Sprint(len(rec)), fmt.Sprintf("%d of %d", same, len(got)), same != len(rec) || same != len(got))
	return rows
}

type pair struct{ r, g int }

// align pairs the messages of a and b with the same opcode, in order
// (LCS over opcodes); unpaired ones get -1 on the other side. Lists are
// bounded by the recording and MaxAnswers; the table is cut at 4096 x
// 4096 and the rest paired in order.
func align(a, b []Message) []pair {
	const cut = 4096
	na, nb := min(len(a), cut), min(len(b), cut)
	l := make([][]int32, na+1)
	for i := range l {
		l[i] = make([]int32, nb+1)
	}
	for i := na - 1; i >= 0; i-- {
		for j := nb - 1; j >= 0; j-- {
			if a[i].Opcode() == b[j].Opcode() {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []pair
	i, j := 0, 0
	for i < na && j < nb {
		switch {
		case a[i].Opcode() == b[j].Opcode():
			out = append(out, pair{i, j})
			i++
			j++
		case l[i+1][j] >= l[i][j+1]:
			out = append(out, pair{i, -1})
			i++
		default:
			out = append(out, pair{-1, j})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, pair{i, -1})
	}
	for ; j < len(b); j++ {
		out = append(out, pair{-1, j})
	}
	return out
}

type fieldDiff struct{ name, rec, got string }

// fieldDiffs compares two payloads of one opcode field by field. Fields
// whose name says they are a time are not compared: a server's clock is
// its own.
func fieldDiffs(a, b []byte, tol Tolerances) []fieldDiff {
	var fa, fb game.Fields
	_, ea := game.Decode(a, &fa)
	_, eb := game.Decode(b, &fb)
	var out []fieldDiff
	if (ea == nil) != (eb == nil) {
		out = append(out, fieldDiff{"decodes", errText(ea), errText(eb)})
	}
	la, lb := fa.List, fb.List
	if len(la) != len(lb) {
		out = append(out, fieldDiff{"field count", fmt.Sprint(len(la)), fmt.Sprint(len(lb))})
	}
	path := make([]string, 0, 8)
	for i := range min(len(la), len(lb)) {
		x, y := &la[i], &lb[i]
		if x.Kind == game.KindEnd {
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
			continue
		}
		name := strings.Join(append(path, x.Name), ".")
		if x.Kind == game.KindObject || x.Kind == game.KindArray {
			path = append(path, x.Name)
		}
		if x.Name != y.Name || x.Kind != y.Kind {
			out = append(out, fieldDiff{name, "field " + x.Name, "field " + y.Name})
			break
		}
		if isTimeField(x.Name) {
			continue
		}
		if !sameValue(x, y, tol) {
			out = append(out, fieldDiff{name, valueText(x), valueText(y)})
		}
		if len(out) >= 8 {
			break
		}
	}
	if len(out) == 0 && len(la) == 0 && !slices.Equal(a, b) {
		out = append(out, fieldDiff{"bytes", fmt.Sprintf("% X", head(a)), fmt.Sprintf("% X", head(b))})
	}
	return out
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }

func errText(err error) string {
	if err == nil {
		return "yes"
	}
	return "no: " + err.Error()
}

func isTimeField(name string) bool {
	return strings.HasSuffix(name, "time") || strings.HasSuffix(name, "clock")
}

func sameValue(x, y *game.Field, tol Tolerances) bool {
	switch x.Kind {
	case game.KindFloat:
		return closeTo(x.F, y.F, tol.Float)
	case game.KindVec:
		return closeTo(x.V[0], y.V[0], tol.Float) && closeTo(x.V[1], y.V[1], tol.Float) && closeTo(x.V[2], y.V[2], tol.Float)
	case game.KindString, game.KindBytes:
		return string(x.B) == string(y.B)
	case game.KindInt:
		return x.I == y.I
	}
	return x.U == y.U
}

func closeTo(a, b, rel float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= rel*max(1, math.Abs(a), math.Abs(b))
}

func valueText(f *game.Field) string {
	switch f.Kind {
	case game.KindFloat:
		return fmt.Sprintf("%g", f.F)
	case game.KindVec:
		return fmt.Sprintf("(%g, %g, %g)", f.V[0], f.V[1], f.V[2])
	case game.KindString:
		return fmt.Sprintf("%q", f.B)
	case game.KindBytes:
		return fmt.Sprintf("% X", head(f.B))
	case game.KindInt:
		return fmt.Sprint(f.I)
	case game.KindHash, game.KindHex:
		return fmt.Sprintf("0x%0*X", max(2, f.Len*2), f.U)
	case game.KindBool:
		return fmt.Sprint(f.U != 0)
	}
	return fmt.Sprint(f.U)
}

// summary is a message's opcode and first fields, for people.
func summary(m *Message) string {
	var f game.Fields
	game.Decode(m.Payload, &f)
	var b strings.Builder
	b.WriteString(opName(m.Opcode()))
	n := 0
	for i := range f.List {
		x := &f.List[i]
		if x.Kind == game.KindObject || x.Kind == game.KindArray || x.Kind == game.KindEnd || x.Name == "" {
			continue
		}
		if n == 3 {
			b.WriteString(" ...")
			break
		}
		fmt.Fprintf(&b, " %s=%s", x.Name, valueText(x))
		n++
	}
	return b.String()
}

// statPhase compares per-opcode counts, rates and mean sizes.
func statPhase(client string, rec, got []Message, speed float64, tol Tolerances) []Row {
	var rows []Row
	type agg struct {
		n     int
		bytes int
		first time.Duration
		last  time.Duration
	}
	sum := func(ms []Message, scale float64) (map[int]*agg, []int) {
		m := map[int]*agg{}
		var ops []int
		for _, x := range ms {
			a := m[x.Opcode()]
			at := time.Duration(float64(x.At) * scale)
			if a == nil {
				a = &agg{first: at}
				m[x.Opcode()] = a
				ops = append(ops, x.Opcode())
			}
			a.n++
			a.bytes += len(x.Payload)
			a.last = at
		}
		return m, ops
	}
	scale := speed
	if scale <= 0 {
		scale = 1
	}
	ra, rops := sum(rec, 1)
	ga, gops := sum(got, scale)
	for _, op := range gops {
		if ra[op] == nil {
			rops = append(rops, op)
		}
	}
	slices.Sort(rops)
	row := func(item, r, g string, differs bool) {
		rows = append(rows, Row{Client: client, Phase: PhaseInGame.String(), Kind: Statistical, Item: item, Recorded: r, Live: g, Differs: differs})
	}
	for _, op := range rops {
		r, g := ra[op], ga[op]
		name := opName(op)
		switch {
		case r == nil:
			row(name+" count", "0", fmt.Sprint(g.n), true)
			continue
		case g == nil:
			row(name+" count", fmt.Sprint(r.n), "0", true)
			continue
		}
		if r.n < tol.MinCount {
			row(name+" present", fmt.Sprint(r.n), fmt.Sprint(g.n), false)
			continue
		}
		if speed > 0 {
			rr, gr := rate(r.n, r.last-r.first), rate(g.n, g.last-g.first)
			row(name+" rate /s", fmt.Sprintf("%.1f", rr), fmt.Sprintf("%.1f", gr), !closeRel(rr, gr, tol.Rate))
		} else {
			row(name+" count", fmt.Sprint(r.n), fmt.Sprint(g.n), !closeRel(float64(r.n), float64(g.n), tol.Rate))
		}
		rs, gs := float64(r.bytes)/float64(r.n), float64(g.bytes)/float64(g.n)
		row(name+" mean bytes", fmt.Sprintf("%.1f", rs), fmt.Sprintf("%.1f", gs), !closeRel(rs, gs, tol.Rate))
	}
	if len(rops) == 0 {
		row("messages", "0", "0", false)
	}
	return rows
}

func rate(n int, span time.Duration) float64 {
	if n < 2 || span <= 0 {
		return 0
	}
	return float64(n-1) / span.Seconds()
}

func closeRel(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*max(math.Abs(a), math.Abs(b))
}
