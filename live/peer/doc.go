// Package peer drives one share-partition through the same sequence of steps on two peers
// and says where their answers differ: a broker over the Kafka protocol (kfake, franz-go's
// in-process fake cluster, through raw ShareFetch, ShareAcknowledge and
// DescribeShareGroupOffsets requests) and sharesim's pure core (model/) at Kafka 4.2.
//
// A Step is one client action: produce a batch, fetch as a member, acknowledge ranges, wait
// past the acquisition lock, or leave (close the member's share session). Each side turns a
// step into an Outcome (what the client sees: acquired ranges with delivery counts, the
// acknowledgement's error code, and the share-partition start offset and lag that
// DescribeShareGroupOffsets reports). Diff compares two outcomes; Classify names the known
// deviation (package live/deviation) a disagreement is an instance of, or none.
//
// The broker side makes lock expiry deterministic without sleeping: the lock duration is one
// hour and kfake's sweep ticker is off, so no lock can fire between steps; a wait sets the
// lock duration to 0 and the sweep interval to 1 ms, confirms that a sweep ran by watching a
// canary record of its own group come back, and restores both (see Broker.Wait). This relies
// on kfake reading the lock duration at sweep time, itself the catalogued deviation
// lock-sweep-timing.
package peer
