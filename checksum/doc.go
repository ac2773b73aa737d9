// Package checksum handles the BC 1.1 checksum handshake (protocol-facts
// section 9): the name and content hashes, the wire codec of ChecksumReq
// 0x20 and ChecksumResp 0x21, a per-flow handshake analyzer that reports
// findings with stable codes, and file manifests that name the hashes and
// check a response, or an installed game, against known files.
//
// Offsets in this package count from the opcode byte (offset 0), as in the
// dissector. The package imports nothing from dissect, report or transport.
//
// It imports transport/anomaly and nothing else of bcdump.
package checksum
