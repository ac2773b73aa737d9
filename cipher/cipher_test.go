package cipher

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specVectors are the four vectors of spec/cipher.md section 6 (produced by
// the interoperable reference and checked independently).
var specVectors = []struct {
	name          string
	plain, cipher string
}{
	{"all-zero keystream",
		"01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
		"01 D6 FE 17 F1 86 49 BC 51 A5 0F 17 6C 96 16 5B 52"},
	{"client connect request",
		"FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00",
		"FF D7 33 61 38 B3 5B 46 54 35 D1 4F C5 E2 55 71 66"},
	{"host ACK",
		"01 01 01 02 00 02",
		"01 D7 31 78 DB 58"},
	{"connect reply + checksum request round 0",
		"01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20",
		"01 D4 03 E1 65 94 E4 39 3C 21 9F 64 1F 82 C6 08 4F 4F ED 41 43 31 D3 7D 01 28 E4 7B 8F B3 03 B3 B8 CC 21"},
	{"empty", "", ""},
	{"clear byte only", "5C", "5C"},
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// checkPair runs every implementation in both directions on one vector.
func checkPair(t *testing.T, plain, ciphertext []byte) {
	t.Helper()
	impls := []struct {
		name     string
		enc, dec func([]byte)
	}{
		{"fast", Encrypt, Decrypt},
		{"reference", func(b []byte) { refCipher(b, true) }, func(b []byte) { refCipher(b, false) }},
	}
	for _, im := range impls {
		got := bytes.Clone(plain)
		im.enc(got)
		if !bytes.Equal(got, ciphertext) {
			t.Errorf("%s Encrypt:\n got % X\nwant % X", im.name, got, ciphertext)
		}
		got = bytes.Clone(ciphertext)
		im.dec(got)
		if !bytes.Equal(got, plain) {
			t.Errorf("%s Decrypt:\n got % X\nwant % X", im.name, got, plain)
		}
	}
}

func TestSpecVectors(t *testing.T) {
	for _, v := range specVectors {
		t.Run(v.name, func(t *testing.T) {
			checkPair(t, unhex(t, v.plain), unhex(t, v.cipher))
		})
	}
}

// TestFirstKeystreamByte pins the reference against the per-round debugging
// table of spec/cipher.md section 6, so an error in the reference itself
// (which the fast code is compared with) cannot go unnoticed.
func TestFirstKeystreamByte(t *testing.T) {
	want := [5][7]uint32{
		// base, W in, t1, t2, S after, W out, acc after
		{0x416C, 0x0000416C, 0x00000000, 0x00586BF8, 0x00586BF8, 0x13FC735D, 0x13A418A5},
		{0x6279, 0x13FC1124, 0x0334388D, 0x02AF2AA8, 0x063BCF2D, 0xF0688475, 0xE5F753FD},
		{0x5275, 0xF068D600, 0x838236BB, 0xEDB13C00, 0x73E29D63, 0xB6E84E01, 0x20FD809F},
		{0x6C65, 0xB6E82264, 0x09DFAA1E, 0x35BE7B28, 0x2D4F6146, 0x988996B5, 0x953B776C},
		{0x7321, 0x9889E594, 0x9113B052, 0x2A604A08, 0xF1327582, 0x987F9FA5, 0xFC769D4B},
	}
	names := [7]string{"base", "W in", "t1", "t2", "S after", "W out", "acc after"}
	got := refRound0()
	for r := range want {
		for c := range want[r] {
			if got[r][c] != want[r][c] {
				t.Errorf("round %d %s = %08X, want %08X", r, names[c], got[r][c], want[r][c])
			}
		}
	}
	acc := got[4][6]
	if k := byte(acc ^ acc>>8); k != 0xD6 {
		t.Errorf("reference first keystream byte = %02X, want D6", k)
	}
	b := []byte{0, 0}
	Encrypt(b)
	if b[1] != 0xD6 {
		t.Errorf("fast first keystream byte = %02X, want D6", b[1])
	}
}

type cipherRow struct {
	Plain  string `json:"plain_hex"`
	Cipher string `json:"cipher_hex"`
	Note   string `json:"note"`
}

func loadCipherRows(t testing.TB) []cipherRow {
	path := filepath.Join(testdata, "vectors", "cipher.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []cipherRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r cipherRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}

// TestVectors checks every row of testdata/vectors/cipher.jsonl (OpenBC
// output, including the stock checksum-trace packets) in both directions.
func TestVectors(t *testing.T) {
	for i, r := range loadCipherRows(t) {
		t.Run(r.Note, func(t *testing.T) {
			plain, ciphertext := unhex(t, r.Plain), unhex(t, r.Cipher)
			if len(plain) != len(ciphertext) {
				t.Fatalf("row %d: length mismatch %d vs %d", i, len(plain), len(ciphertext))
			}
			checkPair(t, plain, ciphertext)
		})
	}
}

// TestRoundTrip checks Decrypt(Encrypt(p)) == p and agreement with the
// reference over random datagrams of every small length and some large ones.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 63, 64, 65, 255, 256, 512, 1400, 4096}
	for _, n := range lengths {
		for range 20 {
			plain := make([]byte, n)
			for i := range plain {
				plain[i] = byte(rng.Uint32())
			}
			enc := bytes.Clone(plain)
			Encrypt(enc)
			ref := bytes.Clone(plain)
			refCipher(ref, true)
			if !bytes.Equal(enc, ref) {
				t.Fatalf("len %d: Encrypt differs from reference\nplain % X", n, plain)
			}
			if n > 0 && enc[0] != plain[0] {
				t.Fatalf("len %d: byte 0 changed", n)
			}
			dec := bytes.Clone(enc)
			Decrypt(dec)
			if !bytes.Equal(dec, plain) {
				t.Fatalf("len %d: round trip failed\nplain % X\n  got % X", n, plain, dec)
			}
		}
	}
}

// TestFreshStatePerDatagram guards against state leaking between calls.
func TestFreshStatePerDatagram(t *testing.T) {
	want := unhex(t, specVectors[2].cipher)
	for range 3 {
		b := unhex(t, specVectors[2].plain)
		Encrypt(b)
		if !bytes.Equal(b, want) {
			t.Fatalf("repeat Encrypt gave % X, want % X", b, want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	buf := make([]byte, 512)
	for name, fn := range map[string]func([]byte){"Encrypt": Encrypt, "Decrypt": Decrypt} {
		if n := testing.AllocsPerRun(100, func() { fn(buf) }); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
}

// TestPairVectors deciphers every row of testdata/vectors/cipher.jsonl and
// the spec vectors with DecryptPair, each row paired with every row
// (shorter, longer and equal lengths, either side), and also the
// ciphertext paired with itself in a copy.
func TestPairVectors(t *testing.T) {
	type row struct{ plain, cipher []byte }
	var rows []row
	for _, r := range loadCipherRows(t) {
		rows = append(rows, row{unhex(t, r.Plain), unhex(t, r.Cipher)})
	}
	for _, v := range specVectors {
		rows = append(rows, row{unhex(t, v.plain), unhex(t, v.cipher)})
	}
	for i, ra := range rows {
		for j, rb := range rows {
			a, b := bytes.Clone(ra.cipher), bytes.Clone(rb.cipher)
			DecryptPair(a, b)
			if !bytes.Equal(a, ra.plain) {
				t.Errorf("rows %d,%d: a\n got % X\nwant % X", i, j, a, ra.plain)
			}
			if !bytes.Equal(b, rb.plain) {
				t.Errorf("rows %d,%d: b\n got % X\nwant % X", i, j, b, rb.plain)
			}
		}
	}
}

func TestPairNoAllocs(t *testing.T) {
	a, b := make([]byte, 512), make([]byte, 100)
	if n := testing.AllocsPerRun(100, func() { DecryptPair(a, b) }); n != 0 {
		t.Errorf("DecryptPair allocates %v times per call", n)
	}
}
