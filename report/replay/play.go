package replay

import (
	"context"
	"net/netip"
	"sync"
	"time"
)

// Play drives the conversations of each run against server, one run
// after the other, the clients of a run concurrently and joining in
// recorded order (at their recorded offsets, scaled by Speed; 50 ms apart
// at max speed). Results are in the order of the conversations. A client
// that could not run at all has a nil Live and its error.
func Play(ctx context.Context, runs [][]*Conversation, server netip.AddrPort, opt Options) ([]*Live, []error) {
	var lives []*Live
	var errs []error
	for _, run := range runs {
		opt.peers = &peerMap{m: map[uint8]uint8{}} // a run's ids are its own
		l := make([]*Live, len(run))
		e := make([]error, len(run))
		var wg sync.WaitGroup
		var prev chan struct{}
		for i, c := range run {
			copt := opt
			copt.joined = make(chan struct{})
			wait := prev
			prev = copt.joined
			delay := opt.scaled(c.Start - run[0].Start)
			if opt.Speed <= 0 {
				delay = time.Duration(i) * 50 * time.Millisecond
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.NewTimer(delay)
				defer t.Stop()
				err := await(ctx, t.C)
				if err == nil && wait != nil {
					err = await(ctx, wait) // the client before has joined
				}
				if err != nil {
					e[i] = err
					close(copt.joined)
					return
				}
				l[i], e[i] = Drive(ctx, c, server, copt)
			}()
		}
		wg.Wait()
		// Compare with every id the run met, also those of clients that
		// joined after a client finished.
		all := opt.peers.snapshot()
		for _, x := range l {
			if x != nil {
				for a, b := range all {
					x.Ident.Peers[a] = b
				}
			}
		}
		lives = append(lives, l...)
		errs = append(errs, e...)
		if ctx.Err() != nil {
			break
		}
	}
	return lives, errs
}

// await waits for ch to deliver, or for ctx's end (its error).
func await[T any](ctx context.Context, ch <-chan T) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
		return nil
	}
}
