#include "model/budget/BudgetChunk.h"

#include "analysis/BudgetTicks.h"

#include <algorithm>
#include <numeric>

// Putting parsed lines together in file order (BudgetChunk, BudgetLogAssembler), and the tick
// clock of the assembled log: ticks in time order, verdict run ends linked with the ticks they
// changed, the tick period and the gaps in it.

namespace gapscope {

namespace detail {

void BudgetChunk::add(ParsedBudgetLine&& line, qint64 lineNumber)
{
    BudgetTicks& t = ticks;
    ++linesRead;
    const auto useForm = [&] {
        ++linesUsed;
        if (firstUsedLine == 0) {
            firstUsedLine = lineNumber;
            firstUsedForm = line.form;
        }
    };
    switch (line.kind) {
    case BudgetLineKind::Skipped:
        ++linesSkipped;
        return;
    case BudgetLineKind::Malformed:
        addProblem(LoadProblem::Level::Error, lineNumber, QString::fromStdString(line.reason));
        return;
    case BudgetLineKind::Tick: {
        useForm();
        const auto tick = static_cast<uint32_t>(t.size());
        t.timestampNs.push_back(line.timestampNs);
        t.targetBytes.push_back(line.targetBytes);
        t.effectiveTargetBytes.push_back(line.effectiveTargetBytes);
        t.rssBytes.push_back(line.rssBytes);
        t.rssSysinfoBytes.push_back(line.rssSysinfoBytes);
        t.leaseBytesActive.push_back(line.leaseBytesActive);
        t.jeAllocatedBytes.push_back(line.jeAllocatedBytes);
        t.jeActiveBytes.push_back(line.jeActiveBytes);
        t.jeMetadataBytes.push_back(line.jeMetadataBytes);
        t.jeResidentBytes.push_back(line.jeResidentBytes);
        t.jeMappedBytes.push_back(line.jeMappedBytes);
        t.jeRetainedBytes.push_back(line.jeRetainedBytes);
        t.verdictLabel.push_back(t.names.intern(line.verdict));
        t.verdictDetail.push_back(t.names.intern(line.verdictDetail));
        t.verdictStreak.push_back(line.verdictStreak);
        t.previousVerdictLabel.push_back(
            line.previousVerdictLabel ? t.names.intern(*line.previousVerdictLabel) : kEmptyName);
        t.previousVerdictStreak.push_back(line.previousVerdictLabel ? line.previousVerdictStreak : 0);
        t.level.push_back(line.level);
        t.sourceLine.push_back(lineNumber);
        for (auto& cache : line.caches)
            t.caches.push_back({tick, t.names.intern(cache.name), cache.currentBytes, cache.previousMaxBytes,
                                cache.newMaxBytes, cache.deltaBytes, cache.hitRate});
        for (auto& reporter : line.reporters)
            t.reporters.push_back({tick, t.names.intern(reporter.name), reporter.currentBytes});
        lastTickOfTarget[line.target] = tick;
        break;
    }
    case BudgetLineKind::Cache:
    case BudgetLineKind::Reporter: {
        const bool isCache = line.kind == BudgetLineKind::Cache;
        auto owner = lastTickOfTarget.find(line.target);
        if (owner == lastTickOfTarget.end()) {
            Pending row;
            row.line = lineNumber;
            row.form = line.form;
            row.target = std::move(line.target);
            row.isCache = isCache;
            if (isCache)
                row.cache = std::move(line.caches.front());
            else
                row.reporter = std::move(line.reporters.front());
            row.problemsBefore = problems.size();
            pending.push_back(std::move(row));
            return;
        }
        useForm();
        if (isCache) {
            const auto& cache = line.caches.front();
            t.caches.push_back({owner->second, t.names.intern(cache.name), cache.currentBytes,
                                cache.previousMaxBytes, cache.newMaxBytes, cache.deltaBytes, cache.hitRate});
        } else {
            t.reporters.push_back({owner->second, t.names.intern(line.reporters.front().name),
                                   line.reporters.front().currentBytes});
        }
        break;
    }
    case BudgetLineKind::RunEnded:
        useForm();
        t.runEnds.push_back({line.timestampNs, t.names.intern(line.previousVerdict),
                             line.previousVerdictStreak, t.names.intern(line.newVerdict), lineNumber});
        break;
    }
    nameFirstLine.resize(t.names.size(), lineNumber);
}

} // namespace detail

BudgetLogAssembler::BudgetLogAssembler(QString path) : m_data(std::make_shared<BudgetData>())
{
    m_data->path = std::move(path);
}

BudgetLogAssembler::~BudgetLogAssembler() = default;

void BudgetLogAssembler::add(ParsedBudgetLine&& line, qint64 lineNumber)
{
    if (!m_staged)
        m_staged = std::make_unique<detail::BudgetChunk>(m_data->path);
    m_staged->add(std::move(line), lineNumber);
}

void BudgetLogAssembler::countBlankLine()
{
    if (!m_staged)
        m_staged = std::make_unique<detail::BudgetChunk>(m_data->path);
    ++m_staged->linesRead;
}

void BudgetLogAssembler::flushStaged()
{
    if (!m_staged)
        return;
    std::unique_ptr<detail::BudgetChunk> staged = std::move(m_staged);
    append(std::move(*staged));
}

namespace {

template <typename T> void appendColumn(std::vector<T>& to, const std::vector<T>& from)
{
    to.insert(to.end(), from.begin(), from.end());
}

// Room for `more` elements after the end of v, grown geometrically: reserving exactly size + more
// for every merged range copied the whole column each time, quadratic in the ranges (two threads
// cut a window into four times the ranges of one: 2.4 times the CPU on a 64 MB snapshot log).
template <typename T> void reserveMore(std::vector<T>& v, size_t more)
{
    if (v.size() + more > v.capacity())
        v.reserve(std::max(v.size() + more, v.capacity() * 2));
}

void appendNames(std::vector<uint32_t>& to, const std::vector<uint32_t>& from,
                 const std::vector<uint32_t>& remap)
{
    reserveMore(to, from.size());
    for (uint32_t id : from)
        to.push_back(remap[id]);
}

} // namespace

void BudgetLogAssembler::append(detail::BudgetChunk&& chunk)
{
    flushStaged(); // lines added before come first
    BudgetData& d = *m_data;
    BudgetTicks& t = d.ticks;
    const BudgetTicks& c = chunk.ticks;
    const auto offset = static_cast<uint32_t>(t.size());

    // Pending rows belong to the last tick of their target before this chunk, if any.
    std::vector<int64_t> owner(chunk.pending.size(), -1);
    for (size_t i = 0; i < chunk.pending.size(); ++i)
        if (auto it = m_lastTickOfTarget.find(chunk.pending[i].target); it != m_lastTickOfTarget.end())
            owner[i] = it->second;

    // Names interned in the order of their first use in the file, as one pass would.
    std::vector<uint32_t> remap(c.names.size(), kEmptyName);
    std::vector<uint32_t> pendingName(chunk.pending.size(), kEmptyName);
    size_t next = 0;
    const auto internPendingBefore = [&](qint64 line) {
        for (; next < chunk.pending.size() && chunk.pending[next].line < line; ++next)
            if (owner[next] >= 0)
                pendingName[next] = t.names.intern(chunk.pending[next].name());
    };
    for (uint32_t id = 1; id < c.names.size(); ++id) {
        internPendingBefore(chunk.nameFirstLine[id]);
        remap[id] = t.names.intern(c.names.text(id));
    }
    internPendingBefore(std::numeric_limits<qint64>::max());

    // Usage and form.
    qint64 resolved = 0;
    qint64 firstResolvedLine = 0;
    BudgetLogForm firstResolvedForm = BudgetLogForm::Text;
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        if (owner[i] < 0)
            continue;
        if (resolved++ == 0) {
            firstResolvedLine = chunk.pending[i].line;
            firstResolvedForm = chunk.pending[i].form;
        }
    }
    d.linesRead += chunk.linesRead;
    d.linesSkipped += chunk.linesSkipped;
    d.linesUsed += chunk.linesUsed + resolved;
    if (!m_formKnown && (chunk.firstUsedLine > 0 || resolved > 0)) {
        const bool pendingFirst =
            resolved > 0 && (chunk.firstUsedLine == 0 || firstResolvedLine < chunk.firstUsedLine);
        d.form = pendingFirst ? firstResolvedForm : chunk.firstUsedForm;
        m_formKnown = true;
    }

