package htmlreport

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bcdump/bcdump/checksum"
)

// Caps of the checksum tree: answers per flow, files per answer.
const (
	maxRoundsPerFlow = 16
	maxFilesPerRound = 2000
)

var verdictRank = map[string]int{"mismatch": 0, "unknown": 1, "missing": 2, "match": 3}

// checksum compares one checksum answer (payload p, p[0] the opcode) of
// flow fs with the manifest.
func (b *Builder) checksum(fs *flowState, frame int, p []byte) {
	if fs.check == nil {
		fs.check = &ChecksumPlayer{Flow: fs.f.ID, Client: fs.f.Client}
		b.checks = append(b.checks, fs.check)
	}
	cp := fs.check
	if len(cp.Rounds) >= maxRoundsPerFlow {
		return
	}
	resp, err := checksum.ParseResponse(p)
	if err != nil {
		round := "?"
		if len(p) > 1 {
			round = checksum.RoundName(p[1])
		}
		cp.Rounds = append(cp.Rounds, ChecksumRound{Round: round, Frame: frame, Error: err.Error()})
		return
	}
	cr := ChecksumRound{Round: checksum.RoundName(resp.Round), Frame: frame}
	mr := b.opt.Manifest.Round(resp.Round)
	var wantFiles []checksum.ManifestFile
	var wantDirs []checksum.ManifestDir
	if mr != nil {
		cr.Path, cr.Filter = mr.Path, mr.Filter
		wantFiles, wantDirs = mr.Files, mr.Subdirs
	} else {
		cr.Path = fmt.Sprintf("round %s (not in the manifest)", cr.Round)
	}
	n := 0
	b.compareDir(&cr, cr.Path, resp.Root, wantFiles, wantDirs, &n, mr != nil)
	slices.SortStableFunc(cr.Dirs, func(x, y ChecksumDir) int {
		return cmp.Compare(dirRank(x), dirRank(y))
	})
	cp.Mismatches += cr.Mismatches
	cp.Rounds = append(cp.Rounds, cr)
	slices.SortStableFunc(cp.Rounds, func(x, y ChecksumRound) int {
		return cmp.Compare(min(y.Mismatches, 1), min(x.Mismatches, 1))
	})
}

func dirRank(d ChecksumDir) int {
	if len(d.Files) == 0 {
		return 4
	}
	return verdictRank[d.Files[0].Verdict]
}

func hexHash(h uint32) string { return fmt.Sprintf("0x%08X", h) }

func (b *Builder) name(h uint32) string {
	if n, ok := b.resolver.Name(h); ok {
		return n
	}
	return hexHash(h)
}

// compareDir adds the verdicts of directory d (the answer's; may be nil)
// against the manifest's files and subdirectories.
func (b *Builder) compareDir(cr *ChecksumRound, path string, d *checksum.Dir, want []checksum.ManifestFile, wantDirs []checksum.ManifestDir, n *int, known bool) {
	cd := ChecksumDir{Path: path}
	seen := make(map[uint32]bool)
	var files []checksum.File
	var subs []*checksum.Dir
	if d != nil {
		files, subs = d.Files, d.Subdirs
	}
	for _, f := range files {
		if *n >= maxFilesPerRound {
			break
		}
		*n++
		seen[f.NameHash] = true
		cf := ChecksumFile{Name: b.name(f.NameHash), Hash: hexHash(f.ContentHash), Verdict: "unknown"}
		for _, w := range want {
			if uint32(w.NameHash) == f.NameHash {
				cf.Name, cf.Want = w.Filename, hexHash(uint32(w.ContentHash))
				cf.Verdict = "match"
				if uint32(w.ContentHash) != f.ContentHash {
					cf.Verdict = "mismatch"
					cr.Mismatches++
				}
				break
			}
		}
		cd.Files = append(cd.Files, cf)
	}
	for _, w := range want {
		if known && !seen[uint32(w.NameHash)] && *n < maxFilesPerRound {
			*n++
			cd.Files = append(cd.Files, ChecksumFile{Name: w.Filename, Want: hexHash(uint32(w.ContentHash)), Verdict: "missing"})
		}
	}
	slices.SortStableFunc(cd.Files, func(x, y ChecksumFile) int {
		if c := cmp.Compare(verdictRank[x.Verdict], verdictRank[y.Verdict]); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	cr.Dirs = append(cr.Dirs, cd)
	seenDirs := make(map[uint32]bool)
	for _, s := range subs {
		seenDirs[s.NameHash] = true
		var wf []checksum.ManifestFile
		var wd []checksum.ManifestDir
		name := b.name(s.NameHash)
		for i := range wantDirs {
			if uint32(wantDirs[i].NameHash) == s.NameHash {
				wf, wd, name = wantDirs[i].Files, wantDirs[i].Subdirs, wantDirs[i].Name
				break
			}
		}
		b.compareDir(cr, path+"/"+name, s, wf, wd, n, known)
	}
	for i := range wantDirs {
		if known && !seenDirs[uint32(wantDirs[i].NameHash)] {
			b.compareDir(cr, path+"/"+wantDirs[i].Name, nil, wantDirs[i].Files, wantDirs[i].Subdirs, n, known)
		}
	}
}
