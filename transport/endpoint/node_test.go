package endpoint

import (
	"bytes"
	"testing"
	"time"

	"github.com/bcdump/bcdump/transport/transporttest"
)

// TestNodeLoopback runs a host and a client on real loopback sockets.
func TestNodeLoopback(t *testing.T) {
	transporttest.NeedUDP(t)
	got := make(chan []byte, 4)
	joined := make(chan struct{}, 1)
	host := New(Config{Role: Host, OnEvent: func(ev Event) {
		if ev.Kind == EventMessage {
			got <- append([]byte(nil), ev.Payload...)
		}
	}})
	hn, err := Listen(host, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hn.Close()
	cl := New(Config{Role: Client, Name: "Sulu", OnEvent: func(ev Event) {
		if ev.Kind == EventConnected {
			joined <- struct{}{}
		}
	}})
	cn, err := Listen(cl, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	cn.Do(func(e *Endpoint) { _, _ = e.Connect(hn.Addr()) })
	select {
	case <-joined:
	case <-time.After(10 * time.Second):
		t.Fatal("no join over loopback")
	}
	big := bytes.Repeat([]byte{0x21, 1, 2, 3}, 400)
	cn.Do(func(e *Endpoint) { _ = e.Send(e.Peers()[0], big, true) })
	select {
	case p := <-got:
		if !bytes.Equal(p, big) {
			t.Errorf("host got %d bytes", len(p))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no message over loopback")
	}
	if err := cn.Err(); err != nil {
		t.Error(err)
	}
}
