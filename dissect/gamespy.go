package dissect

// GameSpy QR1 text is `\key\value\key\value...`; queries are a lone keyword
// (`\status\`), which parses as one key with an empty value.

// KV is one GameSpy key/value pair; both alias the datagram bytes.
type KV struct {
	Key, Value []byte
}

// IsGameSpy reports whether a UDP payload on the game port is GameSpy
// plaintext: byte 0 is never enciphered and `\` starts every GameSpy text.
func IsGameSpy(b []byte) bool { return len(b) > 0 && b[0] == '\\' }

// parseGameSpy splits text into pairs, appending to dst. A trailing key
// without a value (a query) gets an empty value. The `\final\\queryid\N`
// tail parses naturally: key "final" with an empty value, then "queryid".
func parseGameSpy(dst []KV, b []byte) []KV {
	if len(b) > 0 && b[0] == '\\' {
		b = b[1:]
	}
	for len(b) > 0 {
		key, rest := cutBackslash(b)
		val, rest2 := cutBackslash(rest)
		dst = append(dst, KV{Key: key, Value: val})
		b = rest2
	}
	return dst
}

func cutBackslash(b []byte) (field, rest []byte) {
	for i, c := range b {
		if c == '\\' {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}
