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

// Opens one main window per path (or one with the welcome page) and runs the event loop.
int runGui(QApplication& app, const QStringList& files, const GuiCacheOptions& cache = {});

// `gapscope --screenshot OUT.png [--size WxH] FILE`: loads FILE and analyses it on this thread,
// lays the main window out at `size`, renders it and writes a PNG of exactly that size.
// Returns 0 on success, 2 for bad input (unreadable trace, invalid size) and 1 when the PNG
// cannot be written; *error says why. main() should select the offscreen platform before it
// creates the QApplication so nothing flashes on screen.
// deviceLog: attached to the trace first (File > Attach Device Log...).
// view: how the trace's chart is shown (the step axis, the cursor or a measured span on steps).
struct ScreenshotView
{
    bool stepAxis = false;            // --step-axis: View > Chart X Axis > Training Steps
    std::optional<qint64> cursorStep; // --cursor-step N: the cursor at step N's start
    std::optional<std::pair<qint64, qint64>> measureSteps; // --measure-steps A-B: A's start to B's end
};
int renderScreenshot(const QString& file, const QString& outPng, QSize size, QString* error,
                     const std::optional<DeviceLogRequest>& deviceLog = std::nullopt,
                     const ScreenshotView& view = {});

inline constexpr QSize kDefaultScreenshotSize{1400, 900};
inline constexpr QSize kMinScreenshotSize{320, 240};
inline constexpr QSize kMaxScreenshotSize{8192, 8192};

} // namespace gapscope
