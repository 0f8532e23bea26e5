package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Question is one of the questions users bring to share groups, which the built-in
// scenarios answer (their questions key holds the numbers). docs/questions.md is rendered
// from this table (QuestionsMarkdown; a test keeps the file in step).
type Question struct {
	N     int
	Topic string
	Text  string
}

// Questions are the user questions, numbered from 1 (maxQuestion in all).
var Questions = []Question{
	{1, "Locks and duplicates", "Records take a lognormal time to process (median 8 s, 99th percentile 40 s), the acquisition lock lasts 30 s and 200 records arrive per second: how many records an hour are processed twice, and how many are archived without one successful attempt?"},
	{2, "Locks and duplicates", "With a 60 s lock instead, how many fewer duplicates are there, and how much longer does it take to recover the records of a consumer that hangs?"},
	{3, "Locks and duplicates", "Renewing locks every 20 s (Kafka 4.2, explicit acknowledgement): what does it cost in acknowledgement requests, does it remove the duplicates, and what happens when the renewing thread stalls for 35 s?"},
	{4, "Locks and duplicates", "How much of a lock's time is spent in the client's buffer before the application sees the record, with batch_optimized and with record_limit acquisition?"},
	{5, "Locks and duplicates", "The process dies right after poll() returns: which records are delivered again, with implicit and with explicit acknowledgement?"},
	{6, "Poison records", "One record in 10 000 crashes the consumer that processes it. With a delivery count limit of 5, how long does the start offset stay stuck and how much throughput is lost?"},
	{7, "Poison records", "If the application catches the failure and releases or rejects the record instead, how many deliveries and how much lock time does that save?"},
	{8, "Poison records", "Do the other records of the poison record's producer batch get redelivered or archived with it?"},
	{9, "Poison records", "A downstream service is unavailable for 2 minutes, there is no redelivery backoff and the limit is 5: how many good records are archived, and would a limit of 10, a longer lock or a backoff have kept them?"},
	{10, "Consumers and partitions", "Six partitions receive 3 000 records/s that take 50 ms each: how many consumers keep the lag flat, and from how many on do extra consumers stop helping?"},
	{11, "Consumers and partitions", "With max.poll.records 500 and at most 2 000 in-flight records per share-partition, how many consumers of one partition have work at the same time, and what max.poll.records suits 20 consumers on 2 partitions?"},
	{12, "Consumers and partitions", "When processing times have a heavy tail, how does a share group compare with a classic consumer group of the same size, and which suffers more from one consumer ten times slower than the rest?"},
	{13, "Consumers and partitions", "How does the spread of work change when producers send batches of 1 record instead of 500?"},
	{14, "Consumers and partitions", "How many share-state writes per second does each acknowledgement pattern cause: one acknowledgement per record or batched commits?"},
	{15, "Ordering", "Eight consumers read one partition: what share of same-key record pairs is processed out of order, and how far apart can they get, in offsets and in seconds?"},
	{16, "Failures", "A consumer is killed, cut off by the network or closed cleanly: how long until its records are delivered again, and how many are?"},
	{17, "Failures", "The partition leader fails over while records are being processed: how many are delivered again, can an accepted record come back, can a delivery count go down?"},
	{18, "Failures", "The share coordinator's writes suddenly take 200 ms: what happens to acknowledgement latency, to the start offset's progress and to the in-flight window?"},
	{19, "Retention and offsets", "Retention is one hour and every consumer is down for two: how many records are deleted before anyone sees them, and does the share lag show it?"},
	{20, "Retention and offsets", "Under read_committed, one transaction stays open for 60 s: how long does the partition stall?"},
	{21, "Retention and offsets", "Producers started before the group, which uses share.auto.offset.reset=latest: how many records does the group never see?"},
	{22, "Can this ever happen?", "Can some order of crashes, lock expiries, acknowledgements and leader failovers deliver an accepted record again?"},
	{23, "Can this ever happen?", "Can a produced record end neither acknowledged, nor archived, nor deleted by retention: lost without a trace?"},
	{24, "Can this ever happen?", "Can the start offset stop advancing for good, or a record stay acquired for ever?"},
	{25, "Can this ever happen?", "Can more records be in flight than the cap allows, or one record be held by two consumers at once?"},
	{26, "Changing a running group", "I lower the delivery count limit or raise the lock duration of a running share group: what happens to the records already in flight, and which Kafka versions accept the change?"},
}

// QuestionAnchor is the anchor of question n in docs/questions.md.
func QuestionAnchor(n int) string { return fmt.Sprintf("q%d", n) }

// QuestionsMarkdown renders docs/questions.md: every question with the built-in scenarios
// that answer it.
func QuestionsMarkdown() string {
	by := map[int][]string{}
	for _, in := range List() {
		for _, q := range in.Questions {
			by[q] = append(by[q], in.Name)
		}
	}
	var b strings.Builder
	b.WriteString("# The questions sharesim answers\n\n")
	b.WriteString("The questions users bring to share groups, in our words. Each built-in scenario names the\n")
	b.WriteString("questions it answers (its `questions` key; `sharesim list` shows them); run it, or sweep it,\n")
	b.WriteString("and the answer is a number in the summary or a plot in the report. Questions 22–25 are\n")
	b.WriteString("model-checking questions: `sharesim check` explores them exhaustively on a small scope\n")
	b.WriteString("(docs/checking.md) and the swarm scenario samples them at scale.\n\n")
	b.WriteString("This file is generated from `scenarios/questions.go` (`go test ./scenarios -run TestQuestionsDoc -update`).\n")
	topic := ""
	for _, q := range Questions {
		if q.Topic != topic {
			topic = q.Topic
			fmt.Fprintf(&b, "\n## %s\n", topic)
		}
		names := by[q.N]
		sort.Strings(names)
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n**%d.** %s\n", QuestionAnchor(q.N), q.N, q.Text)
		if len(names) > 0 {
			for i, n := range names {
				names[i] = "`" + n + "`"
			}
			fmt.Fprintf(&b, "Answered by: %s.\n", strings.Join(names, ", "))
		} else {
			b.WriteString("Answered by: no built-in scenario yet.\n")
		}
	}
	return b.String()
}
