#pragma once
// Help > About gapscope: the version and what gapscope reads, the reopen cache's folder, size
// and cap (or that it is off), and Clear Cache.

#include <QString>

#include <memory>

class QWidget;

namespace gapscope {

class TraceCache;

// The version (project() in CMakeLists.txt) and what gapscope reads (rich text).
QString aboutGapscopeText();
// The line on the reopen cache: its folder, size and cap, or that it is off (cache null).
QString reopenCacheText(const TraceCache* cache);
// The box, modal; what Clear Cache did (for the status bar), empty when it was not pressed.
QString showAboutBox(QWidget* parent, const std::shared_ptr<const TraceCache>& cache);

} // namespace gapscope
