#include "app/Gui.h"
#include "app/Version.h"
#include "app/cli/Cli.h"
#include "model/cache/TraceCache.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <csignal>
#include <cstring>
#include <limits>

#include <unistd.h>

using namespace gapscope;

namespace {

// A QApplication on the offscreen platform (export, --screenshot) asks for the runtime
// folder, and Qt warns on every run where XDG_RUNTIME_DIR is unset (CI, cron, a plain ssh
// login), then falls back to a private folder in the temp dir. Headless commands name such a
// folder themselves first, so their stderr holds only what gapscope has to say.
void provideRuntimeDirectory()
{
    if (!qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR"))
        return;
    const QString path = QDir::tempPath() + QStringLiteral("/gapscope-runtime-") + QString::number(getuid());
    if (!QDir().mkpath(path))
        return;
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    // Qt refuses a folder someone else owns or others can read; so does this
    const QFileInfo info(path);
    const QFile::Permissions others = QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                      QFile::ReadOther | QFile::WriteOther | QFile::ExeOther;
    if (!info.isDir() || info.isSymLink() || info.ownerId() != getuid() || (info.permissions() & others))
        return;
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(path));
}

// `gapscope --screenshot OUT.png [--size WxH] FILE`: renders the main window headless.
int runScreenshotCommand(int argc, char** argv, const QStringList& args)
{
    QString out;
    QString file;
    QSize size = kDefaultScreenshotSize;
    std::optional<DeviceLogRequest> deviceLog;
    QString zone;
    QString snapshot;
    ScreenshotView view;
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& arg = args[i];
        if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
            std::fputs(
                "usage: gapscope --screenshot OUT.png [--size WxH] [--device-log LOG [--device-log-tz ZONE]] "
                "[--snapshot PICKLE] [--step-axis] [--cursor-step N] [--measure-steps A-B] FILE\n"
                "Renders the main window with FILE open to OUT.png, headless (default size 1400x900);\n"
                "with nvidia-smi's LOG attached as File > Attach Device Log... does, a PyTorch memory\n"
                "snapshot PICKLE as File > Attach Snapshot... does; where FILE's phases\n"
                "carry training steps, with the time axis in steps, the cursor at step N's start, or the\n"
                "span from step A's start to step B's end measured.\n",
                stdout);
            return kExitOk;
        }
        if ((arg == QLatin1String("--device-log") || arg == QLatin1String("--device-log-tz")) &&
            i + 1 < args.size()) {
            if (arg == QLatin1String("--device-log"))
                deviceLog = DeviceLogRequest{args[++i], QString()};
            else
                zone = args[++i];
            continue;
        }
        if (arg == QLatin1String("--snapshot") && i + 1 < args.size()) {
            snapshot = args[++i];
            continue;
        }
        if (arg == QLatin1String("--step-axis")) {
            view.stepAxis = true;
            continue;
        }
        if ((arg == QLatin1String("--cursor-step") || arg == QLatin1String("--measure-steps")) &&
            i + 1 < args.size()) {
            const QStringList numbers = args[++i].split(QLatin1Char('-'));
            bool ok = numbers.size() == (arg == QLatin1String("--cursor-step") ? 1 : 2);
            std::vector<qint64> values;
            for (const QString& number : numbers) {
                bool okNumber = false;
                values.push_back(number.toLongLong(&okNumber));
                ok = ok && okNumber;
            }
            if (!ok) {
                std::fprintf(stderr, "gapscope --screenshot: %s needs %s, got '%s'\n", qPrintable(arg),
                             arg == QLatin1String("--cursor-step") ? "a step number" : "A-B (step numbers)",
                             qPrintable(args[i]));
                return kExitUsage;
            }
            if (values.size() == 1)
                view.cursorStep = values[0];
            else
                view.measureSteps = std::pair{values[0], values[1]};
            continue;
        }
        if (arg == QLatin1String("--size") && i + 1 < args.size()) {
            const QStringList parts = args[++i].toLower().split(QLatin1Char('x'));
            bool okW = false;
            bool okH = false;
            if (parts.size() == 2)
                size = QSize(parts[0].toInt(&okW), parts[1].toInt(&okH));
            if (!okW || !okH) {
                std::fprintf(stderr, "gapscope --screenshot: --size needs WxH, got '%s'\n",
                             qPrintable(args[i]));
                return kExitUsage;
            }
        } else if (i == 1 && !arg.startsWith(QLatin1String("-"))) {
            out = arg;
        } else if (file.isEmpty() && !arg.startsWith(QLatin1String("-"))) {
            file = arg;
        } else {
            std::fprintf(stderr, "gapscope --screenshot: unexpected argument '%s'\n", qPrintable(arg));
            return kExitUsage;
        }
    }
    if (out.isEmpty() || file.isEmpty()) {
        std::fputs(
            "gapscope --screenshot: usage: gapscope --screenshot OUT.png [--size WxH] [--device-log LOG "
            "[--device-log-tz ZONE]] [--snapshot PICKLE] [--step-axis] [--cursor-step N] [--measure-steps "
            "A-B] "
            "FILE\n",
            stderr);
        return kExitUsage;
    }
    // Nothing is shown on screen: no display is needed.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    provideRuntimeDirectory();
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
    QCoreApplication::setOrganizationName(QStringLiteral("gapscope"));
    QString error;
    if (deviceLog)
        deviceLog->timeZone = zone;
    const int status = renderScreenshot(file, out, size, &error, deviceLog, view, snapshot);
    if (status != 0)
        std::fprintf(stderr, "gapscope --screenshot: %s\n", qPrintable(error));
    return status;
}

} // namespace

