// Package replay drives a live server with the client half of a recorded
// game and compares the server's answers with the answers the recorded
// server gave, or plays the recorded server's half to a live client.
//
// # Model
//
// Load reads a recording (any input package dissect reads) into one
// Conversation per client: the game payloads the client delivered to the
// server (first deliveries only: retransmissions, duplicates and transport
// chatter are the transport's business and are regenerated live), the
// payloads the server delivered to that client, and the order in which the
// two interleaved. Transport state (sequence numbers, ACKs, keepalives,
// fragments, retransmission) is never replayed: a transport/endpoint peer
// generates it live, so the server sees a real client.
//
// Drive plays one Conversation as a client against a server. Each recorded
// client message waits for the reliable answers that preceded it in the
// recording (a gate with a time limit, so a silent server is a finding, not
// a hang) and, unless the speed is "max", for its recorded time divided by
// the speed. Checksum requests are answered as they come, from the
// recording (same round and directory) or from a manifest. When the server
// assigns another slot, object ids in the player's range are moved into the
// new slot's range in what the client sends, and moved back in what the
// server answers before comparing.
//
// Serve is the reverse: a host endpoint that plays the recorded server's
// payloads to a live client, each released when the client has delivered
// as many messages as the recorded client had at that point. It serves
// client reimplementers and tests Drive: a recording replayed against
// Serve of itself compares equal.
//
// Compare sets the live answers against the recorded ones per phase
// (connect, checksum, settings, mission, in game). The deterministic
// phases are compared message by message and field by field (floats and
// times within tolerances, remapped ids normalised); the in-game phase is
// compared as statistics (per-opcode counts and rates, StateUpdate cadence
// and sizes), since no two games send the same movement.
//
// Memory is bounded: a recording keeps at most MaxRecordingBytes of
// payload, a live run at most as many answers as the recording has plus a
// fixed margin, and the endpoint bounds its own queues.
package replay
