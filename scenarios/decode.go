package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// decoder walks a YAML node tree and collects every problem with its position. Decoding
// goes on after a problem (using the default for the bad value), so that one pass reports
// all problems of a file.
type decoder struct {
	file string
	// origin marks nodes that came from a Set override, with the "path=value" text.
	origin map[*yaml.Node]string
	errs   []*Error
	// bytes makes duration read plain integers only: a distribution of sizes in bytes.
	bytes bool
	// oneLine makes text refuse line feeds (a title).
	oneLine bool
	// dropped counts the problems past maxErrors, found but not kept.
	dropped int
}

// maxErrors bounds the problems one load keeps: a file of 120 000 unknown keys once
// printed 36 MB of messages. The rest are counted (decoder.dropped).
const maxErrors = 200

// byteDistribution decodes a distribution of sizes in bytes (record_size): the same
// families as a duration distribution, with plain integers.
func (d *decoder) byteDistribution(n *yaml.Node, path string) (dist.Dist, bool) {
	d.bytes = true
	defer func() { d.bytes = false }()
	return d.distribution(n, path, 0)
}

func (d *decoder) errorAt(n *yaml.Node, path, found, expected string) *Error {
	e := &Error{File: d.file, Path: path, Found: found, Expected: expected}
	if n != nil {
		if o, ok := d.origin[n]; ok {
			e.File, e.Override = "", o
		} else {
			e.Line, e.Column = n.Line, n.Column
		}
	}
	return e
}

func (d *decoder) fail(n *yaml.Node, path, found, expected string) {
	d.add(d.errorAt(n, path, found, expected))
}

// add keeps a problem, or counts it past maxErrors.
func (d *decoder) add(e *Error) {
	if len(d.errs) >= maxErrors {
		d.dropped++
		return
	}
	d.errs = append(d.errs, e)
}

func (d *decoder) failed() bool { return len(d.errs) > 0 }

// joinPath appends a key to a path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe says what a node is, for "found ..." messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	if isNull(n) {
		return "no value"
	}
	return quoteValue(n.Value)
}

func quoteValue(v string) string {
	if v == "" {
		return "an empty string"
	}
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	plain := true
	for _, c := range v {
		if c <= ' ' || c == '"' || c == '\\' || c > '~' && c != '…' {
			plain = false
			break
		}
	}
	if plain {
		return v
	}
	return strconv.Quote(v)
}

// checkTree reports constructs the loader does not accept anywhere: aliases and merge keys.
// It walks the tree as written (aliases are not followed), so it always terminates.
func (d *decoder) checkTree(n *yaml.Node, depth int) {
	var anchors []*yaml.Node
	aliased := map[string]bool{}
	d.walkTree(n, depth, &anchors, aliased)
	// An anchor with an alias is reported at the alias; one without is reported here, as
	// the construct the loader does not have.
	for _, a := range anchors {
		if !aliased[a.Anchor] {
			d.fail(a, "", "an anchor (&"+a.Anchor+") with no alias", "plain values (anchors and aliases are not supported)")
		}
	}
}

func (d *decoder) walkTree(n *yaml.Node, depth int, anchors *[]*yaml.Node, aliased map[string]bool) {
	if depth > maxDepth {
		d.fail(n, "", fmt.Sprintf("nesting deeper than %d levels", maxDepth), "a shallower document")
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		aliased[n.Value] = true
		d.fail(n, "", "an alias (*"+n.Value+")", "plain values (anchors and aliases are not supported)")
		return
	}
	if n.Anchor != "" {
		*anchors = append(*anchors, n)
	}
	if n.Tag != "" && n.Style&yaml.TaggedStyle != 0 && !coreTags[n.ShortTag()] {
		d.fail(n, "", "the YAML tag "+quoteValue(n.Tag), "plain values (tags other than YAML's own !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are not supported)")
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].ShortTag() == "!!merge" {
				d.fail(n.Content[i], "", "a merge key (<<)", "plain keys (merge keys are not supported)")
			}
		}
	}
	for _, c := range n.Content {
		d.walkTree(c, depth+1, anchors, aliased)
	}
}

