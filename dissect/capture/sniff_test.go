package capture

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestLooksLikeCapture(t *testing.T) {
	for _, tt := range []struct {
		name string
		head []byte
		want bool
	}{
		{"pcap LE µs", []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0}, true},
		{"pcap BE µs", []byte{0xa1, 0xb2, 0xc3, 0xd4, 0, 2}, true},
		{"pcap LE ns", []byte{0x4d, 0x3c, 0xb2, 0xa1, 2, 0}, true},
		{"pcapng", []byte{0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0}, true},
		{"gzip", []byte{0x1f, 0x8b, 8, 0, 0, 0}, true},
		{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0}, true},
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, true},
		{"text", []byte("package"), false},
		{"JSON", []byte(`{"frame"`), false},
		{"empty", nil, false},
		{"short", []byte{0xd4, 0xc3}, false},
		{"xz cut", []byte{0xfd, '7', 'z'}, false},
		{"packet_trace.log", []byte("# STBC Dedicated Server - Packet Trace (DECRYPTED)\n"), true},
		{"packet_trace.log without header", []byte("[21:14:05.137] #2 S->C Peer#0(127.0.0.1:2655) len=35"), true},
		{"OBCTRACE", []byte("OBCTRACE\x00\x00"), true},
		{"other comment", []byte("# notes\n"), false},
	} {
		if got := LooksLikeCapture(tt.head); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Sniff names every input format; SniffReader peeks past leading white
// space only as far as needed and consumes nothing.
func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		name string
		head string
		want string
	}{
		{"pcap LE µs", "\xd4\xc3\xb2\xa1\x02\x00", FormatPcap},
		{"pcap BE ns", "\xa1\xb2\x3c\x4d\x00\x02", FormatPcap},
		{"pcapng", "\x0a\x0d\x0d\x0a\x1c\x00", FormatPcapng},
		{"packet_trace.log", "# STBC Dedicated Server - Packet Trace (DECRYPTED)\n", FormatTraceLog},
		{"packet_trace.log with BOM", "\xef\xbb\xbf# STBC Dedicated Server", FormatTraceLog},
		{"OBCTRACE", "OBCTRACE\x00\x00", FormatOBCTrace},
		{"JSON trace", `{"frame":1}`, FormatJSON},
		{"JSON after blanks", " \r\n\t{", FormatJSON},
		{"JSON array", `[1]`, ""},
		{"gzip (undo first)", "\x1f\x8b\x08", ""},
		{"text", "package", ""},
		{"empty", "", ""},
	} {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff %s: %q, want %q", tt.name, got, tt.want)
		}
		br := bufio.NewReader(strings.NewReader(tt.head))
		if got, err := SniffReader(br); got != tt.want || err != nil {
			t.Errorf("SniffReader %s: %q %v, want %q", tt.name, got, err, tt.want)
		}
		if rest, _ := io.ReadAll(br); string(rest) != tt.head {
			t.Errorf("SniffReader %s consumed input", tt.name)
		}
	}
	long := strings.Repeat(" ", 3000) + "{}"
	if got, _ := SniffReader(bufio.NewReaderSize(strings.NewReader(long), 8192)); got != FormatJSON {
		t.Errorf("3000 blanks then {: %q", got)
	}
	if got, _ := SniffReader(bufio.NewReaderSize(strings.NewReader(strings.Repeat(" ", 5000)+"{}"), 8192)); got != "" {
		t.Errorf("5000 blanks then {: %q, want nothing (past the 4 KiB sniff)", got)
	}
}
