package main

import (
	"bytes"
	"strings"
	"testing"
)

// sharesim live refuses what a client cannot do, naming the key, and bad flag
// combinations, before it starts anything (exit 2).
func TestLiveRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"live", "leader-failover"}, "faults[kind=leader-failover]"},
		{[]string{"live", "quickstart", "--tls"}, "--tls and --sasl-* need --bootstrap"},
		{[]string{"live", "quickstart", "--repeat", "0"}, "--repeat 0"},
		{[]string{"live", "quickstart", "--bootstrap", "localhost:1", "--sasl-mechanism", "GSSAPI", "--sasl-user", "u"}, "--sasl-mechanism"},
		{[]string{"live", "quickstart", "--time-scale", "-1"}, "--time-scale -1"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
