//go:build !linux

package explore

import "os"

// mapRun does not map runs here: lookups read their page with ReadAt (diskmap_linux.go maps).
func mapRun(f *os.File, size int64) ([]byte, error) { return nil, nil }

func unmapRun(b []byte) {}
