#include "Cli.h"

#include <QApplication>
#include <QCoreApplication>

#include <cstring>

using namespace gapscope;

int main(int argc, char** argv)
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);

    if (!args.isEmpty() && (args.front() == QLatin1String("--help") || args.front() == QLatin1String("-h"))) {
        std::fputs(cliUsage().toUtf8().constData(), stdout);
        return kExitOk;
    }
    if (!args.isEmpty() && args.front() == QLatin1String("export")) {
        // Charts are drawn by widgets, so export needs a QApplication; it never shows a
        // window, so it runs on the offscreen platform unless one is asked for (no display).
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
        return runCli(args);
    }
    if (!args.isEmpty() && isCliCommand(args.front())) {
        // Headless: no display needed.
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
        return runCli(args);
    }
    std::fputs("gapscope: the desktop app is not wired yet\n", stderr);
    return kExitUsage;
}
