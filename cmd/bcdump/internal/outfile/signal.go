package outfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pending are the temporary files not yet renamed into place. While there
// are any, SIGINT, SIGTERM and SIGHUP remove them before the process ends
// as the signal would have ended it; at other times the signals are left
// alone.
var pending = &tempSet{}

type tempSet struct {
	mu    sync.Mutex
	names map[string]bool
	sigs  chan os.Signal
}

var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func (t *tempSet) add(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[name] = true
	if t.sigs == nil {
		t.sigs = make(chan os.Signal, 1)
		signal.Notify(t.sigs, stopSignals...)
		go t.watch(t.sigs)
	}
}

// lock holds off the signal handler while a file is renamed into place.
func (t *tempSet) lock() func() {
	t.mu.Lock()
	return t.mu.Unlock
}

func (t *tempSet) remove(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeLocked(name)
}

func (t *tempSet) removeLocked(name string) {
	delete(t.names, name)
	if len(t.names) == 0 && t.sigs != nil {
		signal.Stop(t.sigs)
		close(t.sigs)
		t.sigs = nil
	}
}

// watch removes the pending files when a stop signal comes, then exits
// with status 128 + the signal's number (143 for SIGTERM, 130 for SIGINT,
// 129 for SIGHUP), what a shell reports for a process the signal killed.
// It exits rather than sending the signal again: the second delivery is
// asynchronous, so an exit after it raced it and the status was 143 or 2
// at random. The lock is never released: no rename can follow.
func (t *tempSet) watch(sigs chan os.Signal) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	t.mu.Lock()
	for name := range t.names {
		os.Remove(name)
	}
	os.Exit(ExitStatus(sig))
}

// ExitStatus is the exit status of a run a stop signal ended: 128 + its
// number, 2 for a signal without one.
func ExitStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 2
}
