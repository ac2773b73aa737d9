// Package render writes decoded datagrams as `bcdump read` prints them:
// for people (Table, its compact form, Hex) and for machines (JSON Lines,
// JSON), and the anomaly registry as `bcdump anomalies` prints it. It
// owns the JSON encoding of a record (the values' texts, times, floats)
// and the Palette of coloured output; report/query reads the JSON
// writer's value texts through AppendValueJSON and its kin so that a
// filter sees what the writer would print. Reporters that can render
// out of capture order implement RecordRenderer (the parallel Session).
//
// The keys the JSON writer emits are those of report/jsonkeys (tested,
// not imported: the writer spells its keys out for speed).
//
// It imports dissect, dissect/game, transport and transport/anomaly, and
// of report only the leaves report/quote and report/fit.
package render
