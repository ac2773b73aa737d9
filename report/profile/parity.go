package profile

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/bcdump/bcdump/report/quote"
)

// Presence says on which side of a comparison an opcode was seen.
type Presence string

const (
	PresentBoth Presence = "both"
	OnlyOld     Presence = "only_old" // only in the reference (OLD)
	OnlyNew     Presence = "only_new"
)

// ParityRow is one opcode in one direction: the table that reimplementers
// of the server write by hand, MATCH/MISSING per opcode.
type ParityRow struct {
	Dir      string   `json:"dir"`
	Opcode   uint8    `json:"opcode"`
	Hex      string   `json:"opcode_hex"`
	Name     string   `json:"opcode_name"`
	Presence Presence `json:"presence"`
	OldCount uint64   `json:"old_count"`
	NewCount uint64   `json:"new_count"`
	OldRate  float64  `json:"old_rate_per_s"`
	NewRate  float64  `json:"new_rate_per_s"`
	// Accepted: the opcode is on one side only and the baseline records
	// it so (same direction, opcode and presence).
	Accepted bool `json:"accepted,omitempty"`
}

// Parity is the opcode parity of two profiles: every opcode of either, per
// direction, in direction and opcode order.
type Parity struct {
	Rows    []ParityRow `json:"rows"`
	OnlyOld int         `json:"only_old"`
	OnlyNew int         `json:"only_new"`
	// Accepted is how many of the OnlyOld and OnlyNew rows the baseline
	// accepts.
	Accepted int `json:"accepted,omitempty"`
}

// Missing is the number of opcodes seen on one side only.
func (p *Parity) Missing() int { return p.OnlyOld + p.OnlyNew }

// Failed is the number of opcodes seen on one side only that the baseline
// does not accept: each fails the comparison.
func (p *Parity) Failed() int { return p.Missing() - p.Accepted }

// accept marks the one-sided rows the baseline records.
func (p *Parity) accept(b *Baseline) {
	if b == nil {
		return
	}
	for i := range p.Rows {
		r := &p.Rows[i]
		if r.Presence != PresentBoth && b.acceptsParity(r) {
			r.Accepted = true
			p.Accepted++
		}
	}
}

// presenceText is a row's presence for people.
func (r *ParityRow) presenceText() string {
	s := "both"
	switch r.Presence {
	case OnlyOld:
		s = "only in reference"
	case OnlyNew:
		s = "only in other"
	}
	if r.Accepted {
		s += " (accepted)"
	}
	return s
}

// ComparePresence builds the parity table of two profiles.
func ComparePresence(old, nw *Doc) *Parity {
	p := &Parity{Rows: []ParityRow{}}
	for _, side := range []struct {
		dir    string
		od, nd *DirDoc
	}{{"c2s", &old.C2S, &nw.C2S}, {"s2c", &old.S2C, &nw.S2C}} {
		rows := map[uint8]*ParityRow{}
		var order []uint8
		row := func(o *OpcodeDoc) *ParityRow {
			r, ok := rows[o.Opcode]
			if !ok {
				r = &ParityRow{Dir: side.dir, Opcode: o.Opcode, Hex: o.Hex, Name: o.Name}
				rows[o.Opcode] = r
				order = append(order, o.Opcode)
			}
			return r
		}
		for i := range side.od.Opcodes {
			o := &side.od.Opcodes[i]
			r := row(o)
			r.OldCount, r.OldRate = o.Count, o.RatePerS
		}
		for i := range side.nd.Opcodes {
			o := &side.nd.Opcodes[i]
			r := row(o)
			r.NewCount, r.NewRate = o.Count, o.RatePerS
		}
		slices.Sort(order)
		for _, op := range order {
			r := rows[op]
			switch {
			case r.OldCount > 0 && r.NewCount > 0:
				r.Presence = PresentBoth
			case r.OldCount > 0:
				r.Presence = OnlyOld
				p.OnlyOld++
			case r.NewCount > 0:
				r.Presence = OnlyNew
				p.OnlyNew++
			default:
				continue
			}
			p.Rows = append(p.Rows, *r)
		}
	}
	return p
}

// WriteText writes the parity table; oldName is the reference.
func (p *Parity) WriteText(w io.Writer, oldName, newName string) error {
	fmt.Fprintf(w, "opcode parity (reference: %s):\n", quote.Name(oldName))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "dir\topcode\tname\tpresence\told count\tnew count\told /s\tnew /s\n")
	for _, r := range p.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Dir, r.Hex, r.Name, r.presenceText(),
			r.OldCount, r.NewCount, strconv.FormatFloat(round3(r.OldRate), 'f', -1, 64), strconv.FormatFloat(round3(r.NewRate), 'f', -1, 64))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d opcodes only in the reference (%s), %d only in the other (%s)", p.OnlyOld, quote.Name(oldName), p.OnlyNew, quote.Name(newName)); err != nil {
		return err
	}
	if p.Accepted > 0 {
		fmt.Fprintf(w, "; %d of them accepted by the baseline", p.Accepted)
	}
	_, err := fmt.Fprintln(w)
	return err
}
