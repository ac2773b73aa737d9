package game

// Serialized-event opcodes (section 7.3): their decoder is generated from
// eventLayout; the summary is code.

func init() {
	for _, op := range [...]uint8{0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
		0x0E, 0x0F, 0x10, 0x11, 0x12, 0x17, 0x1B} {
		register(op, nil, summarizeEvent)
	}
}

// summarizeEvent shows the event by name (or code), the objects that are
// set, and the extension's main value.
func summarizeEvent(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	if fl, ok := f.Get("event_code"); ok {
		if fl.Note != "" {
			dst = append(dst, fl.Note...)
		} else {
			dst = append(dst, "event="...)
			dst = appendHex(dst, fl.U, 4)
		}
	}
	for _, k := range [...][2]string{{"source", "src"}, {"dest", "dst"}, {"object", "obj"}} {
		if fl, ok := f.Get(k[0]); ok && fl.U != 0 {
			dst = kv(dst, start, f, k[0], k[1])
		}
	}
	dst = kv(dst, start, f, "value", "value")
	dst = kv(dst, start, f, "killer", "killer")
	return kv(dst, start, f, "set_name", "set")
}
