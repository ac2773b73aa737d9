package game

import (
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// OpenBC's bytes (openbc-session-3 frames 660 and 99) are named; the stock
// shapes and other malformed payloads are not.
func TestNonStock(t *testing.T) {
	tests := []struct {
		hex  string
		code anomaly.Code
		off  int
	}{
		{"19 FF FF 03 40 08 02 6A 2E CD FF FF FF 3F 00 00 00 00 00", anomaly.NonStockTorpedoFire, 6},
		{"03 00 00 FF FF FF 3F 0E E2 7A B9 42", anomaly.NonStockObjCreate, 3},
		{"02 00 FF FF 03 40 0E E2 7A B9 42", anomaly.NonStockObjCreate, 2},
		{"19 0D 00 00 40 02 01 DF 87 11 FF FF 03 40 00 88 D8 5C", 0, 0},    // stock, 18 bytes
		{"19 0D 00 00 40 02 05 DF 87 11 FF FF 03 40 00 88 D8 5C 00", 0, 0}, // 19 bytes, bit 2 set
		{"03 00 02 08 80 00 00 FF FF FF 3F 01", 0, 0},                      // stock class id
		{"03 00 00 12 34 56 78", 0, 0},                                     // not an object id
		{"03 00 00 FF FF", 0, 0},
		{"", 0, 0},
	}
	for _, tt := range tests {
		code, off, msg, ok := NonStock(mustHex(t, tt.hex))
		if ok != (tt.code != 0) || code != tt.code || off != tt.off || ok && !strings.Contains(msg, "stock") {
			t.Errorf("%s: %v %s@%d %q", tt.hex, ok, code, off, msg)
		}
	}
}

// FuzzNonStock: NonStock never panics, and names only payloads the stock
// layout rejects.
func FuzzNonStock(f *testing.F) {
	f.Add(mustHex(f, "19 FF FF 03 40 08 02 6A 2E CD FF FF FF 3F 00 00 00 00 00"))
	f.Add(mustHex(f, "03 00 00 FF FF FF 3F 0E E2 7A B9 42"))
	f.Add([]byte{0x02})
	var fl Fields
	f.Fuzz(func(t *testing.T, p []byte) {
		if _, _, _, ok := NonStock(p); ok {
			if _, err := Decode(p, &fl); err == nil {
				t.Fatalf("% X: named non-stock but decodes as stock", p)
			}
		}
	})
}
