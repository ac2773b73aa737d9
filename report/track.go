package report

import "github.com/bcdump/bcdump/dissect"

// appendTrackJSON appends the per-flow delivery keys of a message.
func appendTrackJSON(b []byte, first *bool, dm *dissect.Message) []byte {
	return b
}

// appendTrackBrief appends the per-flow delivery marks of a message.
func appendTrackBrief(b []byte, dm *dissect.Message) []byte {
	return b
}
