#include "app/AboutBox.h"

#include "app/Version.h"
#include "model/cache/TraceCache.h"
#include "model/text/Text.h"

#include <QCoreApplication>
#include <QMessageBox>
#include <QPushButton>

namespace gapscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
}

} // namespace

QString aboutGapscopeText()
{
    return tr("<h3>gapscope %1</h3><p>Finds hidden memory: what a process holds that its allocator "
              "does not account for.</p><p>Reads stormlog telemetry traces (GPU and CPU: JSON, JSON lines, "
              "CSV, sink directories) and memory-budget tick logs (tracing text or JSON, snapshot JSON "
              "lines).</p><p>Built with Qt %2, running on Qt %3.</p>")
        .arg(QLatin1String(kGapscopeVersion), QLatin1String(QT_VERSION_STR), QLatin1String(qVersion()));
}

QString reopenCacheText(const TraceCache* cache)
{
    if (!cache)
        return tr("Reopen cache: off (--no-cache).");
    const std::vector<TraceCache::Entry> entries = cache->entries();
    qint64 bytes = 0;
    for (const TraceCache::Entry& entry : entries)
        bytes += entry.bytes;
    const auto count = qint64(entries.size());
    return tr("Reopen cache (traces of %1 or more, read again while unchanged): %2, %3 in %4, at most %5.")
        .arg(bytesText(cache->settings().minInputBytes), cache->folder().toHtmlEscaped(), bytesText(bytes),
             count == 1 ? tr("1 entry") : tr("%1 entries").arg(count), bytesText(cache->settings().maxBytes));
}

QString showAboutBox(QWidget* parent, const std::shared_ptr<const TraceCache>& cache)
{
    QMessageBox box(parent);
    box.setWindowTitle(tr("About gapscope"));
    box.setTextFormat(Qt::RichText);
    box.setText(aboutGapscopeText() + QStringLiteral("<p>%1</p>").arg(reopenCacheText(cache.get())));
    box.setIconPixmap(parent->windowIcon().pixmap(64, 64));
    QPushButton* clear = nullptr;
    if (cache)
        clear = box.addButton(tr("Clear Cache"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Close);
    box.exec();
    if (!clear || box.clickedButton() != clear)
        return {};
    return cache->clear() ? tr("Reopen cache cleared") : tr("Some cache entries could not be deleted");
}

} // namespace gapscope
