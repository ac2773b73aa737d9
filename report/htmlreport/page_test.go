package htmlreport

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// urlAttr finds attributes that could make a browser fetch something.
var urlAttr = regexp.MustCompile(`(?i)\s(?:src|href|action|poster|data|srcset|xlink:href)\s*=\s*"([^"]*)"`)

// The page is self-contained: nothing in it points outside the page, and
// its Content-Security-Policy blocks any request that might slip in.
func TestNoNetwork(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, page := build(t, c)
			s := string(page)
			for _, m := range urlAttr.FindAllStringSubmatch(s, -1) {
				if !strings.HasPrefix(m[1], "#") {
					t.Errorf("the page refers to %q", m[1])
				}
			}
			for _, bad := range []string{"http://", "https://", "//cdn", "@import", "url(http", "<link", "<iframe", "fetch(", "XMLHttpRequest"} {
				if strings.Contains(s, bad) {
					t.Errorf("the page contains %q", bad)
				}
			}
			if !strings.Contains(s, `Content-Security-Policy" content="default-src 'none';`) {
				t.Error("no Content-Security-Policy that blocks requests")
			}
		})
	}
}

// The rendered page holds what the data says, also before a browser runs.
func TestPageContent(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, page := build(t, c)
			checkDOM(t, string(page), d, false)
		})
	}
}

// cellsOf is the set of what the cells <td class="class"> of an HTML
// document hold.
func cellsOf(dom, class string) map[string]bool {
	cells := map[string]bool{}
	for _, m := range regexp.MustCompile(`<td class="`+class+`">([^<]*)</td>`).FindAllStringSubmatch(dom, -1) {
		cells[m[1]] = true
	}
	return cells
}

// checkDOM checks an HTML document (the page, or the DOM a browser made of
// it) against the data: every chart drawn, the player names, anomaly codes
// and checksum file names present, one ladder arrow per datagram covered.
// Unless all is set (a browser clicked every "show all"), only the first
// MaxPageRows rows of a table are looked for, and its "show all" button.
func checkDOM(t *testing.T, dom string, d *Data, all bool) {
	t.Helper()
	rows := func(n int) int {
		if all {
			return n
		}
		return min(n, MaxPageRows)
	}
	// showAll looks for server i's button: a capture of several server
	// runs has a table per run.
	showAll := func(what string, i, n int) {
		t.Helper()
		want := !all && n > MaxPageRows
		if got := strings.Contains(dom, fmt.Sprintf(`data-rows="%s" data-server="%d"`, what, i)); got != want {
			t.Errorf("server %d %s: %d rows, show-all button %v, want %v", i, what, n, got, want)
		}
	}
	names, codes := cellsOf(dom, "pname"), cellsOf(dom, "code")
	for i, s := range d.Servers {
		for _, p := range s.Players[:rows(len(s.Players))] {
			if p.Name != "" && !names[esc(p.Name)] {
				t.Errorf("player %q not in the player table", p.Name)
			}
		}
		showAll("players", i, len(s.Players))
		if n, want := strings.Count(dom, `<tr class="ev-`), rows(len(s.Timeline)); len(d.Servers) == 1 && n != want {
			t.Errorf("%d timeline rows, want %d", n, want)
		}
		showAll("timeline", i, len(s.Timeline))
	}
	// Anomalies: one row per code, whose expansion lists every occurrence.
	seen := map[string]bool{}
	for _, a := range d.Anomalies {
		if !codes[a.Code] {
			t.Errorf("anomaly code %s not in the table", a.Code)
		}
		seen[a.Code] = true
	}
	if n, want := strings.Count(dom, `<tr class="acode`), len(d.AnomalyCodes); n != want || len(seen) > want {
		t.Errorf("%d anomaly code rows, want %d (%d codes listed)", n, want, len(seen))
	}
	for _, c := range d.AnomalyCodes {
		if n := strings.Count(dom, `<tr class="acode sev-`+c.Severity+`" data-code="`+c.Code+`"`); n != 1 {
			t.Errorf("code %s: %d rows, want 1", c.Code, n)
		}
	}
	if n := strings.Count(dom, `<tr class="anomaly`); n != 0 && n != len(d.Anomalies) {
		t.Errorf("%d anomaly rows opened, want none or all %d", n, len(d.Anomalies))
	}
	for _, c := range d.Checksums {
		for _, r := range c.Rounds {
			for _, dir := range r.Dirs {
				for _, f := range dir.Files {
					if !strings.Contains(dom, `<td class="fname">`+esc(f.Name)+`</td>`) {
						t.Errorf("checksum file %q not in the tree", f.Name)
					}
				}
			}
		}
	}
	// Charts: four per flow and a strip of marks, each with something drawn.
	charts := strings.Split(dom, `<svg class="chart`)[1:]
	if want := 5 * len(d.Flows); len(charts) != want {
		t.Errorf("%d charts, want %d", len(charts), want)
	}
	flows := map[string]*Flow{}
	for i := range d.Flows {
		flows[d.Flows[i].ID] = &d.Flows[i]
	}
	drawn := regexp.MustCompile(`<path class="(c2s|s2c|rtt|band|re)" d="M[^"]+"`)
	idRE := regexp.MustCompile(`^[^>]*id="(f\d+)-(\w+)"`)
	for _, ch := range charts {
		inner := strings.Index(ch, "</svg>") + len("</svg>") // the plot's, then the chart's
		ch = ch[:inner+strings.Index(ch[inner:], "</svg>")]
		m := idRE.FindStringSubmatch(ch)
		if m == nil {
			t.Errorf("chart without an id: %.80s", ch)
			continue
		}
		f := flows[m[1]]
		if f == nil {
			t.Errorf("chart of unknown flow %s", m[1])
			continue
		}
		switch m[2] {
		case "marks":
			if n := strings.Count(ch, `<line class="mark`); n != len(f.Marks) {
				t.Errorf("%s-marks: %d marks, want %d", f.ID, n, len(f.Marks))
			}
			if !strings.Contains(ch, `<path class="axis" d="M`) {
				t.Errorf("%s-marks: no axis", f.ID)
			}
		case "rtt":
			if got := drawn.MatchString(ch); got != (f.RTTCount[0]+f.RTTCount[1] > 0) {
				t.Errorf("%s-rtt: drawn %v with %d RTT samples", f.ID, got, f.RTTCount)
			}
		default:
			if !drawn.MatchString(ch) {
				t.Errorf("%s-%s: nothing drawn", f.ID, m[2])
			}
		}
	}
	// Ladders: one arrow per datagram.
	boxes := strings.Split(dom, `<div class="ladderbox`)[1:]
	if len(boxes) != len(d.Ladders) {
		t.Errorf("%d ladders, want %d", len(boxes), len(d.Ladders))
	}
	boxID := regexp.MustCompile(`^[^>]*id="(l\d+)"[^>]*data-count="(\d+)"`)
	for i, b := range boxes {
		if i >= len(d.Ladders) {
			break
		}
		l := &d.Ladders[i]
		m := boxID.FindStringSubmatch(b)
		if m == nil || m[1] != l.ID {
			t.Errorf("ladder %d: not %s", i, l.ID)
			continue
		}
		b = b[:strings.Index(b, "</svg>")]
		if n := strings.Count(b, `<line class="arrow`); n != len(l.Datagrams) || m[2] != strconv.Itoa(len(l.Datagrams)) {
			t.Errorf("ladder %s: %d arrows (data-count %s), want %d datagrams", l.ID, n, m[2], len(l.Datagrams))
		}
	}
}
