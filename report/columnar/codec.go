package columnar

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdWindow is the window of the zstd encoder: a data page is at most
// pageBuffer bytes before compression, so a longer window would find no
// more matches in one; only a large dictionary page compresses a little
// less. The klauspost encoder's default of 8 MiB keeps a history buffer
// of 16 MiB (measured in a heap profile of the million-flow export).
const zstdWindow = 256 << 10

// codec is the writer's zstd codec: parquet-go's own keeps a pool of
// encoders with the library's default window; this one holds one encoder
// with a small window, so what the compression takes is bounded and goes
// with the Writer. Decoding (which the writer never does) is parquet-go's.
type codec struct {
	mu  sync.Mutex
	enc *zstd.Encoder
	dec pqzstd.Codec
}

var _ compress.Codec = (*codec)(nil)

func newCodec() *codec {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(zstdWindow),
		zstd.WithLowerEncoderMem(true),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderCRC(false))
	if err != nil {
		panic(err) // the options are constants
	}
	return &codec{enc: enc}
}

func (c *codec) String() string                            { return "ZSTD" }
func (c *codec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *codec) Encode(dst, src []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc.EncodeAll(src, dst[:0]), nil
}

func (c *codec) Decode(dst, src []byte) ([]byte, error) { return c.dec.Decode(dst, src) }
