package endpoint

import (
	"net/netip"
	"sync"
	"time"
)

// Clock is where an Endpoint reads the time. Tests inject a ManualClock.
type Clock interface{ Now() time.Time }

// RealClock reads the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// ManualClock is a clock that moves only when told to. It is safe for
// concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock standing at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Role says which side of the game an Endpoint plays.
type Role uint8

const (
	Client Role = iota // one peer (the host); own id 0xFF until assigned
	Host               // peer id 1; accepts clients
)

func (r Role) String() string {
	if r == Host {
		return "host"
	}
	return "client"
}

// Backoff is how the wait before the next retransmission grows.
type Backoff uint8

const (
	Fixed       Backoff = iota // RetransmitBase every time
	Linear                     // + RetransmitStep per retry, capped at RetransmitMax
	Exponential                // doubling per retry, capped at RetransmitMax
)

func (b Backoff) String() string {
	switch b {
	case Linear:
		return "linear"
	case Exponential:
		return "exponential"
	}
	return "fixed"
}

// Config sets up an Endpoint. The zero value of every field means the
// default given in its comment (the stock values of protocol-facts 5.2
// where the sources agree).
type Config struct {
	Role  Role
	Clock Clock // RealClock

	// Name is the player name the endpoint sends in its PeerInfo record
	// (client), Addr the IPv4 address and Port the port it announces in
	// Connect, PeerInfo and Disconnect payloads.
	Name string
	Addr netip.Addr // 0.0.0.0
	Port uint16

	MaxDatagram int // 512 bytes
	MaxMessages int // 254 messages per datagram

	Backoff        Backoff
	RetransmitBase time.Duration // 1 s: wait before the first retransmission
	RetransmitStep time.Duration // 1 s: Linear's growth per retry
	RetransmitMax  time.Duration // 5 s: cap of Linear and Exponential
	MaxRetries     int           // 9 resends, then the message is dropped; < 0: never

	AckSends      int           // 9: sends of one ACK entry before it is freed
	FreshAckSends int           // 3: sends after which an ACK goes last in the datagram
	AckRepeat     time.Duration // 667 ms between repeats of one ACK entry

	Keepalive time.Duration // 5 s of send silence; < 0: none
	Timeout   time.Duration // 45 s without any datagram from a peer; < 0: never

	// StockFragmentBug emulates the stock client: ACKs of fragments never
	// clear them from the retransmit queue, and they are resent for as
	// long as the peer lives (MaxRetries does not apply to them).
	StockFragmentBug bool

	// AssignID, when set (host), picks the id of a client whose Connect
	// just came from addr; an id that is 0, taken or out of range means
	// the lowest free one (bcdump replay --as-server gives each client its
	// recorded id).
	AssignID func(addr netip.AddrPort) uint8

	MaxPeers           int // 16 (host)
	MaxQueue           int // 1024 messages per peer in first-send plus retransmit
	MaxAcks            int // 512 ACK entries per peer
	MaxReassemblyBytes int // 65536 bytes of fragments per peer
	MaxReassemblies    int // 8 messages per peer

	// OnEvent, if set, is called for every event, synchronously from
	// Receive, Poll or the call that caused it. It may call the
	// Endpoint's methods (Send, Disconnect, ...). Event.Payload is only
	// valid during the call.
	OnEvent func(Event)
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	if !c.Addr.IsValid() || !c.Addr.Is4() {
		c.Addr = netip.AddrFrom4([4]byte{})
	}
	def(&c.MaxDatagram, 512)
	c.MaxDatagram = min(max(c.MaxDatagram, 32), 32768)
	def(&c.MaxMessages, 254)
	c.MaxMessages = min(max(c.MaxMessages, 1), 255)
	defDur(&c.RetransmitBase, time.Second)
	defDur(&c.RetransmitStep, time.Second)
	defDur(&c.RetransmitMax, 5*time.Second)
	def(&c.MaxRetries, 9)
	def(&c.AckSends, 9)
	def(&c.FreshAckSends, 3)
	defDur(&c.AckRepeat, 667*time.Millisecond)
	defDur(&c.Keepalive, 5*time.Second)
	defDur(&c.Timeout, 45*time.Second)
	def(&c.MaxPeers, 16)
	c.MaxPeers = min(c.MaxPeers, 250) // ids 2..251; 0xFF means unassigned
	def(&c.MaxQueue, 1024)
	def(&c.MaxAcks, 512)
	def(&c.MaxReassemblyBytes, 65536)
	def(&c.MaxReassemblies, 8)
	return c
}

// DefaultConfig is the zero Config with its defaults filled in, for
// callers that want to read or adjust them.
func DefaultConfig(role Role) Config { return Config{Role: role}.withDefaults() }
