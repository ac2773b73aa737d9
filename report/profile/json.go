package profile

import (
	"encoding/json"
	"io"

	"github.com/bcdump/bcdump/report/quote"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(quote.JSONWriter(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
