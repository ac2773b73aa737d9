package cipher

import (
	"bytes"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, v := range specVectors {
		f.Add(unhex(f, v.plain))
		f.Add(unhex(f, v.cipher))
	}
}

// FuzzRoundTrip: Decrypt never panics on any input, and Encrypt then Decrypt
// returns the input unchanged with byte 0 untouched.
func FuzzRoundTrip(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		junk := bytes.Clone(data)
		Decrypt(junk)
		if len(junk) != len(data) || (len(data) > 0 && junk[0] != data[0]) {
			t.Fatalf("Decrypt changed length or byte 0")
		}
		b := bytes.Clone(data)
		Encrypt(b)
		Decrypt(b)
		if !bytes.Equal(b, data) {
			t.Fatalf("round trip:\n got % X\nwant % X", b, data)
		}
	})
}

// FuzzMatchesReference: the table-driven code equals the literal spec
// pseudocode in both directions.
func FuzzMatchesReference(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, encrypt := range []bool{true, false} {
			got, want := bytes.Clone(data), bytes.Clone(data)
			if encrypt {
				Encrypt(got)
			} else {
				Decrypt(got)
			}
			refCipher(want, encrypt)
			if !bytes.Equal(got, want) {
				t.Fatalf("encrypt=%v:\n got % X\nwant % X", encrypt, got, want)
			}
		}
	})
}
