package htmlreport

import (
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Chart geometry, in SVG user units. The plot is a nested <svg> whose
// viewBox spans the whole capture in x (PlotW units); the page's script
// zooms every chart at once by narrowing that viewBox.
const (
	chartW = 1000
	chartH = 140
	plotX  = 64
	plotY  = 22 // under the title row
	plotW  = 920
	plotH  = 98
	marksH = 26
)

func fnum(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }

// niceMax rounds a y-axis maximum up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func fmtY(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

type line struct {
	class string
	v     []float64 // per bin; < 0 is a gap
}

// chart draws one time series chart of a flow: lines per bin (element i
// is bin start+i, at the middle of its time span); band draws RTT columns from min
// to max. dur is the capture's duration (the x range of every chart).
func chart(id, title, unit string, dur, width float64, start int, lines []line, band *[2][]float64) template.HTML {
	var sb strings.Builder
	ymax := 0.0
	for _, l := range lines {
		for _, v := range l.v {
			ymax = max(ymax, v)
		}
	}
	ymax = niceMax(ymax)
	if dur <= 0 {
		dur = 1
	}
	xs := plotW / dur
	sb.WriteString(`<svg class="chart" id="` + id + `" viewBox="0 0 ` + itoa(chartW) + ` ` + itoa(chartH) + `" data-dur="` + strconv.FormatFloat(dur, 'g', -1, 64) + `" role="img" aria-label="` + esc(title) + `">`)
	sb.WriteString(`<text class="ct" x="` + itoa(plotX) + `" y="14">` + esc(title) + ` (` + esc(unit) + `)</text>`)
	legend(&sb, lines)
	// y axis (chartH leaves room for the time labels under the plot)
	sb.WriteString(`<text class="yl" x="` + itoa(plotX-4) + `" y="` + itoa(plotY+8) + `">` + fmtY(ymax) + `</text>`)
	sb.WriteString(`<text class="yl" x="` + itoa(plotX-4) + `" y="` + itoa(plotY+plotH) + `">0</text>`)
	timeLabels(&sb, plotY+plotH+14, dur)
	sb.WriteString(`<rect class="frame" x="` + itoa(plotX) + `" y="` + itoa(plotY) + `" width="` + itoa(plotW) + `" height="` + itoa(plotH) + `"/>`)
	sb.WriteString(`<svg class="plot" x="` + itoa(plotX) + `" y="` + itoa(plotY) + `" width="` + itoa(plotW) + `" height="` + itoa(plotH) + `" viewBox="0 0 ` + itoa(plotW) + ` ` + itoa(plotH) + `" preserveAspectRatio="none">`)
	sb.WriteString(`<path class="axis" d="M0 ` + itoa(plotH) + `H` + itoa(plotW) + `"/>`)
	y := func(v float64) string { return fnum(plotH - v/ymax*plotH) }
	if band != nil {
		var p strings.Builder
		for i := range band[0] {
			if band[0][i] < 0 {
				continue
			}
			x := fnum((float64(start+i) + 0.5) * width * xs)
			p.WriteString("M" + x + " " + y(band[0][i]) + "V" + y(band[1][i]))
		}
		if p.Len() > 0 {
			sb.WriteString(`<path class="band" d="` + p.String() + `"/>`)
		}
	}
	for _, l := range lines {
		var p strings.Builder
		pen := false
		for i, v := range l.v {
			if v < 0 {
				pen = false
				continue
			}
			x := fnum((float64(start+i) + 0.5) * width * xs)
			if pen {
				p.WriteString("L")
			} else {
				p.WriteString("M")
			}
			p.WriteString(x + " " + y(v))
			pen = true
		}
		if p.Len() > 0 {
			sb.WriteString(`<path class="` + l.class + `" d="` + p.String() + `"/>`)
		}
	}
	sb.WriteString(`<line class="cursor" x1="-10" x2="-10" y1="0" y2="` + itoa(plotH) + `"/>`)
	sb.WriteString(`<rect class="sel" x="0" y="0" width="0" height="` + itoa(plotH) + `"/>`)
	sb.WriteString(`</svg>`)
	if empty := ymaxRaw(lines, band) <= 0; empty {
		// An empty panel says so rather than look unfinished.
		what := "none"
		if band != nil {
			what = "none (no ACK matched)"
		}
		sb.WriteString(`<text class="none" x="` + itoa(plotX+plotW/2) + `" y="` + itoa(plotY+plotH/2+5) + `">` + what + `</text>`)
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String())
}

// ymaxRaw is the largest value a chart draws (0 when there is nothing).
func ymaxRaw(lines []line, band *[2][]float64) float64 {
	m := 0.0
	for _, l := range lines {
		for _, v := range l.v {
			m = max(m, v)
		}
	}
	if band != nil {
		for _, v := range band[1] {
			m = max(m, v)
		}
	}
	return m
}

// legend names the colours of a chart's c2s and s2c lines, at the right
// of its title row.
func legend(sb *strings.Builder, lines []line) {
	x := plotX + plotW
	for i := len(lines) - 1; i >= 0; i-- {
		var text string
		switch lines[i].class {
		case "c2s":
			text = "c2s client→server"
		case "s2c":
			text = "s2c server→client"
		default:
			continue
		}
		w := 7 * len([]rune(text))
		sb.WriteString(`<g class="legend"><line class="` + lines[i].class + `" x1="` + itoa(x-w-26) + `" x2="` + itoa(x-w-6) + `" y1="10" y2="10"/>`)
		sb.WriteString(`<text x="` + itoa(x) + `" y="14">` + esc(text) + `</text></g>`)
		x -= w + 40
	}
}

// timeLabels writes the time axis labels; the script rewrites them on zoom
// (data-f is the label's fraction of the plot width).
func timeLabels(sb *strings.Builder, y int, dur float64) {
	for i := 0; i <= 5; i++ {
		f := float64(i) / 5
		// The last label ends at the plot's edge (a class: CSS would
		// override a text-anchor attribute).
		cls := "tl"
		if i == 5 {
			cls = "tl end"
		}
		sb.WriteString(`<text class="` + cls + `" data-f="` + fnum(f) + `" x="` + fnum(plotX+f*plotW) + `" y="` + itoa(y) + `">` + fmtT(f*dur) + `</text>`)
	}
}

func fmtT(t float64) string { return strconv.FormatFloat(t, 'f', 2, 64) + "s" }

// marksStrip draws a flow's anomaly marks on the time axis; hovering a
// mark shows its code and frame.
func marksStrip(id string, dur float64, f *Flow) template.HTML {
	var sb strings.Builder
	if dur <= 0 {
		dur = 1
	}
	sb.WriteString(`<svg class="chart marks" id="` + id + `" viewBox="0 0 ` + itoa(chartW) + ` ` + itoa(marksH+4) + `" data-dur="` + strconv.FormatFloat(dur, 'g', -1, 64) + `">`)
	sb.WriteString(`<text class="ct" x="` + itoa(plotX-4) + `" y="16" text-anchor="end">anomalies</text>`)
	sb.WriteString(`<svg class="plot" x="` + itoa(plotX) + `" y="2" width="` + itoa(plotW) + `" height="` + itoa(marksH) + `" viewBox="0 0 ` + itoa(plotW) + ` ` + itoa(marksH) + `" preserveAspectRatio="none">`)
	sb.WriteString(`<path class="axis" d="M0 ` + itoa(marksH/2) + `H` + itoa(plotW) + `"/>`)
	for _, m := range f.Marks {
		x := fnum(m.T / dur * plotW)
		sb.WriteString(`<line class="mark sev-` + m.Severity + `" data-t="` + strconv.FormatFloat(m.T, 'g', -1, 64) + `" data-frame="` + itoa(m.Frame) + `" x1="` + x + `" x2="` + x + `" y1="0" y2="` + itoa(marksH) + `"><title>` + esc(m.Code) + ` (` + m.Severity + `) frame ` + itoa(m.Frame) + ` at ` + fmtT(m.T) + `</title></line>`)
	}
	sb.WriteString(`<line class="cursor" x1="-10" x2="-10" y1="0" y2="` + itoa(marksH) + `"/>`)
	sb.WriteString(`<rect class="sel" x="0" y="0" width="0" height="` + itoa(marksH) + `"/>`)
	sb.WriteString(`</svg></svg>`)
	return template.HTML(sb.String())
}

// Ladder geometry.
const (
	ladW      = 1200
	ladClient = 280
	ladServer = 700
	ladRow    = 30
	ladTop    = 34
)

// ladderSVG draws a ladder: the client's and the server's lifelines and
// one arrow per datagram, labelled with its messages. An ACK arrow names
// the frames it cleared (data-acks); retransmits and lost messages are
// marked.
func ladderSVG(l *Ladder) template.HTML {
	var sb strings.Builder
	h := ladTop + ladRow*len(l.Datagrams) + 10
	sb.WriteString(`<svg class="ladder" id="svg-` + l.ID + `" data-arrows="` + itoa(len(l.Datagrams)) + `" viewBox="0 0 ` + itoa(ladW) + ` ` + itoa(h) + `">`)
	client := "client"
	if l.Player != "" {
		client = l.Player
	}
	sb.WriteString(`<text class="life" x="` + itoa(ladClient) + `" y="14">` + esc(client) + `</text><text class="life" x="` + itoa(ladServer) + `" y="14">server</text>`)
	sb.WriteString(`<g class="legend"><line class="key c2s" x1="900" x2="940" y1="10" y2="10" marker-end="url(#ah)"/><text x="948" y="14">c2s client→server</text>`)
	sb.WriteString(`<line class="key s2c" x1="940" x2="900" y1="26" y2="26" marker-end="url(#ah)"/><text x="948" y="30">s2c server→client</text></g>`)
	sb.WriteString(`<path class="lifeline" d="M` + itoa(ladClient) + ` 20V` + itoa(h) + `M` + itoa(ladServer) + ` 20V` + itoa(h) + `"/>`)
	focus := map[int]bool{}
	for _, e := range l.Errors {
		focus[e.Frame] = true
	}
	for i, dg := range l.Datagrams {
		y := ladTop + ladRow*i + 16
		x1, x2 := ladClient, ladServer
		if dg.Dir == "s2c" {
			x1, x2 = ladServer, ladClient
		}
		cls := "arrow " + dg.Dir
		var acks []string
		var labels []string
		retrans, lost := false, false
		for _, m := range dg.Msgs {
			labels = append(labels, m.Label)
			if m.AckFrame != 0 {
				acks = append(acks, itoa(m.AckFrame))
			}
			retrans = retrans || m.Retransmit
			lost = lost || m.Lost
		}
		if len(acks) > 0 {
			cls += " ack"
		}
		if retrans {
			cls += " retrans"
		}
		if lost {
			cls += " lost"
		}
		if len(dg.Anomalies) > 0 {
			cls += " anom"
		}
		if focus[dg.Frame] {
			cls += " focus"
		}
		text := strings.Join(labels, ", ")
		if text == "" {
			text = "(no messages)"
		}
		full := text
		if len(text) > 60 {
			text = text[:57] + "…"
		}
		sb.WriteString(`<g class="dg" id="` + l.ID + `-f` + itoa(dg.Frame) + `" data-frame="` + itoa(dg.Frame) + `"`)
		if len(acks) > 0 {
			sb.WriteString(` data-acks="` + strings.Join(acks, " ") + `"`)
		}
		sb.WriteString(`><title>frame ` + itoa(dg.Frame) + ` ` + dg.Dir + ` ` + itoa(dg.Len) + ` bytes at ` + fmtT(dg.T) + `: ` + esc(full))
		if len(dg.Anomalies) > 0 {
			sb.WriteString(` [` + esc(strings.Join(dg.Anomalies, ", ")) + `]`)
		}
		for _, m := range dg.Msgs {
			if m.AckedBy != 0 {
				sb.WriteString("; " + esc(m.Label) + " ACKed by frame " + itoa(m.AckedBy))
			}
			if m.Lost {
				sb.WriteString("; " + esc(m.Label) + " never ACKed")
			}
		}
		sb.WriteString(`</title>`)
		sb.WriteString(`<text class="fr" x="8" y="` + itoa(y+4) + `">#` + itoa(dg.Frame) + ` ` + fmtT(dg.T) + `</text>`)
		sb.WriteString(`<line class="` + cls + `" x1="` + itoa(x1) + `" y1="` + itoa(y) + `" x2="` + itoa(x2) + `" y2="` + itoa(y) + `" marker-end="url(#ah)"/>`)
		sb.WriteString(`<text class="lab" x="` + itoa((ladClient+ladServer)/2) + `" y="` + itoa(y-4) + `">` + esc(text) + `</text>`)
		var side []string
		if lost {
			side = append(side, "✗ never ACKed")
		}
		if retrans {
			side = append(side, "↻ retransmit")
		}
		if len(dg.Anomalies) > 0 {
			side = append(side, "⚠ "+strings.Join(dg.Anomalies, ", "))
		}
		if len(side) > 0 {
			sb.WriteString(`<text class="side" x="` + itoa(ladServer+14) + `" y="` + itoa(y+4) + `">` + esc(strings.Join(side, " ")) + `</text>`)
		}
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String())
}
