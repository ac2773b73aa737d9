package game

import "testing"

// The generator of decoders_gen.go is dissect/game/internal/decodergen
// (go generate runs it); its test checks the committed file is current.

// TestEveryLayoutRegistered: every opcode with a layout has a decoder and
// a summarizer, the generated ones or those written by hand.
func TestEveryLayoutRegistered(t *testing.T) {
	for c := range Layouts() {
		if op := Lookup(c); op.Decode == nil || op.Summary == nil {
			t.Errorf("opcode 0x%02X %s: decoder %v, summarizer %v", c, op.Name, op.Decode != nil, op.Summary != nil)
		}
	}
}
