package htmlreport

import (
	"bytes"
	"context"
	"flag"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	screenshot  = flag.String("screenshot", "", "also write the sample report's screenshot to this file (the README's)")
	screenshots = flag.String("screenshots", "", "also write the screenshots of the help topic verdicts (report-sample.png, report-unacked-fragment.png) to this directory")
)

// chromium finds the browser: chromium or chromium-browser on PATH. It
// skips the test when there is none, but fails it in CI (CI=true), which
// installs Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI must install it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed")
	return ""
}

// headless runs chromium on a page with no network, no extensions and a
// fresh profile, with what it writes on stderr (console messages among it).
func headless(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir=" + tempDir(t), "--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// console matches what chromium logs of the page's console: any message,
// an uncaught exception, a refused (blocked) or failed load.
var console = regexp.MustCompile(`(?m)^.*(?::CONSOLE[:(]|Refused to|net::ERR_).*$`)

// dragScript drags across the second quarter of the first chart and
// records the plots' viewBox, and whether all charts share it.
const dragScript = `<script>(function () {
  var r = document.documentElement;
  try {
    var svg = document.querySelector("svg.chart"), p = svg.querySelector("svg.plot"), b = svg.getBoundingClientRect(), k = b.width / 1000;
    function ev(target, type, f) { target.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: b.left + (64 + 920 * f) * k, clientY: b.top + 20 })); }
    ev(svg, "mousedown", 0.25); ev(svg, "mousemove", 0.5); ev(window, "mouseup", 0.5);
    var xw = function (q) { var v = q.getAttribute("viewBox").split(" "); return v[0] + " " + v[2]; };
    var vb = p.getAttribute("viewBox"), same = true;
    document.querySelectorAll("svg.chart svg.plot").forEach(function (q) { same = same && xw(q) === xw(p); });
    r.setAttribute("data-selftest", vb + (same ? " linked" : " unlinked"));
  } catch (e) { r.setAttribute("data-selftest", "error " + e); }
})();</script>`

// expandScript clicks every "show all" button, so that the DOM holds every
// row of every table.
const expandScript = `<script>document.querySelectorAll("button.show-all, button.expand").forEach(function (b) { b.click(); });</script>`

// interactScript hovers over the first ACK arrow of a ladder and away,
// counting the arrows lit each time, then clicks the last anomaly row (drawn
// by "show all" when the table is long), recording what is highlighted and
// the zoom it shows (none when the second around the row covers the whole
// capture).
const interactScript = `<script>(function () {
  var r = document.documentElement, out = [];
  try {
    var g = document.querySelector("svg.ladder g.dg[data-acks]");
    if (g) {
      var el = g.firstElementChild;
      el.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
      out.push("lit " + document.querySelectorAll("g.dg.lit").length);
      el.dispatchEvent(new MouseEvent("mouseout", { bubbles: true }));
      out.push("unlit " + document.querySelectorAll("g.dg.lit").length);
    }
    var rows = document.querySelectorAll("tr.anomaly, tr.acode");
    if (rows.length) {
      rows[rows.length - 1].cells[0].dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
      out.push("highlighted " + document.querySelectorAll(".hl").length);
      out.push("range " + document.getElementById("range").textContent);
    }
    r.setAttribute("data-interact", out.join("; "));
  } catch (e) { r.setAttribute("data-interact", "error " + e); }
})();</script>`

var interacted = regexp.MustCompile(`^(lit [1-9]\d*; unlit 0)?(; )?(highlighted [1-9]\d*; range (Showing \S+ – \S+\.)?)?$`)

var zoomed = regexp.MustCompile(`^2(29|30|31)(\.\d+)? 0 2(29|30|31)(\.\d+)? \d+ linked$`)

// The reports of the testdata captures open in a headless browser: the
// script runs without an error, nothing is requested (the page's CSP would
// refuse it and the script records the violation), and the DOM holds every
// chart, player name, anomaly code, checksum file name and ladder arrow.
// A screenshot of each report is written for the test log.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := chromium(t)
	shots := os.Getenv("BCDUMP_SCREENSHOT_DIR")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "bcdump-report-screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, page := build(t, c)
			path := filepath.Join(tempDir(t), c.name+".html")
			if err := os.WriteFile(path, page, 0o644); err != nil {
				t.Fatal(err)
			}
			// The same page with a drag across the first chart: every
			// chart zooms to the quarter dragged over.
			dragged := filepath.Join(tempDir(t), c.name+"-drag.html")
			if err := os.WriteFile(dragged, bytes.Replace(page, []byte("</body>"), []byte(dragScript+"</body>"), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			// The same page with every table shown in full.
			expanded := filepath.Join(tempDir(t), c.name+"-all.html")
			if err := os.WriteFile(expanded, bytes.Replace(page, []byte("</body>"), []byte(expandScript+interactScript+"</body>"), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			url := "file://" + path
			dom, logs := headless(t, bin, "--dump-dom", url)
			for _, l := range console.FindAllString(logs, -1) {
				t.Errorf("browser: %s", l)
			}
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Errorf("the page's script did not finish")
			}
			if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
				t.Errorf("the page's script recorded errors: %s", m[1])
			}
			checkDOM(t, dom, d, false)
			dom, logs = headless(t, bin, "--dump-dom", "file://"+expanded)
			for _, l := range console.FindAllString(logs, -1) {
				t.Errorf("browser, all rows shown: %s", l)
			}
			if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
				t.Errorf("the page's script recorded errors showing all rows: %s", m[1])
			}
			checkDOM(t, dom, d, true)
			m := regexp.MustCompile(`data-interact="([^"]*)"`).FindStringSubmatch(dom)
			if m == nil || !interacted.MatchString(m[1]) || (len(d.Anomalies) > 0) != strings.Contains(m[1], "highlighted") {
				t.Errorf("hovering an ACK arrow and clicking the last anomaly row: %v", m)
			} else {
				t.Logf("hovering an ACK arrow and clicking the last anomaly row: %s", m[1])
			}
			if len(d.Flows) > 0 {
				dom, _ = headless(t, bin, "--window-size=1280,900", "--dump-dom", "file://"+dragged)
				m := regexp.MustCompile(`data-selftest="([^"]*)"`).FindStringSubmatch(dom)
				if m == nil || !zoomed.MatchString(m[1]) {
					t.Errorf("dragging over the second quarter of a chart: %v, want viewBox 230 0 230 … on every chart", m)
				}
			}

			checkReadable(t, bin, c, d, page)
			checkFits(t, bin, c, page)

			png := filepath.Join(shots, "report-"+c.name+".png")
			_, logs = headless(t, bin, "--hide-scrollbars", "--window-size=1280,2000", "--screenshot="+png, url)
			for _, l := range console.FindAllString(logs, -1) {
				t.Errorf("browser: %s", l)
			}
			if st, err := os.Stat(png); err != nil || st.Size() == 0 {
				t.Fatalf("no screenshot: %v", err)
			}
			t.Logf("screenshot: %s", png)
			if *screenshots != "" && (c.name == "sample" || c.name == "unacked-fragment") {
				out := filepath.Join(*screenshots, "report-"+c.name+".png")
				_, _ = headless(t, bin, "--hide-scrollbars", "--window-size="+fitWidth+",1500", "--force-device-scale-factor=0.8", "--screenshot="+out, url)
				t.Logf("help topic screenshot: %s", out)
			}
			if c.name == "sample" && *screenshot != "" {
				_, _ = headless(t, bin, "--hide-scrollbars", "--window-size=1000,1400", "--force-device-scale-factor=0.75", "--screenshot="+*screenshot, url)
				t.Logf("README screenshot: %s", *screenshot)
			}
		})
	}
}

