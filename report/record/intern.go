package record

import (
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// knownNames are the field names the decoders append and their
// "<key>_name" labels, and the anomaly codes: strings a record points at
// instead of allocating its own.
var knownNames, knownNotes = func() (names, notes map[string]string) {
	names, notes = map[string]string{}, map[string]string{}
	for _, f := range dissect.Fields() {
		names[f.Name] = f.Name
		notes[f.Name] = f.Name + "_name"
		names[f.Name+"_name"] = f.Name + "_name"
	}
	for _, info := range anomaly.All() {
		s := info.Code.String()
		names[s] = s
	}
	for _, s := range []string{"matched", "repeat", "mismatch", "cut", "unknown", "note", "warn", "error"} {
		names[s] = s
	}
	return names, notes
}()

// maxInterned bounds the names one interner adds to the known ones: a
// hostile trace cannot grow it without end.
const maxInterned = 4096

// interner returns one string per distinct name, so records do not
// allocate a string per key they read.
type interner struct {
	more map[string]string
}

func (in *interner) get(b []byte) string {
	if s, ok := knownNames[string(b)]; ok {
		return s
	}
	if s, ok := in.more[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.more == nil {
		in.more = map[string]string{}
	}
	if len(in.more) < maxInterned {
		in.more[s] = s
	}
	return s
}

// note returns name+"_name".
func (in *interner) note(name string) string {
	if s, ok := knownNotes[name]; ok {
		return s
	}
	var buf [64]byte
	return in.get(append(append(buf[:0], name...), "_name"...))
}
