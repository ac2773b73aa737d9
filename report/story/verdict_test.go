package story

import (
	"bytes"
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
		{"unacked-fragment", false, VerdictNeverEntered, CauseUnackedFragment,
			[]string{"unacked-fragment bug", "checksum round 2 answer", "(3 fragments)", "fragments resent 30 times after the host had ACKed every one"},
			[]int{10, 13, 14, 58}},
		{"server-full", false, VerdictNeverEntered, CauseServerFull, []string{"server full (BootPlayer reason 2)"}, []int{4}},
		{"booted", false, VerdictNeverEntered, CauseBooted, []string{"booted by the host: banned (reason 3)"}, []int{5}},
		{"client-disconnected", false, VerdictNeverEntered, CauseClientDisconnected,
			[]string{"the client disconnected before entering the game (checksum round 0 answered)"}, []int{4, 6}},
		{"capture-ended", false, VerdictNeverEntered, CauseCaptureEnded,
			[]string{"the capture ended before it entered the game (checksum round 0 answered)"}, []int{1, 4}},
		{"checksum-unanswered", false, VerdictNeverEntered, CauseChecksumUnanswered,
			[]string{"the host asked checksum round 0 (directory scripts/) and the client never answered"}, []int{2}},
		{"checksum-kick", true, VerdictNeverEntered, CauseChecksumMismatch,
			[]string{"checksum mismatch in round 0 (directory scripts/)", "scripts/App.pyc content hash 0xF8A0A768, manifest 0xF8A0A740",
				"BootPlayer (checksum failed)"}, []int{2, 4, 5}},
		{"checksum-kick", false, VerdictNeverEntered, CauseBooted, []string{"booted by the host: checksum failed (reason 4)"}, []int{5}},
		{"timed-out", false, VerdictNeverEntered, CauseTimedOut,
			[]string{"the client went silent before entering the game (checksum round 0 answered)"}, nil},
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
