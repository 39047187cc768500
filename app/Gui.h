#pragma once
// Entry points of the desktop application, called by main().

#include "model/devicelog/DeviceLogAttach.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

class QApplication;

namespace gapscope {

// The reopen cache of the desktop app (model/cache/TraceCache): on unless --no-cache; its cap
// is --cache-max-mb, else the setting cache/maxMegabytes (default 4096).
struct GuiCacheOptions
{
    bool enabled = true;
    std::optional<qint64> maxMegabytes;
};

// The desktop app's command line (`gapscope [--no-cache] [--cache-max-mb N] [--snapshot FILE]
// [FILE...]`): the files to open and the options. error says what is wrong (an option without
// its value, a bad number, a --snapshot that is no PyTorch memory snapshot); unknownOption: the
// error is an option the app does not take (main() prints the usage after it).
struct GuiArguments
{
    QStringList files;
    GuiCacheOptions cache;
    // --snapshot FILE: a PyTorch memory snapshot opened beside the trace (File > Attach Snapshot...)
    QString snapshot;
    QString error;
    bool unknownOption = false;
};
GuiArguments parseGuiArguments(const QStringList& args);

// Opens the files given in one main window (or shows the welcome page) and runs the event loop.
// snapshot: attached to the trace the files open as (GuiArguments::snapshot).
int runGui(QApplication& app, const QStringList& files, const GuiCacheOptions& cache = {},
           const QString& snapshot = {});

// `gapscope --screenshot OUT.png [--size WxH] FILE`: loads FILE and analyses it on this thread,
// lays the main window out at `size`, renders it and writes a PNG of exactly that size.
// Returns 0 on success, 2 for bad input (unreadable trace, invalid size) and 1 when the PNG
// cannot be written; *error says why. main() should select the offscreen platform before it
// creates the QApplication so nothing flashes on screen.
// deviceLog: attached to the trace first (File > Attach Device Log...); snapshot: attached
// after it (File > Attach Snapshot...), as is a snapshot beside the run of a folder FILE.
// view: how the trace's chart is shown (the step axis, the cursor or a measured span on steps).
struct ScreenshotView
{
    bool stepAxis = false;            // --step-axis: View > Chart X Axis > Training Steps
    std::optional<qint64> cursorStep; // --cursor-step N: the cursor at step N's start
    std::optional<std::pair<qint64, qint64>> measureSteps; // --measure-steps A-B: A's start to B's end
};
int renderScreenshot(const QString& file, const QString& outPng, QSize size, QString* error,
                     const std::optional<DeviceLogRequest>& deviceLog = std::nullopt,
                     const ScreenshotView& view = {}, const QString& snapshot = {});

inline constexpr QSize kDefaultScreenshotSize{1400, 900};
inline constexpr QSize kMinScreenshotSize{320, 240};
inline constexpr QSize kMaxScreenshotSize{8192, 8192};

} // namespace gapscope
