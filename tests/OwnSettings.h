#pragma once
// The settings of a test process: one file per process (test runs of several build trees at
// once must not share it or clear each other's recent files), empty at the start, removed at
// the end.

#include <QCoreApplication>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QString>

namespace gapscope::test {

// From initTestCase(), before anything reads QSettings.
inline void useOwnSettings(const QString& testName)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("gapscope-tests"));
    QCoreApplication::setApplicationName(
        QStringLiteral("%1-%2").arg(testName).arg(QCoreApplication::applicationPid()));
    QSettings().clear();
}

// From cleanupTestCase().
inline void removeOwnSettings()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(settings.fileName());
}

} // namespace gapscope::test