// coreTags are the YAML tags a scenario may write explicitly: the core schema's own. Any
// other (!!python/object, !evil) names a type the loader does not have.
var coreTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true, "!!map": true, "!!seq": true}

// fields is a decoded mapping: its keys' nodes and values' nodes by key text.
type fields struct {
	node  *yaml.Node
	path  string
	key   map[string]*yaml.Node
	val   map[string]*yaml.Node
	order []string
}

func (f *fields) get(k string) *yaml.Node {
	if f == nil {
		return nil
	}
	return f.val[k]
}

// at returns the best node to blame for a problem with key k: its value, else the mapping.
func (f *fields) at(k string) *yaml.Node {
	if v := f.get(k); v != nil {
		return v
	}
	if f == nil {
		return nil
	}
	return f.node
}

func (f *fields) p(k string) string { return joinPath(f.path, k) }

// mapping checks that n is a mapping whose keys are known to sh (any keys if sh is nil)
// and appears once each. A null node is an empty mapping. It returns nil if n is not a
// mapping.
func (d *decoder) mapping(n *yaml.Node, path string, sh *shape) *fields {
	f := &fields{node: n, path: path, key: map[string]*yaml.Node{}, val: map[string]*yaml.Node{}}
	if isNull(n) {
		return f
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, describe(n), "a mapping")
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.fail(k, path, describe(k)+" as a key", "a plain key")
			continue
		}
		name := k.Value
		kp := joinPath(path, name)
		if sh != nil && sh.lookup(name) == nil {
			keys := sh.keys()
			if len(d.errs) >= maxErrors {
				d.dropped++
				continue
			}
			e := d.errorAt(k, kp, "an unknown key", "a key of "+sectionName(path))
			e.Suggestion = suggest(name, keys)
			if e.Suggestion == "" {
				e.Expected += ": " + strings.Join(keys, ", ")
			}
			d.add(e)
			continue
		}
		if _, dup := f.val[name]; dup {
			d.fail(k, kp, "the key a second time", "each key once")
			continue
		}
		f.key[name], f.val[name] = k, v
		f.order = append(f.order, name)
	}
	return f
}

func sectionName(path string) string {
	if path == "" {
		return "the scenario"
	}
	return path
}

// list checks that n is a sequence (null: empty) and returns its items.
func (d *decoder) list(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	if n == nil || isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, describe(n), "a list")
		return nil, false
	}
	return n.Content, true
}

func (d *decoder) scalar(n *yaml.Node, path, expected string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.fail(n, path, describe(n), expected)
		return "", false
	}
	return n.Value, true
}

// str decodes a non-empty string.
func (d *decoder) str(n *yaml.Node, path, expected string) (string, bool) {
	s, ok := d.scalar(n, path, expected)
	if ok && strings.TrimSpace(s) == "" {
		d.fail(n, path, describe(n), expected)
		return "", false
	}
	return s, ok
}

// text decodes any string, empty included. Control characters are refused after YAML's
// unescaping as they are before it (checkText): "\u001b[31m" in a title would otherwise
// reach the terminal and index.html. Tab and line feed are text; oneLine refuses line
// feeds too.
func (d *decoder) text(n *yaml.Node, path string) (string, bool) {
	if isNull(n) {
		return "", true
	}
	s, ok := d.scalar(n, path, "a string")
	if !ok {
		return "", false
	}
	if r, bad := controlChar(s, d.oneLine); bad {
		d.fail(n, path, fmt.Sprintf("the control character %U in the text", r), "printable text (no escape sequences, NUL or other control characters)")
		return "", false
	}
	return s, true
}

// controlChar reports the first C0 or C1 control character or DEL in s, tab and (unless
// oneLine) line feed excepted.
func controlChar(s string, oneLine bool) (rune, bool) {
	for _, r := range s {
		if r == '\t' || r == '\n' && !oneLine {
			continue
		}
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 {
			return r, true
		}
	}
	return 0, false
}

