package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bcdump/bcdump/report/story"
)

//go:embed assets/page.html.tmpl
var pageTmpl string

//go:embed assets/report.css
var pageCSS string

//go:embed assets/report.js
var pageJS string

// pageTemplate is the page's template, parsed on first use: parsing it
// took 0.6 ms of every bcdump command's start, report or not.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"chartsOf":   chartsOf,
		"marks":      func(f *Flow, dur float64) template.HTML { return marksStrip(f.ID+"-marks", dur, f) },
		"ladder":     ladderSVG,
		"deref":      derefStr,
		"derefInt":   derefInt,
		"ms":         func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"pct":        func(v float64) string { return fmt.Sprintf("%.1f%%", v*100) },
		"secs":       fmtSecs,
		"flowAnoms":  flowAnoms,
		"flowOf":     flowOf,
		"durationOf": durationOf,
		"relSpan":    relSpan,
		"relOf": func(d *Data, s string) string {
			t0, err0 := time.Parse(time.RFC3339Nano, d.First)
			t, err1 := time.Parse(time.RFC3339Nano, s)
			if err0 != nil || err1 != nil {
				return s
			}
			return "at " + fmtSecs(t.Sub(t0).Seconds())
		},
		"boolStr":   boolStr,
		"players":   headRows[story.PlayerDoc],
		"lines":     headRows[story.LineDoc],
		"anomalies": headRows[AnomalyRow],
		"more":      moreRows,
		"ladderPx":  func(l *Ladder) int { return ladTop + ladRow*len(l.Datagrams) + 10 + 30 },
		"relT":      relT,
		"verdictClass": func(v string) string {
			switch v {
			case story.VerdictEntered:
				return "vd-entered"
			case story.VerdictNeverEntered:
				return "vd-never"
			}
			return "vd-unknown"
		},
		"verdictWord": func(v story.VerdictDoc) string {
			if v.Verdict == story.VerdictNeverEntered {
				return v.Verdict + ": " + v.Cause
			}
			return v.Verdict
		},
		"frameRef": func(d *Data, frame int) string { return d.frameLadder[frame] },
		"join":     strings.Join,
		"firstRow": func(d *Data, c AnomalyCode) *AnomalyRow {
			if c.First < 0 || c.First >= len(d.Anomalies) {
				return nil
			}
			return &d.Anomalies[c.First]
		},
	}).Parse(pageTmpl))
})

// MaxPageRows is how many rows of each table (players per server, timeline
// lines per server, anomalies) the page holds as HTML. The rest are only in
// the embedded JSON: the page's script draws them when "show all" is
// clicked, so a long capture's page opens without laying out thousands of
// rows.
const MaxPageRows = 200

// pageRows is MaxPageRows, but for tests that compare the rows the script
// draws with the template's.
var pageRows = MaxPageRows

// headRows is the part of a table the page holds as HTML.
func headRows[T any](rows []T) []T {
	if len(rows) > pageRows {
		return rows[:pageRows]
	}
	return rows
}

// moreRows is how many rows of a table of n only the JSON holds.
func moreRows(n int) int { return max(n-pageRows, 0) }

type pageView struct {
	*Data
	MaxRows int
	CSS     template.CSS
	JS      template.JS
	JSON    template.JS
}

// Render writes the page of d to w.
func Render(w io.Writer, d *Data) error {
	blob, err := json.Marshal(d) // escapes <, > and & : safe inside <script>
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, pageView{Data: d, MaxRows: MaxAnomalyRows, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), JSON: template.JS(blob)}); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// chartsOf draws a flow's four charts.
func chartsOf(f *Flow, dur float64) []template.HTML {
	s := &f.Series
	w, start := s.Width, s.Start
	rtt := make([]float64, len(s.RTTMax))
	copy(rtt, s.RTTMax)
	who := f.Client
	if f.Name != "" {
		who = f.Name
	}
	return []template.HTML{
		chart(f.ID+"-rtt", who+": RTT of matched ACKs, min–max per column", "ms", dur, w, start, []line{{"rtt", rtt}}, &[2][]float64{s.RTTMin, s.RTTMax}),
		chart(f.ID+"-dg", who+": datagrams per second", "1/s", dur, w, start, []line{{"c2s", s.DgC2S}, {"s2c", s.DgS2C}}, nil),
		chart(f.ID+"-bytes", who+": bytes per second", "B/s", dur, w, start, []line{{"c2s", s.BC2S}, {"s2c", s.BS2C}}, nil),
		chart(f.ID+"-re", who+": retransmissions per second", "1/s", dur, w, start, []line{{"re", s.Retrans}}, nil),
	}
}

// relT is seconds since the first datagram, "–" for none.
func relT(v *float64) string {
	if v == nil {
		return "–"
	}
	return fmtSecs(*v)
}

// fmtSecs is a table's time: seconds since the first datagram, as the
// text of bcdump session writes them ("0.205 s").
func fmtSecs(t float64) string { return strconv.FormatFloat(t, 'f', 3, 64) + " s" }

// relSpan is when a server was seen, in seconds since the first datagram.
func relSpan(d *Data, s story.ServerDoc) string {
	t0, err0 := time.Parse(time.RFC3339Nano, d.First)
	a, err1 := time.Parse(time.RFC3339Nano, s.FirstSeen)
	b, err2 := time.Parse(time.RFC3339Nano, s.LastSeen)
	if err0 != nil || err1 != nil || err2 != nil {
		return durationOf(s)
	}
	return fmtSecs(a.Sub(t0).Seconds()) + " – " + fmtSecs(b.Sub(t0).Seconds()) + " (the capture starts " + d.First + ")"
}

func derefStr(s *string) string {
	if s == nil {
		return "–"
	}
	return *s
}

func derefInt(v *int) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprint(*v)
}

func boolStr(b *bool) string {
	if b == nil {
		return "–"
	}
	if *b {
		return "on"
	}
	return "off"
}

// flowOf finds the flow of a player by address.
func flowOf(d *Data, addr string) *Flow {
	for i := range d.Flows {
		if d.Flows[i].Client == addr {
			return &d.Flows[i]
		}
	}
	return nil
}

func flowAnoms(d *Data, addr string) string {
	f := flowOf(d, addr)
	if f == nil {
		return "–"
	}
	return fmt.Sprintf("%d / %d / %d", f.Anomalies[2], f.Anomalies[1], f.Anomalies[0])
}

func durationOf(s story.ServerDoc) string {
	return strings.TrimSpace(s.FirstSeen + " – " + s.LastSeen)
}
