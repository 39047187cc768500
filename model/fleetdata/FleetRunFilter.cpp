#include "model/fleetdata/FleetRunFilter.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gapscope {

bool FleetRunFilter::isEmpty() const
{
    return jobId.isEmpty() && host.isEmpty() && worstClass.isEmpty() && minSeverity == FleetSeverity::None &&
           notice.isEmpty() && fromNs == kFleetNoValue && toNs == kFleetNoValue && text.isEmpty() &&
           !restricted;
}

namespace {

// The id of text in the string table, 0 when absent (no run can match a non-empty one).
qint64 idOf(const FleetData& data, const QString& text)
{
    const qsizetype i = data.strings.indexOf(text);
    return i < 0 ? -1 : i;
}

} // namespace

std::vector<int> filterFleetRuns(const FleetData& data, const FleetRunFilter& filter)
{
    const FleetRuns& runs = data.runs;
    const size_t n = runs.size();
    std::vector<int> out;
    out.reserve(n);
    // exact matches by id: -1 none, else the id to equal
    const qint64 job = filter.jobId.isEmpty() ? -2 : idOf(data, filter.jobId);
    const qint64 host = filter.host.isEmpty() ? -2 : idOf(data, filter.host);
    const bool noFinding = filter.worstClass == kFleetNoFinding;
    const qint64 cls = filter.worstClass.isEmpty() || noFinding ? -2 : idOf(data, filter.worstClass);
    quint32 noticeBit = 0;
    bool noticeKnown = true;
    if (!filter.notice.isEmpty()) {
        const qsizetype bit = data.noticeCodes.indexOf(filter.notice);
        noticeKnown = bit >= 0;
        noticeBit = noticeKnown ? quint32(1) << bit : 0;
    }
    if (job == -1 || host == -1 || cls == -1 || !noticeKnown)
        return out;
    // the text, judged once per distinct string
    std::vector<char> textHit;
    const bool byText = !filter.text.isEmpty();
    if (byText) {
        textHit.resize(size_t(data.strings.size()));
        for (qsizetype i = 1; i < data.strings.size(); ++i)
            textHit[size_t(i)] = data.strings[i].contains(filter.text, Qt::CaseInsensitive);
    }
    std::vector<char> allowed;
    if (filter.restricted) {
        allowed.assign(n, 0);
        for (const int run : filter.only)
            if (run >= 0 && size_t(run) < n)
                allowed[size_t(run)] = 1;
    }
    for (size_t i = 0; i < n; ++i) {
        if (filter.restricted && !allowed[i])
            continue;
        if (job >= 0 && runs.jobId[i] != quint32(job))
            continue;
        if (host >= 0 && runs.host[i] != quint32(host))
            continue;
        if (noFinding && runs.worstClass[i] != 0)
            continue;
        if (cls >= 0 && runs.worstClass[i] != quint32(cls))
            continue;
        if (runs.worstSeverity[i] < filter.minSeverity)
            continue;
        if (noticeBit && !(runs.noticeMask[i] & noticeBit))
            continue;
        if (filter.fromNs != kFleetNoValue &&
            (runs.endNs[i] == kFleetNoValue || runs.endNs[i] < filter.fromNs))
            continue;
        if (filter.toNs != kFleetNoValue &&
            (runs.startNs[i] == kFleetNoValue || runs.startNs[i] > filter.toNs))
            continue;
        if (byText && !(textHit[runs.path[i]] || textHit[runs.jobId[i]] || textHit[runs.sessionId[i]] ||
                        textHit[runs.host[i]] || textHit[runs.worstClass[i]] || textHit[runs.worstPhase[i]] ||
                        textHit[runs.notices[i]]))
            continue;
        out.push_back(int(i));
    }
    return out;
}

namespace {

template <typename Key> void sortBy(std::vector<int>& rows, bool descending, Key key)
{
    // NULLs (nullopt) last in both directions
    std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) {
        const auto ka = key(size_t(a));
        const auto kb = key(size_t(b));
        if (!ka || !kb)
            return ka.has_value() && !kb.has_value();
        return descending ? *kb < *ka : *ka < *kb;
    });
}

} // namespace

void sortFleetRuns(const FleetData& data, std::vector<int>& rows, FleetRunColumn column, bool descending)
{
    const FleetRuns& r = data.runs;
    const auto integer = [&](const std::vector<qint64>& v) {
        sortBy(rows, descending, [&](size_t i) -> std::optional<qint64> {
            return v[i] == kFleetNoValue ? std::nullopt : std::optional<qint64>(v[i]);
        });
    };
    const auto text = [&](const std::vector<quint32>& v) {
        // by the strings' order, computed once per distinct string
        std::vector<quint32> ids(size_t(data.strings.size()));
        for (quint32 i = 0; i < ids.size(); ++i)
            ids[i] = i;
        std::sort(ids.begin(), ids.end(),
                  [&](quint32 a, quint32 b) { return data.strings[a].compare(data.strings[b]) < 0; });
        std::vector<quint32> order(ids.size());
        for (quint32 i = 0; i < ids.size(); ++i)
            order[ids[i]] = i;
        sortBy(rows, descending, [&](size_t i) -> std::optional<quint32> {
            return v[i] == 0 ? std::nullopt : std::optional<quint32>(order[v[i]]);
        });
    };
    switch (column) {
    case FleetRunColumn::Path:
        return text(r.path);
    case FleetRunColumn::Job:
        return text(r.jobId);
    case FleetRunColumn::Rank:
        return integer(r.rank);
    case FleetRunColumn::Host:
        return text(r.host);
    case FleetRunColumn::Session:
        return text(r.sessionId);
    case FleetRunColumn::Start:
        return integer(r.startNs);
    case FleetRunColumn::Duration:
        return sortBy(rows, descending, [&](size_t i) -> std::optional<qint64> {
            const qint64 d = r.durationNs(i);
            return d == kFleetNoValue ? std::nullopt : std::optional<qint64>(d);
        });
    case FleetRunColumn::Samples:
        return integer(r.samples);
    case FleetRunColumn::PeakGap:
        return integer(r.peakGapBytes);
    case FleetRunColumn::LatestGap:
        return integer(r.latestGapBytes);
    case FleetRunColumn::Drift:
        return sortBy(rows, descending, [&](size_t i) -> std::optional<double> {
            return std::isnan(r.driftSlopeBytesPerS[i]) ? std::nullopt
                                                        : std::optional<double>(r.driftSlopeBytesPerS[i]);
        });
    case FleetRunColumn::WorstClass:
        return text(r.worstClass);
    case FleetRunColumn::Severity:
        return sortBy(rows, descending, [&](size_t i) -> std::optional<int> {
            return r.worstSeverity[i] == FleetSeverity::None ? std::nullopt
                                                             : std::optional<int>(int(r.worstSeverity[i]));
        });
    case FleetRunColumn::Notices:
        return text(r.notices);
    case FleetRunColumn::Findings:
        return integer(r.findingCount);
    case FleetRunColumn::Ooms:
        return integer(r.oomCount);
    case FleetRunColumn::Count:
        return;
    }
}

} // namespace gapscope
