package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a problem in a scenario: where it is, which key it concerns, what was found
// there and what was expected instead. Every error Load, Parse, Builtin, LoadAny and Set
// return is an *Error.
//
// When a file has several problems, the Error is the first one in file order and More
// holds the others, also in file order. Error() prints all of them, one per line.
type Error struct {
	// File is the file name as given to Load or Parse (for built-ins,
	// scenarios/library/NAME.yaml). Empty for problems in a --set override.
	File string
	// Line and Column are 1-based. Line is 0 for problems that concern the whole file
	// (empty file, unreadable file, several YAML documents) and for overrides.
	Line, Column int
	// Path is the key path, written as in the file with list indexes in brackets:
	// groups[0].consumers[1].max.poll.records. Empty for whole-file problems.
	Path string
	// Found describes what the file holds there; Expected what would be valid.
	Found, Expected string
	// Suggestion is the closest known key, for unknown keys (empty if none is close).
	Suggestion string
	// Override is the "path=value" assignment given to Set that introduced the value.
	Override string
	// After is the Set assignment that made an otherwise unchanged value of the file
	// invalid (for example kafka.version=4.1 against a record_limit consumer).
	After string
	// More holds further problems found in the same file, in file order.
	More []*Error
	// Omitted counts the problems found beyond the ones kept (at most maxErrors are).
	Omitted int
}

// Error formats the problem as file:line:column: path: found X, expected Y.
func (e *Error) Error() string {
	var b strings.Builder
	e.format(&b)
	for _, m := range e.More {
		b.WriteByte('\n')
		m.format(&b)
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "\n... and %d more problems (the first %d are shown; fix those and load again)", e.Omitted, len(e.More)+1)
	}
	return b.String()
}

func (e *Error) format(b *strings.Builder) {
	switch {
	case e.Override != "":
		fmt.Fprintf(b, "--set %s: ", e.Override)
	case e.File != "" && e.Line > 0 && e.Column > 0:
		fmt.Fprintf(b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(b, "%s: ", e.File)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	switch {
	case e.Found != "" && e.Expected != "":
		fmt.Fprintf(b, "found %s, expected %s", e.Found, e.Expected)
	case e.Found != "":
		b.WriteString(e.Found)
	default:
		b.WriteString("expected " + e.Expected)
	}
	if e.Suggestion != "" {
		fmt.Fprintf(b, "; did you mean %q?", e.Suggestion)
	}
	if e.After != "" {
		fmt.Fprintf(b, " (after --set %s)", e.After)
	}
}

// First returns the error without the further problems (a copy).
func (e *Error) First() *Error {
	c := *e
	c.More = nil
	return &c
}

// All returns the problems as a flat list in file order.
func (e *Error) All() []*Error {
	out := []*Error{e.First()}
	return append(out, e.More...)
}

// joined folds the decoder's problems into one *Error, with the count of those it dropped.
func (d *decoder) joined() error {
	e := joinErrors(d.errs)
	if e == nil {
		return nil
	}
	e.Omitted = d.dropped
	return e
}

// joinErrors sorts problems by position and folds them into one *Error (nil if none).
func joinErrors(errs []*Error) *Error {
	if len(errs) == 0 {
		return nil
	}
	sorted := append([]*Error(nil), errs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if (a.Line == 0) != (b.Line == 0) {
			return a.Line == 0 // whole-file and override problems first
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	// Drop exact duplicates (the same problem reached twice).
	uniq := sorted[:0]
	seen := map[string]bool{}
	for _, e := range sorted {
		k := fmt.Sprintf("%d:%d:%s:%s:%s", e.Line, e.Column, e.Path, e.Found, e.Expected)
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, e)
		}
	}
	first := *uniq[0]
	first.More = append([]*Error(nil), uniq[1:]...)
	return &first
}

// suggest returns the candidate closest to s by edit distance, if it is close enough to be
// a plausible typo (or s is a prefix/suffix of it, ignoring case).
func suggest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	limit := max(2, len(s)/3)
	if bestD <= limit && bestD < len(s) {
		return best
	}
	// A key written with only its last part (lock.duration.ms for
	// share.record.lock.duration.ms) or with a different separator.
	norm := func(x string) string { return strings.NewReplacer("_", ".", "-", ".").Replace(strings.ToLower(x)) }
	for _, c := range candidates {
		if len(s) >= 4 && (strings.HasSuffix(norm(c), norm(s)) || norm(c) == norm(s)) {
			return c
		}
	}
	return ""
}

// editDistance is the Levenshtein distance counting an adjacent swap as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 200 || len(rb) > 200 {
		if a == b {
			return 0
		}
		return max(len(ra), len(rb))
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
