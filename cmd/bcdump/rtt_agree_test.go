package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rttFig is one direction's RTT as a command reports it, in ms rounded to
// microseconds (stats keeps the maximum to the nanosecond; the others to
// the microsecond of read's rtt_ms).
type rttFig struct {
	Count         uint64
	P50, P95, Max float64
}

func (r rttFig) String() string {
	return fmt.Sprintf("n=%d p50=%.3f p95=%.3f max=%.3f", r.Count, r.P50, r.P95, r.Max)
}

func us(v *float64) float64 {
	if v == nil {
		return -1
	}
	return math.Round(*v*1000) / 1000
}

// statsLikeRTT is the rtt object of stats, profile and diff.
type statsLikeRTT struct {
	Count uint64   `json:"count"`
	P50   *float64 `json:"p50_ms"`
	P95   *float64 `json:"p95_ms"`
	Max   *float64 `json:"max_ms"`
}

func (r statsLikeRTT) fig() rttFig { return rttFig{r.Count, us(r.P50), us(r.P95), us(r.Max)} }

// flowFigs are a flow's RTT figures, c2s then s2c, by client and server.
type flowFigs map[string][2]rttFig

func flowKey(client, server string) string { return client + " " + server }

func (m flowFigs) put(t *testing.T, what, key string, f [2]rttFig) {
	t.Helper()
	if _, dup := m[key]; dup {
		t.Errorf("%s: flow %s listed twice", what, key)
	}
	m[key] = f
}

// rttCaptures are every capture in testdata/captures, plus the sample and
// the unacked-fragment capture of the goldens (about a second in all, so
// -short keeps them all).
func rttCaptures(t *testing.T) []string {
	caps, err := filepath.Glob(testdata + "/captures/*.pcap*")
	if err != nil || len(caps) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, g := range goldenCaptures {
		if !slices.Contains(caps, g.path) {
			caps = append(caps, g.path)
		}
	}
	return caps
}

var reportData = regexp.MustCompile(`(?s)<script type="application/json" id="bcdump-data">(.*?)</script>`)

