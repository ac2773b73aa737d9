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
	frames, total := gameFrames(b)
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

// BenchmarkDecryptPair deciphers two buffers of the same size per call;
// compare with BenchmarkDecrypt (bytes/s counts both buffers).
func BenchmarkDecryptPair(b *testing.B) {
	for _, n := range []int{64, 512} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			x, y := make([]byte, n), make([]byte, n)
			for i := range x {
				x[i], y[i] = byte(i*7), byte(i*11)
			}
			b.SetBytes(int64(2 * n))
			b.ReportAllocs()
			for b.Loop() {
				DecryptPair(x, y)
			}
		})
	}
}

// BenchmarkDecryptPairCapture is BenchmarkDecryptCapture with the game
// datagrams deciphered two at a time, as the parallel pipeline does.
func BenchmarkDecryptPairCapture(b *testing.B) {
	frames, total := gameFrames(b)
	x, y := make([]byte, 0, 2048), make([]byte, 0, 2048)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		i := 0
		for ; i+1 < len(frames); i += 2 {
			x = append(x[:0], frames[i]...)
			y = append(y[:0], frames[i+1]...)
			DecryptPair(x, y)
		}
		if i < len(frames) {
			x = append(x[:0], frames[i]...)
			Decrypt(x)
		}
	}
}

// gameFrames returns the game datagrams of the long battle capture and
// their total size.
func gameFrames(b *testing.B) (frames [][]byte, total int64) {
	for _, p := range udpPayloads(b, "openbc-session-3.pcap") {
		if len(p) > 1 && p[0] != '\\' {
			frames = append(frames, p)
			total += int64(len(p))
		}
	}
	return frames, total
}
