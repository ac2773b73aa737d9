package dissecttest

import (
	"time"
)

// The verdict scenarios: one join per rule of a player's verdict (why it
// did or did not get into the game), for the story's tests. Each starts
// with the stock connect prefix of Cady2 (peer 2): the connect request,
// the host's reply with checksum request round 0 (directory scripts/), the
// client's ACK and PeerInfo.

// Verdict names the scenarios of VerdictScenario.
var Verdicts = []string{
	"unacked-fragment", "host-never-acks", "host-acks-without-frag-flag",
	"server-full", "booted", "client-disconnected",
	"capture-ended", "checksum-unanswered", "timed-out", "checksum-not-followed-up",
}

// VerdictScenario returns the scenario of a rule, or false for a name
// Verdicts does not list.
//
//   - unacked-fragment: seed 001's stock bug (Seed001FragmentAcks) with
//     NewPlayerInGame and MissionInit left out: the client resends its
//     three-fragment round 2 answer after the host ACKed every fragment,
//     never enters, and disconnects after the last resend.
//   - host-never-acks: the same join where no ACK for any fragment reaches
//     the capture (Seed001AcksLost): a host that never ACKs them.
//   - host-acks-without-frag-flag: the same join where the host ACKs every
//     fragment without the fragment flag (Seed001AcksWithoutFragFlag).
//   - checksum-not-followed-up: the client answers round 0, the host ACKs
//     the answer and then sends only PeerInfo keepalives for 10 s until
//     the capture ends.
//   - server-full: the host answers with BootPlayer reason 2.
//   - booted: the host answers round 0 with BootPlayer reason 3 (banned).
//   - client-disconnected: the client answers round 0 and disconnects.
//   - capture-ended: the client answers round 0; the capture stops.
//   - checksum-unanswered: the client never answers round 0.
//   - timed-out: the client answers round 0, the host ACKs it and then
//     sends only PeerInfo keepalives for 60 s (peer-timeout).
func VerdictScenario(name string) (*Session, bool) {
	ms := time.Millisecond
	round0 := "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00"
	switch name {
	case "unacked-fragment", "host-never-acks", "host-acks-without-frag-flag":
		v := map[string]Seed001Acks{"unacked-fragment": Seed001FragmentAcks, "host-never-acks": Seed001AcksLost,
			"host-acks-without-frag-flag": Seed001AcksWithoutFragFlag}[name]
		s := Seed001(v)
		enter := Seed001Start.Add(196*ms + 1115*ms)
		kept := s.Datagrams[:0]
		for _, d := range s.Datagrams {
			if dt := d.Time.Sub(enter); dt >= 0 && dt <= 30*ms {
				continue // NewPlayerInGame, MissionInit and its ACK
			}
			kept = append(kept, d)
		}
		s.Datagrams = kept
		return s, true
	case "server-full":
		s := connectPrefix()
		s.AddHex(30*ms, false, "01 02 01 00 00 00 32 07 80 01 00 04 02")
		return s, true
	case "booted":
		s := connectPrefix()
		s.AddHex(40*ms, true, round0)
		s.AddHex(30*ms, false, "01 02 01 00 00 00 32 07 80 01 00 04 03")
		s.AddHex(20*ms, true, "02 01 01 01 00 00")
		return s, true
	case "client-disconnected":
		s := connectPrefix()
		s.AddHex(40*ms, true, round0)
		s.AddHex(30*ms, false, "01 01 01 00 00 00")
		s.AddHex(500*ms, true, "02 01 05 0A C0 02 00 02 0A 0A 0A EF")
		return s, true
	case "capture-ended":
		s := connectPrefix()
		s.AddHex(40*ms, true, round0)
		s.AddHex(30*ms, false, "01 01 01 00 00 00")
		return s, true
	case "timed-out":
		s := connectPrefix()
		s.AddHex(40*ms, true, round0)
		s.AddHex(30*ms, false, "01 02 01 00 00 00 01 01 00 02 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
		keepalive := mustHex("01 01 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
		for range 12 {
			s.Add(5*time.Second, false, keepalive)
		}
		return s, true
	case "checksum-not-followed-up":
		s := connectPrefix()
		s.AddHex(40*ms, true, round0)
		s.AddHex(30*ms, false, "01 01 01 00 00 00")
		keepalive := mustHex("01 01 00 16 C0 01 00 02 0A 0A 0A EF 43 00 61 00 64 00 79 00 32 00 00 00")
		for range 2 {
			s.Add(5*time.Second, false, keepalive)
		}
		return s, true
	case "checksum-unanswered":
		s := connectPrefix()
		s.AddHex(1000*ms, true, "02 01 01 00 00 00")
		return s, true
	}
	return nil, false
}
