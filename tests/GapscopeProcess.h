#pragma once
// Runs the real gapscope binary (GAPSCOPE_BINARY, set per test in CMake) as a shell would, with
// no display and no platform chosen: the end-to-end tests of the headless subcommands.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

struct GapscopeRun
{
    int exitCode = -1; // -1: it did not finish in time; -2: killed by a signal
    QByteArray out;
    QByteArray err;
};

// unset: further environment variables to remove (XDG_RUNTIME_DIR: run as on CI or cron);
// wrapper: a command that runs the binary, which is appended to it with args (e.g. a shell
// that sets a resource limit first and then execs "$@")
inline GapscopeRun runGapscope(const QStringList& args, const QStringList& unset = {},
                               const QStringList& wrapper = {})
{
    QProcess process;
    if (wrapper.isEmpty()) {
        process.setProgram(QStringLiteral(GAPSCOPE_BINARY));
        process.setArguments(args);
    } else {
        process.setProgram(wrapper.front());
        process.setArguments(wrapper.mid(1) + QStringList{QStringLiteral(GAPSCOPE_BINARY)} + args);
    }
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
    const int exitCode = process.exitStatus() == QProcess::CrashExit ? -2 : process.exitCode();
    return {exitCode, process.readAllStandardOutput(), process.readAllStandardError()};
}
