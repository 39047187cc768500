#pragma once
// The snapshot tests' fixtures (tests/data/snapshot): their bytes, bytes as the reader takes
// them, and a fixture loaded.

#include "model/snapshot/SnapshotLoader.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <string_view>

namespace gapscope::test {

inline const QString kSnapshotData = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/");

// A file under tests/data/snapshot, whole; a missing fixture ends the test run.
inline QByteArray readSnapshotData(const QString& relative)
{
    QFile file(kSnapshotData + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    return file.readAll();
}

// A fixture loaded as the window loads it (timelines built); one that does not load ends the run.
inline std::shared_ptr<const SnapshotData> loadSnapshotFixture(const QString& relative)
{
    SnapshotLoadOutcome outcome = loadSnapshotFile(kSnapshotData + relative);
    if (!outcome.data)
        qFatal("cannot load %s: %s", qPrintable(relative), qPrintable(outcome.fatalError));
    return outcome.data;
}

inline std::string_view bytesView(const QByteArray& bytes)
{
    return std::string_view(bytes.constData(), size_t(bytes.size()));
}

} // namespace gapscope::test