    // Rows of earlier ticks first: each tick's rows stay in file order (the sort by tick
    // in finish is stable).
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        if (owner[i] < 0)
            continue;
        const auto tick = static_cast<uint32_t>(owner[i]);
        const auto& row = chunk.pending[i];
        if (row.isCache)
            t.caches.push_back({tick, pendingName[i], row.cache.currentBytes, row.cache.previousMaxBytes,
                                row.cache.newMaxBytes, row.cache.deltaBytes, row.cache.hitRate});
        else
            t.reporters.push_back({tick, pendingName[i], row.reporter.currentBytes});
    }

    for (auto [to, from] : {std::pair{&t.timestampNs, &c.timestampNs},
                            {&t.targetBytes, &c.targetBytes},
                            {&t.effectiveTargetBytes, &c.effectiveTargetBytes},
                            {&t.rssBytes, &c.rssBytes},
                            {&t.rssSysinfoBytes, &c.rssSysinfoBytes},
                            {&t.leaseBytesActive, &c.leaseBytesActive},
                            {&t.jeAllocatedBytes, &c.jeAllocatedBytes},
                            {&t.jeActiveBytes, &c.jeActiveBytes},
                            {&t.jeMetadataBytes, &c.jeMetadataBytes},
                            {&t.jeResidentBytes, &c.jeResidentBytes},
                            {&t.jeMappedBytes, &c.jeMappedBytes},
                            {&t.jeRetainedBytes, &c.jeRetainedBytes},
                            {&t.verdictStreak, &c.verdictStreak},
                            {&t.previousVerdictStreak, &c.previousVerdictStreak},
                            {&t.sourceLine, &c.sourceLine}})
        appendColumn(*to, *from);
    appendColumn(t.level, c.level);
    appendNames(t.verdictLabel, c.verdictLabel, remap);
    appendNames(t.verdictDetail, c.verdictDetail, remap);
    appendNames(t.previousVerdictLabel, c.previousVerdictLabel, remap);
    reserveMore(t.caches, c.caches.size());
    for (const auto& row : c.caches)
        t.caches.push_back({row.tick + offset, remap[row.name], row.currentBytes, row.previousMaxBytes,
                            row.newMaxBytes, row.deltaBytes, row.hitRate});
    reserveMore(t.reporters, c.reporters.size());
    for (const auto& row : c.reporters)
        t.reporters.push_back({row.tick + offset, remap[row.name], row.currentBytes});
    for (const auto& end : c.runEnds)
        t.runEnds.push_back({end.timestampNs, remap[end.previousLabel], end.previousStreak,
                             remap[end.newLabel], end.sourceLine});

    // Problems in file order, the pending rows without a tick among them.
    size_t problem = 0;
    for (size_t i = 0; i < chunk.pending.size(); ++i) {
        const auto& row = chunk.pending[i];
        for (; problem < row.problemsBefore; ++problem)
            d.problems.add(std::move(chunk.problems[problem]));
        if (owner[i] >= 0)
            continue;
        d.problems.addError(d.path, row.line,
                            QStringLiteral("%1 '%2' before any tick line of target %3")
                                .arg(row.isCache ? QStringLiteral("per-cache line of cache")
                                                 : QStringLiteral("per-reporter line of reporter"),
                                     QString::fromStdString(row.name()), QString::fromStdString(row.target)));
    }
    for (; problem < chunk.problems.size(); ++problem)
        d.problems.add(std::move(chunk.problems[problem]));
    for (qint64 i = 0; i < chunk.droppedErrors; ++i)
        d.problems.add(
            LoadProblem{LoadProblem::Level::Error, {}, 0, -1, {}}); // counted only: the log is full
    for (qint64 i = 0; i < chunk.droppedWarnings; ++i)
        d.problems.add(LoadProblem{LoadProblem::Level::Warning, {}, 0, -1, {}});

    for (const auto& [target, tick] : chunk.lastTickOfTarget)
        m_lastTickOfTarget[target] = tick + offset;
}

