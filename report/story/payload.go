package story

import (
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
)

// payload follows one delivered game payload (first send, or reassembled)
// whose opcode is in storyOpcode. p is the player of the flow it was on.
func (s *server) payload(d *dissect.Datagram, p *player, pl *dissect.Payload, reassembled bool) {
	b, fs := pl.Bytes, &pl.Fields
	fromHost := d.Dir == dissect.S2C
	t, frame := d.Time, d.Frame
	switch b[0] {
	case opSettings:
		if !fromHost {
			return
		}
		if slot, ok := intField(fs, game.FieldPlayerSlot); ok {
			s.setSlot(p, int(slot))
		}
		st := &s.settings
		if m := strField(fs, game.FieldMap); m != "" {
			st.gameMap = m
		}
		if v, ok := uintField(fs, game.FieldCollisionDamage); ok {
			st.collision = v != 0
		}
		if v, ok := uintField(fs, game.FieldFriendlyFire); ok {
			st.ff = v != 0
		}
		st.hasSettings = true
		// Settings ends the handshake even without a ChecksumComplete.
		if p.hs.seen && p.hs.pass(t, frame) {
			s.add(entry{t: t, frame: frame, kind: evChecksum, p: p})
		}
	case opObjCreate, opObjCreateTeam:
		s.objCreate(d, p, fs)
	case opBootPlayer:
		if !fromHost {
			return
		}
		reason := noteField(fs, game.FieldReason)
		if code, ok := intField(fs, game.FieldReason); ok && p.bootReason < 0 {
			p.bootReason, p.bootFrame = int(code), frame
		}
		how := "BootPlayer"
		if reason != "" {
			how += " (" + reason + ")"
		}
		p.hs.hostEnded(t, frame, how, s, p)
		if !p.left() {
			p.leave(t, frame, leftBooted, reason)
			s.add(entry{t: t, frame: frame, kind: evLeave, p: p, detail: "booted by the host: " + orUnknown(reason)})
		}
	case opPythonEvent, opDeletePlayerUI:
		s.event(d, p, b, fs)
	case opDestroyObj:
		id, ok := uintField(fs, game.FieldObject)
		if o := s.objects[uint32(id)]; ok && o != nil {
			delete(s.objects, o.id)
			s.add(entry{t: t, frame: frame, kind: evShipDestroyed, p: o.owner, detail: shipDetail(o)})
		}
	case opDeletePlayerAnim:
		if q := s.removed; q != nil && q.name == "" {
			q.name = strField(fs, game.FieldName)
		}
	case opChecksumReq:
		if r, ok := intField(fs, game.FieldRound); ok && fromHost {
			p.hs.ask(int(r), frame, strField(fs, game.FieldDirectory))
		}
	case opChecksumResp:
		if r, ok := intField(fs, game.FieldRound); ok && !fromHost {
			p.hs.answer(int(r), frame)
			if reassembled && len(p.fragAnswers) < maxFragAnswers {
				p.fragAnswers = append(p.fragAnswers, fragAnswer{first: p.frag0, round: int(r)})
			}
		}
	case opChecksumFailA, opChecksumFailB:
		if fromHost {
			p.hs.hostEnded(t, frame, game.Lookup(b[0]).Name, s, p)
		}
	case opChecksumComplete:
		if fromHost && p.hs.pass(t, frame) {
			s.add(entry{t: t, frame: frame, kind: evChecksum, p: p})
		}
	case opNewPlayerInGame:
		if !fromHost && p.enteredT.IsZero() {
			p.enteredT, p.enterFrame = t, frame
			s.add(entry{t: t, frame: frame, kind: evEnter, p: p})
		}
	case opChat, opTeamChat:
		if s.copied(d, b) {
			return
		}
		sender, _ := intField(fs, game.FieldSender)
		from := s.peer(sender)
		if from == nil && !fromHost {
			from = p
		}
		kind := evChat
		if b[0] == opTeamChat {
			kind = evTeamChat
		}
		s.add(entry{t: t, frame: frame, kind: kind, p: from, who: sender, detail: strField(fs, game.FieldText)})
	case opMissionInit:
		if fromHost {
			s.missionInit(d, fs)
		}
	case opScoreChange:
		s.scoreChange(d, fs, b)
	case opScore, opScoreInit:
		id, _ := intField(fs, game.FieldPlayer)
		q := s.peer(id)
		if q == nil {
			return
		}
		q.kills, _ = intField(fs, game.FieldKills)
		q.deaths, _ = intField(fs, game.FieldDeaths)
		q.score, _ = intField(fs, game.FieldScore)
		q.hasScore = true
		if team, ok := intField(fs, game.FieldTeam); ok && team != 0xFF {
			q.team = int(team)
		}
	case opEndGame:
		if fromHost && !s.copied(d, b) {
			s.mission = false
			s.add(entry{t: t, frame: frame, kind: evEndGame, detail: orUnknown(noteField(fs, game.FieldReason))})
		}
	case opRestartGame:
		if fromHost && !s.copied(d, b) {
			s.mission = false
			s.add(entry{t: t, frame: frame, kind: evRestart})
		}
	case opTeamMessage:
		id, _ := intField(fs, game.FieldPlayer)
		if q := s.peer(id); q != nil {
			if team, ok := intField(fs, game.FieldTeam); ok && team != 0xFF {
				q.team = int(team)
			}
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "reason unknown"
	}
	return s
}

// objCreate records a ship (and its owner's team) from ObjCreate and
// ObjCreateTeam; the host's relayed copies find the object known.
func (s *server) objCreate(d *dissect.Datagram, p *player, fs *game.Fields) {
	owner := p
	if d.Dir == dissect.S2C {
		owner = nil // the host relays other players' ships on this flow
	}
	if slot, ok := intField(fs, game.FieldOwnerSlot); ok {
		if q := s.slotPlayer(int(slot)); q != nil {
			owner = q
		} else if owner != nil && owner.slot < 0 {
			s.setSlot(owner, int(slot))
		}
	}
	if owner == nil {
		return
	}
	if team, ok := intField(fs, game.FieldTeam); ok && team != 0xFF {
		owner.team = int(team)
	}
	if name := strField(fs, game.FieldPlayerName); name != "" && owner.name == "" {
		owner.name = name
	}
	id, ok := uintField(fs, game.FieldObject)
	if !ok || noteField(fs, game.FieldClassId) != "ship" {
		return // a torpedo, or OpenBC's class-less form: no ship to tell
	}
	if s.objects[uint32(id)] != nil || len(s.objects) >= MaxObjects {
		return
	}
	o := &object{id: uint32(id), owner: owner, species: noteField(fs, game.FieldSpecies)}
	s.objects[o.id] = o
	owner.ship = o.species
	if o.species == "" { // a species number the spec does not name
		owner.ship = "species " + itoa(mustInt(fs, game.FieldSpecies))
	}
	s.add(entry{t: d.Time, frame: d.Frame, kind: evShipCreated, p: owner, detail: shipDetail(o)})
}

func mustInt(fs *game.Fields, name string) int64 {
	v, _ := intField(fs, name)
	return v
}

func shipDetail(o *object) string {
	sp := o.species
	if sp == "" {
		sp = "ship"
	}
	return sp + " " + hex32(o.id)
}

// event follows the serialized events the story tells: an object
// exploding (with its killer) and the host's player-list events.
func (s *server) event(d *dissect.Datagram, p *player, b []byte, fs *game.Fields) {
	fac, _ := uintField(fs, game.FieldFactory)
	switch fac {
	case factoryExploding:
		if s.copied(d, b) {
			return
		}
		src, _ := uintField(fs, game.FieldSource)
		killer, _ := intField(fs, game.FieldKiller)
		owner := s.objectOwner(uint32(src))
		s.add(entry{t: d.Time, frame: d.Frame, kind: evExplode, p: owner, q: s.peer(killer),
			detail: hex32(uint32(src))})
	case factoryPlayerList:
		code, _ := uintField(fs, game.FieldEventCode)
		// The value is the peer id in every capture so far (the spec
		// calls it disputed: team per another source).
		v, _ := intField(fs, game.FieldValue)
		q := s.peer(v)
		if q == nil {
			return
		}
		switch code {
		case eventNewPlayer:
			if dest, ok := uintField(fs, game.FieldDest); ok && q.slot < 0 {
				s.setSlot(q, slotOfObject(uint32(dest)))
			}
		case eventPlayerRemove:
			s.removed = q
			if q.left() {
				return
			}
			q.hs.hostEnded(d.Time, d.Frame, "player removed", s, q)
			q.leave(d.Time, d.Frame, leftRemoved, "")
			s.add(entry{t: d.Time, frame: d.Frame, kind: evLeave, p: q, detail: "removed by the host"})
		}
	}
}

// objectOwner is the player a ship belongs to: known from its creation,
// else from the slot its id range names.
func (s *server) objectOwner(id uint32) *player {
	if o := s.objects[id]; o != nil {
		return o.owner
	}
	return s.slotPlayer(slotOfObject(id))
}

func (s *server) missionInit(d *dissect.Datagram, fs *game.Fields) {
	st := &s.settings
	st.hasMission = true
	v, _ := intField(fs, game.FieldPlayerLimit)
	st.playerLimit = int(v)
	v, _ = intField(fs, game.FieldSystem)
	st.system = int(v)
	st.timeLimit, st.fragLimit = limit(fs, game.FieldTimeLimit), limit(fs, game.FieldFragLimit)
	if s.mission {
		return // the same mission, told to a joining player
	}
	s.mission = true
	st.missionT = d.Time
	s.add(entry{t: d.Time, frame: d.Frame, kind: evMission, detail: s.settingsText()})
}

func limit(fs *game.Fields, name string) int {
	v, ok := intField(fs, name)
	if !ok || v == 0xFF {
		return -1
	}
	return int(v)
}

// scoreChange updates the totals a ScoreChange carries and tells the kill
// or death once (the host sends it to every client).
func (s *server) scoreChange(d *dissect.Datagram, fs *game.Fields, b []byte) {
	killerID, _ := intField(fs, game.FieldKiller)
	victimID, _ := intField(fs, game.FieldVictim)
	killer, victim := s.peer(killerID), s.peer(victimID)
	if killer != nil {
		if v, ok := intField(fs, game.FieldKillerKills); ok {
			killer.kills, killer.hasScore = v, true
		}
		if v, ok := intField(fs, game.FieldKillerScore); ok {
			killer.score, killer.hasScore = v, true
		}
	}
	if v, ok := intField(fs, game.FieldVictimDeaths); ok && victim != nil {
		victim.deaths, victim.hasScore = v, true
	}
	// scores: an array of {player, score} objects.
	var who *player
	for i := range fs.List {
		f := &fs.List[i]
		switch f.Name {
		case game.FieldPlayer:
			who = s.peer(f.I)
		case game.FieldScore:
			if who != nil {
				who.score, who.hasScore = f.I, true
			}
		}
	}
	if s.copied(d, b) {
		return
	}
	s.add(entry{t: d.Time, frame: d.Frame, kind: evKill, p: victim, q: killer,
		who: victimID, otherID: killerID})
}

// copied reports whether payload b is a copy of one seen moments ago on
// another flow or the other way (a relayed chat, a score change sent to
// every client), and remembers it otherwise. A repeat on the same flow and
// direction is new: the sender said it again.
func (s *server) copied(d *dissect.Datagram, b []byte) bool {
	h := fnv64(b)
	cli := d.Dst
	if d.Dir == dissect.C2S {
		cli = d.Src
	}
	for i := range s.recent {
		r := &s.recent[i]
		if r.hash == h && !r.t.IsZero() && d.Time.Sub(r.t) <= dedupWindow && !d.Time.Before(r.t) &&
			(r.dir != d.Dir || r.client != cli) {
			return true
		}
	}
	s.recent[s.recentAt] = recentPayload{hash: h, t: d.Time, client: cli, dir: d.Dir}
	s.recentAt = (s.recentAt + 1) % len(s.recent)
	return false
}

func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
