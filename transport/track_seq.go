package transport

// Seq is a reliable sequence number. Both channels count in u16 and wrap from
// 65535 to 0, so comparisons must go through Diff: of two numbers, the one
// less than half the space (32768) ahead is the newer one.
type Seq uint16

// Diff returns the signed distance s - o in [-32768, 32767]: positive when s
// is newer than o, taking the wrap into account (Seq(0).Diff(65535) == 1).
func (s Seq) Diff(o Seq) int { return int(int16(s - o)) }

// Add returns s advanced by n, wrapping.
func (s Seq) Add(n int) Seq { return s + Seq(uint16(n)) }

// unwrap extends s to a 64-bit count relative to ref, the unwrapped value of
// an earlier number: the result is the value within half the space of ref.
func (s Seq) unwrap(ref int64) int64 { return ref + int64(s.Diff(Seq(uint16(ref)))) }