namespace {

template <typename T> void permute(std::vector<T>& column, const std::vector<uint32_t>& order)
{
    std::vector<T> sorted;
    sorted.reserve(column.size());
    for (uint32_t i : order)
        sorted.push_back(column[i]);
    column = std::move(sorted);
}

void sortTicksByTime(BudgetTicks& t)
{
    std::vector<uint32_t> order(t.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return t.timestampNs[a] < t.timestampNs[b]; });
    std::vector<uint32_t> newIndex(t.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        newIndex[order[i]] = i;
    for (auto* column :
         {&t.timestampNs, &t.targetBytes, &t.effectiveTargetBytes, &t.rssBytes, &t.rssSysinfoBytes,
          &t.leaseBytesActive, &t.jeAllocatedBytes, &t.jeActiveBytes, &t.jeMetadataBytes, &t.jeResidentBytes,
          &t.jeMappedBytes, &t.jeRetainedBytes, &t.verdictStreak, &t.previousVerdictStreak, &t.sourceLine})
        permute(*column, order);
    for (auto* column : {&t.verdictLabel, &t.verdictDetail, &t.previousVerdictLabel})
        permute(*column, order);
    permute(t.level, order);
    for (auto& row : t.caches)
        row.tick = newIndex[row.tick];
    for (auto& row : t.reporters)
        row.tick = newIndex[row.tick];
}

} // namespace

