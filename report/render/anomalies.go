package render

import (
	"bufio"
	"io"
	"strings"

	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// The anomaly registry as `bcdump anomalies` prints it. The table of bcdump
// help anomalies is the markdown form (a test keeps the two equal), so what
// users read and what the binary raises come from the same rows.

// WriteAnomaliesTable prints one row per code: name, severity, group,
// where it is reported and its one-line meaning, wrapped so that rows fit
// 100 columns.
func WriteAnomaliesTable(w io.Writer, pal Palette, codes []anomaly.Info) error {
	return WriteAnomaliesTableWidth(w, pal, codes, 0)
}

// WriteAnomaliesTableWidth is WriteAnomaliesTable fitting width columns
// (0: 100); the meaning wraps under itself, down to 30 columns.
func WriteAnomaliesTableWidth(w io.Writer, pal Palette, codes []anomaly.Info, width int) error {
	if width <= 0 {
		width = 100
	}
	cols := []int{len("code"), len("severity"), len("group"), len("where")}
	for _, in := range codes {
		cols[0] = max(cols[0], len(in.Name))
		cols[1] = max(cols[1], len(in.Severity.String()))
		cols[2] = max(cols[2], len(in.Group.String()))
		cols[3] = max(cols[3], len(in.Scope.String()))
	}
	// On a narrow terminal "where", then "group" go, so that the meaning
	// keeps 30 columns.
	shown := []bool{true, true, true, true}
	indent := 0
	for _, c := range cols {
		indent += c + 2
	}
	for _, i := range []int{3, 2} {
		if indent+30 > width {
			shown[i] = false
			indent -= cols[i] + 2
		}
	}
	bw := bufio.NewWriter(w)
	row := func(paint string, cells ...string) {
		for i, c := range cells[:4] {
			if !shown[i] {
				continue
			}
			pad := strings.Repeat(" ", cols[i]-len(c)+2)
			if paint != "" && i < 2 {
				c = pal.PaintSev(c, paint)
			}
			bw.WriteString(c + pad)
		}
		for i, line := range fit.Words(cells[4], max(width-indent, 20)) {
			if i > 0 {
				bw.WriteString("\n" + strings.Repeat(" ", indent))
			}
			bw.WriteString(line)
		}
		bw.WriteByte('\n')
	}
	row("", "code", "severity", "group", "where", "meaning")
	for _, in := range codes {
		sev := in.Severity.String()
		row(sev, in.Name, sev, in.Group.String(), in.Scope.String(), in.Meaning)
	}
	return bw.Flush()
}

// WriteAnomaliesJSON prints the registry as one JSON array; its keys are
// part of the JSON contract (bcdump help anomalies).
func WriteAnomaliesJSON(w io.Writer, codes []anomaly.Info) error {
	b := []byte("[")
	for i, in := range codes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		first := true
		b = append(b, '{')
		b = appendKey(b, &first, "code")
		b = appendStr(b, in.Name)
		b = appendKey(b, &first, "severity")
		b = appendStr(b, in.Severity.String())
		b = appendKey(b, &first, "group")
		b = appendStr(b, in.Group.String())
		b = appendKey(b, &first, "datagram")
		b = appendBool(b, in.Scope&anomaly.OnDatagram != 0)
		b = appendKey(b, &first, "event")
		b = appendBool(b, in.Scope&anomaly.AsEvent != 0)
		b = appendKey(b, &first, "meaning")
		b = appendStr(b, in.Meaning)
		if in.Detail != "" {
			b = appendKey(b, &first, "detail")
			b = appendStr(b, in.Detail)
		}
		b = append(b, '}')
	}
	b = append(b, "\n]\n"...)
	_, err := w.Write(b)
	return err
}

// WriteAnomaliesMarkdown prints the anomaly table of bcdump help anomalies:
// meaning and detail together.
func WriteAnomaliesMarkdown(w io.Writer, codes []anomaly.Info) error {
	var b strings.Builder
	b.WriteString("| code | severity | group | where | meaning |\n|---|---|---|---|---|\n")
	for _, in := range codes {
		text := in.Meaning
		if in.Detail != "" {
			text += "; " + in.Detail
		}
		b.WriteString("| `" + in.Name + "` | " + in.Severity.String() + " | " + in.Group.String() + " | " +
			in.Scope.String() + " | " + strings.ReplaceAll(text, "|", `\|`) + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
