package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An xz file whose block header asks for a 4 GiB dictionary is refused by
// every reading command with one line, exit 2, before the decoder takes
// the memory.
func TestXZDictionaryRefused(t *testing.T) {
	f, err := os.ReadFile("../../dissect/capture/testdata/xz/multiblock-sha256.pcap.xz")
	if err != nil {
		t.Fatal(err)
	}
	// The first block header: size, flags 0xC0 (both sizes), two varints,
	// then LZMA2 (0x21), one byte of properties: the dictionary code.
	h := f[12 : 12+(int(f[12])+1)*4]
	i := 2
	for range 2 {
		for h[i]&0x80 != 0 {
			i++
		}
		i++
	}
	if h[1] != 0xC0 || h[i] != 0x21 || h[i+1] != 1 {
		t.Fatalf("unexpected block header % x", h)
	}
	h[i+2] = 40 // 4 GiB - 1
	binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.ChecksumIEEE(h[:len(h)-4]))
	path := filepath.Join(tempDir(t), "huge-dict.pcap.xz")
	if err := os.WriteFile(path, f, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"read", "stats", "session"} {
		code, _, errs := runCLI(t, nil, cmd, path)
		if code != exitTrouble || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "4096 MiB dictionary") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, errs)
		}
	}
}
