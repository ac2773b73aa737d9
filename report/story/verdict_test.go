package story

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Each verdict rule on a capture built for it: the verdict, the cause,
// words of the text, and the frames it rests on (checked against `bcdump
// read` of the scenario).
func TestVerdictRules(t *testing.T) {
	tests := []struct {
		scenario string
		manifest bool
		verdict  string
		cause    string
		text     []string
		frames   []int
	}{
		{"unacked-fragment", false, VerdictNeverEntered, CauseClientDisconnected,
			[]string{"host: GameInit [18], ACKed [19]", "client: checksum round 0xFF answer [17]", "no NewPlayerInGame in the 20.3 s before the client disconnected [60]"},
			[]int{17, 18, 19, 60}},
		{"host-never-acks", false, VerdictNeverEntered, CauseClientDisconnected,
			[]string{"host: GameInit [", "no NewPlayerInGame in the"}, nil},
		{"host-acks-without-frag-flag", false, VerdictNeverEntered, CauseClientDisconnected,
			[]string{"host: GameInit [", "no NewPlayerInGame in the"}, nil},
		{"checksum-not-followed-up", false, VerdictNeverEntered, CauseCaptureEnded,
			[]string{"client: checksum round 0 answer [4], ACKed [5]", "no next checksum round or ChecksumComplete from the host in the 10.0 s until the capture ended"},
			[]int{2, 4, 5}},
		{"server-full", false, VerdictNeverEntered, CauseServerFull, []string{"server full (BootPlayer reason 2)"}, []int{4}},
		{"booted", false, VerdictNeverEntered, CauseBooted, []string{"booted by the host: banned (reason 3)"}, []int{5}},
		{"client-disconnected", false, VerdictNeverEntered, CauseClientDisconnected,
			[]string{"client: checksum round 0 answer [4], ACKed [5]", "from the host in the 0.5 s before the client disconnected [6]"}, []int{2, 4, 5, 6}},
		{"capture-ended", false, VerdictNeverEntered, CauseCaptureEnded,
			[]string{"host: checksum request round 0 [2]", "client: checksum round 0 answer [4], ACKed [5]", "until the capture ended"}, []int{2, 4, 5}},
		{"checksum-unanswered", false, VerdictNeverEntered, CauseChecksumUnanswered,
			[]string{"the host asked checksum round 0 (directory scripts/) [2] and the client never answered"}, []int{2}},
		{"checksum-kick", true, VerdictNeverEntered, CauseChecksumMismatch,
			[]string{"checksum mismatch in round 0 (directory scripts/)", "scripts/App.pyc content hash 0xF8A0A768, manifest 0xF8A0A740",
				"BootPlayer (checksum failed)"}, []int{2, 4, 5}},
		{"checksum-kick", false, VerdictNeverEntered, CauseBooted, []string{"booted by the host: checksum failed (reason 4)"}, []int{5}},
		{"timed-out", false, VerdictNeverEntered, CauseTimedOut,
			[]string{"client: checksum round 0 answer [4]", "in the 45.0 s before the client timed out (nothing from it after [4])"}, nil},
		{"peer-timeout", false, VerdictNeverEntered, CauseChecksumUnanswered, []string{"never answered; then it timed out"}, nil},
		{"sample", false, VerdictEntered, CauseEntered, []string{"entered the game"}, nil},
	}
	for _, tt := range tests {
		name := tt.scenario
		if tt.manifest {
			name += "/manifest"
		}
		t.Run(name, func(t *testing.T) {
			var s *dissecttest.Session
			switch tt.scenario {
			case "checksum-kick":
				s = dissecttest.ChecksumKick()
			case "peer-timeout":
				s, _ = dissecttest.Anomaly(anomaly.PeerTimeout)
			case "sample":
				s = dissecttest.Sample()
			default:
				var ok bool
				if s, ok = dissecttest.VerdictScenario(tt.scenario); !ok {
					t.Fatalf("no scenario %q", tt.scenario)
				}
			}
			var opt dissect.Options
			if tt.manifest {
				opt.Manifest = vanilla(t)
			}
			a := analyze(t, sessionPcap(t, s), opt)
			doc := one(t, a)
			v := doc.Players[0].Verdict
			if v.Verdict != tt.verdict || v.Cause != tt.cause {
				t.Errorf("verdict %q cause %q, want %q %q (%s)", v.Verdict, v.Cause, tt.verdict, tt.cause, v.Text)
			}
			for _, w := range tt.text {
				if !strings.Contains(v.Text, w) {
					t.Errorf("text %q lacks %q", v.Text, w)
				}
			}
			if tt.frames != nil && !slices.Equal(v.Frames, tt.frames) {
				t.Errorf("frames %v, want %v", v.Frames, tt.frames)
			}
			if len(v.Frames) == 0 {
				t.Errorf("no frames")
			}
			var tbl bytes.Buffer
			if err := a.WriteTable(&tbl); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tbl.String(), v.Text) {
				t.Errorf("table lacks the verdict %q:\n%s", v.Text, tbl.String())
			}
			if testing.Verbose() {
				t.Log("\n" + tbl.String())
			}
		})
	}
}

