// Package scenarios reads sharesim scenario files: YAML descriptions of either a simulated
// workload (topics, producers, share or classic groups, consumers, faults; turned into a
// sim.Config) or a scripted sequence of operations on one share-partition (driven directly
// through package model, with expectations after any step).
//
// Loading is strict: unknown keys, wrong types, malformed durations, rates, probabilities
// and distributions, and values outside Kafka's ranges are reported as *Error values that
// carry the file, line, column and key path. The format is documented in docs/scenarios.md.
// A library of built-in scenarios is embedded (List, Builtin).
package scenarios

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/sim"
)

// Kind is the kind of a scenario.
type Kind string

// Scenario kinds.
const (
	KindWorkload Kind = "workload" // a simulated world (sim.Config)
	KindScripted Kind = "scripted" // explicit steps against one share-partition
)

// Info describes a built-in scenario.
type Info struct {
	Name      string
	Title     string
	Questions []int
	Kind      Kind
}

// Stdin is what LoadAny("-") reads (a variable so that tests can replace it); StdinName is
// the file name its messages use.
var (
	Stdin     io.Reader = os.Stdin
	StdinName           = "<stdin>"
)

// maxFileSize bounds what Parse accepts.
const maxFileSize = 4 << 20

// Scenario is a loaded, validated scenario. Set changes it; every accessor reflects the
// overrides applied so far.
type Scenario struct {
	file   string
	doc    *yaml.Node // the document node, edited by Set
	origin map[*yaml.Node]string

	meta   meta
	cfg    sim.Config // workload scenarios
	script *Script    // scripted scenarios
}

type meta struct {
	kind        Kind
	name        string
	title       string
	description string
	questions   []int
	seed        uint64
	checks      []string
	focus       []string
}

// Name is the scenario's name (the name key, else the file name without .yaml).
func (s *Scenario) Name() string { return s.meta.name }

// Title is the one-line title (the name if the file has none).
func (s *Scenario) Title() string { return s.meta.title }

// Description is the free-text description: what the scenario shows and what to look at.
func (s *Scenario) Description() string { return s.meta.description }

// Questions are the numbers of the user questions it answers (Questions, docs/questions.md).
func (s *Scenario) Questions() []int { return append([]int(nil), s.meta.questions...) }

// Focus names the figures that answer the scenario's question (FocusMetrics); a run's
// summary states them first.
func (s *Scenario) Focus() []string { return append([]string(nil), s.meta.focus...) }

// Kind is workload or scripted.
func (s *Scenario) Kind() Kind { return s.meta.kind }

// Seed is the seed a run uses unless the caller gives another (default 1).
func (s *Scenario) Seed() uint64 { return s.meta.seed }

// Checks are the names of the checks to run (see KnownChecks); "all" stands for every one.
func (s *Scenario) Checks() []string { return append([]string(nil), s.meta.checks...) }

// File is the file name the scenario was loaded from (for built-ins,
// scenarios/library/NAME.yaml).
func (s *Scenario) File() string { return s.file }

// SimConfig returns the simulator configuration of a workload scenario (a fresh copy on
// every call).
func (s *Scenario) SimConfig() (sim.Config, error) {
	if s.meta.kind != KindWorkload {
		return sim.Config{}, &Error{File: s.file, Path: "kind", Found: string(s.meta.kind), Expected: "a workload scenario (scripted scenarios run with RunScript)"}
	}
	return cloneConfig(s.cfg), nil
}

// Script returns the steps of a scripted scenario.
func (s *Scenario) Script() (*Script, error) {
	if s.meta.kind != KindScripted || s.script == nil {
		return nil, &Error{File: s.file, Path: "kind", Found: string(s.meta.kind), Expected: "a scripted scenario (workload scenarios run with SimConfig and the simulator)"}
	}
	c := *s.script
	c.Steps = append([]Step(nil), s.script.Steps...)
	return &c, nil
}

func cloneConfig(c sim.Config) sim.Config {
	c.Topics = append([]sim.Topic(nil), c.Topics...)
	c.Producers = append([]sim.Producer(nil), c.Producers...)
	groups := make([]sim.Group, len(c.Groups))
	for i, g := range c.Groups {
		g.Topics = append([]string(nil), g.Topics...)
		g.Consumers = append([]sim.ConsumerSpec(nil), g.Consumers...)
		groups[i] = g
	}
	if c.Groups != nil {
		c.Groups = groups
	}
	c.Faults = append([]sim.Fault(nil), c.Faults...)
	if c.Swarm != nil {
		sw := *c.Swarm
		sw.Kinds = append([]sim.FaultKind(nil), sw.Kinds...)
		c.Swarm = &sw
	}
	return c
}

