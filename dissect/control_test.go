package dissect

import (
	"testing"

	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
)

// TestControlShapes: every field decodeControl appends, on each branch,
// is in its type's shape with the same kind, and every shape field is
// appended by some branch.
func TestControlShapes(t *testing.T) {
	ip := []byte{192, 168, 1, 5}
	tests := []struct {
		name string
		typ  transport.Type
		peer uint8
		p    []byte
	}{
		{"peer info", transport.TypePeerInfo, 1, append(append([]byte{2}, ip...), 'a', 0, 0, 0)},
		{"peer info no end", transport.TypePeerInfo, 1, append(append([]byte{2}, ip...), 'a', 0)},
		{"connect request", transport.TypeConnect, 0xFF, append(append([]byte(nil), ip...), 0x56, 0x55)},
		{"connect request extra", transport.TypeConnect, 0xFF, append(append([]byte(nil), ip...), 0x56, 0x55, 9)},
		{"connect assign", transport.TypeConnect, 1, []byte{3}},
		{"connect assign extra", transport.TypeConnect, 1, []byte{3, 9}},
		{"disconnect", transport.TypeDisconnect, 1, append([]byte{2}, ip...)},
		{"disconnect extra", transport.TypeDisconnect, 1, append(append([]byte{2}, ip...), 9)},
	}
	seen := map[transport.Type]map[string]bool{}
	var f game.Fields
	for _, tt := range tests {
		kinds := map[string]game.Kind{}
		game.WalkFields(controlShapes[tt.typ], func(s game.Step, k game.Kind) { kinds[s.Name] = k })
		f.Reset()
		decodeControl(tt.peer, &transport.Message{Type: tt.typ, Payload: tt.p}, &f)
		if len(f.List) == 0 {
			t.Errorf("%s: no fields", tt.name)
		}
		for _, fl := range f.List {
			if k, ok := kinds[fl.Name]; !ok || k != fl.Kind {
				t.Errorf("%s: field %q %v, shape has %v (present %v)", tt.name, fl.Name, fl.Kind, k, ok)
			}
			if seen[tt.typ] == nil {
				seen[tt.typ] = map[string]bool{}
			}
			seen[tt.typ][fl.Name] = true
		}
	}
	for typ, l := range controlShapes {
		game.WalkFields(l, func(s game.Step, _ game.Kind) {
			if !seen[typ][s.Name] {
				t.Errorf("%s: shape field %q never appended", typ.Name(), s.Name)
			}
		})
	}
}
