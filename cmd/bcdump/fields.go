package main

import (
	"encoding/json"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/story"
)

func newFieldsCmd(s *streams) *cobra.Command {
	var format string
	var fl fitFlags
	cmd := &cobra.Command{
		Use:   "fields",
		Short: "List the fields display filters (-Y) can test, with type and meaning",
		Long: `List every field of the JSON records "read --format json" prints (datagram,
event and summary records), with its type and meaning: the names -Y takes.

Paths are dotted JSON keys with array levels left out (messages.opcode_name,
not messages[0].opcode_name); a path through an array is true when any
element makes it true. An optional "bc." prefix is accepted. The decoders'
fields (messages.fields.<key>) are found by name at any depth below
messages.fields: messages.fields.name_hash also tests
messages.fields.files.name_hash. Hex fields (hashes, object ids, written
"0x7E0CE243") compare as numbers: name_hash == 0x7e0ce243.

The session.* fields (record "session") are a player's verdict and who it
is: only bcdump session takes them, to list the matching players.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFields(s, format, &fl, cmd.Flags()) },
	}
	enumVarP(cmd.Flags(), &format, "format", "F", "table", tableOrJSON, "output format: %s")
	fl.register(cmd.Flags())
	return cmd
}

func runFields(s *streams, format string, o *fitFlags, fl *pflag.FlagSet) error {
	if err := o.text(fl, format); err != nil {
		return err
	}
	fields := query.FieldSchema().Fields()
	for _, f := range story.Fields {
		fields = append(fields, query.Field{Path: f.Path, Type: f.Type, Records: "session (bcdump session -Y only)", Meaning: f.Meaning})
	}
	switch format {
	case "json":
		type field struct {
			Path    string `json:"path"`
			Type    string `json:"type"`
			Records string `json:"records"`
			Meaning string `json:"meaning"`
		}
		out := make([]field, len(fields))
		for i, f := range fields {
			out[i] = field{f.Path, f.Type.String(), f.Records, f.Meaning}
		}
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	default:
		width, err := o.columns(fl, s.out)
		if err != nil {
			return err
		}
		tw := &fit.Table{Cols: []fit.Column{{Head: "FIELD"}, {Head: "TYPE"}, {Head: "MEANING"}}}
		for _, f := range fields {
			tw.Row(f.Path, f.Type.String(), f.Meaning)
		}
		return tw.Write(s.out, width)
	}
}