// Load reads and validates a scenario file.
// Reads are bounded in size (4 MiB) and time (ReadTimeout) whatever the file is: a
// regular file, a device, a FIFO.
func Load(file string) (*Scenario, error) {
	data, err := readScenarioFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse reads and validates a scenario from data; name is the file name used in messages
// and, without its directory and .yaml extension, the default scenario name.
func Parse(name string, data []byte) (*Scenario, error) {
	doc, perr := parseYAML(name, data)
	if perr != nil {
		return nil, perr
	}
	s := &Scenario{file: name, doc: doc, origin: map[*yaml.Node]string{}}
	if err := s.decode(); err != nil {
		return nil, err
	}
	return s, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseYAML parses exactly one YAML document into a node tree.
func parseYAML(name string, data []byte) (doc *yaml.Node, err *Error) {
	whole := func(found, expected string) *Error {
		return &Error{File: name, Found: found, Expected: expected}
	}
	if len(data) > maxFileSize {
		return nil, whole(fmt.Sprintf("a file of %d bytes", len(data)), fmt.Sprintf("at most %d bytes", maxFileSize))
	}
	if e := checkText(name, data); e != nil {
		return nil, e
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, whole("YAML the parser could not read", "a valid YAML document")
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if e := dec.Decode(&n); e != nil {
		if e == io.EOF {
			return nil, whole("an empty file", "a YAML mapping with the scenario's keys")
		}
		return nil, yamlSyntaxError(name, data, e)
	}
	var extra yaml.Node
	if e := dec.Decode(&extra); e != io.EOF {
		if e != nil {
			return nil, yamlSyntaxError(name, data, e)
		}
		return nil, &Error{File: name, Line: extra.Line, Column: extra.Column, Found: "a second YAML document", Expected: "one document per file"}
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, whole("an empty document", "a YAML mapping with the scenario's keys")
	}
	return &n, nil
}

// yamlSyntaxError turns the YAML parser's error into an *Error with a line and a column:
// the parser gives a line only, so the column is found in the text (the tab in the
// indentation, the bracket too deep, else where the line's content starts).
func yamlSyntaxError(name string, data []byte, e error) *Error {
	msg := strings.TrimPrefix(e.Error(), "yaml: ")
	out := &Error{File: name, Found: "invalid YAML", Expected: "valid YAML"}
	if strings.Contains(msg, "max depth") {
		if l, c, ok := flowTooDeep(data, maxDepth); ok {
			return &Error{File: name, Line: l, Column: c, Found: fmt.Sprintf("brackets nested deeper than %d levels", maxDepth), Expected: "a shallower document"}
		}
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if l, err := strconv.Atoi(m[1]); err == nil && l > 0 {
			out.Line = l
			msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ":"))
		}
	}
	out.Found = "invalid YAML (" + msg + ")"
	if out.Line > 0 {
		// The parser reports a tab that breaks the indentation at the line before it.
		if strings.Contains(msg, "tab character") && !strings.Contains(lineText(data, out.Line), "\t") && strings.Contains(lineText(data, out.Line+1), "\t") {
			out.Line++
		}
		text := lineText(data, out.Line)
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		if i := strings.IndexByte(text[:indent], '\t'); i >= 0 {
			out.Column = i + 1
			out.Found = "a tab in the indentation"
			out.Expected = "spaces (YAML indents with spaces only)"
		} else if i := strings.IndexByte(text, '\t'); i >= 0 && strings.Contains(msg, "cannot start any token") {
			out.Column = i + 1
			out.Found = "a tab where a value starts"
			out.Expected = "spaces (YAML does not accept tabs there)"
		} else {
			out.Column = indent + 1
		}
	}
	return out
}

// maxDepth is the deepest nesting the loader accepts.
const maxDepth = 200

// lineText returns line l (1-based) of data without its line break.
func lineText(data []byte, l int) string {
	for i := 1; i < l; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return strings.TrimSuffix(string(data), "\r")
}

// flowTooDeep finds the first '[' or '{' nested deeper than limit, outside quotes and
// comments: the parser stops far later, with no position.
func flowTooDeep(data []byte, limit int) (line, col int, ok bool) {
	line, col = 1, 0
	depth := 0
	var quote byte
	comment := false
	for _, c := range data {
		col++
		switch {
		case c == '\n':
			line, col, comment = line+1, 0, false
			continue
		case comment:
			continue
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '#':
			comment = true
		case '[', '{':
			depth++
			if depth > limit {
				return line, col, true
			}
		case ']', '}':
			depth--
		}
	}
	return 0, 0, false
}

// checkText refuses what is not text before the YAML parser sees it, with the line and
// column of the first offending byte: invalid UTF-8 (binary files, other encodings) and
// control characters other than tab, line feed and carriage return.
func checkText(name string, data []byte) *Error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &Error{File: name, Line: line, Column: col, Found: fmt.Sprintf("the byte 0x%02x, which is not UTF-8 text (a binary file or another encoding?)", data[i]),
				Expected: "a UTF-8 text file"}
		case r == '\n':
			line, col = line+1, 0
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return &Error{File: name, Line: line, Column: col, Found: fmt.Sprintf("the control character %U (a binary file?)", r), Expected: "a UTF-8 text file"}
		}
		i += size
		col++
	}
	return nil
}

// decode validates the node tree and fills the decoded fields; on error nothing changes.
func (s *Scenario) decode() error {
	d := &decoder{file: s.file, origin: s.origin}
	root := s.doc.Content[0]
	d.checkTree(root, 0)
	if d.failed() {
		return d.joined()
	}
	m, cfg, script := d.scenario(root, defaultName(s.file))
	if d.failed() {
		return d.joined()
	}
	s.meta, s.cfg, s.script = m, cfg, script
	return nil
}

