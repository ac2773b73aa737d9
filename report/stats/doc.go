// Package stats is the capture summary of `bcdump stats` (and of `bcdump
// live` at its end): totals, per-flow counts each way, RTT percentiles,
// opcode counts and anomalies, written as text tables, as one line per
// flow (WriteBrief) or as a JSON document. It owns the plain ASCII table
// style its tables share with report/profile (NewTextTable).
//
// It imports report/render (Palette, the JSON time layout), dissect,
// dissect/game and transport.
package stats