// name decodes an identifier: letters, digits, '-', '_', '.'.
func (d *decoder) name(n *yaml.Node, path string) (string, bool) {
	const want = "a name of letters, digits, '-', '_' and '.'"
	s, ok := d.str(n, path, want)
	if !ok {
		return "", false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			d.fail(n, path, describe(n), want)
			return "", false
		}
	}
	if len(s) > 200 {
		d.fail(n, path, "a name of "+strconv.Itoa(len(s))+" characters", "at most 200 characters")
		return "", false
	}
	return s, true
}

func intRange(lo, hi int64) string {
	switch {
	case hi == math.MaxInt64:
		return fmt.Sprintf("an integer >= %d", lo)
	default:
		return fmt.Sprintf("an integer in [%d, %d]", lo, hi)
	}
}

func parseInt(s string) (int64, error) {
	return strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(s), "_", ""), 10, 64)
}

// integer decodes an integer in [lo, hi].
func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	want := intRange(lo, hi)
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	v, err := parseInt(s)
	if err != nil || v < lo || v > hi {
		d.fail(n, path, describe(n), want)
		return 0, false
	}
	return v, true
}

// number decodes a finite float in [lo, hi] (hi may be +Inf; lo is exclusive if open).
func (d *decoder) number(n *yaml.Node, path string, lo float64, open bool, hi float64) (float64, bool) {
	var want string
	switch {
	case open && math.IsInf(hi, 1):
		want = fmt.Sprintf("a number > %g", lo)
	case math.IsInf(hi, 1):
		want = fmt.Sprintf("a number >= %g", lo)
	case math.IsInf(lo, -1):
		want = "a finite number"
	default:
		want = fmt.Sprintf("a number in [%g, %g]", lo, hi)
	}
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < lo || (open && v == lo) || v > hi {
		d.fail(n, path, describe(n), want)
		return 0, false
	}
	return v, true
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	s, ok := d.scalar(n, path, "true or false")
	if !ok {
		return false, false
	}
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	d.fail(n, path, describe(n), "true or false")
	return false, false
}

// enum decodes one of the allowed words, suggesting the closest on a typo.
func (d *decoder) enum(n *yaml.Node, path string, allowed ...string) (string, bool) {
	want := "one of " + strings.Join(allowed, ", ")
	if len(allowed) == 2 {
		want = allowed[0] + " or " + allowed[1]
	}
	s, ok := d.scalar(n, path, want)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	e := d.errorAt(n, path, describe(n), want)
	if sug := suggest(s, allowed); sug != s {
		e.Suggestion = sug
	}
	d.add(e)
	return "", false
}

// Duration options.
type durOpt uint8

const (
	durPlainMs  durOpt = 1 << iota // a plain integer is milliseconds (Kafka's *.ms keys)
	durNever                       // "never" or -1 mean -1
	durPositive                    // must be > 0
)

func durationWant(opt durOpt) string {
	w := "a duration like 30s, 500ms or 2m30s"
	if opt&durPositive != 0 {
		w = "a positive duration like 30s, 500ms or 2m30s"
	}
	if opt&durPlainMs != 0 {
		w += " (or an integer number of milliseconds)"
	}
	if opt&durNever != 0 {
		w += ", or never"
	}
	return w
}

// duration decodes a duration in milliseconds.
func (d *decoder) duration(n *yaml.Node, path string, opt durOpt) (int64, bool) {
	want := durationWant(opt)
	s, ok := d.scalar(n, path, want)
	if !ok {
		return 0, false
	}
	s = strings.TrimSpace(s)
	if opt&durNever != 0 && (s == "never" || s == "-1") {
		return -1, true
	}
	var ms int64
	if d.bytes {
		opt |= durPlainMs // a byte-size distribution: plain integers, no units
		if _, err := parseInt(s); err != nil {
			d.fail(n, path, describe(n), "an integer number of bytes")
			return 0, false
		}
	}
	if v, err := parseInt(s); err == nil {
		if opt&durPlainMs == 0 && v != 0 {
			d.fail(n, path, describe(n)+" without a unit", want)
			return 0, false
		}
		if v < 0 {
			d.fail(n, path, describe(n), want)
			return 0, false
		}
		if v > maxDurationMs {
			d.fail(n, path, describe(n), "at most "+formatMs(maxDurationMs))
			return 0, false
		}
		ms = v
	} else {
		v, err := parseDuration(s)
		if err != nil {
			found := describe(n)
			if err != errDurationSyntax {
				found += " (" + err.Error() + ")"
			}
			d.fail(n, path, found, want)
			return 0, false
		}
		ms = v
	}
	if opt&durPositive != 0 && ms <= 0 {
		d.fail(n, path, describe(n), want)
		return 0, false
	}
	return ms, true
}

