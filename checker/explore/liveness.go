package explore

import (
	"fmt"
	"strings"

	"github.com/sharesim/sharesim/checker/spcheck"
)

// Liveness: from every reachable state the share-partition must still be able to make
// progress once faults stop. Faults are the steps nobody has to take: a state write failing,
// the leader failing over and the log start moving. Every other step — fetches,
// acknowledgements of any type, locks firing (time passing), writes succeeding, stale writes
// arriving, sessions ending — may be taken on the way out. A state is settled when every
// record below the log end is terminal with no write outstanding, or lies below the log
// start offset, or below SPSO and out of the cache (finished). Progress is possible from a
// state when some fault-free path leads from it to a settled state; a state from which none
// does is stuck. Since every AVAILABLE record at or above SPSO must be acquired before it can
// become terminal, a partition whose fetches cannot acquire it is stuck too.
//
// The check is backward reachability over the explored graph: the BFS stores, for every state,
// the ids of its fault-free successors (4 bytes per edge, CSR layout); afterwards the reverse
// edges are built and every state that reaches a settled state is marked by a backward BFS
// from the settled ones. It is exact for a complete search of the scope (the fault-free
// successors of a reachable state are reachable). The first unmarked state in BFS order is a
// stuck state at the least depth; its path comes from the parent pointers.

// LivenessInvariant names the progress property in results.
const LivenessInvariant = "progress-after-faults"

// LivenessResult is what the progress check found.
type LivenessResult struct {
	// Settled is the number of settled states; Stuck the number of states from which no
	// fault-free path reaches one; Edges the number of fault-free transitions stored.
	Settled, Stuck int
	Edges          int64
	// First is the shallowest stuck state's path (nil when none is stuck).
	First *Found
}

// recovery reports whether an action may be taken after faults stop.
func (a Action) recovery() bool {
	switch a.kind() {
	case actFail, actFailover, actLogStart:
		return false
	}
	return true
}

// settled reports whether every record below the log end is finished in the state v
// (captured from h.sp): terminal with no write outstanding, below the log start, or below
// SPSO and no longer cached.
func (h *harness) settled(v *spcheck.View) bool {
	ri := 0
	for off := h.logStart; off < h.hw; off++ {
		for ri < len(v.Recs) && v.Recs[ri].Offset < off {
			ri++
		}
		if ri < len(v.Recs) && v.Recs[ri].Offset == off {
			r := &v.Recs[ri]
			if !r.State.Terminal() || r.Pending {
				return false
			}
			continue
		}
		if off >= v.SPSO {
			return false
		}
	}
	return true
}

// graph holds the fault-free edges of the explored states.
type graph struct {
	eoff  []uint32 // state s's successors are edges[eoff[s]:eoff[s+1]]
	edges []uint32
	goal  []uint64  // bit set of settled states
	n     int       // states expanded so far
	disk  *liveDisk // the edges on disk once spilled (livespill.go); eoff and edges are then unused
}

func (g *graph) bytes() int64 {
	if g == nil {
		return 0
	}
	b := int64(cap(g.eoff)+cap(g.edges))*4 + int64(cap(g.goal))*8
	if g.disk != nil {
		b += g.disk.bytes() + int64(cap(g.goal))*8 // and the reached bits of the check
	}
	return b
}

func (g *graph) close() {
	if g.spilled() {
		g.disk.close()
	}
}

// addWave appends the edges of a merged wave; the chunks' states are the next states in id
// order.
func (g *graph) addWave(set *fpSet, outs []chunkOut) error {
	for ci := range outs {
		o := &outs[ci]
		e := 0
		for k, cnt := range o.ecount {
			if g.n%64 == 0 {
				g.goal = append(g.goal, 0)
			}
			if o.goal[k] {
				g.goal[g.n/64] |= 1 << uint(g.n%64)
			}
			for _, f := range o.efps[e : e+int(cnt)] {
				if g.disk != nil {
					if err := g.disk.addOpen(f, uint32(g.n)); err != nil {
						return err
					}
					continue
				}
				id, ok := set.id(f)
				if !ok {
					return fmt.Errorf("explore: liveness: a successor's fingerprint is not in the set")
				}
				g.edges = append(g.edges, id)
			}
			e += int(cnt)
			g.n++
			if g.disk != nil {
				continue
			}
			if len(g.edges) >= 1<<32-1 {
				return fmt.Errorf("explore: liveness: more than 2^32 edges; use a smaller scope")
			}
			g.eoff = append(g.eoff, uint32(len(g.edges)))
		}
	}
	return nil
}

// maxClassified bounds the stuck states replayed to name their shape.
const maxClassified = 20000

