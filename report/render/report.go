package render

import (
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/quote"
)

// Reporter is what a dissect.Session feeds: every decoded datagram in
// capture order, the events found mid-capture when they are shown as found
// (bcdump live), then what the end of the capture revealed (Finish, which
// also flushes).
type Reporter interface {
	dissect.Sink
}

// FileMarker is implemented by the reporters that can say which capture
// the records that follow come from, when several are read in one run:
// the table and hex formats print a "==> name <==" header (like tail and
// head), JSON adds a "file" key to every record.
type FileMarker interface {
	StartFile(name string) error
}

var (
	_ FileMarker = (*Table)(nil)
	_ FileMarker = (*Hex)(nil)
	_ FileMarker = (*JSON)(nil)
)

// appendFileHeader appends the "==> name <==" line that starts a file's
// records, after a blank line unless it is the first.
func appendFileHeader(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, '\n')
	}
	b = append(b, "==> "...)
	b = append(b, quote.Name(name)...)
	return append(b, " <==\n"...)
}
