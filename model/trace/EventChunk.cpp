#include "model/trace/EventChunk.h"

#include "model/text/Text.h"

namespace gapscope::detail {

size_t EventSourceHash::operator()(const EventSource& s) const noexcept
{
    size_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(s.sessionId);
    mix(s.collector);
    mix(s.host);
    mix(s.jobId);
    mix(static_cast<uint64_t>(s.pid));
    mix(static_cast<uint64_t>(s.rank));
    mix(static_cast<uint64_t>(s.localRank));
    mix(static_cast<uint64_t>(s.worldSize));
    mix(static_cast<uint64_t>(s.deviceId));
    mix(static_cast<uint64_t>(s.samplingIntervalMs));
    mix(static_cast<uint64_t>(s.schemaVersion));
    return h;
}

uint32_t EventChunk::addSource(const EventSource& source)
{
    // consecutive records nearly always come from the same source
    if (m_lastSource < store.sources.size() && store.sources[m_lastSource] == source)
        return m_lastSource;
    auto [it, inserted] = m_sourceIndex.try_emplace(source, static_cast<uint32_t>(store.sources.size()));
    if (inserted)
        store.sources.push_back(source);
    m_lastSource = it->second;
    return it->second;
}

void EventChunk::append(EventChunk&& other)
{
    if (other.store.size() == 0 && other.store.sources.empty() && other.store.strings.size() == 1 &&
        other.boundaries.empty() && other.backendBySession.empty() && other.problems.empty() &&
        other.recordsRead == 0 && other.legacyRecords == 0)
        return; // nothing to take (a follower's look that found no new line), other is empty already
    if (store.size() == 0 && store.sources.empty() && store.strings.size() == 1 && boundaries.empty() &&
        backendBySession.empty() && problems.empty() && recordsRead == 0) {
        *this = std::move(other); // nothing to remap: take the rows as they are
        store.packRows();
        other = EventChunk{};
        return;
    }
    const auto rowOffset = static_cast<uint32_t>(store.size());
    std::vector<uint32_t> stringMap(other.store.strings.size());
    for (size_t id = 0; id < stringMap.size(); ++id)
        stringMap[id] = store.strings.intern(other.store.strings.at(static_cast<uint32_t>(id)));
    std::vector<uint32_t> sourceMap(other.store.sources.size());
    for (size_t i = 0; i < sourceMap.size(); ++i) {
        EventSource source = other.store.sources[i];
        source.sessionId = stringMap[source.sessionId];
        source.collector = stringMap[source.collector];
        source.host = stringMap[source.host];
        source.jobId = stringMap[source.jobId];
        sourceMap[i] = addSource(source);
    }
    EventStore& to = store;
    const EventStore& from = other.store;
    auto appendColumn = [](auto& dst, const auto& src) {
        if constexpr (requires { dst.insert(dst.end(), src.begin(), src.end()); })
            dst.insert(dst.end(), src.begin(), src.end());
        else
            dst.append(src);
    };
    appendColumn(to.timestampNs, from.timestampNs);
    appendColumn(to.allocated, from.allocated);
    appendColumn(to.reserved, from.reserved);
    appendColumn(to.active, from.active);
    appendColumn(to.inactive, from.inactive);
    appendColumn(to.change, from.change);
    appendColumn(to.used, from.used);
    appendColumn(to.free, from.free);
    appendColumn(to.total, from.total);
    appendColumn(to.type, from.type);
    auto through = [](const std::vector<uint32_t>& map) { return [&map](uint32_t id) { return map[id]; }; };
    to.typeName.append(from.typeName, through(stringMap));
    to.source.append(from.source, through(sourceMap));
    to.context.append(from.context, through(stringMap));
    to.metadata.append(from.metadata, through(stringMap));
    for (auto& [row, origin] : other.store.origins)
        to.origins.emplace(row + rowOffset, std::move(origin));
    for (PhaseBoundary& boundary : other.boundaries) {
        boundary.eventRow += rowOffset;
        boundaries.push_back(std::move(boundary));
    }
    for (auto& [session, backend] : other.backendBySession)
        backendBySession.try_emplace(session, std::move(backend));
    problems.merge(other.problems);
    recordsRead += other.recordsRead;
    legacyRecords += other.legacyRecords;
    other.clear();
}

void EventChunk::clear()
{
    store.clearRows();
    boundaries.clear();
    backendBySession.clear();
    problems = ProblemLog();
    recordsRead = 0;
    legacyRecords = 0;
    m_sourceIndex.clear();
    m_lastSource = UINT32_MAX;
}

QString chunkDifference(const EventChunk& a, const EventChunk& b)
{
    const EventStore& x = a.store;
    const EventStore& y = b.store;
    if (x.size() != y.size())
        return QStringLiteral("rows: %1 vs %2").arg(x.size()).arg(y.size());
    // Sources compared field by field, their strings by text (the two chunks intern apart): the
    // fuzz target compares every row, and a formatted text per row was a tenth of its execution.
    auto sameSource = [&x, &y](uint32_t idX, uint32_t idY) {
        const EventSource& u = x.sources[idX];
        const EventSource& v = y.sources[idY];
        return x.str(u.sessionId) == y.str(v.sessionId) && x.str(u.collector) == y.str(v.collector) &&
               x.str(u.host) == y.str(v.host) && x.str(u.jobId) == y.str(v.jobId) && u.pid == v.pid &&
               u.rank == v.rank && u.localRank == v.localRank && u.worldSize == v.worldSize &&
               u.deviceId == v.deviceId && u.samplingIntervalMs == v.samplingIntervalMs &&
               u.schemaVersion == v.schemaVersion;
    };
    for (uint32_t row = 0; row < x.size(); ++row) {
        const bool same =
            x.timestampNs[row] == y.timestampNs[row] && x.allocated[row] == y.allocated[row] &&
            x.reserved[row] == y.reserved[row] && x.active[row] == y.active[row] &&
            x.inactive[row] == y.inactive[row] && x.change[row] == y.change[row] &&
            x.used[row] == y.used[row] && x.free[row] == y.free[row] && x.total[row] == y.total[row] &&
            x.type[row] == y.type[row] && x.str(x.typeName[row]) == y.str(y.typeName[row]) &&
            x.str(x.context[row]) == y.str(y.context[row]) &&
            x.str(x.metadata[row]) == y.str(y.metadata[row]) && sameSource(x.source[row], y.source[row]);
        if (!same)
            return QStringLiteral("row %1 differs (metadata '%2' vs '%3')")
                .arg(row)
                .arg(qs(x.str(x.metadata[row])), qs(y.str(y.metadata[row])));
        const auto ox = x.origins.find(row);
        const auto oy = y.origins.find(row);
        if ((ox == x.origins.end()) != (oy == y.origins.end()) ||
            (ox != x.origins.end() && (ox->second.phaseScopeId != oy->second.phaseScopeId ||
                                       ox->second.threadId != oy->second.threadId)))
            return QStringLiteral("origin of row %1 differs").arg(row);
    }
    if (x.origins.size() != y.origins.size())
        return QStringLiteral("origins: %1 vs %2").arg(x.origins.size()).arg(y.origins.size());
    if (a.boundaries.size() != b.boundaries.size())
        return QStringLiteral("phase boundaries: %1 vs %2").arg(a.boundaries.size()).arg(b.boundaries.size());
    for (size_t i = 0; i < a.boundaries.size(); ++i) {
        const PhaseBoundary& p = a.boundaries[i];
        const PhaseBoundary& q = b.boundaries[i];
        if (p.eventRow != q.eventRow || p.scopeId != q.scopeId || p.sequence != q.sequence ||
            p.name != q.name || p.path != q.path || p.timestampNs != q.timestampNs ||
            p.attributesJson != q.attributesJson)
            return QStringLiteral("phase boundary %1 differs").arg(i);
    }
    if (a.backendBySession != b.backendBySession)
        return QStringLiteral("backends differ");
    if (a.recordsRead != b.recordsRead || a.legacyRecords != b.legacyRecords)
        return QStringLiteral("records read %1 vs %2, legacy %3 vs %4")
            .arg(a.recordsRead)
            .arg(b.recordsRead)
            .arg(a.legacyRecords)
            .arg(b.legacyRecords);
    const auto& pa = a.problems.kept();
    const auto& pb = b.problems.kept();
    if (a.problems.errorCount() != b.problems.errorCount() ||
        a.problems.warningCount() != b.problems.warningCount() || pa.size() != pb.size())
        return QStringLiteral("problems: %1/%2 vs %3/%4")
            .arg(a.problems.errorCount())
            .arg(a.problems.warningCount())
            .arg(b.problems.errorCount())
            .arg(b.problems.warningCount());
    for (size_t i = 0; i < pa.size(); ++i) {
        if (pa[i] != pb[i]) // field by field: formatting both was a sixth of fuzz_jsonfastpath's time
            return QStringLiteral("problem %1: '%2' vs '%3'").arg(i).arg(pa[i].toString(), pb[i].toString());
    }
    return {};
}

} // namespace gapscope::detail
