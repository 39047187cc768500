#include "model/job/JobLoader.h"

#include "analysis/Int64Math.h"
#include "model/read/WindowedReader.h"
#include "model/text/Text.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <numeric>

#ifdef Q_OS_UNIX
#include <dirent.h>
#include <sys/stat.h>
#endif

namespace gapscope {

namespace {

// A world size can be any number a record claims; missing ranks beyond this many get no row of
// their own (a note says how many there are), so one bad record cannot exhaust memory.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// The fuzz build stops at 64 (kMaxListedMissingRanks in CrossRankAnalysis.h says why).
constexpr int64_t kMaxMissingRankRows = 64;
#else
constexpr int64_t kMaxMissingRankRows = 4096;
#endif
// Notes list this many files, then "and N more".
constexpr qsizetype kFilesNamed = 6;

// "A, B and C", at most kFilesNamed of them named.
QString filesText(QStringList files)
{
    files.removeDuplicates();
    if (files.size() > kFilesNamed) {
        const qsizetype more = files.size() - kFilesNamed;
        files = files.mid(0, kFilesNamed);
        return files.join(QStringLiteral(", ")) + QStringLiteral(" and %1 more").arg(more);
    }
    if (files.size() <= 1)
        return files.join(QString());
    return files.mid(0, files.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" and ") + files.back();
}

// "0, 3-5, 9"
QString rangesText(const std::vector<int64_t>& sorted)
{
    QStringList parts;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        parts << (j == i ? QString::number(sorted[i])
                         : QStringLiteral("%1-%2").arg(sorted[i]).arg(sorted[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

// The reason of a loader's "path: reason".
QString reasonOf(const QString& fatalError, const QString& path)
{
    const QString prefix = path + QStringLiteral(": ");
    if (fatalError.isEmpty())
        return QStringLiteral("could not be loaded");
    return fatalError.startsWith(prefix) ? fatalError.mid(prefix.size()) : fatalError;
}

// Samples (or, in a job without any, events) of one part of a rank, by the source fields the
// job id and world size are taken from.
struct SourceCount
{
    QString jobId;
    int64_t worldSize = 1;
    int64_t rank = 0;
    size_t inputIndex = 0;
    size_t count = 0;
};

void countSources(const JobInput& input, size_t inputIndex, const Partition& partition, bool samplesOnly,
                  std::vector<SourceCount>& counts, size_t* samples)
{
    const EventStore& store = input.trace->store;
    std::vector<size_t> perSource(store.sources.size(), 0);
    size_t sampleRows = 0;
    for (uint32_t row = partition.begin; row < partition.end; ++row) {
        const bool sample = store.type[row] == EventType::Sample;
        sampleRows += sample ? 1 : 0;
        if (sample || !samplesOnly) {
            const uint32_t source = store.source[row];
            if (source < perSource.size())
                ++perSource[source];
        }
    }
    if (samples)
        *samples = sampleRows;
    for (size_t s = 0; s < perSource.size(); ++s) {
        if (perSource[s] == 0)
            continue;
        const EventSource& source = store.sources[s];
        counts.push_back(
            {qs(store.str(source.jobId)), source.worldSize, partition.rank, inputIndex, perSource[s]});
    }
}

// One copy of a rank: its partition in one input, whether that input is a sink, its samples.
struct RankCopy
{
    JobRankPart part;
    bool sink = false;
    size_t samples = 0;
};

size_t samplesOf(const TraceData& trace, const Partition& partition)
{
    size_t count = 0;
    for (uint32_t row = partition.begin; row < partition.end; ++row)
        count += trace.store.type[row] == EventType::Sample ? 1 : 0;
    return count;
}

// The copy of a rank the job reads: a sink (what stormlog wrote as it ran) before a file
// exported from one, then the copy with the most samples, then the first given. Reading one
// copy keeps every rank counted once in the cross-rank analyses, as the sinks alone are.
size_t keptCopy(const std::vector<RankCopy>& copies)
{
    size_t best = 0;
    for (size_t c = 1; c < copies.size(); ++c) {
        const RankCopy& a = copies[c];
        const RankCopy& b = copies[best];
        if (a.sink != b.sink ? a.sink : a.samples > b.samples)
            best = c;
    }
    return best;
}

// The value with the most weight; ties go to the one seen first (as Python's Counter does).
template <typename Key> std::optional<Key> mostCommon(const std::vector<std::pair<Key, size_t>>& weighted)
{
    std::vector<std::pair<Key, size_t>> totals;
    for (const auto& entry : weighted) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const Key& key = entry.first;
        auto it = std::find_if(totals.begin(), totals.end(), [&](const auto& t) { return t.first == key; });
        if (it == totals.end())
            totals.emplace_back(key, entry.second);
        else
            it->second += entry.second;
    }
    std::optional<Key> best;
    size_t bestWeight = 0;
    for (const auto& [key, weight] : totals) {
        if (!best || weight > bestWeight) {
            best = key;
            bestWeight = weight;
        }
    }
    return best;
}

// Per value, the files whose counts carry it: "4 in A and B; 8 in C".
template <typename Key, typename Text>
QString valuesWithFiles(const std::vector<SourceCount>& counts, const std::vector<JobInput>& inputs,
                        Key (*keyOf)(const SourceCount&), Text&& text)
{
    std::vector<std::pair<Key, QStringList>> byValue;
    for (const SourceCount& c : counts) {
        const Key key = keyOf(c);
        auto it = std::find_if(byValue.begin(), byValue.end(), [&](const auto& v) { return v.first == key; });
        if (it == byValue.end())
            byValue.emplace_back(key, QStringList{inputs[c.inputIndex].path});
        else
            it->second << inputs[c.inputIndex].path;
    }
    QStringList parts;
    for (const auto& [key, files] : byValue)
        parts << QStringLiteral("%1 in %2").arg(text(key), filesText(files));
    return parts.join(QStringLiteral("; "));
}

QString jobIdOf(const SourceCount& c)
{
    return c.jobId;
}
int64_t worldSizeOf(const SourceCount& c)
{
    return c.worldSize;
}

// Every problem of a job that could not be loaded, one "path: reason" a line.
QString everyReason(const ProblemLog& problems)
{
    QStringList lines;
    for (const LoadProblem& p : problems.kept())
        lines << p.toString();
    return lines.join(QLatin1Char('\n'));
}

} // namespace

JobOutcome assembleJob(JobInputs found, const std::vector<LoadOutcome>& outcomes)
{
    const QStringList& inputPaths = found.paths;
    const size_t count = outcomes.size();
    std::vector<JobInput> inputs;
    for (size_t i = 0; i < count; ++i) {
        const QString& path = inputPaths[qsizetype(i)];
        const LoadOutcome& outcome = outcomes[i];
        if (!outcome.data) {
            found.problems.addError(path, 0, reasonOf(outcome.fatalError, path));
            continue;
        }
        const auto session = outcome.data->defaultSessionIndex();
        if (!session) {
            found.problems.addError(path, 0, QStringLiteral("no events; left out of the job"));
            continue;
        }
        if (outcome.data->sessions.size() > 1) {
            const SessionInfo& chosen = outcome.data->sessions[*session];
            found.problems.addWarning(
                path, 0,
                QStringLiteral("holds %1 sessions; the job reads session %2 (%3, the one "
                               "`analyze` picks)")
                    .arg(outcome.data->sessions.size())
                    .arg(chosen.id.isEmpty() ? QStringLiteral("(none)") : chosen.id,
                         toString(chosen.status)));
        }
        inputs.push_back(JobInput{path, outcome.data, *session, {}});
    }
    if (inputs.empty()) {
        const QString reasons = everyReason(found.problems);
        return {nullptr, reasons.isEmpty() ? QStringLiteral("no input given") : reasons, false};
    }
    return {buildJobData(found.mode, std::move(inputs), std::move(found.problems)), QString(), false};
}

void forEachInParallel(size_t count, const std::function<void(size_t)>& work)
{
    const size_t workers = std::min(size_t(std::max(1, QThread::idealThreadCount())), count);
    std::atomic<size_t> next{0};
    const auto drain = [&] {
        for (size_t i = next++; i < count; i = next++)
            work(i);
    };
    if (workers <= 1) {
        drain();
        return;
    }
    QThreadPool pool;
    pool.setMaxThreadCount(int(workers));
    for (size_t w = 0; w < workers; ++w)
        pool.start(drain);
    pool.waitForDone();
}

JobOutcome loadJobBytes(const std::vector<JobBytes>& inputs)
{
    if (inputs.empty())
        return {nullptr, QStringLiteral("no input given"), false};
    JobInputs found;
    // As for paths: one input alone is read as a session (its ranks are the job).
    found.mode = inputs.size() == 1 ? JobMode::Session : JobMode::Job;
    std::vector<LoadOutcome> outcomes;
    outcomes.reserve(inputs.size());
    for (const JobBytes& input : inputs) {
        found.paths << input.name;
        outcomes.push_back(loadTraceBytes(input.bytes, std::nullopt, input.name));
    }
    return assembleJob(std::move(found), outcomes);
}

std::shared_ptr<const JobData> jobFromTraceSession(std::shared_ptr<const TraceData> trace,
                                                   size_t sessionIndex)
{
    if (!trace || sessionIndex >= trace->sessions.size())
        return nullptr;
    const QString path = trace->path;
    return buildJobData(JobMode::Session, {JobInput{path, std::move(trace), sessionIndex, {}}}, {});
}

std::shared_ptr<const JobData> buildJobData(JobMode mode, std::vector<JobInput> inputs, ProblemLog problems)
{
    auto job = std::make_shared<JobData>();
    job->mode = mode;
    job->inputs = std::move(inputs);

    // Every copy of every rank, in input order: a rank may be given twice (its sink and the
    // file exported from it, say), and is then read from one copy only (keptCopy says which).
    std::map<int64_t, std::vector<RankCopy>> copies;
    for (size_t i = 0; i < job->inputs.size(); ++i) {
        const JobInput& input = job->inputs[i];
        const TraceData& trace = *input.trace;
        for (size_t p = 0; p < trace.partitions.size(); ++p) {
            const Partition& partition = trace.partitions[p];
            if (partition.sessionIndex != input.sessionIndex || partition.size() == 0)
                continue;
            copies[partition.rank].push_back(RankCopy{
                JobRankPart{i, p}, trace.form == TraceForm::SinkDirectory, samplesOf(trace, partition)});
        }
    }
    std::map<int64_t, JobRank> ranks;
    for (const auto& [number, found] : copies) {
        const size_t kept = keptCopy(found);
        JobRank& rank = ranks[number];
        rank.parts.push_back(found[kept].part);
        for (size_t c = 0; c < found.size(); ++c) {
            if (c == kept)
                continue;
            rank.leftOut.push_back(found[c].part);
            job->inputs[found[c].part.inputIndex].leftOutPartitions.push_back(found[c].part.partitionIndex);
        }
    }
    // The parts read, in input order (the order the job id and world size are counted in).
    std::vector<SourceCount> samples;
    bool anyPart = false;
    for (size_t i = 0; i < job->inputs.size(); ++i) {
        const JobInput& input = job->inputs[i];
        const TraceData& trace = *input.trace;
        for (size_t p = 0; p < trace.partitions.size(); ++p) {
            const Partition& partition = trace.partitions[p];
            if (partition.sessionIndex != input.sessionIndex || partition.size() == 0 || !input.reads(p))
                continue;
            JobRank& rank = ranks[partition.rank];
            const EventStore& store = trace.store;
            const EventSource& source = store.sources[store.source[partition.begin]];
            rank.rank = partition.rank;
            rank.present = true;
            rank.host = qs(store.str(source.host));
            rank.localRank = source.localRank;
            countSources(input, i, partition, true, samples, &rank.sampleCount);
            const int64_t first = store.timestampNs[partition.begin];
            const int64_t last = store.timestampNs[partition.end - 1];
            job->firstTimestampNs = anyPart ? std::min(job->firstTimestampNs, first) : first;
            job->lastTimestampNs = anyPart ? std::max(job->lastTimestampNs, last) : last;
            anyPart = true;
        }
    }
    // Without a single sample the job id and world size come from whatever events there are.
    const bool fromEvents = samples.empty();
    if (fromEvents) {
        for (const auto& [number, rank] : ranks)
            for (const JobRankPart& part : rank.parts)
                countSources(job->inputs[part.inputIndex], part.inputIndex,
                             job->inputs[part.inputIndex].trace->partitions[part.partitionIndex], false,
                             samples, nullptr);
    }
    const auto& inputsOf = job->inputs;
    const QString noun = fromEvents ? QStringLiteral("events") : QStringLiteral("samples");

    // Job id: the most common among the samples (upstream's cross-rank analysis).
    std::vector<std::pair<QString, size_t>> jobIds;
    for (const SourceCount& c : samples)
        if (!c.jobId.isEmpty())
            jobIds.emplace_back(c.jobId, c.count);
    job->jobId = mostCommon(jobIds).value_or(QString());
    std::vector<SourceCount> withJobId;
    for (const SourceCount& c : samples)
        if (!c.jobId.isEmpty())
            withJobId.push_back(c);
    const bool severalJobIds = std::any_of(withJobId.begin(), withJobId.end(),
                                           [&](const SourceCount& c) { return c.jobId != job->jobId; });
    if (severalJobIds)
        problems.addWarning(
            inputsOf.front().path, 0,
            QStringLiteral("several job ids: %1; the job is %2 (most %3)")
                .arg(valuesWithFiles(withJobId, inputsOf, &jobIdOf, [](const QString& id) { return id; }),
                     job->jobId, noun));

    // World size as upstream determines it: the most common world_size above 1 among the
    // samples (of the job id, when there are several), at least the highest rank + 1.
    std::vector<std::pair<int64_t, size_t>> declared;
    int64_t highestRank = std::numeric_limits<int64_t>::min();
    for (const SourceCount& c : samples) {
        if (severalJobIds && c.jobId != job->jobId)
            continue;
        if (c.worldSize > 1)
            declared.emplace_back(c.worldSize, c.count);
        highestRank = std::max(highestRank, c.rank);
    }
    if (ranks.empty())
        job->worldSize = 0;
    else
        job->worldSize = std::max(mostCommon(declared).value_or(1), saturatingAdd(highestRank, 1));
    const bool worldSizesDiffer = std::any_of(samples.begin(), samples.end(), [&](const SourceCount& c) {
        return c.worldSize != samples.front().worldSize;
    });
    if (worldSizesDiffer)
        problems.addWarning(inputsOf.front().path, 0,
                            QStringLiteral("world_size disagrees: %1; the job takes %2")
                                .arg(valuesWithFiles(samples, inputsOf, &worldSizeOf,
                                                     [](int64_t size) { return QString::number(size); }))
                                .arg(job->worldSize));

    // Notes on the present ranks.
    for (const auto& [number, rank] : ranks) {
        QStringList files;
        for (const JobRankPart& part : rank.parts)
            files << inputsOf[part.inputIndex].path;
        if (!rank.leftOut.empty()) {
            QStringList others;
            for (const JobRankPart& part : rank.leftOut)
                others << inputsOf[part.inputIndex].path;
            problems.addWarning(
                files.front(), 0,
                QStringLiteral("rank %1 is in %2; the job reads it once, from %3, and leaves out %4 "
                               "(a rank given twice is read from its sink before a file exported "
                               "from it, else from the input with the most samples, else the first "
                               "given)")
                    .arg(number)
                    .arg(filesText(QStringList(files) + others), files.front(), filesText(others)));
        }
        if (rank.sampleCount < 2)
            problems.addWarning(
                files.front(), 0,
                englishPlural(QStringLiteral("rank %1 has %2 sample(s) (%3): fewer than two, too few "
                                             "to analyse over time"),
                              qint64(rank.sampleCount))
                    .arg(number)
                    .arg(rank.sampleCount)
                    .arg(filesText(files)));
    }

    // Missing ranks: expected from the world size, held by no input.
    std::vector<int64_t> missing;
    for (int64_t r = 0; r < job->worldSize && int64_t(missing.size()) < kMaxMissingRankRows; ++r)
        if (!ranks.count(r))
            missing.push_back(r);
    if (!missing.empty()) {
        // counted, not walked: a world size may be in the billions
        const int64_t missingCount =
            job->worldSize - int64_t(std::count_if(ranks.begin(), ranks.end(), [&](const auto& r) {
                return r.first >= 0 && r.first < job->worldSize;
            }));
        QStringList declaring;
        for (const SourceCount& c : samples)
            if (c.worldSize == job->worldSize)
                declaring << inputsOf[c.inputIndex].path;
        const QString source =
            declaring.isEmpty()
                ? QStringLiteral("the highest rank is %1").arg(job->worldSize - 1)
                : QStringLiteral("world_size %1 in %2").arg(job->worldSize).arg(filesText(declaring));
        QString listed = rangesText(missing);
        if (missingCount > int64_t(missing.size()))
            listed += QStringLiteral(" (the first %1 of %2)").arg(missing.size()).arg(missingCount);
        problems.addWarning(inputsOf.front().path, 0,
                            QStringLiteral("%1 %2 missing: %3, but no input holds %4")
                                .arg(missingCount == 1 ? QStringLiteral("rank") : QStringLiteral("ranks"),
                                     listed, source,
                                     missingCount == 1 ? QStringLiteral("it") : QStringLiteral("them")));
        for (int64_t r : missing) {
            JobRank& row = ranks[r];
            row.rank = r;
            row.present = false;
        }
    }

    for (auto& [number, rank] : ranks)
        job->ranks.push_back(std::move(rank));
    job->problems = std::move(problems);
    return job;
}

} // namespace gapscope
