package game

import (
	"testing"
)

// checkWellFormed holds stateUpdateWellFormed to the decoder on p (a
// StateUpdate payload): true exactly when the decoder succeeds without a
// note, except for subsystem data with the cloak or weapon flag, which it
// leaves to the decoder.
func checkWellFormed(t *testing.T, p []byte, fs *Fields) {
	t.Helper()
	fs.Reset()
	err := decodeStateUpdate(p, fs)
	want := err == nil
	if len(p) >= 10 && p[9]&suSubsystem != 0 && p[9]&(suCloak|suWeapons) != 0 {
		want = false
	}
	if got := stateUpdateWellFormed(p); got != want {
		t.Fatalf("% X: stateUpdateWellFormed %v, decoder error %v", p, got, err)
	}
}

// TestStateUpdateWellFormed: on every StateUpdate of the OpenBC battle
// capture and the captured examples, each of their prefixes and each with
// bytes added, and with every flags byte, the length check agrees with the
// decoder; and the drop path it serves gives the decoder's errors.
func TestStateUpdateWellFormed(t *testing.T) {
	var sus [][]byte
	for _, p := range session3Payloads(t) {
		if p[0] == 0x1C {
			sus = append(sus, p)
		}
	}
	for _, h := range capturedExamples {
		if p := mustHex(t, h); p[0] == 0x1C {
			sus = append(sus, p)
		}
	}
	if len(sus) < 1000 {
		t.Fatalf("only %d StateUpdates", len(sus))
	}
	var fs Fields
	buf := make([]byte, 0, 512)
	seen := map[string]bool{}
	for _, p := range sus {
		if seen[string(p)] {
			continue
		}
		seen[string(p)] = true
		checkWellFormed(t, p, &fs)
		for n := 1; n < len(p); n++ {
			checkWellFormed(t, p[:n], &fs)
		}
		for _, extra := range [][]byte{{0x00}, {0x21}, {0x21, 0x00}, {0x00, 0x00, 0x00}} {
			checkWellFormed(t, append(append(buf[:0], p...), extra...), &fs)
		}
		if len(p) >= 10 {
			for fl := range 256 {
				buf = append(buf[:0], p...)
				buf[9] = byte(fl)
				checkWellFormed(t, buf, &fs)
			}
		}
	}
	// Dropping fields changes nothing but the fields.
	var keep, drop Fields
	drop.Drop(true)
	for _, p := range sus[:min(len(sus), 2000)] {
		keep.Reset()
		drop.Reset()
		e1, e2 := decodeStateUpdate(p, &keep), decodeStateUpdate(p, &drop)
		if (e1 == nil) != (e2 == nil) || e1 != nil && e1.Error() != e2.Error() {
			t.Fatalf("% X: kept %v, dropped %v", p, e1, e2)
		}
		if len(drop.List) != 0 {
			t.Fatalf("% X: %d fields kept while dropping", p, len(drop.List))
		}
	}
}

// FuzzStateUpdateWellFormed: the length check agrees with the decoder on
// any StateUpdate payload.
func FuzzStateUpdateWellFormed(f *testing.F) {
	for _, h := range capturedExamples {
		if p := mustHex(f, h); p[0] == 0x1C {
			f.Add(p[1:])
		}
	}
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0xC1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x21})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x40, 0x41})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x80, 1, 2, 3})
	var fs Fields
	f.Fuzz(func(t *testing.T, rest []byte) {
		checkWellFormed(t, append([]byte{0x1C}, rest...), &fs)
	})
}
