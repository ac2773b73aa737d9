// Package jsonkeys is the table of the keys of the JSON records `bcdump
// read -F json` prints (datagram, event and summary records): each key's
// path, type, which records carry it, what it means and how to read it.
//
// It is the one place the record's shape is written down. The table is
// made of Structs, the struct types of the typed record (report/record):
// each row is a key in its object and the Go field that holds it (name,
// type, the Has flag that says it is there), and a few rows are fields no
// key shows or structs embedded; Table flattens them into key paths
// (a row that holds a struct is followed by that struct's keys under its
// path). report/record's struct types are generated from Structs
// (record_gen.go, by report/internal/recordgen: go generate
// ./report/...). The filter's field schema (report/query) is built from
// Table, the evaluator (query.Eval) resolves its paths by its names, and
// tests hold the rest to it: the JSON writer (report/render) emits
// exactly its keys on the test captures, no consumer of the records
// names a key it lacks, and the help topic json-keys is its Markdown
// form. The writers themselves are hand-written for speed.
//
// Adding a key is one row in the Struct of the object that holds it,
// then go generate ./report/... (record_gen.go and, with go test -update
// ./report/jsonkeys, the help topic); the tests then fail until the
// writers, the converter and the decoder handle it.
//
// It imports only report/filter (for the types).
package jsonkeys