// fitScript records the blocks wider than the window: each server's
// block (players table included; it scrolls sideways when too wide) and
// the page itself.
const fitScript = `<script>(function () {
  var out = [];
  document.querySelectorAll("div.server").forEach(function (d, i) {
    if (d.scrollWidth > d.clientWidth) { out.push("server " + i + " " + d.scrollWidth + ">" + d.clientWidth); }
  });
  var e = document.documentElement;
  if (e.scrollWidth > window.innerWidth) { out.push("page " + e.scrollWidth + ">" + window.innerWidth); }
  e.setAttribute("data-fit", out.join("; ") || "ok");
})();</script>`

// fitWidth is the CSS width of the help topic's screenshots (1100 px).
const fitWidth = "1100"

// checkFits opens the page in a window as wide as the screenshots': no
// table is cut at the right edge (the players table's last column was).
func checkFits(t *testing.T, bin string, c reportCase, page []byte) {
	t.Helper()
	path := filepath.Join(tempDir(t), c.name+"-fit.html")
	if err := os.WriteFile(path, bytes.Replace(page, []byte("</body>"), []byte(fitScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, bin, "--window-size="+fitWidth+",900", "--dump-dom", "file://"+path)
	m := regexp.MustCompile(`data-fit="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil || m[1] != "ok" {
		t.Errorf("wider than a %s px window: %v", fitWidth, m)
	}
}

// readScript records what a reader needs from the page: the player named
// on each ladder's client lifeline, the colour legends of the charts, the
// anomaly table's rows per code, and the values the datagram chart shows
// when hovered in the middle of the capture.
const readScript = `<script>(function () {
  var r = document.documentElement, out = [];
  try {
    var lives = [];
    document.querySelectorAll("svg.ladder").forEach(function (l) { lives.push(l.querySelector("text.life").textContent); });
    out.push("lives=" + lives.join("|"));
    var legends = 0;
    document.querySelectorAll("svg.chart g.legend text").forEach(function (t) { if (/^(c2s client→server|s2c server→client)$/.test(t.textContent)) { legends++; } });
    out.push("legends=" + legends);
    var codes = {};
    document.querySelectorAll("tr.acode").forEach(function (tr) { codes[tr.getAttribute("data-code")] = (codes[tr.getAttribute("data-code")] || 0) + 1; });
    out.push("acodes=" + Object.keys(codes).length + "/" + document.querySelectorAll("tr.acode").length);
    var svg = document.querySelector("svg.chart[id$='-dg']");
    if (svg) {
      var b = svg.getBoundingClientRect(), k = b.width / 1000;
      svg.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: b.left + (64 + 920 * 0.5) * k, clientY: b.top + 60 * k }));
      out.push("tip=" + document.getElementById("tip").textContent.split("\n").slice(-1)[0]);
    }
  } catch (e) { out.push("error " + e); }
  r.setAttribute("data-read", out.join(";"));
})();</script>`

var readRE = regexp.MustCompile(`data-read="([^"]*)"`)