// kafkaMs decodes a Kafka *.ms value without range checks (Kafka's validator does them);
// negative plain integers are let through for the validator to reject with Kafka's range.
func (d *decoder) kafkaMs(n *yaml.Node, path string) (int64, bool) {
	if n.Kind == yaml.ScalarNode {
		if v, err := parseInt(n.Value); err == nil && v < 0 && v >= math.MinInt32 {
			return v, true
		}
	}
	return d.duration(n, path, durPlainMs)
}

const probWant = "a probability like 1/10000, 0.5% or 0.0001"

// probability decodes a probability in [0, 1].
func (d *decoder) probability(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, probWant)
	if !ok {
		return 0, false
	}
	p, err := parseProbability(s)
	if err != nil {
		d.fail(n, path, describe(n)+" ("+err.Error()+")", probWant)
		return 0, false
	}
	return p, true
}

// perMillion decodes a probability as parts per million.
func (d *decoder) perMillion(n *yaml.Node, path string) (int64, bool) {
	p, ok := d.probability(n, path)
	if !ok {
		return 0, false
	}
	pm, err := perMillion(p)
	if err != nil {
		d.fail(n, path, describe(n)+" ("+err.Error()+")", "0 or a probability of at least 1/1000000")
		return 0, false
	}
	return pm, true
}

const rateWant = "a rate like 200/s, 30/m or 1000/h"

func (d *decoder) rate(n *yaml.Node, path string) (float64, bool) {
	s, ok := d.scalar(n, path, rateWant)
	if !ok {
		return 0, false
	}
	r, err := parseRate(s)
	if err != nil {
		d.fail(n, path, describe(n)+" ("+err.Error()+")", rateWant)
		return 0, false
	}
	if r > sim.MaxProducerRate {
		d.fail(n, path, describe(n), fmt.Sprintf("a rate of at most %d records/s (the most one simulated producer honours)", int64(sim.MaxProducerRate)))
		return 0, false
	}
	return r, true
}

var distNames = []string{"constant", "uniform", "exponential", "lognormal", "pareto", "normal", "bimodal"}

const distWant = "a distribution: a duration, or one of constant, uniform, exponential, lognormal, pareto, normal, bimodal with its parameters"