// check runs the backward reachability and reports the shallowest stuck state that is not a
// documented finding; the shallowest stuck state of each finding's shape goes to findings.
func (g *graph) check(sc *Scope, pl *parentLog, findings map[string]*Found) (*LivenessResult, error) {
	n := g.n
	res := &LivenessResult{}
	reach := make([]uint64, len(g.goal))
	for s := 0; s < n; s++ {
		if g.goal[s/64]&(1<<uint(s%64)) != 0 {
			reach[s/64] |= 1 << uint(s%64)
			res.Settled++
		}
	}
	closure := g.closure
	if g.spilled() {
		if err := g.disk.resolve(); err != nil {
			return nil, err
		}
		res.Edges = g.disk.nEdges
		// Backward reachability: a pass marks every source whose target is marked.
		err := g.disk.passes(func(t, s uint32) bool {
			if reach[t/64]&(1<<uint(t%64)) != 0 && reach[s/64]&(1<<uint(s%64)) == 0 {
				reach[s/64] |= 1 << uint(s%64)
				return true
			}
			return false
		})
		if err != nil {
			return nil, err
		}
		closure = g.diskClosure
	} else {
		res.Edges = int64(len(g.edges))
		g.reachBack(reach)
	}
	classified := 0
	for s := 0; s < n; s++ {
		if reach[s/64]&(1<<uint(s%64)) != 0 {
			continue
		}
		res.Stuck++
		if res.First != nil || classified == maxClassified {
			continue
		}
		classified++
		var path []Action
		if s > 0 {
			par, act, _ := pl.get(uint32(s))
			path = realPath(pl, sc.Members, par, act)
		}
		name, h := classifyStuck(sc, path)
		if name != "" && findings[name] != nil {
			continue // a shallower one is known
		}
		f := &Found{Invariant: LivenessInvariant, Path: path, Finding: name}
		c, err := closure(uint32(s))
		if err != nil {
			return nil, err
		}
		f.Message = diagnoseStuck(h, c)
		if name != "" {
			findings[name] = f
		} else {
			res.First = f
		}
	}
	return res, nil
}

// reachBack marks in reach (which holds the settled states) every state from which a
// fault-free path leads to a settled one, by a backward search over the reverse edges.
func (g *graph) reachBack(reach []uint64) {
	n := g.n
	// Reverse edges in CSR form: count, prefix sums, fill.
	roff := make([]uint32, n+1)
	for _, t := range g.edges {
		roff[t+1]++
	}
	for i := 1; i <= n; i++ {
		roff[i] += roff[i-1]
	}
	rev := make([]uint32, len(g.edges))
	fill := make([]uint32, n)
	copy(fill, roff[:n])
	for s := 0; s < n; s++ {
		for _, t := range g.edges[g.eoff[s]:g.eoff[s+1]] {
			rev[fill[t]] = uint32(s)
			fill[t]++
		}
	}
	fill = nil
	queue := make([]uint32, 0, 1024)
	for s := 0; s < n; s++ {
		if reach[s/64]&(1<<uint(s%64)) != 0 {
			queue = append(queue, uint32(s))
		}
	}
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, s := range rev[roff[t]:roff[t+1]] {
			if reach[s/64]&(1<<uint(s%64)) == 0 {
				reach[s/64] |= 1 << uint(s%64)
				queue = append(queue, s)
			}
		}
	}
}

// diskClosure is closure for a spilled graph: passes over the edge file.
func (g *graph) diskClosure(s uint32) (int, error) {
	in := map[uint32]bool{s: true}
	err := g.disk.passes(func(t, src uint32) bool {
		if in[src] && !in[t] {
			in[t] = true
			return true
		}
		return false
	})
	return len(in), err
}

// classifyStuck replays path on a live harness and names the finding whose shape the
// state has ("" for none).
func classifyStuck(sc *Scope, path []Action) (string, *harness) {
	h, err := newHarness(sc)
	if err != nil {
		return "", nil
	}
	h.live = true
	var st spcheck.Step
	for _, a := range path {
		if err := h.apply(a, &st); err != nil {
			return "", nil
		}
	}
	return stuckFinding(h), h
}

// closure counts the states reachable from s by fault-free steps (s included).
func (g *graph) closure(s uint32) (int, error) {
	seen := map[uint32]bool{s: true}
	queue := []uint32{s}
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, u := range g.edges[g.eoff[t]:g.eoff[t+1]] {
			if !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	return len(seen), nil
}

// diagnoseStuck says why the state of h (replayed to it) is stuck: what is unfinished and, when the next fetch offset is what blocks it, why.
func diagnoseStuck(h *harness, closure int) string {
	if h == nil {
		return "the path does not replay"
	}
	var v spcheck.View
	v.Capture(h.sp)
	var open []string
	ri := 0
	for off := h.logStart; off < h.hw; off++ {
		for ri < len(v.Recs) && v.Recs[ri].Offset < off {
			ri++
		}
		if ri < len(v.Recs) && v.Recs[ri].Offset == off {
			r := &v.Recs[ri]
			if !r.State.Terminal() || r.Pending {
				open = append(open, fmt.Sprintf("%d %s%s", off, r.State, pendingMark(r.Pending)))
			}
		} else if off >= v.SPSO {
			open = append(open, fmt.Sprintf("%d not yet fetched", off))
		}
	}
	var b strings.Builder
	nf := h.sp.NextFetchOffset()
	fmt.Fprintf(&b, "no fault-free continuation (fetches, acknowledgements, lock expiry, write successes, leaves: %d states) finishes offsets %s; next fetch offset %d, SPSO %d, log start %d, log end %d",
		closure, strings.Join(open, ", "), nf, v.SPSO, h.logStart, h.hw)
	if nf < h.logStart && h.logStart <= v.SPSO {
		state := "not cached"
		for i := range v.Recs {
			if v.Recs[i].Offset == nf {
				state = v.Recs[i].State.String()
			}
		}
		fmt.Fprintf(&b, ": offset %d is %s below SPSO, so every fetch reads at %d, below the log start, and the out-of-range read's log start %d is ignored because it is not above SPSO", nf, state, nf, h.logStart)
	} else if !h.sp.CanAcquire() {
		b.WriteString(": the in-flight gate stays closed")
	}
	return b.String()
}

func pendingMark(p bool) string {
	if p {
		return " (write outstanding)"
	}
	return ""
}
