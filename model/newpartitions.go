package model

// Initialising the durable state of a share-partition that a share group starts to read
// (§8.1): the start offset the group coordinator hands the share coordinator in
// InitializeShareGroupState.

// UnsetStartOffset is the stored start offset that leaves the choice to
// share.auto.offset.reset: the leader resolves it when it first loads the share-partition
// (ResolveStartOffset), not when the state is initialised.
const UnsetStartOffset int64 = -1

// InitialStartOffset is the start offset the group coordinator stores for a share-partition
// it initialises. topicKnown says whether the group already had the partition's topic in its
// share-partition metadata (initialised or initialising) when the partition appeared, as it
// does for partitions added to a topic the group reads.
//
// Up to Kafka 4.3 every new share-partition is stored with UnsetStartOffset, so new
// partitions of a known topic start where share.auto.offset.reset points when their leader
// first loads them: with latest (the default), records produced to them before that are
// never offered to the group. From Kafka 4.4 (KAFKA-20742, GroupMetadataManager's
// maybeCreateInitializeShareGroupStateRequest and buildInitializeShareGroupStateRequest)
// new partitions of a known topic start at offset 0; a topic seen for the first time still
// uses UnsetStartOffset.
func InitialStartOffset(v Version, topicKnown bool) int64 {
	if topicKnown && v >= Kafka44 {
		return 0
	}
	return UnsetStartOffset
}
