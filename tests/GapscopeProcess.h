#pragma once
// Runs the real gapscope binary (GAPSCOPE_BINARY, set per test in CMake) as a shell would, with
// no display and no platform chosen: the end-to-end tests of the headless subcommands.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

struct GapscopeRun
{
    int exitCode = -1; // -1: it did not finish in time
    QByteArray out;
    QByteArray err;
};

// unset: further environment variables to remove (XDG_RUNTIME_DIR: run as on CI or cron)
inline GapscopeRun runGapscope(const QStringList& args, const QStringList& unset = {})
{
    QProcess process;
    process.setProgram(QStringLiteral(GAPSCOPE_BINARY));
    process.setArguments(args);
    // headless subcommands must not need a display
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    for (const QString& name : unset)
        env.remove(name);
    process.setProcessEnvironment(env);
    process.start();
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}