// checkReadable opens the page with readScript: every ladder names its
// player (where the story knows it), every flow's datagram and byte charts
// have their c2s/s2c legend, the anomaly table has one row per code, and
// on the rate capture (10 datagrams per second each way) the hovered
// datagram chart reads 10/s.
func checkReadable(t *testing.T, bin string, c reportCase, d *Data, page []byte) {
	t.Helper()
	path := filepath.Join(tempDir(t), c.name+"-read.html")
	if err := os.WriteFile(path, bytes.Replace(page, []byte("</body>"), []byte(readScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, bin, "--window-size=1280,900", "--dump-dom", "file://"+path)
	m := readRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the read script recorded nothing")
	}
	got := map[string]string{}
	for _, kv := range strings.Split(html.UnescapeString(m[1]), ";") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	t.Logf("read: %s", html.UnescapeString(m[1]))
	var lives []string
	if got["lives"] != "" {
		lives = strings.Split(got["lives"], "|")
	}
	if len(lives) != len(d.Ladders) {
		t.Errorf("%d ladders with a lifeline label, want %d", len(lives), len(d.Ladders))
	}
	for i, l := range d.Ladders {
		if i < len(lives) && l.Player != "" && lives[i] != l.Player {
			t.Errorf("ladder %s names %q, want the player %q", l.ID, lives[i], l.Player)
		}
	}
	if want := strconv.Itoa(4 * len(d.Flows)); got["legends"] != want {
		t.Errorf("%s legend entries on the charts, want %s (c2s and s2c on two charts per flow)", got["legends"], want)
	}
	if want := strconv.Itoa(len(d.AnomalyCodes)); got["acodes"] != want+"/"+want {
		t.Errorf("anomaly table: %s codes/rows, want %s rows of distinct codes", got["acodes"], want)
	}
	if c.name == "rate" && got["tip"] != "c2s 10/s, s2c 10/s" {
		t.Errorf("hovering the middle of the datagram chart: %q, want c2s 10/s, s2c 10/s", got["tip"])
	}
}
