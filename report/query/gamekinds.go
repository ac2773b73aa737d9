package query

import "strings"

// GameFieldKinds returns, by field name, the kinds the decoders append under
// it ("uint", "int", "float", "bool", "string", "bytes", "hash", "hex",
// "vec", "object", "array"), for tools that need a storage type per field
// (the Wireshark plugin generator).
func GameFieldKinds() map[string][]string {
	m := make(map[string][]string, len(gameFields))
	for _, g := range gameFields {
		m[g.name] = strings.Split(g.kinds, ",")
	}
	return m
}
