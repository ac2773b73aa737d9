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
		pi, err := transport.ParsePeerInfo(p)
		if len(p) < 5 {
			return
		}
		f.Uint("peer_id", 0, 1, uint64(pi.PeerID))
		f.String("ip", 1, 4, []byte(pi.Addr.String()))
		f.String("name", 5, pi.NameLen, []byte(pi.Name))
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
			f.String("ip", 0, 4, []byte(cr.Addr.String()))
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
		f.String("ip", 1, 4, []byte(dc.Addr.String()))
		if len(p) > 5 {
			f.Bytes("extra", 5, p[5:])
		}
	}
}

var (
	roleRequest = []byte("request")
	roleAssign  = []byte("assign")
)