// Seed 001's stock bug where the client still gets in (the bug is
// harmless there): entered, with the bug as the verdict's note.
func TestVerdictEnteredDespiteFragmentBug(t *testing.T) {
	doc := one(t, analyze(t, sessionPcap(t, dissecttest.Seed001(dissecttest.Seed001FragmentAcks)), dissect.Options{}))
	v := doc.Players[0].Verdict
	if v.Verdict != VerdictEntered || !strings.Contains(v.Note, "unacked-fragment bug: its checksum round 2 answer") ||
		!strings.Contains(v.Note, "(frames 10, 13, 14, ") {
		t.Errorf("verdict %+v", v)
	}
}

// The findings of each join, by nature: the stock fragment bug is a
// harmless finding, never the cause; the host's faults are named (a
// checksum answer it never followed up), a request the client never
// answered is none of them; the
// bundled unacked-fragment capture stops after GameInit with the bug as a
// finding.
func TestVerdictFindings(t *testing.T) {
	tests := []struct {
		scenario string
		natures  []string
		words    string
	}{
		{"unacked-fragment", []string{NatureStockBug}, "unacked-fragment bug"},
		{"host-never-acks", []string{NatureHostFault}, "the host never ACKed the client's fragments"},
		{"host-acks-without-frag-flag", []string{NatureHostFault}, "the host ACKed the client's fragments without the fragment flag"},
		{"checksum-not-followed-up", []string{NatureHostFault}, "the host never followed up the client's checksum round 0 answer [4]"},
		// The client never answered the host's request: a fact about the
		// client (the cause checksum-unanswered), no fault of the host.
		{"checksum-unanswered", nil, ""},
		{"capture-ended", nil, ""},
		{"client-disconnected", nil, ""},
		{"testdata/unacked-fragment.pcap", []string{NatureStockBug}, "unacked-fragment bug"},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			var pcap []byte
			if strings.HasPrefix(tt.scenario, "testdata/") {
				pcap = readFile(t, filepath.Join(testdata, strings.TrimPrefix(tt.scenario, "testdata/")))
			} else {
				s, ok := dissecttest.VerdictScenario(tt.scenario)
				if !ok {
					t.Fatalf("no scenario %q", tt.scenario)
				}
				pcap = sessionPcap(t, s)
			}
			doc := one(t, analyze(t, pcap, dissect.Options{}))
			v := doc.Players[0].Verdict
			var natures []string
			for _, f := range v.Findings {
				natures = append(natures, f.Nature)
				if len(f.Frames) == 0 {
					t.Errorf("finding without frames: %+v", f)
				}
			}
			if !slices.Equal(natures, tt.natures) {
				t.Errorf("findings %+v, want natures %v", v.Findings, tt.natures)
			}
			if tt.words != "" && !strings.Contains(v.Note, tt.words) {
				t.Errorf("note %q lacks %q", v.Note, tt.words)
			}
			if v.Verdict != VerdictNeverEntered {
				t.Errorf("verdict %q", v.Verdict)
			}
			if strings.Contains(v.Cause, "fragment") || strings.Contains(v.Text, "unacked-fragment") {
				t.Errorf("the stock bug decides the verdict: %+v", v)
			}
			if strings.Contains(tt.scenario, "fragment") || strings.Contains(tt.scenario, "acks") {
				if !strings.Contains(v.Text, "host: GameInit [") || !strings.Contains(v.Text, "no NewPlayerInGame in the") {
					t.Errorf("text %q does not name GameInit's frame and the missing NewPlayerInGame", v.Text)
				}
			}
		})
	}
}
