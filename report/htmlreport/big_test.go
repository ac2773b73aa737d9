package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/dissecttest/replicate"
)

// replicated is a case of copies of openbc-session-3 played one after
// another (each with fresh client ports): a long capture with many flows,
// players, timeline lines and anomalies, built in memory.
func replicated(copies int) reportCase {
	return reportCase{name: "session-3-x" + strconv.Itoa(copies), pcap: func(t testing.TB) []byte {
		t.Helper()
		src, err := replicate.Load(bytes.NewReader(readFile(t, filepath.Join(testdata, "captures/openbc-session-3.pcap"))), nil)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := src.Write(&b, replicate.Options{Copies: copies}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}}
}

// Elements the page's HTML may hold per thing it draws, from the 1M
// datagram page (about 230 per flow's charts besides their marks, 5.5 per
// ladder arrow, 9 per table row) with room to spare.
const (
	elemsFixed  = 1000
	elemsFlow   = 400 // a flow's five charts, without the marks
	elemsMark   = 1
	elemsArrow  = 8
	elemsRow    = 15
	elemsTables = 3 // players, timeline, anomalies
)

// maxElements is what the caps allow the page's HTML for a capture with
// servers game servers, however long: the DOM a browser has to build and
// lay out on opening the page does not grow with the capture.
func maxElements(servers int) int {
	arrows := MaxFlows*MaxHandshake + MaxErrorLadders*(ladderBefore+1+ladderAfter)
	return elemsFixed + MaxFlows*(elemsFlow+MaxMarks*elemsMark) + arrows*elemsArrow +
		max(servers, 1)*elemsTables*MaxPageRows*elemsRow
}

// Bytes the embedded JSON may take per thing it holds, from the 1M datagram
// page (about 930 per player, 280 per timeline line, 170 per anomaly row,
// 21 KB per charted flow, 3.6 KB per ladder) with room to spare; the HTML
// besides it is bounded by the caps.
const (
	jsonFixed   = 64 << 10
	jsonPlayer  = 2 << 10
	jsonLine    = 600
	jsonAnomaly = 400
	jsonFlow    = 40 << 10
	jsonLadder  = 8 << 10
	maxHTML     = 4 << 20 // the page without its JSON
)

var (
	scriptRE = regexp.MustCompile(`(?s)<script.*?</script>|<style>.*?</style>`)
	elemRE   = regexp.MustCompile(`<[a-zA-Z]`)
)

// The page of a long capture stays small where it matters for opening it:
// every table holds at most MaxPageRows rows as HTML, at most MaxFlows
// flows are charted and the ladders are capped, so the HTML elements are
// within maxElements whatever the length; the embedded JSON grows only
// with players, timeline lines and anomaly rows (themselves capped).
func TestBigPage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tc := range []struct {
		copies int
		// players, flows and anomalies over the page's caps
		overRows bool
	}{
		{copies: 20},
		{copies: 80, overRows: true},
	} {
		c := replicated(tc.copies)
		t.Run(c.name, func(t *testing.T) {
			d, page := build(t, c)
			checkBig(t, d, page, tc.overRows)
		})
	}
}

// checkBig checks the bounds of TestBigPage on a page.
func checkBig(t *testing.T, d *Data, page []byte, overRows bool) {
	t.Helper()
	checkDOM(t, string(page), d, false)
	players, lines := 0, 0
	for _, s := range d.Servers {
		players += len(s.Players)
		lines += len(s.Timeline)
	}
	if d.FlowsOmitted == 0 || d.LaddersOmitted == 0 || d.AnomaliesOmitted == 0 {
		t.Errorf("flows omitted %d, ladders %d, anomalies %d: the capture does not reach the caps", d.FlowsOmitted, d.LaddersOmitted, d.AnomaliesOmitted)
	}
	if got := players > MaxPageRows && len(d.Anomalies) > MaxPageRows; got != overRows {
		t.Errorf("%d players, %d anomalies over %d rows: %v, want %v", players, len(d.Anomalies), MaxPageRows, got, overRows)
	}
	if len(d.Flows) > MaxFlows || len(d.Ladders) > MaxFlows+MaxErrorLadders {
		t.Errorf("%d flows, %d ladders", len(d.Flows), len(d.Ladders))
	}
	for _, r := range []string{`<tr class="player"`, `<tr class="ev-`, `<tr class="anomaly`} {
		if n := bytes.Count(page, []byte(r)); n > max(len(d.Servers), 1)*MaxPageRows {
			t.Errorf("%d rows %s…>, over %d per server", n, r, MaxPageRows)
		}
	}
	blob := embedded(t, page)
	html := scriptRE.ReplaceAll(page, nil)
	elems := len(elemRE.FindAll(html, -1))
	if m := maxElements(len(d.Servers)); elems > m {
		t.Errorf("%d HTML elements, over the %d the caps allow", elems, m)
	}
	if len(html) > maxHTML {
		t.Errorf("HTML without the JSON: %d bytes, over %d", len(html), maxHTML)
	}
	maxJSON := jsonFixed + players*jsonPlayer + lines*jsonLine + len(d.Anomalies)*jsonAnomaly +
		len(d.Flows)*jsonFlow + len(d.Ladders)*jsonLadder
	if len(blob) > maxJSON {
		t.Errorf("JSON: %d bytes, over %d", len(blob), maxJSON)
	}
	t.Logf("%d datagrams: page %d bytes (JSON %d of at most %d, HTML %d with %d elements of at most %d); %d players, %d flows charted of %d, %d timeline lines, %d anomaly rows",
		d.Datagrams, len(page), len(blob), maxJSON, len(html), elems, maxElements(len(d.Servers)),
		players, len(d.Flows), len(d.Flows)+d.FlowsOmitted, lines, len(d.Anomalies))
}

