package render

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
		b2, ok := appendDateClock(b, d.Time.Unix(), ' ')
		if !ok {
			return d.Time.UTC().AppendFormat(b, "2006-01-02 15:04:05.000000")
		}
		return appendMicros(b2, int64(d.Time.Nanosecond()/1000))
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
	// Two digits at a time by constants: a loop over a divisor made six
	// hardware divisions a line.
	var d [7]byte
	d[0] = '.'
	writeDigits(d[1:], uint32(us%1e6))
	return append(b, d[:]...)
}

// appendDateClock appends the UTC date and time of day of sec seconds
// since 1970 as "2006-01-02T15:04:05" (sep between them) for the years
// 1970 to 9999; ok is false for other times, left to package time. It is
// time.Time.AppendFormat without its layout parsing, for every record.
func appendDateClock(b []byte, sec int64, sep byte) (_ []byte, ok bool) {
	const end = 253402300800 // 10000-01-01T00:00:00Z
	if sec < 0 || sec >= end {
		return b, false
	}
	days, rem := int(sec/86400), int(sec%86400)
	// Civil date from days since 1970-01-01 (H. Hinnant's
	// civil_from_days), in 400-year eras starting on 0000-03-01.
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year := yoe + era*400
	if month <= 2 {
		year++
	}
	h, m, s := rem/3600, rem/60%60, rem%60
	return append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-',
		byte('0'+day/10), byte('0'+day%10), sep,
		byte('0'+h/10), byte('0'+h%10), ':',
		byte('0'+m/10), byte('0'+m%10), ':',
		byte('0'+s/10), byte('0'+s%10)), true
}