int main(int argc, char** argv)
{
    // A file size limit (ulimit -f) would kill the process with SIGXFSZ in the middle of a
    // write; ignored, the write fails with EFBIG and the report is refused like on a full disk.
    std::signal(SIGXFSZ, SIG_IGN);
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    // A name that is not UTF-8 does not survive the way to a QString and back: the file it
    // names would be reported missing ("no such file"). Say what is wrong instead.
    for (int i = 1; i < argc; ++i) {
        if (QFile::encodeName(args[i - 1]) != QByteArray(argv[i])) {
            std::fprintf(stderr,
                         "gapscope: argument %d is not valid UTF-8 ('%s'); a file of that name must be "
                         "renamed to be read\n",
                         i, qPrintable(args[i - 1]));
            return kExitUsage;
        }
    }

    if (!args.isEmpty() && args.front() == QLatin1String("--version")) {
        std::printf("gapscope %s\n", kGapscopeVersion);
        return kExitOk;
    }
    if (!args.isEmpty() && (args.front() == QLatin1String("--help") || args.front() == QLatin1String("-h"))) {
        std::fputs(cliUsage().toUtf8().constData(), stdout);
        return kExitOk;
    }
    if (!args.isEmpty() && args.front() == QLatin1String("export")) {
        // Charts are drawn by widgets, so export needs a QApplication; it never shows a
        // window, so it runs on the offscreen platform unless one is asked for (no display).
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        provideRuntimeDirectory();
        QApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
        QCoreApplication::setOrganizationName(QStringLiteral("gapscope")); // the app's cache folder
        return runCli(args);
    }
    if (!args.isEmpty() && isCliCommand(args.front())) {
        // Headless: no display needed.
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
        QCoreApplication::setOrganizationName(QStringLiteral("gapscope")); // the app's cache folder
        return runCli(args);
    }
    if (!args.isEmpty() && args.front() == QLatin1String("--screenshot"))
        return runScreenshotCommand(argc, argv, args);

    const GuiArguments parsed = parseGuiArguments(args);
    if (!parsed.error.isEmpty()) {
        std::fprintf(stderr, "gapscope: %s\n%s", qPrintable(parsed.error),
                     parsed.unknownOption ? qPrintable(cliUsage()) : "");
        return kExitUsage;
    }
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
    QCoreApplication::setOrganizationName(QStringLiteral("gapscope"));
    return runGui(app, parsed.files, parsed.cache, parsed.snapshot);
}
