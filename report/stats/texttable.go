package stats

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// NewTextTable returns the ASCII table the stats tables use, for the
// summaries of other packages (report/profile), so they all look alike.
func NewTextTable(w io.Writer, align []tw.Align, header ...any) *tablewriter.Table {
	return newTable(w, align, header...)
}