// TestRTTAndFlowsAgree runs stats, session, report, profile and diff on
// every test capture and checks they report the same flows and, per flow
// and direction of the acknowledged message, the same RTT (issue 34: one
// RTT, one flow count).
func TestRTTAndFlowsAgree(t *testing.T) {
	for _, path := range rttCaptures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			// stats: the reference.
			var st struct {
				Totals struct {
					Flows int `json:"flows"`
				} `json:"totals"`
				Flows []struct {
					Client, Server string
					RTT            struct{ C2S, S2C statsLikeRTT } `json:"rtt"`
				} `json:"flows"`
			}
			mustJSON(t, runOK(t, "stats", "-F", "json", path), &st)
			stats := flowFigs{}
			for _, f := range st.Flows {
				stats.put(t, "stats", flowKey(f.Client, f.Server), [2]rttFig{f.RTT.C2S.fig(), f.RTT.S2C.fig()})
			}
			if st.Totals.Flows != len(stats) {
				t.Errorf("stats: totals.flows %d, %d flows listed", st.Totals.Flows, len(stats))
			}
			check := func(what string, got flowFigs, all bool) {
				t.Helper()
				if all && len(got) != len(stats) {
					t.Errorf("%s: %d flows, stats %d", what, len(got), len(stats))
				}
				for k, g := range got {
					want, ok := stats[k]
					switch {
					case !ok:
						t.Errorf("%s: flow %s not in stats", what, k)
					case g != want:
						t.Errorf("%s: flow %s RTT c2s %v s2c %v, stats c2s %v s2c %v", what, k, g[0], g[1], want[0], want[1])
					}
				}
			}

			// session: one player per flow it knows of.
			session := flowFigs{}
			sessionFull(t, runOK(t, "session", "-F", "json", path), session)
			check("session", session, false)

			// report: the flows charted (at most 32) and the players.
			m := reportData.FindStringSubmatch(runOK(t, "report", "-o", "-", path))
			if m == nil {
				t.Fatal("report: no data")
			}
			var rd struct {
				Flows []struct {
					Client, Server string
					RTTSamples     [2]uint64 `json:"rtt_samples"`
				} `json:"flows"`
				FlowsOmitted int `json:"flows_omitted"`
			}
			mustJSON(t, m[1], &rd)
			if n := len(rd.Flows) + rd.FlowsOmitted; n != len(stats) {
				t.Errorf("report: %d flows (%d omitted), stats %d", n, rd.FlowsOmitted, len(stats))
			}
			for _, f := range rd.Flows {
				want := stats[flowKey(f.Client, f.Server)]
				if f.RTTSamples != [2]uint64{want[0].Count, want[1].Count} {
					t.Errorf("report: flow %s %s rtt_samples %v, stats %d/%d", f.Client, f.Server, f.RTTSamples, want[0].Count, want[1].Count)
				}
			}
			report := flowFigs{}
			sessionFull(t, strings.Join(reportServers(t, m[1]), "\n"), report)
			check("report players", report, false)

			// profile: per flow, the rtt of each direction.
			var pd struct {
				Flows   int `json:"flows"`
				PerFlow []struct {
					Client, Server string
					C2S, S2C       struct {
						RTT statsLikeRTT `json:"rtt"`
					}
				} `json:"per_flow"`
			}
			mustJSON(t, runOK(t, "profile", "--per-flow", "-F", "json", path), &pd)
			profile := flowFigs{}
			for _, f := range pd.PerFlow {
				profile.put(t, "profile", flowKey(f.Client, f.Server), [2]rttFig{f.C2S.RTT.fig(), f.S2C.RTT.fig()})
			}
			if pd.Flows != len(stats) {
				t.Errorf("profile: flows %d, stats %d", pd.Flows, len(stats))
			}
			check("profile", profile, true)

			// diff of the capture with itself.
			var dd struct {
				Old struct {
					Flows int `json:"flows"`
				} `json:"old"`
				Summary struct {
					Flows int `json:"flows"`
				} `json:"summary"`
				Flows []struct {
					Role string `json:"role"`
					Old  struct {
						Client, Server string
						RTT            struct{ C2S, S2C statsLikeRTT } `json:"rtt"`
					} `json:"old"`
				} `json:"flows"`
			}
			mustJSON(t, runOK(t, "diff", "-F", "json", path, path), &dd)
			if dd.Old.Flows != len(stats) || dd.Summary.Flows != len(stats) {
				t.Errorf("diff: old.flows %d, summary.flows %d, stats %d", dd.Old.Flows, dd.Summary.Flows, len(stats))
			}
			diff := flowFigs{}
			for _, f := range dd.Flows {
				if f.Role == "client" {
					diff.put(t, "diff", flowKey(f.Old.Client, f.Old.Server), [2]rttFig{f.Old.RTT.C2S.fig(), f.Old.RTT.S2C.fig()})
				}
			}
			check("diff", diff, true)
			t.Logf("%d flows; session %d players, report %d players, profile %d flows, diff %d flows agree",
				len(stats), len(session), len(report), len(profile), len(diff))
		})
	}
}

// sessionFull fills figs with the players' RTT of session documents (one
// JSON document per line, as session -F json writes them).
func sessionFull(t *testing.T, lines string, figs flowFigs) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(lines))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var doc struct {
			Server struct {
				Address string `json:"address"`
			} `json:"server"`
			Players []struct {
				Address string `json:"address"`
				RTT     map[string]struct {
					Samples uint64  `json:"samples"`
					P50     float64 `json:"p50"`
					P95     float64 `json:"p95"`
					Max     float64 `json:"max"`
				} `json:"rtt_ms"`
			} `json:"players"`
		}
		mustJSON(t, sc.Text(), &doc)
		for _, p := range doc.Players {
			var f [2]rttFig
			for i, dir := range []string{"c2s", "s2c"} {
				r := p.RTT[dir]
				f[i] = rttFig{Count: r.Samples, P50: -1, P95: -1, Max: -1}
				if r.Samples > 0 {
					f[i].P50, f[i].P95, f[i].Max = us(&r.P50), us(&r.P95), us(&r.Max)
				}
			}
			figs[flowKey(p.Address, doc.Server.Address)] = f
		}
	}
}

// reportServers are the report's session documents, one JSON text each.
func reportServers(t *testing.T, data string) []string {
	var rd struct {
		Servers []json.RawMessage `json:"servers"`
	}
	mustJSON(t, data, &rd)
	out := make([]string, len(rd.Servers))
	for i, s := range rd.Servers {
		out[i] = string(s)
	}
	return out
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %.200q", err, s)
	}
}
