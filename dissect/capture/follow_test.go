package capture

import (
	"io"
	"testing"
	"time"
)

// chanSource hands out the packets sent on it; closing it ends the source.
type chanSource chan Packet

func (c chanSource) Next(p *Packet) error {
	q, ok := <-c
	if !ok {
		return io.EOF
	}
	*p = q
	return nil
}

// A followed pipe ticks while it is quiet, hands packets out as they come,
// keeps capture time moving from the last packet, and ends with the source.
func TestFollow(t *testing.T) {
	src := make(chanSource)
	f := NewFollow(src, 20*time.Millisecond)
	defer f.Close()
	var p Packet
	if err := f.Next(&p); err != ErrNoPacket {
		t.Fatalf("quiet source: %v, want ErrNoPacket", err)
	}
	if !f.Now().IsZero() {
		t.Errorf("clock %v before the first packet, want zero", f.Now())
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) // the writer's clock, far from ours
	go func() { src <- Packet{Frame: 1, Time: t0} }()
	var err error
	for err = f.Next(&p); err == ErrNoPacket; err = f.Next(&p) {
	}
	if err != nil || p.Frame != 1 {
		t.Fatalf("frame %d, %v", p.Frame, err)
	}
	time.Sleep(50 * time.Millisecond)
	if err := f.Next(&p); err != ErrNoPacket {
		t.Fatalf("quiet again: %v", err)
	}
	if d := f.Now().Sub(t0); d < 50*time.Millisecond || d > 10*time.Second {
		t.Errorf("clock %v after the packet, want the packet's time plus the wait", d)
	}
	close(src)
	for err = f.Next(&p); err == ErrNoPacket; err = f.Next(&p) {
	}
	if err != io.EOF {
		t.Errorf("end: %v", err)
	}
	if err := f.Next(&p); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}