std::shared_ptr<BudgetData> BudgetLogAssembler::finish()
{
    flushStaged();
    BudgetData& d = *m_data;
    BudgetTicks& t = d.ticks;
    if (!std::is_sorted(t.timestampNs.begin(), t.timestampNs.end())) {
        d.problems.addWarning(d.path, 0,
                              QStringLiteral("ticks are not in timestamp order; sorted by timestamp"));
        sortTicksByTime(t);
    }
    std::stable_sort(t.caches.begin(), t.caches.end(),
                     [](const BudgetCacheRow& a, const BudgetCacheRow& b) { return a.tick < b.tick; });
    std::stable_sort(t.reporters.begin(), t.reporters.end(),
                     [](const BudgetReporterRow& a, const BudgetReporterRow& b) { return a.tick < b.tick; });
    const auto byTime = [](const BudgetVerdictRunEnd& a, const BudgetVerdictRunEnd& b) {
        return a.timestampNs < b.timestampNs;
    };
    std::stable_sort(t.runEnds.begin(), t.runEnds.end(), byTime);

    // The text and tracing-JSON forms announce a change with its own line; snapshot lines
    // carry it on the tick. Fill in each side from the other so all forms read the same.
    for (const auto& end : t.runEnds) {
        auto first = std::lower_bound(t.timestampNs.begin(), t.timestampNs.end(), end.timestampNs);
        for (auto it = first; it != t.timestampNs.end() && *it == end.timestampNs; ++it) {
            const auto i = static_cast<size_t>(it - t.timestampNs.begin());
            if (t.verdictLabel[i] == end.newLabel && t.previousVerdictLabel[i] == kEmptyName) {
                t.previousVerdictLabel[i] = end.previousLabel;
                t.previousVerdictStreak[i] = end.previousStreak;
                break;
            }
        }
    }
    std::vector<BudgetVerdictRunEnd> derived;
    for (size_t i = 0; i < t.size(); ++i) {
        if (t.previousVerdictLabel[i] == kEmptyName)
            continue;
        auto first = std::lower_bound(t.runEnds.begin(), t.runEnds.end(),
                                      BudgetVerdictRunEnd{t.timestampNs[i]}, byTime);
        bool logged = false;
        for (auto it = first; it != t.runEnds.end() && it->timestampNs == t.timestampNs[i]; ++it)
            logged |= it->newLabel == t.verdictLabel[i] && it->previousLabel == t.previousVerdictLabel[i];
        if (!logged)
            derived.push_back({t.timestampNs[i], t.previousVerdictLabel[i], t.previousVerdictStreak[i],
                               t.verdictLabel[i], 0});
    }
    if (!derived.empty()) {
        t.runEnds.insert(t.runEnds.end(), derived.begin(), derived.end());
        std::stable_sort(t.runEnds.begin(), t.runEnds.end(), byTime);
    }
    d.tickPeriodNs = budgetTickPeriodNs(t);
    d.gaps = findTickGaps(t, d.tickPeriodNs);
    m_lastTickOfTarget.clear();
    return std::move(m_data);
}

} // namespace gapscope
