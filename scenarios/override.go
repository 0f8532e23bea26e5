package scenarios

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Set changes one value by its dotted path as written in the file, for example
// "kafka.share.record.lock.duration.ms" = "60s", "groups.0.consumers.0.count" = "8",
// "duration" = "10m" or "faults.1.at" = "2m". List items are addressed by their index
// (groups.0 or groups[0]); an index one past the end appends an item. Because Kafka's keys
// contain dots, the path is matched at each level against the keys that exist there,
// longest first. The value is read as YAML, so "[kill, hang]" or
// "{lognormal: {p50: 8s, p99: 40s}}" set a list or a distribution.
//
// The scenario is edited as a YAML tree and validated again as a whole, so an override
// gets the same checks and messages as the file; on error the scenario is unchanged and
// the *Error names the override.
func (s *Scenario) Set(path, value string) error {
	return s.SetAll([][2]string{{path, value}})
}

// SetAll applies several overrides, each a {path, value} pair, in order, and validates the
// result once: the overrides are checked together, as one edit of the file, so
// "duration=360d" then "producers.0.rate=1/h" is accepted as the reverse order is (one at
// a time, the first would cross the record limit at the file's rate). A later override of
// the same path wins. On error the scenario is unchanged.
func (s *Scenario) SetAll(pairs [][2]string) error {
	if len(pairs) == 0 {
		return nil
	}
	origin := make(map[*yaml.Node]string, len(s.origin))
	doc := cloneNode(s.doc, s.origin, origin)
	assigns := make([]string, len(pairs))
	for i, kv := range pairs {
		path, value := kv[0], kv[1]
		assign := path + "=" + value
		assigns[i] = assign
		fail := func(p, found, expected, sug string) error {
			return &Error{Override: assign, Path: p, Found: found, Expected: expected, Suggestion: sug}
		}
		toks, ok := splitPath(path)
		if !ok {
			return fail("", quoteValue(path)+" as a path", "a dotted key path like kafka.share.record.lock.duration.ms or groups.0.consumers.0.count", "")
		}
		val := parseValue(value)
		markOrigin(val, origin, assign)
		st := &setter{origin: origin, assign: assign, fail: fail}
		if err := st.walk(doc.Content[0], topShape(s.meta.kind), toks, "", val); err != nil {
			return err
		}
	}
	next := &Scenario{file: s.file, doc: doc, origin: origin}
	if err := next.decode(); err != nil {
		var e *Error
		if errors.As(err, &e) {
			after := strings.Join(assigns, " --set ")
			for _, x := range append([]*Error{e}, e.More...) {
				if x.Override == "" {
					x.After = after
				}
			}
		}
		return err
	}
	*s = *next
	return nil
}

var bracketIndex = regexp.MustCompile(`\[(\d+)\]`)

// splitPath turns "groups[0].consumers.1.count" into its dot-separated tokens.
func splitPath(p string) ([]string, bool) {
	p = bracketIndex.ReplaceAllString(strings.TrimSpace(p), ".$1")
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return nil, false
	}
	toks := strings.Split(p, ".")
	for _, t := range toks {
		if t == "" {
			return nil, false
		}
	}
	return toks, true
}

// parseValue reads an override value as YAML; text that is not valid YAML is a string.
func parseValue(v string) (n *yaml.Node) {
	plain := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
	defer func() {
		if recover() != nil {
			n = plain
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(v), &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return plain
	}
	if hasAlias(doc.Content[0], 0) {
		return plain
	}
	return doc.Content[0]
}

func hasAlias(n *yaml.Node, depth int) bool {
	if n.Kind == yaml.AliasNode || depth > 100 {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c, depth+1) {
			return true
		}
	}
	return false
}

// markOrigin records that a subtree came from an override and clears its positions (they
// refer to the override text, not the file).
func markOrigin(n *yaml.Node, origin map[*yaml.Node]string, assign string) {
	origin[n] = assign
	n.Line, n.Column = 0, 0
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, c := range n.Content {
		markOrigin(c, origin, assign)
	}
}

type setter struct {
	origin map[*yaml.Node]string
	assign string
	fail   func(p, found, expected, sug string) error
}

func (st *setter) newNode(kind yaml.Kind) *yaml.Node {
	n := &yaml.Node{Kind: kind}
	switch kind {
	case yaml.MappingNode:
		n.Tag = "!!map"
	case yaml.SequenceNode:
		n.Tag = "!!seq"
	}
	st.origin[n] = st.assign
	return n
}

