package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzCommandLine parses fuzzed command lines with every subcommand's flags (without
// running the command): parsing never panics, and a flag error never shows the parser's
// conversion wording (strconv, time).
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"run\x00quickstart\x00--seed\x00-1", "sweep\x00q\x00--seeds\x001..x\x00--shard\x005/5",
		"run\x00q\x00--lin-time-limit\x005x", "sweep\x00q\x00--jobs\x00-3\x00--set\x00a=[1,2],[3]",
		"check\x00--workers\x00x", "run\x00--set", "validate\x00-", "shrink\x00q\x00--max-runs\x00999999999999999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		root := newRoot(io.Discard, io.Discard)
		cmd, rest, err := root.Find(args)
		if err != nil || cmd == nil {
			return
		}
		if err := cmd.ParseFlags(rest); err != nil {
			if msg := flagMessage(err); strings.Contains(msg, "strconv.") || strings.Contains(msg, "time: ") {
				t.Fatalf("flag error in the parser's words: %s", msg)
			}
		}
	})
}

// FuzzSweepArguments feeds --seeds, --shard and --set values to their parsers: no panic,
// every error is a usage error, and a grid's values joined by commas split back the same.
func FuzzSweepArguments(f *testing.F) {
	f.Add("1..3", "1/2", "swarm.kinds=[kill],[kill, hang]")
	f.Add("5..1", "0/0", "a=")
	f.Add("x", "3/2", "d=1s,'2,s',{a: 1}")
	f.Fuzz(func(t *testing.T, seeds, shard, set string) {
		usage := func(err error) {
			var ee *exitError
			if err != nil && (!errors.As(err, &ee) || ee.code != exitUsage) {
				t.Fatalf("error %v is not a usage error", err)
			}
		}
		if s, err := parseSeeds(seeds); err == nil && (len(s) == 0 || len(s) > maxSeeds) {
			t.Fatalf("%q gives %d seeds", seeds, len(s))
		} else {
			usage(err)
		}
		if i, n, err := parseShard(shard); err == nil && (i < 1 || i > n) {
			t.Fatalf("%q gives shard %d/%d", shard, i, n)
		} else {
			usage(err)
		}
		axes, _, err := grid([]string{set})
		usage(err)
		if err == nil {
			again, ok := splitValues(strings.Join(axes[0].Values, ","))
			if !ok || strings.Join(again, "\x00") != strings.Join(axes[0].Values, "\x00") {
				t.Fatalf("%q: values %q split back as %q", set, axes[0].Values, again)
			}
		}
	})
}
