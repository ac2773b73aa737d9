package capture

import "testing"

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