// containerFor is the node to create for a missing value of shape sh that the path goes
// into, given the next token.
func (st *setter) containerFor(sh *shape, next string) *yaml.Node {
	_, err := strconv.Atoi(next)
	if sh.kind == shList || (sh.kind == shPoly && sh.elem != nil && err == nil) {
		return st.newNode(yaml.SequenceNode)
	}
	return st.newNode(yaml.MappingNode)
}

func (st *setter) walk(n *yaml.Node, sh *shape, toks []string, done string, val *yaml.Node) error {
	asList := sh.kind == shList || (sh.kind == shPoly && n.Kind == yaml.SequenceNode)
	asMap := sh.kind == shMap || sh.kind == shFreeMap || (sh.kind == shPoly && n.Kind != yaml.SequenceNode)
	if isNull(n) {
		// An empty value becomes the container the path goes into.
		if asList {
			n.Kind, n.Tag, n.Value = yaml.SequenceNode, "!!seq", ""
		} else {
			n.Kind, n.Tag, n.Value = yaml.MappingNode, "!!map", ""
		}
	}
	switch {
	case asList:
		if n.Kind != yaml.SequenceNode {
			return st.fail(done, describe(n), "a list (set "+done+" as a whole instead)", "")
		}
		elem := sh.elem
		if elem == nil {
			elem = scalar
		}
		idx, err := strconv.Atoi(toks[0])
		if err != nil || idx < 0 {
			return st.fail(done, quoteValue(toks[0]), "a list index (0, 1, ...)", "")
		}
		if idx > len(n.Content) {
			return st.fail(indexPath(done, idx), "an index past the end of a list of "+strconv.Itoa(len(n.Content)), "an index in [0, "+strconv.Itoa(len(n.Content))+"] (the last one appends)", "")
		}
		p := indexPath(done, idx)
		rest := toks[1:]
		if len(rest) == 0 {
			if idx == len(n.Content) {
				n.Content = append(n.Content, val)
			} else {
				n.Content[idx] = val
			}
			return nil
		}
		if idx == len(n.Content) {
			n.Content = append(n.Content, st.containerFor(elem, rest[0]))
		}
		return st.walk(n.Content[idx], elem, rest, p, val)
	case asMap:
		if n.Kind != yaml.MappingNode {
			return st.fail(done, describe(n), "a mapping to set keys in (set "+done+" as a whole instead)", "")
		}
		var key string
		var child *shape
		k := 0
		if sh.kind == shFreeMap && sh.elem.kind == shScalar {
			// Free keys of scalars may hold dots (Kafka's config names): the rest of the
			// path is the key.
			key, child, k = strings.Join(toks, "."), sh.elem, len(toks)
		} else if sh.kind == shFreeMap {
			key, child, k = toks[0], sh.elem, 1
		} else {
			for k = len(toks); k > 0; k-- {
				if c := sh.lookup(strings.Join(toks[:k], ".")); c != nil {
					key, child = strings.Join(toks[:k], "."), c
					break
				}
			}
			if k == 0 {
				keys := sh.keys()
				sug := suggest(strings.Join(toks, "."), keys)
				if sug == "" {
					sug = suggest(toks[0], keys)
				}
				exp := "a key of " + sectionName(done)
				if sug == "" {
					exp += ": " + strings.Join(keys, ", ")
				}
				return st.fail(joinPath(done, strings.Join(toks, ".")), "an unknown key", exp, sug)
			}
		}
		if child == nil {
			child = scalar
		}
		p := joinPath(done, key)
		rest := toks[k:]
		var cur *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				cur = n.Content[i+1]
				if len(rest) == 0 {
					n.Content[i+1] = val
					return nil
				}
			}
		}
		if cur == nil {
			kn := st.newNode(yaml.ScalarNode)
			kn.Tag, kn.Value = "!!str", key
			if len(rest) == 0 {
				n.Content = append(n.Content, kn, val)
				return nil
			}
			cur = st.containerFor(child, rest[0])
			n.Content = append(n.Content, kn, cur)
		}
		return st.walk(cur, child, rest, p, val)
	}
	return st.fail(joinPath(done, strings.Join(toks, ".")), "a path below "+describe(n), "a path that ends at "+sectionName(done)+" (it takes a single value)", "")
}
