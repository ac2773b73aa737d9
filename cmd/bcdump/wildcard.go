package main

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// Windows shells (cmd.exe, and PowerShell for a native program) pass
// `captures\*.pcap` to a program as it is typed: there each program
// expands wildcards itself, as bcdump does here. Elsewhere the shell has
// expanded them already and an argument with a * in it is a file's name.
//
// The expansion is written for both separators and tested on every
// system (with goos "windows"); only a Windows build uses it.

// wildcard is the result of expanding one FILE argument.
type wildcard struct {
	names []string // the files it stands for, in name order
	err   error    // no file matches it
}

// expandWildcards expands each of args that has *, ? or [...] in it and
// is not itself an existing file's name, on goos "windows" only: * is any
// run of characters but a separator, ? one character, [...] one of a set
// (or range, [a-c]; [^...] none of them), letter case ignored as Windows
// ignores it; a name starting with a dot is matched only by a pattern
// that starts with one. Both / and \ separate directories; the names keep
// the separators and prefix the argument was typed with.
func expandWildcards(goos string, args []string) []wildcard {
	out := make([]wildcard, 0, len(args))
	for _, a := range args {
		if goos != "windows" || a == "-" || !strings.ContainsAny(a, "*?[") {
			out = append(out, wildcard{names: []string{a}})
			continue
		}
		if _, err := os.Stat(typedPath(goos, a)); err == nil {
			out = append(out, wildcard{names: []string{a}})
			continue
		}
		// The literal directories before the first wildcard are kept as
		// typed.
		i := strings.IndexAny(a, "*?[")
		j := strings.LastIndexAny(a[:i], `/\`) + 1
		names := globFrom(goos, a[:j], a[j:])
		if len(names) == 0 {
			out = append(out, wildcard{names: []string{a}, err: fmt.Errorf("%s: no file matches", a)})
			continue
		}
		out = append(out, wildcard{names: names})
	}
	return out
}

// globFrom expands pattern (separated by / or \) under dir, a path
// prefix as typed that is "" or ends with a separator.
func globFrom(goos, dir, pattern string) []string {
	comp, tail, sep := pattern, "", ""
	if k := strings.IndexAny(pattern, `/\`); k >= 0 {
		comp, sep, tail = pattern[:k], pattern[k:k+1], pattern[k+1:]
	}
	if comp == "" { // a doubled separator
		return globFrom(goos, dir+sep, tail)
	}
	if !strings.ContainsAny(comp, "*?[") {
		if tail == "" && sep == "" {
			if _, err := os.Stat(typedPath(goos, dir+comp)); err != nil {
				return nil
			}
			return []string{dir + comp}
		}
		return globFrom(goos, dir+comp+sep, tail)
	}
	list := dir
	if list == "" {
		list = "."
	}
	entries, err := os.ReadDir(typedPath(goos, list))
	if err != nil {
		return nil
	}
	var out []string
	lower := strings.ToLower(comp)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(comp, ".") {
			continue
		}
		if ok, err := path.Match(lower, strings.ToLower(name)); err != nil || !ok {
			continue
		}
		switch {
		case sep == "":
			out = append(out, dir+name)
		case tail == "":
			if isDir(typedPath(goos, dir+name)) { // "pattern\" names directories
				out = append(out, dir+name+sep)
			}
		case isDir(typedPath(goos, dir+name)):
			out = append(out, globFrom(goos, dir+name+sep, tail)...)
		}
	}
	return out
}

// typedPath is a name typed for goos as this system opens it: a test of
// Windows semantics elsewhere reads \ as the separator it is there.
func typedPath(goos, name string) string {
	if goos == "windows" && os.PathSeparator != '\\' {
		return strings.ReplaceAll(name, `\`, string(os.PathSeparator))
	}
	return name
}

func isDir(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.IsDir()
}
