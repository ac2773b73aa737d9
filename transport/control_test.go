package transport

import (
	"testing"
	"unicode/utf16"
)

// TestAppendUTF16LE: the allocation-free decoder reads names exactly as
// string(utf16.Decode(...)) does, broken surrogates and odd lengths included.
func TestAppendUTF16LE(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"ascii", []byte{'K', 0, 'i', 0, 'r', 0, 'k', 0}},
		{"latin1", []byte{0xE9, 0x00, 'a', 0}},
		{"pair", []byte{0x3D, 0xD8, 0x00, 0xDE}},    // U+1F600
		{"lone high", []byte{0x3D, 0xD8, 'a', 0}},   // FFFD then a
		{"lone low", []byte{0x00, 0xDE, 'a', 0}},    // FFFD then a
		{"high at end", []byte{'a', 0, 0x3D, 0xD8}}, // a then FFFD
		{"odd length", []byte{'a', 0, 'b'}},         // the odd byte is dropped
		{"high high low", []byte{0x3D, 0xD8, 0x3D, 0xD8, 0x00, 0xDE}},
	}
	for _, tt := range tests {
		u := make([]uint16, len(tt.b)/2)
		for i := range u {
			u[i] = uint16(tt.b[2*i]) | uint16(tt.b[2*i+1])<<8
		}
		want := string(utf16.Decode(u))
		if got := string(AppendUTF16LE(nil, tt.b)); got != want {
			t.Errorf("%s: %q, want %q", tt.name, got, want)
		}
	}
}

func TestParsePeerInfo(t *testing.T) {
	p := []byte{2, 10, 0, 0, 2, 'B', 0, 'o', 0, 0, 0, 0xFF}
	pi, err := ParsePeerInfo(p)
	if err != nil || pi.PeerID != 2 || pi.Addr.String() != "10.0.0.2" || pi.Name != "Bo" || pi.NameLen != 6 || string(pi.RawName) != "B\x00o\x00" {
		t.Errorf("ParsePeerInfo: %+v, %v", pi, err)
	}
	if pi, err := ParsePeerInfo(p[:8]); err == nil || pi.Name != "B" || pi.NameLen != 3 {
		t.Errorf("no terminator: %+v, %v", pi, err)
	}
}

// The names PeerInfo carries (and UTF16Z strings of game payloads) decode
// as UTF-16LE.
func TestAppendUTF16LECases(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte{'B', 0, 'o', 0, 't', 0, '0', 0}, "Bot0"},
		{[]byte{0xE9, 0x00}, "é"},
		{[]byte{0x3D, 0xD8, 0x00, 0xDE}, "\U0001F600"}, // surrogate pair
		{[]byte{0x3D, 0xD8}, "\uFFFD"},                 // lone high surrogate
		{[]byte{'A', 0, 'B'}, "A"},                     // odd byte dropped
	} {
		if got := string(AppendUTF16LE(nil, tc.in)); got != tc.want {
			t.Errorf("AppendUTF16LE(% X) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
