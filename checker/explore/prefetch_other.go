//go:build !amd64

package explore

// prefetch does nothing on this architecture (see prefetch_amd64.go).
func prefetch(p *uint64) {}
