package rng

// FNV-1a 64-bit parameters.
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

// Domain-separation constants, so that a stream seed and a Derive sub-seed
// for the same name never coincide. Their values are arbitrary but fixed:
// changing them changes every simulation.
const (
	domainStream = 0x73747265616d0001 // "stream" + 1
	domainDerive = 0x6465726976650002 // "derive" + 2
)

// fnv1a64 hashes s with 64-bit FNV-1a. It is a fixed, documented function
// of the bytes of s, unlike hash/maphash, which is randomly seeded per
// process.
func fnv1a64(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// StreamSeed returns the seed of the stream called name under root seed
// root: mix64(mix64(root^domainStream) ^ fnv1a64(name)). It is a pure
// function; Streams.Stream(name) returns New(StreamSeed(root, name)).
func StreamSeed(root uint64, name string) uint64 {
	return mix64(mix64(root^domainStream) ^ fnv1a64(name))
}

// Derive returns a sub-seed for item index of the family called name under
// root seed root, for example one seed per consumer. It is a pure function
// of (root, name, index). For a fixed (root, name), distinct indices give
// distinct sub-seeds (the construction is a bijection in index). Sub-seeds
// are separated from stream seeds, so Derive(root, n, i) is unrelated to
// StreamSeed(root, n).
func Derive(root uint64, name string, index uint64) uint64 {
	return NewDeriver(root, name).Derive(index)
}

// Deriver is Derive for one family (root, name) with the part that depends only on the
// family computed once: NewDeriver(root, name).Derive(i) == Derive(root, name, i) for every
// i, at the cost of one mix64 per call instead of three and a hash of name. The zero Deriver
// is not a family of any seed; build one with NewDeriver.
type Deriver struct{ base uint64 }

// NewDeriver returns the Deriver of the family called name under root seed root.
func NewDeriver(root uint64, name string) Deriver {
	return Deriver{base: mix64(StreamSeed(root, name) ^ domainDerive)}
}

// Derive returns the sub-seed of item index of d's family.
func (d Deriver) Derive(index uint64) uint64 { return mix64(d.base ^ index) }

// Streams hands out named, independent generators derived from one root
// seed. Each stream's seed depends only on the root seed and the stream's
// name, never on which other streams exist or in what order they were
// created, so adding, removing or reordering draws on one stream cannot
// change the values seen on any other.
//
// Streams keeps its generators in a map, but only for lookup by name; map
// iteration order never influences any result. A Streams is not safe for
// concurrent use. The zero value is not usable; use NewStreams.
type Streams struct {
	root   uint64
	byName map[string]*Rand
}

// NewStreams returns a set of streams rooted at seed root.
func NewStreams(root uint64) *Streams {
	return &Streams{root: root, byName: make(map[string]*Rand)}
}

// Root returns the root seed.
func (s *Streams) Root() uint64 { return s.root }

// Stream returns the generator for name, creating it on first use seeded
// with StreamSeed(root, name). Later calls with the same name return the
// same *Rand, whose state reflects every draw made on it so far.
func (s *Streams) Stream(name string) *Rand {
	if r, ok := s.byName[name]; ok {
		return r
	}
	r := New(StreamSeed(s.root, name))
	s.byName[name] = r
	return r
}

// Derive returns Derive(root, name, index) for this set's root seed. It does
// not create a stream or consume any draws.
func (s *Streams) Derive(name string, index uint64) uint64 {
	return Derive(s.root, name, index)
}
