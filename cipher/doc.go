// Package cipher implements AlbyRules, the per-datagram stream cipher that
// Star Trek: Bridge Commander 1.1 applies to every game datagram on UDP 22101.
//
// The key is the ASCII string "AlbyRules!". For each datagram the state is
// reset: ten key bytes, a running sum S and a cross term P. Byte 0 (the
// sender's peer id) travels in clear; every later byte is XORed with one
// keystream byte produced by five multiply-accumulate rounds over the key
// bytes, where round r derives its word from the already advanced word of
// round r-1. After each byte the plaintext byte is XORed into all ten key
// bytes (plaintext feedback in both directions), so the keystream depends on
// the datagram's own earlier plaintext but never on other datagrams.
// Datagrams of length 0 or 1 are left untouched.
//
// The cipher is obfuscation, not security; this package exists so a passive
// dissector can read captured traffic. Because byte 0 is clear, callers
// classify GameSpy text datagrams (byte 0 == 0x5C, a backslash) before
// deciphering.
//
// It imports nothing of bcdump.
package cipher
