package profile

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func docOf(t *testing.T, p dissecttest.ProfileParams) *Doc {
	t.Helper()
	return profileOf(t, dissecttest.ProfileSession(p)).Doc(false)
}

func diffOf(r *Result, metric string) (Difference, bool) {
	for _, d := range r.Differences {
		if d.Metric == metric {
			return d, true
		}
	}
	return Difference{}, false
}

func TestCompare(t *testing.T) {
	base := docOf(t, dissecttest.ProfileParams{})
	for _, tc := range []struct {
		name   string
		params dissecttest.ProfileParams
		tol    string
		ignore []string
		drift  []string // metrics that must be drift
		within []string // metrics that must differ within tolerance
		pass   bool
	}{
		{name: "identical", pass: true},
		{name: "rate -30%", params: dissecttest.ProfileParams{UpdateHz: 7},
			drift: []string{"s2c.opcode.0x1C.rate_per_s", "s2c.state_updates.hz_p50"}},
		{name: "latency +50ms", params: dissecttest.ProfileParams{MissionInitDelay: 52 * time.Millisecond},
			drift: []string{"pair.new_player_mission_init.p50_ms", "pair.new_player_mission_init.max_ms"}},
		{name: "latency +10ms within 20ms", params: dissecttest.ProfileParams{MissionInitDelay: 12 * time.Millisecond},
			within: []string{"pair.new_player_mission_init.p50_ms", "pair.new_player_mission_init.max_ms"}, pass: true},
		{name: "latency +50ms within latency=60ms", params: dissecttest.ProfileParams{MissionInitDelay: 52 * time.Millisecond},
			tol: "latency=60ms", within: []string{"pair.new_player_mission_init.p50_ms"}, pass: true},
		{name: "rate -30% within rate=45%", params: dissecttest.ProfileParams{UpdateHz: 7},
			tol: "rate=45%", within: []string{"s2c.opcode.0x1C.rate_per_s"}, pass: true},
		{name: "rate -30% ignored", params: dissecttest.ProfileParams{UpdateHz: 7},
			ignore: []string{"s2c.opcode.0x1C", "s2c.state_updates", "s2c.state_updates.hz"}, pass: true},
		{name: "a prefix is not a key's start", params: dissecttest.ProfileParams{UpdateHz: 7},
			ignore: []string{"s2c.opcode.0x1", "s2c.state_update"}, drift: []string{"s2c.opcode.0x1C.rate_per_s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := ParseTolerances(tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			r := Compare("old", base, "new", docOf(t, tc.params), CompareOptions{Tolerances: ts, Ignore: tc.ignore})
			if r.Passed() != tc.pass {
				var buf bytes.Buffer
				_ = r.WriteText(&buf)
				t.Errorf("passed %v, want %v:\n%s", r.Passed(), tc.pass, buf.String())
			}
			for _, m := range tc.drift {
				if d, ok := diffOf(r, m); !ok || d.Status != StatusDrift {
					t.Errorf("%s: %+v, want drift", m, d)
				}
			}
			for _, m := range tc.within {
				if d, ok := diffOf(r, m); !ok || d.Status != StatusWithin {
					t.Errorf("%s: %+v, want within", m, d)
				}
			}
		})
	}
}

// The relative change and both values are reported.
func TestCompareValues(t *testing.T) {
	r := Compare("old", docOf(t, dissecttest.ProfileParams{}), "new", docOf(t, dissecttest.ProfileParams{UpdateHz: 7}), CompareOptions{})
	d, _ := diffOf(r, "s2c.opcode.0x1C.rate_per_s")
	if f(d.Old) != 40 || f(d.New) != 28 || f(d.Change) != -0.3 || d.Tolerance != "10%" {
		t.Errorf("%+v", d)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "s2c.opcode.StateUpdate(0x1C).rate_per_s") || !strings.Contains(buf.String(), "40 -> 28") ||
		!strings.Contains(buf.String(), "-30.0%") {
		t.Errorf("text:\n%s", buf.String())
	}
}

