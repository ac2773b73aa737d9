package dissect

// spinPause idles the core briefly (four PAUSE instructions) in a turn's
// spin: it tells the CPU the loop waits, so it draws less of the core from
// a sibling thread (on a virtual machine, maybe the other worker's) than a
// call into the scheduler does.
func spinPause()
