package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/report/query"
)

func newFieldsCmd(s *streams) *cobra.Command {
	var format string
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
"0x7E0CE243") compare as numbers: name_hash == 0x7e0ce243.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFields(s, format) },
	}
	cmd.Flags().StringVarP(&format, "format", "F", "table", "output format: table or json")
	return cmd
}

func runFields(s *streams, format string) error {
	fields := query.FieldSchema().Fields()
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
	case "table", "":
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FIELD\tTYPE\tMEANING")
		for _, f := range fields {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Path, f.Type, f.Meaning)
		}
		return tw.Flush()
	}
	return fmt.Errorf("--format must be table or json, not %q", format)
}
