package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/bcdump/bcdump/dissect"
)

// TimeFormat is how the table and hex formats show a datagram's time
// (read -t), after tcpdump's -t options and tshark's -t.
type TimeFormat int

const (
	// TimeRel is seconds since the capture's first frame (the default;
	// tshark -t r).
	TimeRel TimeFormat = iota
	// TimeAbs is the date and time of day in UTC (tcpdump -tttt, tshark
	// -t ud).
	TimeAbs
	// TimeDelta is seconds since the datagram shown before (tcpdump
	// -ttt, tshark -t dd).
	TimeDelta
	// TimeEpoch is seconds since 1970-01-01 UTC (tcpdump -tt, tshark -t e).
	TimeEpoch
)

// TimeFormatNames are the names ParseTimeFormat accepts, in TimeFormat
// order.
var TimeFormatNames = []string{"rel", "abs", "delta", "epoch"}

func (f TimeFormat) String() string {
	if int(f) < len(TimeFormatNames) {
		return TimeFormatNames[f]
	}
	return "time-format(" + strconv.Itoa(int(f)) + ")"
}

// ParseTimeFormat reads a -t value.
func ParseTimeFormat(s string) (TimeFormat, error) {
	for i, n := range TimeFormatNames {
		if s == n {
			return TimeFormat(i), nil
		}
	}
	return 0, fmt.Errorf("-t must be rel, abs, delta or epoch, not %q", s)
}

// TimeFormatter is a reporter whose time column can be switched.
type TimeFormatter interface {
	SetTimeFormat(TimeFormat)
}

// clock formats datagram times for the table and hex formats.
type clock struct {
	format TimeFormat
	prev   time.Time
	have   bool
}

func (c *clock) append(b []byte, d *dissect.Datagram) []byte {
	switch c.format {
	case TimeAbs:
		return d.Time.UTC().AppendFormat(b, "2006-01-02 15:04:05.000000")
	case TimeEpoch:
		us := d.Time.UnixMicro()
		b = strconv.AppendInt(b, us/1e6, 10) // captures before 1970 do not occur
		return appendMicros(b, us%1e6)
	case TimeDelta:
		var delta time.Duration
		if c.have {
			delta = d.Time.Sub(c.prev)
		}
		c.prev, c.have = d.Time, true
		return appendSeconds(b, delta)
	}
	return appendSeconds(b, d.RelTime)
}

// appendMicros appends '.' and the six digits of |us|.
func appendMicros(b []byte, us int64) []byte {
	if us < 0 {
		us = -us
	}
	b = append(b, '.')
	for div := int64(100000); div > 0; div /= 10 {
		b = append(b, byte('0'+us/div%10))
	}
	return b
}
