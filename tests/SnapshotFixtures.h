#pragma once
// The snapshot tests' fixtures (tests/data/snapshot): their bytes, and bytes as the reader
// takes them.

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

inline std::string_view bytesView(const QByteArray& bytes)
{
    return std::string_view(bytes.constData(), size_t(bytes.size()));
}

} // namespace gapscope::test
