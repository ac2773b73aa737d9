package main

import (
	"strings"
	"testing"
)

// filterExamples are the display filter examples of bcdump help filters:
// each runs bcdump on a test capture, and its output is what the topic
// shows.
var filterExamples = []struct {
	question string
	args     []string
}{
	{"Everything one player sent and received (by address):",
		[]string{"read", "-Y", "src == 127.0.0.1:38561 or dst == 127.0.0.1:38561", "-c", "4", "testdata/captures/openbc-session-3.pcap"}},
	{"Every checksum response:",
		[]string{"read", "-Y", "messages.opcode_name == ChecksumResp", "-c", "5", "testdata/captures/openbc-session-2.pcap"}},
	{"Anomalies of error severity:",
		[]string{"read", "-Y", "anomalies.severity == error", "-c", "3", "testdata/captures/openbc-session-3.pcap"}},
	{"Retransmissions after frame 1000:",
		[]string{"read", "-Y", "messages.retransmit and frame > 1000", "-c", "3", "testdata/captures/openbc-session-3.pcap"}},
	{"Chat lines containing a word:",
		[]string{"read", "-Y", `messages.fields.text contains "hello"`, "testdata/sample.pcap"}},
	{"Who sent a file with this hash (hex fields compare as numbers, at any depth below messages.fields):",
		[]string{"read", "-Y", "messages.fields.name_hash == 0x373eb677", "testdata/captures/openbc-session-2.pcap"}},
	{"ACKs that took longer than 100 ms:",
		[]string{"read", "-Y", "messages.rtt_ms > 100", "-c", "3", "testdata/captures/openbc-session-3.pcap"}},
	{"Joins and leaves:",
		[]string{"read", "-Y", `messages.type_name in {"Connect", "Disconnect"}`, "testdata/captures/openbc-session-2.pcap"}},
	{"A checksum failure with the datagram before and after it in the same flow:",
		[]string{"read", "-Y", "anomalies.code == checksum-version", "-C", "1", "testdata/captures/openbc-session-3.pcap"}},
	{"The server's GameSpy replies naming a host, as JSON (the keys of the JSON are the field names):",
		[]string{"read", "-Y", `gamespy.hostname contains "Host"`, "-F", "json", "testdata/sample.pcap"}},
}

// renderFilterExamples is the topic's block: each question, the command,
// its output.
func renderFilterExamples(t *testing.T) string {
	var b strings.Builder
	for i, ex := range filterExamples {
		args := make([]string, len(ex.args))
		copy(args, ex.args)
		args[len(args)-1] = "../../" + args[len(args)-1]
		code, out, errs := runCLI(t, nil, args...)
		if code != exitOK || errs != "" {
			t.Fatalf("example %d: exit %d, %s", i+1, code, errs)
		}
		if out == "" {
			t.Errorf("example %d (%s) prints nothing: an example should show something", i+1, ex.question)
		}
		b.WriteString(ex.question + "\n\n```console\n$ bcdump")
		for _, a := range ex.args {
			if strings.ContainsAny(a, " {}\"<>|&!") {
				a = "'" + a + "'"
			}
			b.WriteString(" " + a)
		}
		b.WriteString("\n" + out + "```\n\n")
	}
	return b.String()
}

// TestHelpFilterExamples keeps the display filter examples of bcdump help
// filters equal to what bcdump prints for them (-update-docs rewrites
// them).
func TestHelpFilterExamples(t *testing.T) {
	checkDocBlocks(t, "<!-- filter examples -->\n", "<!-- /filter examples -->", renderFilterExamples(t), *updateDocs,
		"go test ./cmd/bcdump -run HelpFilter -update-docs")
}
