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
		l := make([]*Live, len(run))
		e := make([]error, len(run))
		var wg sync.WaitGroup
		for i, c := range run {
			delay := opt.scaled(c.Start - run[0].Start)
			if opt.Speed <= 0 {
				delay = time.Duration(i) * 50 * time.Millisecond
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-ctx.Done():
					e[i] = ctx.Err()
					return
				case <-t.C:
				}
				l[i], e[i] = Drive(ctx, c, server, opt)
			}()
		}
		wg.Wait()
		lives = append(lives, l...)
		errs = append(errs, e...)
		if ctx.Err() != nil {
			break
		}
	}
	return lives, errs
}
