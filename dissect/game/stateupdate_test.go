package game

import (
	"testing"
)

// checkFast holds stateUpdateWellFormed and emitStateUpdate to
// decodeLayout1C on p (a StateUpdate payload): the check passes
// exactly the payloads the decoder takes without a note, except subsystem
// data with the weapon flag, which it leaves to the decoder; on
// those it passes, emitStateUpdate appends the decoder's fields.
func checkFast(t *testing.T, p []byte, steps, emit *Fields) {
	t.Helper()
	steps.Reset()
	err := decodeLayout1C(p, steps)
	want := err == nil
	if len(p) >= 10 && p[9]&suSubsystem != 0 && p[9]&suWeapons != 0 {
		want = false
	}
	if got := stateUpdateWellFormed(p); got != want {
		t.Fatalf("% X: stateUpdateWellFormed %v, decoder error %v", p, got, err)
	}
	if want {
		emit.Reset()
		emitStateUpdate(p, emit)
		if d := sameFields(steps.List, emit.List); d != "" {
			t.Fatalf("% X: emitStateUpdate's fields are not the decoder's (shown as layout): %s", p, d)
		}
	}
}

// TestStateUpdateFast: on every StateUpdate of the OpenBC battle capture
// and the captured examples, each of their prefixes, each with bytes
// added, and with every flags byte, the fast path agrees with the decoder;
// and
// decodeStateUpdate, kept or dropped, gives the decoder's errors and
// fields.
func TestStateUpdateFast(t *testing.T) {
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
	var steps, emit Fields
	buf := make([]byte, 0, 512)
	seen := map[string]bool{}
	for _, p := range sus {
		if seen[string(p)] {
			continue
		}
		seen[string(p)] = true
		checkFast(t, p, &steps, &emit)
		for n := 1; n < len(p); n++ {
			checkFast(t, p[:n], &steps, &emit)
		}
		for _, extra := range [][]byte{{0x00}, {0x21}, {0x21, 0x00}, {0x00, 0x00, 0x00}} {
			checkFast(t, append(append(buf[:0], p...), extra...), &steps, &emit)
		}
		// Every flags byte on the first hundred payloads (more add nothing).
		if len(p) >= 10 && len(seen) <= 100 {
			for fl := range 256 {
				buf = append(buf[:0], p...)
				buf[9] = byte(fl)
				checkFast(t, buf, &steps, &emit)
			}
		}
	}
	var keep, drop Fields
	drop.Drop(true)
	for _, p := range sus[:min(len(sus), 2000)] {
		steps.Reset()
		keep.Reset()
		drop.Reset()
		e0 := decodeLayout1C(p, &steps)
		e1, e2 := decodeStateUpdate(p, &keep), decodeStateUpdate(p, &drop)
		if (e0 == nil) != (e1 == nil) || (e0 == nil) != (e2 == nil) || e0 != nil && (e0.Error() != e1.Error() || e0.Error() != e2.Error()) {
			t.Fatalf("% X: decoder %v, kept %v, dropped %v", p, e0, e1, e2)
		}
		if d := sameFields(steps.List, keep.List); d != "" {
			t.Fatalf("% X: decodeStateUpdate's fields are not the decoder's (shown as layout): %s", p, d)
		}
		if len(drop.List) != 0 {
			t.Fatalf("% X: %d fields kept while dropping", p, len(drop.List))
		}
	}
}

// FuzzStateUpdateFast: the fast path agrees with the decoder on any
// StateUpdate payload.
func FuzzStateUpdateFast(f *testing.F) {
	for _, h := range capturedExamples {
		if p := mustHex(f, h); p[0] == 0x1C {
			f.Add(p[1:])
		}
	}
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0xC1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x21})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x40, 0x41})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x80, 1, 2, 3})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x20, 7, 1, 2})
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0x3F, 0, 0, 0, 0, 0x1F, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x41, 0xAB, 0xCD, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x50, 0xE3})
	var steps, emit Fields
	f.Fuzz(func(t *testing.T, rest []byte) {
		checkFast(t, append([]byte{0x1C}, rest...), &steps, &emit)
	})
}
