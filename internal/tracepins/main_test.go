package tracepins

import (
	"os"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
)

// Each pinned run is one simulation on one goroutine: one processor under -race.
func TestMain(m *testing.M) {
	testmode.OneProcUnderRace()
	os.Exit(m.Run())
}
