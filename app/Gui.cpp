#include "app/Gui.h"

#include "analysis/PhaseSteps.h"
#include "app/DocumentTab.h"
#include "app/MainWindow.h"
#include "app/Theme.h"
#include "app/pages/TracePage.h"
#include "model/cache/TraceCache.h"
#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "widgets/trace/GapChartView.h"

#include <QApplication>
#include <QFileInfo>
#include <QIcon>
#include <QImage>
#include <QPainter>
#include <QSettings>

#include <algorithm>
#include <limits>

namespace gapscope {

namespace {

void setApplicationIdentity()
{
    // QSettings (recent files, thresholds, layout) needs these.
    if (QCoreApplication::organizationName().isEmpty())
        QCoreApplication::setOrganizationName(QStringLiteral("gapscope"));
    if (QCoreApplication::applicationName().isEmpty() ||
        QCoreApplication::applicationName() == QFileInfo(QCoreApplication::applicationFilePath()).fileName())
        QCoreApplication::setApplicationName(QStringLiteral("gapscope"));
}

} // namespace

GuiArguments parseGuiArguments(const QStringList& args)
{
    GuiArguments parsed;
    for (qsizetype i = 0; i < args.size() && parsed.error.isEmpty(); ++i) {
        const QString& arg = args[i];
        if (arg == QLatin1String("--no-cache")) {
            parsed.cache.enabled = false;
        } else if (arg == QLatin1String("--cache-max-mb")) {
            bool ok = false;
            const qint64 megabytes = args.value(++i).toLongLong(&ok);
            // 2^44 MB once wrapped to a cap of 0 bytes, which silently turned the cache off
            if (!ok || !TraceCacheSettings::megabytesToBytes(megabytes))
                parsed.error =
                    QStringLiteral("--cache-max-mb needs a number of megabytes from 0 to %1, got '%2'")
                        .arg(std::numeric_limits<qint64>::max() >> 20)
                        .arg(args.value(i));
            else
                parsed.cache.maxMegabytes = megabytes;
        } else if (arg == QLatin1String("--snapshot")) {
            if (i + 1 >= args.size()) {
                parsed.error = QStringLiteral("--snapshot needs a file name");
                continue;
            }
            parsed.snapshot = args[++i];
            const InputRecognition input = recognizeInput(parsed.snapshot);
            if (input.kind != InputKind::PytorchSnapshot)
                parsed.error =
                    QStringLiteral("--snapshot %1: not a PyTorch memory snapshot (torch.cuda.memory."
                                   "_dump_snapshot's pickle): %2")
                        .arg(parsed.snapshot, input.reason.isEmpty() ? toString(input.kind) : input.reason);
        } else if (arg.startsWith(QLatin1String("-"))) {
            parsed.error = QStringLiteral("unknown option %1").arg(arg);
            parsed.unknownOption = true;
        } else {
            parsed.files << arg;
        }
    }
    if (parsed.error.isEmpty() && !parsed.snapshot.isEmpty() && parsed.files.isEmpty())
        parsed.error = QStringLiteral("--snapshot %1: give the trace it is attached to").arg(parsed.snapshot);
    return parsed;
}

int runGui(QApplication& app, const QStringList& files, const GuiCacheOptions& cache, const QString& snapshot)
{
    setApplicationIdentity();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/gapscope/gapscope.svg")));
    // View > Theme of the last session; System leaves the desktop's look alone
    if (const Theme theme = savedTheme(); theme != Theme::System)
        applyTheme(theme);
    // Several paths are the ranks of one distributed job, opened in one window (job page).
    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->restoreSettings();
    if (cache.enabled) {
        TraceCacheSettings settings;
        const qint64 megabytes = cache.maxMegabytes.value_or(
            QSettings().value(QStringLiteral("cache/maxMegabytes"), settings.maxBytes >> 20).toLongLong());
        // a setting beyond what bytes can count is no cap at all, not a wrapped one
        settings.maxBytes = TraceCacheSettings::megabytesToBytes(std::max<qint64>(megabytes, 0))
                                .value_or(std::numeric_limits<qint64>::max());
        settings.memoThresholds = window->thresholds(); // the analysis a reopen runs first
        window->setTraceCache(std::make_shared<const TraceCache>(settings));
    }
    window->show();
    // a snapshot given with the files is the trace's (OpenPlan: one snapshot with one run)
    if (!files.isEmpty())
        window->openPaths(snapshot.isEmpty() ? files : files + QStringList{snapshot});
    return app.exec();
}

int renderScreenshot(const QString& file, const QString& outPng, QSize size, QString* error,
                     const std::optional<DeviceLogRequest>& deviceLog, const ScreenshotView& view,
                     const QString& snapshot)
{
    setApplicationIdentity();
    if (!size.isValid() || size.width() < kMinScreenshotSize.width() ||
        size.height() < kMinScreenshotSize.height() || size.width() > kMaxScreenshotSize.width() ||
        size.height() > kMaxScreenshotSize.height()) {
        if (error)
            *error = QStringLiteral("invalid size %1x%2: must be between %3x%4 and %5x%6")
                         .arg(size.width())
                         .arg(size.height())
                         .arg(kMinScreenshotSize.width())
                         .arg(kMinScreenshotSize.height())
                         .arg(kMaxScreenshotSize.width())
                         .arg(kMaxScreenshotSize.height());
        return 2;
    }
    if (outPng.isEmpty()) {
        if (error)
            *error = QStringLiteral("no output file given");
        return 2;
    }

    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    QString loadError;
    const bool job = recognizeInput(file).kind == InputKind::Job;
    if (job ? !window.showJobNow({file}, &loadError) : !window.showTraceNow(file, &loadError)) {
        if (error)
            *error = loadError;
        return 2;
    }
    if (deviceLog) {
        // read here, analysed on this thread like the trace (the page's own job is superseded)
        if (job || !window.currentTab()->tracePage()->attachDeviceLog(*deviceLog, &loadError) ||
            !window.currentTab()->tracePage()->analyseNow(&loadError)) {
            if (error)
                *error = job ? QStringLiteral("--device-log applies to one trace, not a job") : loadError;
            return 2;
        }
    }
    // read here, like the trace (the page reads a snapshot beside a run's sink as it opens it)
    if (!snapshot.isEmpty() &&
        (job || !window.currentTab()->tracePage()->attachSnapshot(snapshot, OpenMode::Now, &loadError))) {
        if (error)
            *error = job ? QStringLiteral("--snapshot applies to one trace, not a job") : loadError;
        return 2;
    }
    if (view.stepAxis || view.cursorStep || view.measureSteps) {
        const std::shared_ptr<const StepIndex> steps =
            job ? nullptr : window.currentTab()->tracePage()->steps();
        if (!steps || steps->empty()) {
            if (error)
                *error = QStringLiteral("%1: its phases carry no step (the \"step\" attribute)").arg(file);
            return 2;
        }
        // the first step numbered n (of the first epoch that has it)
        const auto stepNumbered = [&](qint64 n) -> const TrainingStep* {
            for (const TrainingStep& step : steps->steps())
                if (step.step == n)
                    return &step;
            if (error)
                *error = QStringLiteral("%1: no step %2").arg(file).arg(n);
            return nullptr;
        };
        window.currentTab()->tracePage()->stepAxisAction()->setChecked(view.stepAxis);
        if (view.cursorStep) {
            const TrainingStep* step = stepNumbered(*view.cursorStep);
            if (!step)
                return 2;
            window.currentTab()->tracePage()->setCursorTime(step->startNs);
        }
        if (view.measureSteps) {
            const TrainingStep* first = stepNumbered(view.measureSteps->first);
            const TrainingStep* last = first ? stepNumbered(view.measureSteps->second) : nullptr;
            if (!last)
                return 2;
            window.currentTab()->tracePage()->chart()->measureRange(first->startNs, last->endNs);
        }
    }
    window.resize(size);
    window.show();
    // Let layouts settle and the chart lay out its axes at the final size.
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();

    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(window.palette().color(QPalette::Window));
    window.render(&image);
    window.close();
    if (!image.save(outPng, "PNG")) {
        if (error)
            *error = QStringLiteral("%1: cannot write the PNG").arg(outPng);
        return 1;
    }
    return 0;
}

} // namespace gapscope