// A baseline accepts the drift it lists while the value stays within
// tolerance of the recorded one; new drift still fails.
func TestBaseline(t *testing.T) {
	base := docOf(t, dissecttest.ProfileParams{})
	slow := docOf(t, dissecttest.ProfileParams{UpdateHz: 7})
	r := Compare("old", base, "new", slow, CompareOptions{})
	if r.Passed() {
		t.Fatal("7 Hz passed")
	}
	var buf bytes.Buffer
	if err := r.Baseline().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	bl, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r2 := Compare("old", base, "new", slow, CompareOptions{Baseline: bl}); !r2.Passed() || r2.Accepted != r.Drift {
		t.Errorf("with its own baseline: drift %d accepted %d, want 0 and %d", r2.Drift, r2.Accepted, r.Drift)
	}
	// Further drift of an accepted metric, and a new one, fail.
	for _, p := range []dissecttest.ProfileParams{
		{UpdateHz: 5},
		{UpdateHz: 7, MissionInitDelay: 52 * time.Millisecond},
	} {
		r3 := Compare("old", base, "new", docOf(t, p), CompareOptions{Baseline: bl})
		if r3.Passed() {
			t.Errorf("%+v passed with the 7 Hz baseline", p)
		}
	}
}

func TestParseTolerances(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"", "rate=10%,latency=20ms,size=10%,bundling=20%,ratio=20%,share=5pp", ""},
		{"rate=25%,latency=50ms", "rate=25%,latency=50ms,size=10%,bundling=20%,ratio=20%,share=5pp", ""},
		{"latency=0.5s,share=0.1", "rate=10%,latency=500ms,size=10%,bundling=20%,ratio=20%,share=10pp", ""},
		{"latency=10%,share=2pp,size=4", "rate=10%,latency=10%,size=4,bundling=20%,ratio=20%,share=2pp", ""},
		{"speed=1", "", "unknown tolerance kind"},
		{"rate", "", "not kind=value"},
		{"rate=-1%", "", "non-negative"},
		{"latency=fast", "", "non-negative"},
	} {
		ts, err := ParseTolerances(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || ts.String() != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, ts, err, tc.want)
		}
	}
}

// A saved document reads back to the same comparison.
func TestDocRoundTrip(t *testing.T) {
	d := docOf(t, dissecttest.ProfileParams{})
	var buf bytes.Buffer
	if err := d.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadDoc(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r := Compare("a", d, "b", back, CompareOptions{}); len(r.Differences) != 0 {
		t.Errorf("round trip differs: %+v", r.Differences)
	}
	if _, err := ReadDoc(strings.NewReader(`{"sources":[]}`)); err == nil {
		t.Error("a document without bcdump_profile was read")
	}
	if _, err := ReadBaseline(strings.NewReader(`{"accepted":[]}`)); err == nil {
		t.Error("a baseline without its marker was read")
	}
}

// A baseline's parity entries must name a direction and a one-sided
// presence.
func TestReadBaselineParity(t *testing.T) {
	for _, tc := range []struct {
		doc string
		ok  bool
	}{
		{`{"bcdump_profile_baseline":1,"accepted":[],"parity":[{"dir":"c2s","opcode":44,"presence":"only_old"}]}`, true},
		{`{"bcdump_profile_baseline":1,"accepted":[],"parity":[{"dir":"c2s","opcode":44,"presence":"both"}]}`, false},
		{`{"bcdump_profile_baseline":1,"accepted":[],"parity":[{"dir":"up","opcode":44,"presence":"only_new"}]}`, false},
	} {
		b, err := ReadBaseline(strings.NewReader(tc.doc))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v", tc.doc, err)
		}
		if err == nil && !b.acceptsParity(&ParityRow{Dir: "c2s", Opcode: 44, Presence: OnlyOld}) {
			t.Errorf("%s does not accept c2s 0x2C only_old", tc.doc)
		}
	}
}
