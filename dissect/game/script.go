package game

// Script messages (section 7.7): written by the Python multiplayer scripts.
// Player ids here are network ids (transport peer ids), not object ids.

func init() {
	register(0x2C, decodeChat, summarizeChat)
	register(0x2D, decodeChat, summarizeChat)
	register(0x35, decodeMissionInit, summarizeMissionInit)
	register(0x36, decodeScoreChange, summarizeScoreChange)
	register(0x37, decodeScore, summarizeScore)
	register(0x38, decodeEndGame, summarizeEndGame)
	register(0x3F, decodeScoreInit, summarizeScore)
	register(0x40, decodeTeamScore, summarizeTeamScore)
	register(0x41, decodeTeamMessage, summarizeTeamMessage)
}

// decodeChat reads 0x2C Chat and 0x2D TeamChat (D).
func decodeChat(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.i32("sender")
	d.str16("text")
	return d.done()
}

func summarizeChat(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "sender", "peer")
	return kv(dst, start, f, "text", "")
}

// decodeMissionInit reads 0x35 (V: `35 08 01 FF FF`). The end time is
// present only when there is a time limit.
func decodeMissionInit(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.u8("player_limit")
	d.u8("system")
	tl := d.u8("time_limit")
	d.note(noneIfFF(tl))
	if d.ok() && tl != 0xFF {
		d.i32("end_time")
	}
	fl := d.u8("frag_limit")
	d.note(noneIfFF(fl))
	return d.done()
}

func summarizeMissionInit(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "player_limit", "players")
	dst = kv(dst, start, f, "system", "system")
	dst = kv(dst, start, f, "time_limit", "time")
	return kv(dst, start, f, "frag_limit", "frags")
}

// decodeScoreChange reads 0x36 (V). The killer's totals are present only
// for a killer (id != 0); the list of score updates has a u8 count.
func decodeScoreChange(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	if d.i32("killer") != 0 {
		d.i32("killer_kills")
		d.i32("killer_score")
	}
	d.i32("victim")
	d.i32("victim_deaths")
	n := d.u8("score_count")
	d.array("scores")
	for i := 0; i < int(n) && d.ok(); i++ {
		d.object("")
		d.i32("player")
		d.i32("score")
		d.end()
	}
	d.end()
	return d.done()
}

func summarizeScoreChange(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "killer", "killer")
	dst = kv(dst, start, f, "victim", "victim")
	return kv(dst, start, f, "victim_deaths", "deaths")
}

// decodeScore reads 0x37 (D): one player's totals.
func decodeScore(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.i32("player")
	d.i32("kills")
	d.i32("deaths")
	d.i32("score")
	return d.done()
}

// summarizeScore serves 0x37 and 0x3F (which adds the team).
func summarizeScore(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "player", "player")
	dst = kv(dst, start, f, "kills", "kills")
	dst = kv(dst, start, f, "deaths", "deaths")
	dst = kv(dst, start, f, "score", "score")
	return kv(dst, start, f, "team", "team")
}

// decodeEndGame reads 0x38 (I): the reason.
func decodeEndGame(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	v := d.i32("reason")
	if v >= 0 {
		d.note(lookup(endGameReasons[:], uint64(v)))
	}
	return d.done()
}

func summarizeEndGame(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "reason", "reason")
}

// decodeScoreInit reads 0x3F (I): totals plus team (0xFF none).
func decodeScoreInit(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.i32("player")
	d.i32("kills")
	d.i32("deaths")
	d.i32("score")
	t := d.u8("team")
	d.note(noneIfFF(t))
	return d.done()
}

// decodeTeamScore reads 0x40 (I).
func decodeTeamScore(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.u8("team")
	d.i32("kills")
	d.i32("score")
	return d.done()
}

func summarizeTeamScore(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "team", "team")
	dst = kv(dst, start, f, "kills", "kills")
	return kv(dst, start, f, "score", "score")
}

// decodeTeamMessage reads 0x41 (I): a player's team choice.
func decodeTeamMessage(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.i32("player")
	t := d.u8("team")
	d.note(noneIfFF(t))
	return d.done()
}

func summarizeTeamMessage(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "player", "player")
	return kv(dst, start, f, "team", "team")
}
