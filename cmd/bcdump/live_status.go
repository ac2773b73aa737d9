package main

import "io"

// statusLine is the one line on stderr that bcdump live refreshes in place
// while it runs, and only when stderr is a terminal. When stdout is the
// same terminal, the line is taken away before each datagram is printed
// and put back after, so the two never mix.
type statusLine struct {
	w         io.Writer
	on        bool // stderr is a terminal
	sharedTTY bool // stdout is a terminal too
	shown     bool
	text      string // what is shown

}

const clearLine = "\r\x1b[K"

func newStatusLine(s *streams) *statusLine {
	l := &statusLine{w: s.err, on: isTerminal(s.err)}
	l.sharedTTY = l.on && isTerminal(s.out)
	return l
}

// draw replaces the line with text; an unchanged line is left alone.
func (l *statusLine) draw(text string) {
	if !l.on || l.shown && text == l.text {
		return
	}
	l.text = text
	io.WriteString(l.w, clearLine+text)
	l.shown = true
}

// clear takes the line away.
func (l *statusLine) clear() {
	if l.shown {
		io.WriteString(l.w, clearLine)
		l.shown = false
	}
}

// hide takes the line away before a datagram goes to the same terminal and
// reports whether it did, so the caller draws it again after.
func (l *statusLine) hide() bool {
	if !l.sharedTTY || !l.shown {
		return false
	}
	l.clear()
	return true
}
