package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bcdump/bcdump/cmd/bcdump/internal/outfile"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/htmlreport"
)

type htmlReportOptions struct {
	decodeFlags
	filterFlag
	out  string
	keep bool // -o not given: the default name is not replaced
}

func newHTMLReportCmd(s *streams) *cobra.Command {
	o := &htmlReportOptions{}
	cmd := &cobra.Command{
		Use:   "report FILE... -o report.html",
		Short: "Write one self-contained HTML page: summary, charts, ladders, checksums, anomalies",
		Long: `Decode one or more captures and write one HTML page that opens offline in
any current browser (every script and style inline; it loads nothing):

  - the summary of bcdump session: server, settings, players with their
    checksum verdict, RTT p50/p95, retransmit ratio and anomalies;
  - per flow, time series linked in time (drag to zoom every chart, hover
    for values): RTT of every matched ACK (minimum to maximum per pixel
    column), datagrams/s and bytes/s each way, retransmissions/s, and the
    anomalies as marks on the time axis;
  - ladder diagrams: each flow's join handshake (Connect to
    NewPlayerInGame) and the 20 datagrams around each error-severity
    anomaly (the first 20 errors), ACKs linked to what they cleared,
    retransmits and never-ACKed messages marked;
  - with --manifest, the checksum tree of each player's answers with a
    verdict per file (match, mismatch, unknown, missing), mismatches first;
  - the session timeline and the anomaly table; a row jumps to its ladder
    or its charts.

The player, timeline and anomaly tables hold their first 200 rows; "show
all" draws the rest from the page's data. Only the first 32 flows are
charted. -Y keeps only the datagrams and events a display filter selects.
The page embeds its data as JSON (script#bcdump-data).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.keep = !cmd.Flags().Changed("output")
			return runHTMLReport(s, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "report.html", "the HTML file to write (- for standard output); without -o an existing report.html is kept")
	o.filterFlag.register(f, "report only matching datagrams and events")
	o.decodeFlags.register(f)
	return cmd
}

func runHTMLReport(s *streams, o *htmlReportOptions, files []string) error {
	flt, err := o.compile()
	if err != nil {
		return err
	}
	var b *htmlreport.Builder
	var rules outfile.Options
	return s.summarize(&o.decodeFlags, files, summary{
		start: func(opt dissect.Options, ins []input, _ bool) (dissect.Sink, error) {
			hopt := htmlreport.Options{Sources: files, Filter: o.expr, Manifest: opt.Manifest}
			if o.manifest != "" {
				hopt.ManifestName = filepath.Base(o.manifest)
			}
			b = htmlreport.New(hopt)
			rules = s.outputRules(inputNames(ins)...)
			rules.NoClobber = o.keep
			if o.out != "-" {
				if err := checkReportOutput(o.out, rules); err != nil {
					return nil, err
				}
			}
			return selected(b, flt), nil
		},
		write: func() error {
			var page bytes.Buffer
			if err := htmlreport.Render(&page, b.Data()); err != nil {
				return err
			}
			if o.out == "-" {
				_, err := s.out.Write(page.Bytes())
				return err
			}
			err := outfile.WriteFile(o.out, page.Bytes(), rules)
			var ee *outfile.ExistsError
			if errors.As(err, &ee) { // appeared while the captures were read
				err = checkReportOutput(o.out, rules)
			}
			return err
		},
	})
}

// checkReportOutput refuses an output that is an input and, without -o,
// an existing report.html.
func checkReportOutput(out string, rules outfile.Options) error {
	if rules.NoClobber {
		if _, err := os.Lstat(out); err == nil {
			return fmt.Errorf("%s exists; give -o %s to replace it, or another name", out, out)
		}
	}
	if err := outfile.Check(out, rules); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	return nil
}