func defaultName(file string) string {
	base := strings.Trim(path.Base(strings.ReplaceAll(file, "\\", "/")), "<>")
	for _, ext := range []string{".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	var b strings.Builder
	for _, c := range base {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "scenario"
	}
	return b.String()
}

// Canonical returns the scenario as YAML with every override applied and its name written
// out, so that Parse of the result gives the same scenario (for result folders and replay).
// Comments and key order of the original file are kept.
func (s *Scenario) Canonical() ([]byte, error) {
	doc := cloneNode(s.doc, nil, nil)
	root := doc.Content[0]
	if root.Kind == yaml.MappingNode {
		has := false
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "name" {
				has = true
			}
		}
		if !has {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "name"}
			v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.meta.name}
			root.Content = append([]*yaml.Node{k, v}, root.Content...)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, &Error{File: s.file, Found: "a tree the YAML encoder rejected (" + err.Error() + ")", Expected: "an encodable scenario"}
	}
	if err := enc.Close(); err != nil {
		return nil, &Error{File: s.file, Found: "a tree the YAML encoder rejected (" + err.Error() + ")", Expected: "an encodable scenario"}
	}
	return buf.Bytes(), nil
}

// cloneNode deep-copies a node tree; if origin maps are given, override marks follow the
// copies.
func cloneNode(n *yaml.Node, from, to map[*yaml.Node]string) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = cloneNode(x, from, to)
	}
	if from != nil {
		if o, ok := from[n]; ok {
			to[&c] = o
		}
	}
	return &c
}

//go:embed library/*.yaml library/scripted/*.yaml
var library embed.FS

type builtin struct {
	file string // path inside library
	info Info
}

var (
	builtinsOnce sync.Once
	builtinsMap  map[string]builtin
)

// builtins indexes the embedded library on first use.
func builtins() map[string]builtin {
	builtinsOnce.Do(func() { builtinsMap = indexLibrary() })
	return builtinsMap
}

func indexLibrary() map[string]builtin {
	out := map[string]builtin{}
	_ = fs.WalkDir(library, "library", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return nil
		}
		data, err := library.ReadFile(p)
		if err != nil {
			return nil
		}
		s, perr := Parse("scenarios/"+p, data)
		if perr != nil {
			return nil // the library test reports it
		}
		out[s.Name()] = builtin{file: p, info: Info{Name: s.Name(), Title: s.Title(), Questions: s.Questions(), Kind: s.Kind()}}
		return nil
	})
	return out
}

// List returns the built-in scenarios: workload scenarios first, then scripted ones, each
// sorted by name.
func List() []Info {
	out := make([]Info, 0, len(builtins()))
	for _, b := range builtins() {
		in := b.info
		in.Questions = append([]int(nil), in.Questions...)
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind == KindWorkload
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Builtin loads a built-in scenario by name.
func Builtin(name string) (*Scenario, error) {
	b, ok := builtins()[name]
	if !ok {
		names := make([]string, 0, len(builtins()))
		for n := range builtins() {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &Error{Found: fmt.Sprintf("no built-in scenario %q", name), Expected: "one of " + strings.Join(names, ", "), Suggestion: suggest(name, names)}
	}
	data, err := library.ReadFile(b.file)
	if err != nil {
		return nil, &Error{File: "scenarios/" + b.file, Found: "an unreadable embedded file", Expected: "a readable scenario"}
	}
	return Parse("scenarios/"+b.file, data)
}

// LoadAny loads a built-in scenario by name or, if the argument names an existing file
// (or looks like a path: it contains a slash or ends in .yaml/.yml), that file.
// The name "-" reads standard input (Stdin).
func LoadAny(nameOrPath string) (*Scenario, error) {
	if nameOrPath == "-" {
		return ReadFrom(StdinName, Stdin)
	}
	if st, err := os.Stat(nameOrPath); err == nil && !st.IsDir() {
		return Load(nameOrPath)
	}
	if strings.ContainsAny(nameOrPath, "/\\") || strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml") {
		return Load(nameOrPath)
	}
	if _, ok := builtins()[nameOrPath]; ok {
		return Builtin(nameOrPath)
	}
	_, err := Builtin(nameOrPath)
	var e *Error
	if errors.As(err, &e) {
		e.Found = fmt.Sprintf("%q, which is neither a file nor a built-in scenario", nameOrPath)
		e.Expected = "a scenario file or a built-in name (sharesim list)"
	}
	return nil, err
}

// BuiltinYAML returns a built-in scenario's file as shipped, comments and all (a starting
// point for one's own scenario).
func BuiltinYAML(name string) ([]byte, error) {
	b, ok := builtins()[name]
	if !ok {
		_, err := Builtin(name)
		return nil, err
	}
	data, err := library.ReadFile(b.file)
	if err != nil {
		return nil, &Error{File: "scenarios/" + b.file, Found: "an unreadable embedded file", Expected: "a readable scenario"}
	}
	return data, nil
}
