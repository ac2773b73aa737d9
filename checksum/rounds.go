package checksum

// RoundSpec is one round of the stock handshake (protocol-facts 9.1): what
// the host asks for and in which order.
type RoundSpec struct {
	Round     uint8
	Dir       string // as sent: rounds 0 and 1 keep a trailing '/'
	Filter    string // a file name or a '*'/'?' wildcard, matched without case
	Recursive bool
}

// Rounds lists the stock rounds in the order a stock host sends them.
// Round 0xFF asks for "Scripts" with a capital S, as captured.
var Rounds = [...]RoundSpec{
	{0x00, "scripts/", "App.pyc", false},
	{0x01, "scripts/", "Autoexec.pyc", false},
	{0x02, "scripts/ships", "*.pyc", true},
	{0x03, "scripts/mainmenu", "*.pyc", false},
	{0xFF, "Scripts/Multiplayer", "*.pyc", true},
}

// roundIndex returns the position of round r in Rounds, or -1.
func roundIndex(r uint8) int {
	for i := range Rounds {
		if Rounds[i].Round == r {
			return i
		}
	}
	return -1
}
