#include "model/store/TraceData.h"

namespace gapscope {

QString toString(TraceForm form)
{
    switch (form) {
    case TraceForm::JsonArray:
        return QStringLiteral("JSON array");
    case TraceForm::JsonLines:
        return QStringLiteral("JSON lines");
    case TraceForm::SinkDirectory:
        return QStringLiteral("sink directory");
    case TraceForm::Csv:
        return QStringLiteral("CSV");
    case TraceForm::Legacy:
        return QStringLiteral("legacy records");
    case TraceForm::DiagnoseTimeline:
        return QStringLiteral("diagnose timeline");
    }
    return QStringLiteral("unknown");
}

QString toString(SessionStatus status)
{
    switch (status) {
    case SessionStatus::Running:
        return QStringLiteral("running");
    case SessionStatus::Completed:
        return QStringLiteral("completed");
    case SessionStatus::Interrupted:
        return QStringLiteral("interrupted");
    case SessionStatus::Incomplete:
        return QStringLiteral("incomplete");
    case SessionStatus::Unknown:
        return QStringLiteral("unknown");
    }
    return QStringLiteral("unknown");
}

namespace {

// Lower is preferred: upstream picks completed, then interrupted, then incomplete.
int statusPreference(SessionStatus status)
{
    switch (status) {
    case SessionStatus::Completed:
        return 0;
    case SessionStatus::Interrupted:
        return 1;
    case SessionStatus::Incomplete:
        return 2;
    case SessionStatus::Running:
    case SessionStatus::Unknown:
        return 3;
    }
    return 3;
}

} // namespace

std::optional<size_t> TraceData::defaultSessionIndex() const
{
    std::optional<size_t> best;
    for (size_t i = 0; i < sessions.size(); ++i) {
        const SessionInfo& candidate = sessions[i];
        if (candidate.eventCount == 0)
            continue; // nothing to show
        if (!best) {
            best = i;
            continue;
        }
        const SessionInfo& current = sessions[*best];
        const int a = statusPreference(candidate.status);
        const int b = statusPreference(current.status);
        if (a < b || (a == b && candidate.endedNs > current.endedNs))
            best = i;
    }
    return best;
}

std::optional<size_t> TraceData::findSession(const QString& id) const
{
    for (size_t i = 0; i < sessions.size(); ++i) {
        if (sessions[i].id == id)
            return i;
    }
    return std::nullopt;
}

const Partition* TraceData::partition(size_t sessionIndex, std::optional<int64_t> rank) const
{
    for (const Partition& p : partitions) {
        if (p.sessionIndex == sessionIndex && (!rank || p.rank == *rank))
            return &p; // partitions are sorted by (session, rank): the first is the lowest rank
    }
    return nullptr;
}

std::vector<PhaseSpan> TraceData::phasesOf(const Partition& p) const
{
    std::vector<PhaseSpan> spans;
    if (p.sessionIndex >= sessions.size())
        return spans;
    const std::string sessionId = sessions[p.sessionIndex].id.toStdString();
    for (const PhaseSpan& span : phases) {
        if (span.sessionId == sessionId && span.rank == p.rank)
            spans.push_back(span);
    }
    return spans;
}

} // namespace gapscope
