package replay

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/report/stats"
)

// Differences counts the rows that differ.
func Differences(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Differs {
			n++
		}
	}
	return n
}

// WriteTable writes rows as a table: the differing rows and each phase's
// summary ("messages equal"), or every row with all. Cells are cut to fit
// width (0: no limit); text from the recording or the wire is quoted.
func WriteTable(w io.Writer, rows []Row, all bool, width int) error {
	align := []tw.Align{tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft}
	t := stats.NewTextTable(w, align, "CLIENT", "PHASE", "KIND", "ITEM", "RECORDED", "LIVE", "")
	// Fixed columns take about 50 characters; the three text columns share
	// the rest.
	cell := 0
	if width > 0 {
		cell = max(12, (width-50)/3)
	}
	cut := func(s string) string {
		s = quote.Escape(s)
		if cell > 0 {
			return fit.Cut(s, cell)
		}
		return s
	}
	for _, r := range rows {
		if !all && !r.Differs && r.Item != "messages equal" && r.Item != "peer id" {
			continue
		}
		mark := "same"
		if r.Differs {
			mark = "DIFFERS"
		}
		if err := t.Append([]string{cut(r.Client), r.Phase, string(r.Kind), cut(r.Item), cut(r.Recorded), cut(r.Live), mark}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Verdict(rows))
	return err
}

// Verdict is the closing line of a comparison.
func Verdict(rows []Row) string {
	n := Differences(rows)
	if n == 0 {
		return fmt.Sprintf("replay: the live side matches the recording (%d rows compared)", len(rows))
	}
	by := map[Kind]int{}
	for _, r := range rows {
		if r.Differs {
			by[r.Kind]++
		}
	}
	return fmt.Sprintf("replay: %d of %d rows differ (exact %d, statistical %d, run %d)", n, len(rows), by[Exact], by[Statistical], by[Run])
}

// Document is the JSON form of a replay (-F json).
type Document struct {
	Version     int         `json:"bcdump_replay"`
	Recording   string      `json:"recording"`
	Mode        string      `json:"mode"` // "client" (against a server) or "server" (--as-server)
	Peer        string      `json:"peer"` // the server (client mode) or the listening address
	Speed       string      `json:"speed"`
	Clients     []ClientDoc `json:"clients"`
	Rows        []Row       `json:"rows"`
	Differences int         `json:"differences"`
}

// ClientDoc says who was replayed.
type ClientDoc struct {
	Name           string `json:"name"`
	RecordedAddr   string `json:"recorded_addr"`
	LiveAddr       string `json:"live_addr,omitempty"`
	RecordedPeerID uint8  `json:"recorded_peer_id"`
	LivePeerID     uint8  `json:"live_peer_id"`
	RecordedSlot   int    `json:"recorded_slot"`
	LiveSlot       int    `json:"live_slot"`
	Error          string `json:"error,omitempty"`
}

// WriteJSON writes doc as one JSON document.
func WriteJSON(w io.Writer, doc *Document) error {
	doc.Version = 1
	doc.Differences = Differences(doc.Rows)
	if doc.Rows == nil {
		doc.Rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
