package cipher

import (
	"fmt"
	"testing"
)

func benchCipher(b *testing.B, fn func([]byte)) {
	for _, n := range []int{64, 512} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			buf := make([]byte, n)
			for i := range buf {
				buf[i] = byte(i * 7)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				fn(buf)
			}
		})
	}
}

func BenchmarkDecrypt(b *testing.B) { benchCipher(b, Decrypt) }
func BenchmarkEncrypt(b *testing.B) { benchCipher(b, Encrypt) }

// BenchmarkReference shows what the literal spec code costs, for comparison.
func BenchmarkReference(b *testing.B) {
	benchCipher(b, func(d []byte) { refCipher(d, false) })
}

// BenchmarkDecryptCapture deciphers every game datagram of the long battle
// capture: the real mix of datagram sizes (mostly short StateUpdates).
func BenchmarkDecryptCapture(b *testing.B) {
	var frames [][]byte
	var total int64
	for _, p := range udpPayloads(b, "openbc-session-3.pcap") {
		if len(p) > 1 && p[0] != '\\' {
			frames = append(frames, p)
			total += int64(len(p))
		}
	}
	buf := make([]byte, 0, 2048)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range frames {
			buf = append(buf[:0], p...)
			Decrypt(buf)
		}
	}
}
