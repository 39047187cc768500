#pragma once
// A fleet index of tests/data/fleet/tree, made by the library behind `gapscope index` (the
// fleet page's tests read it as a user's database).

#include "model/fleet/FleetIndex.h"

#include <QString>

namespace gapscope::test {

// Indexes the test tree into output: empty when it gave its 12 runs, else why not.
inline QString indexTestFleet(const QString& output)
{
    FleetIndexRequest request;
    request.roots = {QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fleet/tree")};
    request.output = output;
    request.threads = 2;
    FleetIndexSummary summary;
    QString error;
    if (!indexFleet(request, &summary, &error))
        return error;
    return summary.runs == 12 ? QString() : QStringLiteral("%1 runs, not the tree's 12").arg(summary.runs);
}

} // namespace gapscope::test
