package dissect

import (
	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
)

// resolveNames sets Field.Note of the name hashes in dg's checksum
// responses (ref_hash, dir_hash, file and subdirectory name_hash) to the
// names the manifest (and the stock names checksum.NewResolver adds) knows.
// Content hashes stay bare: a mismatch is an anomaly, not a name.
// ChecksumReq needs nothing: it carries its directory and filter as text.
func (d *Dissector) resolveNames(dg *Datagram) {
	for i := range dg.Msgs {
		m := &dg.Msgs[i]
		if m.Opcode != nil && m.Opcode.Code == checksum.OpResponse {
			d.nameHashes(m.Fields.List)
		}
		if r := m.Reassembled; r != nil && r.Opcode != nil && r.Opcode.Code == checksum.OpResponse {
			d.nameHashes(r.Fields.List)
		}
	}
}

func (d *Dissector) nameHashes(fs []game.Field) {
	for i := range fs {
		f := &fs[i]
		if f.Kind != game.KindHash || f.Note != "" {
			continue
		}
		switch f.Name {
		case "ref_hash", "dir_hash", "name_hash":
		default:
			continue
		}
		if d.hs.resolver == nil {
			d.hs.resolver = d.manifest.Resolver()
		}
		if n, ok := d.hs.resolver.Name(uint32(f.U)); ok {
			f.Note = n
		}
	}
}
