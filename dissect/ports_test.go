package dissect

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/bcdump/bcdump/dissect/capture"
)

// Random UDP payloads (DNS, voice, other games) rarely frame as BC, and a
// pair of endpoints needs several that do before PortFinder names a port.
func TestPortFinderIgnoresNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pf := NewPortFinder(false)
	a, b := netip.MustParseAddrPort("10.0.0.1:5000"), netip.MustParseAddrPort("10.0.0.2:6000")
	pass := 0
	for i := range 20000 {
		pl := make([]byte, 3+rng.IntN(200))
		for j := range pl {
			pl[j] = byte(rng.Uint32())
		}
		if LooksLikeGame(pl, false) {
			pass++
		}
		p := capture.Packet{Kind: capture.KindOtherPort, Src: a, Dst: b, Payload: pl}
		if i%2 == 1 {
			p.Src, p.Dst = b, a
		}
		pf.Add(&p)
	}
	t.Logf("%d of 20000 random payloads frame as BC", pass)
	if pass > 200 {
		t.Errorf("%d of 20000 random payloads frame as BC", pass)
	}
	if got := pf.Ports(nil); len(got) != 0 {
		t.Errorf("ports %v found in noise (%d framed)", got, pass)
	}
}
