package live

import (
	"net"
	"sync"
	"time"
)

// netMode is what an incarnation's network does.
type netMode uint8

const (
	netUp        netMode = iota
	netDead              // killed: connections closed, new ones refused
	netBlackhole         // host lost or cut off: nothing gets through, connections stay open
)

// errNetDown is what a dial returns while the incarnation's network is down.
type errNetDown struct{ why string }

func (e errNetDown) Error() string {
	return "sharesim live: network of this client is down (" + e.why + ")"
}

// connSet holds one client incarnation's connections and its network mode: live mode's
// means to kill a client (drop its connections at once) or cut it off (a lost host: the
// broker sees no reset, the client's writes go nowhere).
type connSet struct {
	mu    sync.Mutex
	mode  netMode
	conns []*modeConn
	hole  chan struct{} // closed when a blackhole ends
}

func newConnSet() *connSet { return &connSet{hole: make(chan struct{})} }

// modeConn applies the set's mode to one connection (under the wire tap, so the tap
// records what the client sent and received).
type modeConn struct {
	net.Conn
	set    *connSet
	closed chan struct{}
	once   sync.Once
}

func (s *connSet) wrap(c net.Conn) (net.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mode != netUp {
		c.Close()
		return nil, errNetDown{"dial refused"}
	}
	mc := &modeConn{Conn: c, set: s, closed: make(chan struct{})}
	s.conns = append(s.conns, mc)
	return mc, nil
}

func (s *connSet) current() (netMode, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode, s.hole
}

func (c *modeConn) Write(p []byte) (int, error) {
	if m, _ := c.set.current(); m == netBlackhole {
		return len(p), nil // the bytes go nowhere, as to a lost host
	}
	return c.Conn.Write(p)
}

func (c *modeConn) Read(p []byte) (int, error) {
	if m, hole := c.set.current(); m == netBlackhole {
		select {
		case <-c.closed:
		case <-hole:
		}
		return 0, errNetDown{"cut off"}
	}
	return c.Conn.Read(p)
}

func (c *modeConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// kill closes every connection and refuses new ones.
func (s *connSet) kill() {
	s.mu.Lock()
	s.mode = netDead
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// blackhole cuts the incarnation off: writes vanish, reads wait, dials are refused.
func (s *connSet) blackhole() {
	s.mu.Lock()
	if s.mode == netUp {
		s.mode = netBlackhole
		s.hole = make(chan struct{})
	}
	s.mu.Unlock()
}

// heal ends a blackhole: the connections that saw it are closed (their byte streams lost
// frames), new ones may be dialled.
func (s *connSet) heal() {
	s.mu.Lock()
	if s.mode != netBlackhole {
		s.mu.Unlock()
		return
	}
	s.mode = netUp
	close(s.hole)
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// sleepCtx waits d or until done is closed; it reports whether the whole wait passed.
func sleepCtx(done <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
		return true
	}
}