// openRE reads what the page's script records when it is done.
var openRE = regexp.MustCompile(`data-open-ms="(\d+)"`)

// The page of a long capture opens in a headless browser: its script
// finishes without an error, the DOM it builds stays within maxElements,
// and "show all" draws every row of every table from the JSON. The time
// the page took to open (navigation start to script done and the page
// laid out, its data-open-ms) is logged, not asserted: it depends on the
// machine.
func TestBigPageBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := chromium(t)
	c := replicated(80)
	d, page := build(t, c)
	const count = `<script>document.documentElement.setAttribute("data-elements", document.getElementsByTagName("*").length);</script>`
	// The page with every row in its HTML, as the template draws them.
	pageRows = 1 << 30
	full := renderPage(t, d)
	pageRows = MaxPageRows
	var fullDOM string
	for _, tc := range []struct {
		name   string
		page   []byte
		script string // added at the end of the body
		all    bool   // every table shown in full
	}{
		{"full", full, count, true},
		{"open", page, count, false},
		{"show-all", page, expandScript + count, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(tempDir(t), c.name+".html")
			writeFile(t, path, bytes.Replace(tc.page, []byte("</body>"), []byte(tc.script+"</body>"), 1))
			dom, logs := headless(t, bin, "--window-size=1280,900", "--dump-dom", "file://"+path)
			for _, l := range console.FindAllString(logs, -1) {
				t.Errorf("browser: %s", l)
			}
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Fatalf("the page's script did not finish")
			}
			if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
				t.Errorf("the page's script recorded errors: %s", m[1])
			}
			checkDOM(t, dom, d, tc.all)
			switch tc.name {
			case "full":
				fullDOM = dom
			case "show-all":
				// What "show all" draws is what the template would.
				for _, id := range []string{"players-0", "tl-0"} {
					got, want := tbody(dom, id), tbody(fullDOM, id)
					if got != want {
						i := 0
						for i < min(len(got), len(want)) && got[i] == want[i] {
							i++
						}
						t.Errorf("table %s shown in full differs from the template's at byte %d:\n got %.300s\nwant %.300s", id, i, got[max(i-100, 0):], want[max(i-100, 0):])
					}
				}
			}
			m := regexp.MustCompile(`data-elements="(\d+)"`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatal("no element count")
			}
			elems, _ := strconv.Atoi(m[1])
			if lim := maxElements(len(d.Servers)); !tc.all && elems > lim {
				t.Errorf("%d elements in the DOM, over the %d the caps allow", elems, lim)
			}
			open := openRE.FindStringSubmatch(dom)
			if open == nil {
				t.Fatal("the page did not record data-open-ms")
			}
			t.Logf("%d datagrams, %d bytes: opened in %s ms (navigation start to script done and page laid out), %d elements", d.Datagrams, len(page), open[1], elems)
		})
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// renderPage renders the page of d.
func renderPage(t *testing.T, d *Data) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var betweenTags = regexp.MustCompile(`>\s+<`)

// tbody is the body of table#id of a DOM, without the white space between
// tags.
func tbody(dom, id string) string {
	i := strings.Index(dom, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	dom = dom[i:]
	a, b := strings.Index(dom, "<tbody>"), strings.Index(dom, "</tbody>")
	if a < 0 || b < a {
		return ""
	}
	return betweenTags.ReplaceAllString(strings.TrimSpace(dom[a:b]), "><")
}
