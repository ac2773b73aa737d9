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

// FuzzPairMatchesSingle: DecryptPair gives each buffer exactly what Decrypt
// gives it alone, whatever the two lengths. The fuzzer's one input is cut
// in two at a fuzzed point.
func FuzzPairMatchesSingle(f *testing.F) {
	for _, v := range specVectors {
		c := unhex(f, v.cipher)
		for _, cut := range []uint16{0, 1, 2, uint16(len(c) / 2), uint16(len(c))} {
			f.Add(append(bytes.Clone(c), c...), cut+uint16(len(c)))
			f.Add(c, cut)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		k := int(cut) % (len(data) + 1)
		a, b := bytes.Clone(data[:k]), bytes.Clone(data[k:])
		wa, wb := bytes.Clone(a), bytes.Clone(b)
		Decrypt(wa)
		Decrypt(wb)
		DecryptPair(a, b)
		if !bytes.Equal(a, wa) || !bytes.Equal(b, wb) {
			t.Fatalf("cut %d of % X:\n got % X | % X\nwant % X | % X", k, data, a, b, wa, wb)
		}
	})
}
