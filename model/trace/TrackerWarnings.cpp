#include "model/trace/TrackerWarnings.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace gapscope {

std::vector<TrackerWarning> trackerWarnings(const EventStore& store, uint32_t beginRow, uint32_t endRow)
{
    std::vector<TrackerWarning> warnings;
    endRow = std::min<uint32_t>(endRow, uint32_t(store.size()));
    for (uint32_t row = beginRow; row < endRow; ++row) {
        const EventType type = store.type[row];
        if (type != EventType::Warning && type != EventType::Critical && type != EventType::Error)
            continue;
        TrackerWarning warning;
        warning.row = row;
        warning.timeNs = store.timestampNs[row];
        warning.type = type;
        warning.context = QString::fromStdString(store.str(store.context[row]));
        if (const uint32_t metadata = store.metadata[row]; metadata != 0) {
            // canonical JSON written by the loader: a cheap look before parsing it
            const std::string& text = store.str(metadata);
            if (text.find("\"fragmentation\"") != std::string::npos) {
                const QJsonValue value = QJsonDocument::fromJson(QByteArray::fromStdString(text))
                                             .object()
                                             .value(QStringLiteral("fragmentation"));
                if (value.isDouble())
                    warning.fragmentation = value.toDouble();
            }
        }
        warnings.push_back(std::move(warning));
    }
    return warnings;
}

size_t fragmentationWarningCount(const std::vector<TrackerWarning>& warnings)
{
    return size_t(std::count_if(warnings.begin(), warnings.end(),
                                [](const TrackerWarning& w) { return w.fragmentation.has_value(); }));
}

} // namespace gapscope
