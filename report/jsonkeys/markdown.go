package jsonkeys

import (
	"io"
	"strings"
)

// WriteMarkdown writes the table as the help topic json-keys
// (cmd/bcdump/helptopics/json-keys.md) shows it.
func WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(`# JSON record keys

Every key of the records ` + "`bcdump read -F json`" + ` prints, generated from the
table the filter schema is built from (report/jsonkeys). A path joins keys
with dots and leaves array levels out: ` + "`messages.seq`" + ` is the ` + "`seq`" + ` of each
element of ` + "`messages`" + `. Keys are only ever added. A key that is absent stands
for false, zero or unknown. The decoded payload fields under
` + "`messages.fields`" + ` are listed by ` + "`bcdump fields`" + `.

| path | type | records | meaning | present |
|---|---|---|---|---|
`)
	for _, k := range table {
		b.WriteString("| `" + k.Path + "` | " + k.Type.String() + " | " + k.Records.String() + " | " +
			cell(k.Meaning) + " | " + cell(k.Read) + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes a table cell's pipes.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