// distribution decodes a processing-time or latency distribution.
func (d *decoder) distribution(n *yaml.Node, path string, depth int) (dist.Dist, bool) {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		ms, ok := d.duration(n, path, 0)
		if !ok {
			return nil, false
		}
		return d.mkDist(n, path)(dist.Constant(ms))
	}
	if depth > 8 {
		d.fail(n, path, "distributions nested more than 8 deep", "a shallower bimodal")
		return nil, false
	}
	f := d.mapping(n, path, distShape)
	if f == nil {
		return nil, false
	}
	if len(f.order) != 1 {
		if len(f.order) == 0 && n.Kind == yaml.MappingNode && len(n.Content) > 0 {
			return nil, false // its keys were all unknown, which is reported already
		}
		found := "no distribution"
		if len(f.order) > 1 {
			found = strings.Join(f.order, " and ")
		}
		d.fail(n, path, found, "exactly one of "+strings.Join(distNames, ", "))
		return nil, false
	}
	family := f.order[0]
	v := f.val[family]
	fp := f.p(family)
	mk := d.mkDist(v, fp)
	if family == "constant" {
		ms, ok := d.duration(v, fp, 0)
		if !ok {
			return nil, false
		}
		return mk(dist.Constant(ms))
	}
	pf := d.mapping(v, fp, distShape.lookup(family))
	if pf == nil {
		return nil, false
	}
	need := func(keys ...string) bool {
		ok := true
		for _, k := range keys {
			if pf.get(k) == nil {
				d.fail(v, pf.p(k), "no value", "a value for "+k)
				ok = false
			}
		}
		return ok
	}
	dur := func(k string, opt durOpt) (float64, bool) {
		ms, ok := d.duration(pf.get(k), pf.p(k), opt)
		return float64(ms), ok
	}
	switch family {
	case "uniform":
		if !need("min", "max") {
			return nil, false
		}
		lo, ok1 := dur("min", 0)
		hi, ok2 := dur("max", 0)
		if !ok1 || !ok2 {
			return nil, false
		}
		if hi < lo {
			d.fail(pf.get("max"), pf.p("max"), describe(pf.get("max")), "a duration >= min ("+formatMs(int64(lo))+")")
			return nil, false
		}
		return mk(dist.Uniform(int64(lo), int64(hi)))
	case "exponential":
		if !need("mean") {
			return nil, false
		}
		m, ok := dur("mean", durPositive)
		if !ok {
			return nil, false
		}
		return mk(dist.Exponential(m))
	case "lognormal":
		hasP := pf.get("p50") != nil || pf.get("p99") != nil
		hasM := pf.get("mu") != nil || pf.get("sigma") != nil
		if hasP && hasM {
			d.fail(v, fp, "both p50/p99 and mu/sigma", "either {p50, p99} or {mu, sigma}")
			return nil, false
		}
		if hasM {
			if !need("mu", "sigma") {
				return nil, false
			}
			mu, ok1 := d.number(pf.get("mu"), pf.p("mu"), math.Inf(-1), false, math.Inf(1))
			sigma, ok2 := d.number(pf.get("sigma"), pf.p("sigma"), 0, true, math.Inf(1))
			if !ok1 || !ok2 {
				return nil, false
			}
			return mk(dist.LogNormal(mu, sigma))
		}
		if !need("p50", "p99") {
			return nil, false
		}
		p50, ok1 := dur("p50", durPositive)
		p99, ok2 := dur("p99", durPositive)
		if !ok1 || !ok2 {
			return nil, false
		}
		if p99 <= p50 {
			d.fail(pf.get("p99"), pf.p("p99"), describe(pf.get("p99")), "a duration > p50 ("+formatMs(int64(p50))+")")
			return nil, false
		}
		return mk(dist.LogNormalP50P99(p50, p99))
	case "pareto":
		if !need("scale", "shape") {
			return nil, false
		}
		scale, ok1 := dur("scale", durPositive)
		shapeV, ok2 := d.number(pf.get("shape"), pf.p("shape"), 0, true, math.Inf(1))
		if !ok1 || !ok2 {
			return nil, false
		}
		return mk(dist.Pareto(scale, shapeV))
	case "normal":
		if !need("mean", "stddev") {
			return nil, false
		}
		mean, ok1 := dur("mean", 0)
		sd, ok2 := dur("stddev", durPositive)
		if !ok1 || !ok2 {
			return nil, false
		}
		return mk(dist.Normal(mean, sd))
	case "bimodal":
		if !need("a", "b", "p_b") {
			return nil, false
		}
		a, ok1 := d.distribution(pf.get("a"), pf.p("a"), depth+1)
		b, ok2 := d.distribution(pf.get("b"), pf.p("b"), depth+1)
		pb, ok3 := d.probability(pf.get("p_b"), pf.p("p_b"))
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		return mk(dist.Bimodal(a, b, pb))
	}
	return nil, false
}

// mkDist turns a constructor's error into a positioned problem.
func (d *decoder) mkDist(n *yaml.Node, path string) func(dist.Dist, error) (dist.Dist, bool) {
	return func(x dist.Dist, err error) (dist.Dist, bool) {
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), dist.ErrInvalid.Error()+": ")
			d.fail(n, path, "invalid parameters ("+msg+")", "valid distribution parameters")
			return nil, false
		}
		return x, true
	}
}
