#include "model/fleetdata/FleetData.h"

#include <algorithm>

namespace gapscope {

FleetSeverity fleetSeverityFromString(const QString& text)
{
    if (text == QLatin1String("critical"))
        return FleetSeverity::Critical;
    if (text == QLatin1String("warning"))
        return FleetSeverity::Warning;
    if (text == QLatin1String("info"))
        return FleetSeverity::Info;
    return FleetSeverity::None;
}

QString toString(FleetSeverity severity)
{
    switch (severity) {
    case FleetSeverity::None:
        return {};
    case FleetSeverity::Info:
        return QStringLiteral("info");
    case FleetSeverity::Warning:
        return QStringLiteral("warning");
    case FleetSeverity::Critical:
        return QStringLiteral("critical");
    }
    return {};
}

QStringList FleetData::distinct(const std::vector<quint32>& column) const
{
    std::vector<bool> seen(size_t(strings.size()), false);
    QStringList values;
    for (const quint32 id : column)
        if (id != 0 && !seen[id]) {
            seen[id] = true;
            values << strings[qsizetype(id)];
        }
    values.sort();
    return values;
}

int FleetData::runOfId(qint64 runId) const
{
    const auto it = std::find(runs.runId.begin(), runs.runId.end(), runId);
    return it == runs.runId.end() ? -1 : int(it - runs.runId.begin());
}

size_t FleetData::heldBytes() const
{
    size_t bytes = sizeof(*this);
    for (const QString& s : strings)
        bytes += sizeof(QString) + size_t(s.size()) * sizeof(QChar);
    bytes += runs.size() * (10 * sizeof(quint32) + 11 * sizeof(qint64) + 2 * sizeof(double) +
                            sizeof(FleetSeverity) + sizeof(quint32));
    for (const FleetIssue& issue : issues)
        bytes +=
            sizeof(issue) + issue.runs.size() * sizeof(FleetIssueRun) +
            size_t(issue.fingerprint.size() + issue.title.size() + issue.issueClass.size()) * sizeof(QChar);
    return bytes;
}

} // namespace gapscope
