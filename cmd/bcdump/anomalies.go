package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport/anomaly"
)

type anomaliesOptions struct {
	format string
	color  string
	fitFlags
}

func newAnomaliesCmd(s *streams) *cobra.Command {
	o := &anomaliesOptions{}
	cmd := &cobra.Command{
		Use:   "anomalies [CODE|GROUP...]",
		Short: "List every anomaly code bcdump can raise, with severity, group and meaning",
		Long: `List the anomaly registry: every code bcdump can raise, its fixed severity
(note, warn, error; what --fail-on compares), its group (framing, delivery,
reassembly, checksum, payload, capture, limit), where it is reported
(on the datagram, or later as an event) and what it means.

Arguments narrow the list to those codes or groups.
Formats: table, json (one array), markdown (the table of bcdump help anomalies).`,
		Example: `  bcdump anomalies
  bcdump anomalies checksum
  bcdump anomalies -F json | jq -r '.[] | select(.severity == "error") | .code'`,
		RunE: func(cmd *cobra.Command, args []string) error { return runAnomalies(s, o, args, cmd.Flags()) },
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, in := range anomaly.All() {
				names = append(names, in.Name)
				if g := in.Group.String(); !slices.Contains(names, g) {
					names = append(names, g)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
	f := cmd.Flags()
	enumVarP(f, &o.format, "format", "F", "table", anomalyFormat, "output format: %s")
	enumVarP(f, &o.color, "color", "", "auto", colorModes, "colour: %s")
	o.fitFlags.register(f)
	return cmd
}

func runAnomalies(s *streams, o *anomaliesOptions, args []string, fl *pflag.FlagSet) error {
	if err := o.text(fl, o.format); err != nil {
		return err
	}
	codes, err := selectAnomalies(args)
	if err != nil {
		return err
	}
	switch o.format {
	default:
		on, err := useColor(o.color, s.out)
		if err != nil {
			return err
		}
		width, err := o.columns(fl, s.out)
		if err != nil {
			return err
		}
		return render.WriteAnomaliesTableWidth(s.out, render.NewPalette(on), codes, width)
	case "json":
		return render.WriteAnomaliesJSON(s.out, codes)
	case "markdown":
		return render.WriteAnomaliesMarkdown(s.out, codes)
	}
}

// selectAnomalies keeps the registry rows named by args (codes or groups),
// in registry order; no args keeps all.
func selectAnomalies(args []string) ([]anomaly.Info, error) {
	all := anomaly.All()
	if len(args) == 0 {
		return all, nil
	}
	for _, a := range args {
		_, isCode := anomaly.Parse(a)
		isGroup := slices.ContainsFunc(all, func(in anomaly.Info) bool { return in.Group.String() == a })
		if !isCode && !isGroup {
			return nil, fmt.Errorf("%q is neither an anomaly code nor a group (bcdump anomalies lists them)", a)
		}
	}
	return slices.DeleteFunc(all, func(in anomaly.Info) bool {
		return !slices.Contains(args, in.Name) && !slices.Contains(args, in.Group.String())
	}), nil
}
