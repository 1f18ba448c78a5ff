package hub

import (
	"errors"
	"fmt"
	"strings"
)

// maxNameLen is the longest repository name (the part after the slash) the
// hub accepts.
const maxNameLen = 96

// RepoID names a model repository on the hub: "org/name", or a bare "name"
// for the few legacy models without a namespace (e.g. "gpt2").
//
// A valid RepoID follows the hub's rule: each part is made of ASCII letters,
// digits, '_', '-' and '.', starts and ends with a letter, digit or '_',
// neither part contains "--" or "..", and the name has at most 96
// characters. These rules also make the cache folder name
// (models--org--name) unambiguous.
type RepoID struct {
	// Namespace is the user or organisation; "" for a legacy id.
	Namespace string
	// Name is the repository name; never empty in a valid RepoID.
	Name string
	// Dataset marks a dataset repository (repo type "datasets"): its cache
	// folder is "datasets--org--name" and its files resolve under
	// {endpoint}/datasets/. The zero value is a model repository.
	Dataset bool
}

// ErrInvalidRepoID is wrapped by ParseRepoID's errors.
var ErrInvalidRepoID = errors.New("not a valid hub repository id")

// ParseRepoID checks s against the hub's repository id rules.
func ParseRepoID(s string) (RepoID, error) {
	ns, name, hasNS := strings.Cut(s, "/")
	if !hasNS {
		ns, name = "", s
	}
	var problems []string
	if hasNS {
		problems = appendPartProblems(problems, "namespace", ns, 0)
	}
	problems = appendPartProblems(problems, "name", name, maxNameLen)
	if len(problems) > 0 {
		return RepoID{}, fmt.Errorf("%w: %q (%s; expected org/name)", ErrInvalidRepoID, s, strings.Join(problems, "; "))
	}
	return RepoID{Namespace: ns, Name: name}, nil
}

// appendPartProblems appends what is wrong with one part of a repository id.
// maxLen 0 means no length limit.
func appendPartProblems(problems []string, what, part string, maxLen int) []string {
	if part == "" {
		return append(problems, what+" is empty")
	}
	if maxLen > 0 && len(part) > maxLen {
		problems = append(problems, fmt.Sprintf("%s is longer than %d characters", what, maxLen))
	}
	for i := 0; i < len(part); i++ {
		if c := part[i]; !isWordByte(c) && c != '-' && c != '.' {
			return append(problems, fmt.Sprintf("%s has %q; only letters, digits, '_', '-' and '.' are allowed", what, c))
		}
	}
	if !isWordByte(part[0]) || !isWordByte(part[len(part)-1]) {
		problems = append(problems, what+" must start and end with a letter, digit or '_'")
	}
	if strings.Contains(part, "--") || strings.Contains(part, "..") {
		problems = append(problems, what+` must not contain "--" or ".."`)
	}
	return problems
}

// isWordByte reports whether c is an ASCII letter, digit or '_'.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// String returns the id as the hub spells it: "org/name" or "name".
func (r RepoID) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// folder is the repository's directory name in the hub cache:
// "models--org--name" (or "models--name").
func (r RepoID) folder() string {
	kind := "models--"
	if r.Dataset {
		kind = "datasets--"
	}
	if r.Namespace == "" {
		return kind + r.Name
	}
	return kind + r.Namespace + "--" + r.Name
}

// checkRelPath checks that p (a filename in a repository, or a revision,
// both of which may contain '/') is a clean relative slash-separated path
// that cannot escape the directory it is joined to.
func checkRelPath(what, p string) error {
	if p == "" {
		return fmt.Errorf("%s is empty", what)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%s %q: empty, '.' or '..' path segment", what, p)
		}
	}
	for _, r := range p {
		if r == '\\' || r < 0x20 || r == 0x7f {
			return fmt.Errorf("%s %q: backslash or control character", what, p)
		}
	}
	return nil
}

// isCommitHash reports whether rev is a full 40-digit lower-case hex commit
// hash, which needs no refs/ entry and names an immutable snapshot.
func isCommitHash(rev string) bool {
	return len(rev) == 40 && isLowerHex(rev)
}

// isSHA256 reports whether etag is a 64-digit lower-case hex string: the
// hub gives LFS files their content's SHA-256 as ETag.
func isSHA256(etag string) bool {
	return len(etag) == 64 && isLowerHex(etag)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
