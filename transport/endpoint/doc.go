// Package endpoint is a Bridge Commander 1.1 reliable-delivery peer: the
// sending and receiving half of the transport layer that package transport
// only decodes. bcdump's proxy tests, the replay command and a minimal host
// are built on it.
//
// # Model
//
// An Endpoint is one node on the wire: a host (peer id 1, many peers) or a
// client (one peer, the host; its own id is 0xFF until the host assigns
// one). It is a state machine without goroutines or sockets: the caller
// hands it received datagrams (Receive), asks it for the datagrams that are
// due (Poll, which also runs the timers), and reads its clock from
// Config.Clock, so tests drive time by hand and never sleep. Node runs an
// Endpoint on a UDP socket with the real clock.
//
// Per peer it keeps (protocol-facts 5, seed 001):
//
//   - two send counters, low (types 0x00-0x05) and high (type 0x32), and
//     two expected counters with a window of already delivered seqs, so a
//     reliable message whose seq was delivered before is ACKed again but
//     not delivered twice (duplicate suppression);
//   - three send queues, drained in this order by every send cycle: the
//     ACK-outbox, the retransmit queue (reliable messages sent and not yet
//     ACKed, resent when their timer is due), the first-send queue (new
//     messages). ACK entries still young (sent fewer than FreshAckSends
//     times) lead the datagram; older ones are repeated every AckRepeat
//     until AckSends sends, after everything else;
//   - fragment reassembly: a type 0x32 message larger than a datagram holds
//     is cut into fragments that all share one high seq; fragment 0 carries
//     the count; each fragment is ACKed on its own with a 5-byte ACK and
//     retransmitted on its own until that ACK arrives.
//
// An ACK removes the one retransmit entry with its channel, seq and
// fragment status and index. Config.StockFragmentBug makes the endpoint
// behave like the stock client: it never clears a fragment on its ACK, so
// fragments are resent for as long as the peer lives (seed 001's bug, on
// demand). Retransmission waits RetransmitBase after the first send, then
// grows by Backoff: Fixed (the same wait), Linear (+RetransmitStep per
// retry, capped at RetransmitMax) or Exponential (doubling, capped); after
// MaxRetries resends the message is dropped and an EventGaveUp reported.
//
// Connect and disconnect follow the captured stock exchange: the client
// sends Connect (type 0x03, low seq 0) from id 0xFF with its IPv4 address
// and port; the host answers with a Connect carrying the assigned id (the
// answer, not an ACK, settles the request), the client then sends its
// PeerInfo record (type 0x00: id, IPv4, UTF-16LE name) and the host sends
// it back. After Keepalive of send silence towards a peer the endpoint
// re-sends its last PeerInfo message unchanged (same low seq), which is
// what a passive tracker recognises as a keepalive. A client leaves with
// Disconnect (type 0x05: id and IPv4); a peer silent for Timeout is
// dropped with EventTimeout.
//
// Datagrams are enciphered with package cipher on the way out and
// deciphered on the way in. A received datagram the transport codec finds
// any anomaly in is dropped whole (as the stock engine drops a datagram it
// cannot frame) and counted; GameSpy text (first byte '\') is handed to
// the caller as EventGameSpy. Every queue is bounded (MaxQueue messages per
// peer, MaxAcks ACK entries, MaxReassemblyBytes of fragments, MaxPeers
// peers), so hostile input cannot grow memory without limit.
//
// It imports transport and cipher and nothing else of bcdump.
package endpoint
