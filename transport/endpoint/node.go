package endpoint

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Node runs an Endpoint on a UDP socket: a goroutine reads datagrams into
// Receive, and Poll runs after every datagram and every Tick. All access
// to the Endpoint goes through Do, which holds the Node's lock.
type Node struct {
	ep   *Endpoint
	conn *net.UDPConn
	mu   sync.Mutex
	done chan struct{}
	wg   sync.WaitGroup
	err  error
	emit Emit
	tap  Tap
}

// Tap sees every datagram a Node sends (out) or receives, enciphered, as
// on the wire; b is valid only during the call. It runs under the Node's
// lock, so it must not call the Node.
type Tap func(out bool, peer netip.AddrPort, b []byte)

// Tick is how often a Node polls its Endpoint's timers.
const Tick = 10 * time.Millisecond

// NewNode starts ep on conn. Close stops it and closes conn.
func NewNode(ep *Endpoint, conn *net.UDPConn) *Node { return NewNodeTap(ep, conn, nil) }

// NewNodeTap is NewNode with a Tap (nil: none), for callers that record
// the conversation (bcdump replay -w).
func NewNodeTap(ep *Endpoint, conn *net.UDPConn, tap Tap) *Node {
	n := &Node{ep: ep, conn: conn, done: make(chan struct{}), tap: tap}
	n.emit = func(to netip.AddrPort, b []byte) {
		if n.tap != nil {
			n.tap(true, to, b)
		}
		if _, err := conn.WriteToUDPAddrPort(b, to); err != nil && n.err == nil {
			n.err = err
		}
	}
	n.wg.Add(2)
	go n.read()
	go n.tick()
	return n
}

// Listen opens a UDP socket on addr ("127.0.0.1:0" for any port) and
// starts a Node on it.
func Listen(ep *Endpoint, addr string) (*Node, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	return NewNode(ep, c), nil
}

// Addr is the socket's local address.
func (n *Node) Addr() netip.AddrPort {
	return n.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Do runs f with the Endpoint under the Node's lock, then polls it so
// that what f queued goes out at once.
func (n *Node) Do(f func(*Endpoint)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(n.ep)
	n.ep.Poll(n.emit)
}

// Err is the first socket write error, if any.
func (n *Node) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.err
}

// Close stops the Node and closes its socket.
func (n *Node) Close() error {
	select {
	case <-n.done:
		return nil
	default:
	}
	close(n.done)
	err := n.conn.Close()
	n.wg.Wait()
	return err
}

func (n *Node) read() {
	defer n.wg.Done()
	buf := make([]byte, 65536)
	for {
		k, from, err := n.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-n.done:
				return
			default:
				continue // e.g. ICMP port unreachable surfacing on Linux
			}
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		n.mu.Lock()
		if n.tap != nil {
			n.tap(false, from, buf[:k])
		}
		n.ep.Receive(from, buf[:k])
		n.ep.Poll(n.emit)
		n.mu.Unlock()
	}
}

func (n *Node) tick() {
	defer n.wg.Done()
	t := time.NewTicker(Tick)
	defer t.Stop()
	for {
		select {
		case <-n.done:
			return
		case <-t.C:
			n.mu.Lock()
			n.ep.Poll(n.emit)
			n.mu.Unlock()
		}
	}
}
