package dissect

import (
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
)

// decodeControl decodes the payload of a connection-management message
// (types 0x00, 0x03, 0x05) as far as protocol-facts 4.2 documents it.
// Offsets are relative to the payload start. Types 0x02 and 0x04 were never
// captured and stay raw.
func decodeControl(peer uint8, m *transport.Message, f *game.Fields) {
	p := m.Payload
	switch m.Type {
	case transport.TypePeerInfo:
		pi, err := transport.ParsePeerInfoRaw(p)
		if len(p) < 5 {
			return
		}
		// The texts go to f's own storage: keepalives repeat this per datagram.
		var buf [64]byte
		f.Uint("peer_id", 0, 1, uint64(pi.PeerID))
		f.StringCopy("ip", 1, 4, pi.Addr.AppendTo(buf[:0]))
		f.StringCopy("name", 5, pi.NameLen, transport.AppendUTF16LE(buf[:0], pi.RawName))
		if err != nil {
			f.Note(err.Error())
		}
	case transport.TypeConnect:
		if peer == 0xFF {
			cr, err := transport.ParseConnectRequest(p)
			if err != nil {
				return
			}
			f.String("role", 0, 0, roleRequest)
			var buf [16]byte
			f.StringCopy("ip", 0, 4, cr.Addr.AppendTo(buf[:0]))
			f.Bytes("port_bytes", 4, p[4:6])
			if len(cr.Extra) > 0 {
				f.Bytes("extra", 6, cr.Extra)
			}
			return
		}
		id, err := transport.ParseConnectAssign(p)
		if err != nil {
			return
		}
		f.String("role", 0, 0, roleAssign)
		f.Uint("assigned_peer_id", 0, 1, uint64(id))
		if len(p) > 1 {
			f.Bytes("extra", 1, p[1:])
		}
	case transport.TypeDisconnect:
		dc, err := transport.ParseDisconnect(p)
		if err != nil {
			return
		}
		f.Uint("peer_id", 0, 1, uint64(dc.PeerID))
		var buf [16]byte
		f.StringCopy("ip", 1, 4, dc.Addr.AppendTo(buf[:0]))
		if len(p) > 5 {
			f.Bytes("extra", 5, p[5:])
		}
	}
}

var (
	roleRequest = []byte("request")
	roleAssign  = []byte("assign")
)

// controlShapes lists, by message type, the fields decodeControl appends,
// for the field schema (Fields): the steps give each field's kind; the
// parsing is package transport's. TestControlShapes holds them to
// decodeControl.
var controlShapes = map[transport.Type]game.Layout{
	transport.TypePeerInfo: {
		{Op: game.OpU8, Name: "peer_id"}, {Op: game.OpStr8, Name: "ip"}, {Op: game.OpStr8, Name: "name"},
	},
	transport.TypeConnect: {
		{Op: game.OpStr8, Name: "role"}, {Op: game.OpStr8, Name: "ip"}, {Op: game.OpBytes, Name: "port_bytes", N: 2},
		{Op: game.OpU8, Name: "assigned_peer_id"}, {Op: game.OpRest, Name: "extra"},
	},
	transport.TypeDisconnect: {
		{Op: game.OpU8, Name: "peer_id"}, {Op: game.OpStr8, Name: "ip"}, {Op: game.OpRest, Name: "extra"},
	},
}

// Fields lists every field name a message's fields may hold: the game
// opcodes' (from their layouts, game.Layouts) and the control messages'.
// It is the source of the filter's field schema and of the Wireshark
// plugin's field names.
func Fields() []game.FieldInfo { return game.FieldInfos(ControlShapes()) }

// ControlShapes returns the fields of the control messages, by message
// type name, as layouts that give each field's kind (never run).
func ControlShapes() map[string]game.Layout {
	out := make(map[string]game.Layout, len(controlShapes))
	for t, l := range controlShapes {
		out[t.Name()] = l
	}
	return out
}
