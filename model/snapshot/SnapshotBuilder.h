#pragma once
// The SnapshotData of a pickle arena: the arena walked by the snapshot's schema (PyTorch 2.1 to
// 2.11, and the block `history` layout before it), never by recursion. Keys are classified once
// per key node (PyTorch's pickles share every key string through the memo), frames once per frame
// dict node and stacks once per frames list node, then by content, so a stack shared through the
// memo is read once and equal stacks get one id.

#include "model/snapshot/PickleReader.h"
#include "model/snapshot/SnapshotData.h"

#include <QString>

#include <atomic>
#include <memory>

namespace gapscope {

struct SnapshotBuildOutcome
{
    std::shared_ptr<SnapshotData> data; // null when the pickle is not a snapshot
    QString fatalError;                 // why (without the name in front)
    bool cancelled = false;
};

// name: what problems call the input. cancel is polled between trace entries.
SnapshotBuildOutcome buildSnapshot(const PickleArena& arena, const QString& name,
                                   const std::atomic<bool>* cancel = nullptr);

} // namespace gapscope
