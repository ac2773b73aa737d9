package query

import (
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Values lists every value a string field with a closed set of values can
// have (filter.Valuer): opcode names, transport type names, anomaly codes
// and severities, directions and record kinds, as the JSON writer names
// them. nil for any other field. A filter that compares such a field with
// a value not listed can never match, and is refused with the nearest one.
func (s *Schema) Values(path string) []string { return closedValues[path] }

var closedValues = func() map[string][]string {
	var opcodes, types []string
	seenOp, seenType := map[string]bool{}, map[string]bool{}
	for i := range 256 {
		if n := game.Lookup(uint8(i)).Name; !seenOp[n] {
			seenOp[n] = true
			opcodes = append(opcodes, n)
		}
		if n := transport.Type(i).Name(); !seenType[n] {
			seenType[n] = true
			types = append(types, n)
		}
	}
	var codes []string
	for _, in := range anomaly.All() {
		codes = append(codes, in.Name)
	}
	severities := []string{anomaly.Note.String(), anomaly.Warn.String(), anomaly.Error.String()}
	dirs := []string{dissect.C2S.String(), dissect.S2C.String()}
	kinds := []string{jsonkeys.KindGame, jsonkeys.KindGameSpy, jsonkeys.KindEvent, jsonkeys.KindSummary}
	m := map[string][]string{
		jsonkeys.Kind:                            kinds,
		jsonkeys.Dir:                             dirs,
		jsonkeys.Code:                            codes,
		jsonkeys.Severity:                        severities,
		jsonkeys.Anomalies + "." + jsonkeys.Code: codes,
		jsonkeys.Anomalies + "." + jsonkeys.Severity: severities,
	}
	for _, p := range []string{jsonkeys.Messages, jsonkeys.Messages + "." + jsonkeys.Reassembled, jsonkeys.Cut} {
		m[p+"."+jsonkeys.OpcodeName] = opcodes
		if p != jsonkeys.Messages+"."+jsonkeys.Reassembled {
			m[p+"."+jsonkeys.TypeName] = types
		}
	}
	return m
}()
