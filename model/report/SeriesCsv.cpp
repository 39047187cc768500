#include "model/report/SeriesCsv.h"

#include "analysis/Int64Math.h"
#include "model/store/BudgetData.h"
#include "model/text/Text.h"

#include <algorithm>

namespace gapscope {

QByteArray chartSeriesCsv(const AnalysisResult& result)
{
    const EventStore& store = result.trace->store;
    const int64_t origin = result.partition.size() ? store.timestampNs[result.partition.begin] : 0;

    // Innermost phase at each sample: spans ordered by start, swept along the samples.
    std::vector<const PhaseSpan*> byStart;
    for (const PhaseSpan& span : result.phases)
        byStart.push_back(&span);
    std::stable_sort(byStart.begin(), byStart.end(),
                     [](const PhaseSpan* a, const PhaseSpan* b) { return a->startNs < b->startNs; });
    std::vector<const PhaseSpan*> active;
    size_t nextSpan = 0;

    QByteArray out = "time_ns,relative_s,gap,allocated,reserved,used,total,phase\r\n";
    out.reserve(out.size() + qsizetype(result.usableRows.size()) * 96);
    auto number = [](int64_t v) { return v == kNullInt ? QByteArray() : QByteArray::number(qlonglong(v)); };
    for (uint32_t row : result.usableRows) {
        const int64_t ts = store.timestampNs[row];
        while (nextSpan < byStart.size() && byStart[nextSpan]->startNs <= ts)
            active.push_back(byStart[nextSpan++]);
        std::erase_if(active, [ts](const PhaseSpan* s) { return s->endNs < ts; });
        const PhaseSpan* innermost = nullptr;
        for (const PhaseSpan* s : active)
            if (!innermost || s->depth >= innermost->depth)
                innermost = s;

        out += QByteArray::number(qlonglong(ts));
        out += ',';
        out += QByteArray::number(double(WideInt(ts) - origin) / 1e9, 'f', 9);
        out += ',';
        out += QByteArray::number(qlonglong(store.gapAt(row)));
        for (const auto* column : {&store.allocated, &store.reserved, &store.used, &store.total}) {
            out += ',';
            out += number((*column)[row]);
        }
        out += ',';
        // a row-oriented export: the name clipped (it repeats on every row of its phase; a 1 MB
        // name made a 4 MB trace's CSV 210 MB), its full text stays in the JSON report
        if (innermost)
            out += csvField(shownText(QString::fromStdString(innermost->label))).toUtf8();
        out += "\r\n";
    }
    return out;
}

QByteArray budgetSeriesCsv(const BudgetData& data)
{
    const BudgetTicks& ticks = data.ticks;
    const BudgetBuckets buckets = computeBudgetBuckets(ticks);
    const int64_t origin = ticks.empty() ? 0 : ticks.timestampNs.front();
    QByteArray out =
        "time_ns,relative_s,rss,rss_sysinfo,target,effective_target,lease,cache,non_cache,"
        "non_cache_live,reporter,non_cache_other,allocator_retention,os_gap,je_retained,verdict\r\n";
    for (size_t i = 0; i < ticks.size(); ++i) {
        out += QByteArray::number(qlonglong(ticks.timestampNs[i]));
        out += ',';
        out += QByteArray::number(double(WideInt(ticks.timestampNs[i]) - origin) / 1e9, 'f', 9);
        for (int64_t v :
             {ticks.rssBytes[i], ticks.rssSysinfoBytes[i], ticks.targetBytes[i],
              ticks.effectiveTargetBytes[i], ticks.leaseBytesActive[i], buckets.cache[i], buckets.nonCache[i],
              buckets.nonCacheLive[i], buckets.reporter[i], buckets.nonCacheOther[i],
              buckets.allocatorRetention[i], buckets.osGap[i], ticks.jeRetainedBytes[i]}) {
            out += ',';
            out += QByteArray::number(qlonglong(v));
        }
        out += ',';
        out += csvField(shownText(QString::fromStdString(ticks.labelOf(i)))).toUtf8();
        out += "\r\n";
    }
    return out;
}

} // namespace gapscope
