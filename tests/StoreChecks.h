#pragma once
// Checks shared by the tests that load one trace two ways (forms, thread counts, shapes) and
// expect the same store: its strings and problems as text, and its counter columns compared.

#include "model/store/TraceData.h"

#include <QString>
#include <QStringList>
#include <QTest>

namespace gapscope::test {

// The interned string id of data's store.
inline QString storedText(const TraceData& data, uint32_t id)
{
    return QString::fromStdString(data.store.str(id));
}

inline QStringList problemTexts(const TraceData& data)
{
    QStringList texts;
    for (const LoadProblem& problem : data.problems.kept())
        texts << problem.toString();
    return texts;
}

// got's row count, timestamps, counters and event types equal want's. QCOMPARE returns from
// here at the first difference: callers check QTest::currentTestFailed() after.
inline void compareCounterColumns(const EventStore& got, const EventStore& want)
{
    QCOMPARE(got.size(), want.size());
    QCOMPARE(got.timestampNs, want.timestampNs);
    QCOMPARE(got.allocated, want.allocated);
    QCOMPARE(got.reserved, want.reserved);
    QCOMPARE(got.active, want.active);
    QCOMPARE(got.inactive, want.inactive);
    QCOMPARE(got.change, want.change);
    QCOMPARE(got.used, want.used);
    QCOMPARE(got.free, want.free);
    QCOMPARE(got.total, want.total);
    QVERIFY(got.type == want.type);
}

} // namespace gapscope::test
