package explore

import "github.com/sharesim/sharesim/checker/spcheck"

// Symmetry reduction. Members are interchangeable: they have the same configuration and the
// explorer offers every member the same steps, so renaming the members of a state gives a
// state with the same behaviour up to the same renaming (the invariants do not look at member
// names). The explorer therefore stores each state in canonical form: of the encodings under
// every renaming of the members, the least (bytewise). Two states that differ only by a
// renaming share a fingerprint, so each orbit is explored once. Breadth-first distances are
// the same in the quotient graph, so shortest counterexamples keep their length; the path is
// mapped back to the real member names by composing the renamings along it (realPath).

// perms[n] lists the permutations of n members; perms[n][0] is the identity.
var perms = [4][][]int16{
	nil,
	{{0}},
	{{0, 1}, {1, 0}},
	{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}},
}

// canonicalSP appends the share-partition's encoding and the waiting read under the renaming
// that makes it least and returns it with the renaming's index in perms[members] (the first
// such index, as when every renaming is encoded and compared in order).
//
// Renaming members changes only the owner bytes of the share-partition's encoding
// (model.StateCodec.OwnerBytes) and the waiting read's member byte, each to the renamed
// member plus one. Two renamings' encodings therefore compare as the sequences of renamed
// owners at those bytes, in order: the state is encoded once, the renamings are compared on
// the owners alone, and the least one is written into the owner bytes.
func (h *harness) canonicalSP(b []byte) ([]byte, uint8) {
	b = h.codec.Append(b, h.sp)
	if !h.sc.Symmetry || len(h.members) < 2 {
		return h.rd.appendRead(b, nil), 0
	}
	pos := h.codec.OwnerBytes()
	if len(h.members) == 2 {
		// Two members: the renaming that makes the first owner (or, with none, the waiting
		// read's member) m1 is the least.
		first := -1
		switch {
		case len(pos) > 0:
			first = int(b[pos[0]]) - 1
		case h.rd.on:
			first = int(h.rd.m)
		}
		if first != 1 {
			return h.rd.appendRead(b, nil), 0
		}
		p := perms[2][1]
		for _, at := range pos {
			b[at] = byte(p[b[at]-1] + 1)
		}
		return h.rd.appendRead(b, p), 1
	}
	seq := h.owners[:0]
	for _, p := range pos {
		seq = append(seq, int16(b[p])-1)
	}
	if h.rd.on {
		seq = append(seq, int16(h.rd.m))
	}
	h.owners = seq
	if len(seq) == 0 {
		return h.rd.appendRead(b, nil), 0
	}
	ps := perms[len(h.members)]
	best := 0
	for i := 1; i < len(ps); i++ {
		p, q := ps[i], ps[best]
		for _, o := range seq {
			if p[o] != q[o] {
				if p[o] < q[o] {
					best = i
				}
				break
			}
		}
	}
	if best == 0 {
		return h.rd.appendRead(b, nil), 0
	}
	p := ps[best]
	for _, at := range pos {
		b[at] = byte(p[b[at]-1] + 1)
	}
	return h.rd.appendRead(b, p), uint8(best)
}

// withMember returns a with its member operand renamed by m (fetch, ack, leave).
func withMember(a Action, m []int16) Action {
	switch a.kind() {
	case actFetch, actAck, actLeave, actRead:
		return mk(a.kind(), int(m[a.a()]), a.b(), a.c(), a.d())
	}
	return a
}

// realPath maps the actions from the root to state id, then last (all in the canonical
// frames they were taken in), to the real member names.
func realPath(pl *parentLog, members int, id uint32, last Action) []Action {
	type link struct {
		act Action
		sym uint8
	}
	var chain []link
	for s := id; s != 0; {
		par, act, sym := pl.get(s)
		chain = append(chain, link{act, sym})
		s = par
	}
	m := make([]int16, max(members, 1))
	for i := range m {
		m[i] = int16(i)
	}
	next := make([]int16, len(m))
	out := make([]Action, 0, len(chain)+1)
	for i := len(chain) - 1; i >= 0; i-- {
		s := chain[i]
		out = append(out, withMember(s.act, m))
		if s.sym == 0 {
			continue
		}
		// The child was stored renamed by p: canonical member k is raw member p⁻¹(k),
		// which is real member m[p⁻¹(k)].
		p := perms[members][s.sym]
		for raw, k := range p {
			next[k] = m[raw]
		}
		m, next = next, m
	}
	return append(out, withMember(last, m))
}

// realMessage replays f's real path (member names as realPath gives them) on a live harness
// and returns the message of f's invariant at its last step, so that it names the members the
// replay names; the canonical frame the violation was met in may have renamed them. It
// returns f.Message when the replay does not break the same invariant (it always should).
func realMessage(sc *Scope, f *Found) string {
	if len(f.Path) == 0 || !sc.Symmetry || sc.Members < 2 {
		return f.Message
	}
	h, err := newHarness(sc)
	if err != nil {
		return f.Message
	}
	h.live = true
	var prev, cur spcheck.View
	var st spcheck.Step
	for i, a := range f.Path {
		last := i == len(f.Path)-1
		if last {
			prev.Capture(h.sp)
		}
		accepted := h.accepted
		st = spcheck.Step{}
		if err := h.apply(a, &st); err != nil {
			return f.Message
		}
		if !last {
			continue
		}
		cur.Capture(h.sp)
		acceptedFn := func(off int64) bool { return off >= 0 && off < 64 && accepted&(1<<uint(off)) != 0 }
		if v := spcheck.Check(&h.cfg, h.sp, &prev, &cur, &st, acceptedFn, false); v != nil && v.Invariant == f.Invariant {
			return v.Msg
		}
		if name, v := strictFinding(&h.cfg, &prev, &cur, &st, acceptedFn); name != "" && name == f.Finding && v.Invariant == f.Invariant {
			return v.Msg
		}
	}
	return f.Message
}
