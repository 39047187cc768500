#include "model/fleet/FleetIndexer.h"

#include "model/document/Document.h"
#include "model/fleet/FleetIssues.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobFindings.h"
#include "model/snapshot/SnapshotFragmentation.h"
#include "model/trace/OomBundle.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <QtEndian>

#include <algorithm>
#include <unordered_map>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace gapscope {

namespace {

// A file's modification time to the nanosecond where the system keeps it (two writes within a
// millisecond are two times), else to the millisecond.
qint64 modifiedNs(const QFileInfo& file)
{
#ifdef Q_OS_UNIX
    struct stat status
    {
    };
    if (::stat(QFile::encodeName(file.filePath()).constData(), &status) == 0)
        return qint64(status.st_mtim.tv_sec) * 1000000000 + qint64(status.st_mtim.tv_nsec);
#endif
    return file.lastModified().toMSecsSinceEpoch() * qint64(1000000);
}

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

// The most severe finding, then the most confident (the first of equals).
const Finding* worstFinding(const std::vector<const Finding*>& findings)
{
    const Finding* worst = nullptr;
    for (const Finding* finding : findings)
        if (!worst || severityRank(finding->severity) < severityRank(worst->severity) ||
            (finding->severity == worst->severity && finding->confidence > worst->confidence))
            worst = finding;
    return worst;
}

void setFindings(FleetRun& run, const std::vector<const Finding*>& findings)
{
    run.findingCount = qint64(findings.size());
    if (const Finding* worst = worstFinding(findings)) {
        run.worstClass = text(toString(worst->classification));
        run.worstSeverity = text(toString(worst->severity));
        run.worstConfidence = worst->confidence;
        run.worstPhase = summarizePhaseAttribution(worst->phase);
    }
}

// The row of one (session, rank) analysis: identity, span, gap statistics and its own findings.
FleetRun runOfAnalysis(const AnalysisResult& result)
{
    FleetRun run;
    const TraceData& trace = *result.trace;
    const EventStore& store = trace.store;
    const SessionInfo& session = trace.sessions[result.sessionIndex];
    const Partition& partition = result.partition;
    run.sessionId = session.id;
    run.sessionStatus = toString(session.status);
    run.jobId = session.jobId;
    run.host = session.host;
    run.collector = session.collector;
    run.backend = session.backend;
    run.rank = result.rank;
    if (session.pid)
        run.pid = session.pid;
    if (partition.size() > 0) {
        const EventSource& source = store.sources[store.source[partition.begin]];
        run.worldSize = source.worldSize;
        if (run.host.isEmpty())
            run.host = QString::fromStdString(store.str(source.host));
        if (run.jobId.isEmpty())
            run.jobId = QString::fromStdString(store.str(source.jobId));
        run.pid = source.pid;
        run.startNs = store.timestampNs[partition.begin];
        run.endNs = store.timestampNs[partition.end - 1];
    }
    const std::vector<uint32_t>& rows = result.usableRows;
    run.samples = qint64(rows.empty() ? result.counterRows.size() : rows.size());
    if (!rows.empty()) {
        int64_t peak = store.gapAt(rows.front());
        for (const uint32_t row : rows)
            peak = std::max(peak, store.gapAt(row));
        run.peakGapBytes = peak;
        run.latestGapBytes = store.gapAt(rows.back());
        run.deviceTotalBytes = store.total[rows.back()];
    }
    if (result.statistics.hasFit)
        run.driftSlopeBytesPerS = result.statistics.slopePerNs * 1e9;
    std::vector<const Finding*> findings;
    for (const Finding& finding : result.findings)
        findings.push_back(&finding);
    setFindings(run, findings);
    QStringList codes;
    for (const Notice& notice : result.notices)
        codes << text(notice.code);
    run.notices = codes.join(QLatin1Char(','));
    for (const OomInfo& oom : trace.ooms)
        if (oom.sessionId.isEmpty() || oom.sessionId == session.id)
            ++run.oomCount;
    return run;
}

// The notice issues of a run (gapscope's own groups), from its notice codes.
void addNoticeIssues(FleetIssueSet& issues, const FleetRun& run, const std::vector<Notice>& notices)
{
    const QStringList codes = run.notices.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& code : codes) {
        QString severity = QStringLiteral("warning"); // rank_divergence: the finding's
        for (const Notice& notice : notices)
            if (text(notice.code) == code)
                severity = text(toString(notice.severity));
        if (code == QLatin1String("first_cause_at_startup"))
            severity = QStringLiteral("info");
        issues.addNotice(code, severity, run.collector, run.backend, run.startNs);
    }
}

// Every rank of a job: its own analysis, the job's findings about it, first cause, divergence.
void indexJob(std::shared_ptr<const JobData> job, IndexedInput& out)
{
    const DocumentAnalysis analysis = analyzeJobDocument(job, DocumentRequest{});
    if (!analysis.ok()) {
        out.error = analysis.error;
        return;
    }
    const std::shared_ptr<const JobAnalysisResult> jobAnalysis = analysis.jobAnalysis();
    const std::shared_ptr<const JobFindings> jobFindings = buildJobFindings(jobAnalysis, job.get());
    std::optional<qint64> firstCause;
    if (jobAnalysis && jobAnalysis->crossRank && !jobAnalysis->crossRank->suspects.empty())
        firstCause = jobAnalysis->crossRank->suspects.front().rank;
    for (size_t i = 0; i < job->ranks.size() && i < analysis.ranks.size(); ++i) {
        const JobRank& rank = job->ranks[i];
        const std::shared_ptr<const AnalysisResult>& result = analysis.ranks[i];
        if (!rank.present || rank.parts.empty() || !result)
            continue;
        FleetRun run = runOfAnalysis(*result);
        const JobInput& input = job->inputs[rank.parts.front().inputIndex];
        run.path = job->mode == JobMode::Job ? fleetPath(input.path) : QString();
        if (!job->jobId.isEmpty())
            run.jobId = job->jobId;
        if (job->worldSize > 0)
            run.worldSize = job->worldSize;
        run.firstCauseRank = firstCause;
        std::vector<const Finding*> findings;
        for (const Finding& finding : result->findings)
            findings.push_back(&finding);
        QStringList codes = run.notices.split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (jobFindings) {
            for (const Finding& finding : jobFindings->findings) {
                const bool about =
                    finding.rank == rank.rank ||
                    std::find(finding.ranks.begin(), finding.ranks.end(), rank.rank) != finding.ranks.end();
                if (about)
                    findings.push_back(&finding);
                if (about && finding.classification == Classification::RankDivergence &&
                    !codes.contains(QStringLiteral("rank_divergence")))
                    codes << QStringLiteral("rank_divergence");
            }
        }
        if (jobAnalysis &&
            std::find(jobAnalysis->firstCauseAtStartup.begin(), jobAnalysis->firstCauseAtStartup.end(),
                      rank.rank) != jobAnalysis->firstCauseAtStartup.end())
            codes << QStringLiteral("first_cause_at_startup");
        run.notices = codes.join(QLatin1Char(','));
        setFindings(run, findings);
        FleetIssueSet issues;
        const Partition& partition = input.trace->partitions[rank.parts.front().partitionIndex];
        issues.addEventIssues(input.trace->store, partition.begin, partition.end);
        issues.addHiddenMemoryIssues(*result);
        addNoticeIssues(issues, run, result->notices);
        run.issues = issues.hits();
        out.runs.push_back(std::move(run));
    }
}

void indexTrace(std::shared_ptr<const TraceData> trace, bool bundle, IndexedInput& out)
{
    for (size_t s = 0; s < trace->sessions.size(); ++s) {
        if (jobSessionOf(*trace, s)) {
            indexJob(jobFromTraceSession(trace, s), out);
            continue;
        }
        for (const Partition& partition : trace->partitions) {
            if (partition.sessionIndex != s)
                continue;
            AnalysisRequest request;
            request.sessionIndex = s;
            request.rank = partition.rank;
            QString error;
            const auto result = runAnalysis(trace, request, &error);
            if (!result) {
                out.error = error;
                continue;
            }
            FleetRun run = runOfAnalysis(*result);
            FleetIssueSet issues;
            // an OOM bundle is one hit of its own; upstream reads neither its events nor a
            // gap analysis of them
            if (!bundle) {
                issues.addEventIssues(trace->store, partition.begin, partition.end);
                issues.addHiddenMemoryIssues(*result);
            }
            addNoticeIssues(issues, run, result->notices);
            run.issues = issues.hits();
            out.runs.push_back(std::move(run));
        }
    }
    if (bundle && !trace->ooms.empty()) {
        // the bundle's own OOM: one hit, on its run (the first, if its events hold several)
        FleetIssueSet issues;
        issues.addOomBundleIssue(trace->ooms.front());
        if (out.runs.empty()) {
            FleetRun run;
            run.sessionId = trace->ooms.front().sessionId;
            run.oomCount = 1;
            out.runs.push_back(run);
        }
        for (FleetIssueHits& hits : issues.hits())
            out.runs.front().issues.push_back(std::move(hits));
    }
}

void indexBudget(const DocumentOutcome& document, IndexedInput& out)
{
    const DocumentAnalysis analysis = analyzeDocument(document, DocumentRequest{});
    if (!analysis.budget) {
        out.error = analysis.error;
        return;
    }
    FleetRun run;
    run.samples = qint64(analysis.budget->analysedTicks());
    std::vector<const Finding*> findings;
    for (const Finding& finding : analysis.budget->findings)
        findings.push_back(&finding);
    setFindings(run, findings);
    out.runs.push_back(std::move(run));
}

void indexSnapshot(const SnapshotData& snapshot, IndexedInput& out)
{
    FleetRun run;
    const std::vector<Finding> found = snapshotFragmentationFindings(snapshot);
    std::vector<const Finding*> findings;
    for (const Finding& finding : found)
        findings.push_back(&finding);
    setFindings(run, findings);
    out.runs.push_back(std::move(run));
}

// Whether a folder recognised as a job is one job for the fleet: the ranks of one run, each
// identified (a session and a rank), of one job id; not a tree that holds runs of several jobs
// with distinct ranks, or a run beside files that are not runs.
bool oneJob(const OpenPlan& plan)
{
    QSet<QString> jobs;
    for (const FoundRun& run : plan.runs) {
        if (run.sessionId.isEmpty() || !run.rank)
            return false;
        if (!run.jobId.isEmpty())
            jobs.insert(run.jobId);
    }
    return plan.runs.size() >= 2 && jobs.size() <= 1;
}

// What a folder holds, read once per walk: its entries as the walk takes them (sorted names)
// with each file's size and time, and its stamps (fleetInputStamp; FleetWalkedPath).
struct FolderEntry
{
    QString path;
    bool folder = false;
    bool file = false;
    bool symLink = false;
    FleetInputStamp stamp; // a file's
};

struct FolderListing
{
    std::vector<FolderEntry> entries;
    FleetInputStamp files; // its files at every level (what fleetInputStamp gives)
    qint64 newestNs = 0;   // the newest time of its files and folders at every level, itself included
};

// Each folder of a walk listed once: the stamp of a folder is made of its subfolders' listings,
// which the walk takes again when it goes into them.
class FolderListings
{
public:
    const FolderListing& of(const QString& folder)
    {
        if (const auto it = m_listings.find(folder); it != m_listings.end())
            return it->second;
        FolderListing listing;
        listing.newestNs = modifiedNs(QFileInfo(folder));
        const QFileInfoList infos = QDir(folder).entryInfoList(
            QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
        listing.entries.reserve(size_t(infos.size()));
        for (const QFileInfo& info : infos) {
            FolderEntry entry;
            entry.path = fleetPath(info.filePath());
            entry.symLink = info.isSymLink();
            entry.file = info.isFile();
            entry.folder = info.isDir();
            if (entry.file) {
                // a link to a file counts with the file's size and time, as QDirIterator gives it
                entry.stamp = FleetInputStamp{info.size(), modifiedNs(info)};
                listing.files.size += entry.stamp.size;
                listing.files.mtimeNs = std::max(listing.files.mtimeNs, entry.stamp.mtimeNs);
                listing.newestNs = std::max(listing.newestNs, entry.stamp.mtimeNs);
            } else if (entry.folder && !entry.symLink) {
                // (a link to a folder is not followed)
                const FolderListing& sub = of(entry.path);
                listing.files.size += sub.files.size;
                listing.files.mtimeNs = std::max(listing.files.mtimeNs, sub.files.mtimeNs);
                listing.newestNs = std::max(listing.newestNs, sub.newestNs);
            }
            listing.entries.push_back(std::move(entry));
        }
        // std::unordered_map: references to its values stay valid as it grows
        return m_listings.emplace(folder, std::move(listing)).first->second;
    }

private:
    std::unordered_map<QString, FolderListing> m_listings;
};

FleetInputStamp fileStamp(const QString& path)
{
    const QFileInfo info(path);
    return FleetInputStamp{info.size(), modifiedNs(info)};
}

class Walker
{
public:
    Walker(const QHash<QString, KnownFleetInput>& known, const QHash<QString, FleetWalkedPath>& knownWalked)
        : m_known(known), m_knownWalked(knownWalked)
    {
    }

    void walk(const QString& path)
    {
        const QFileInfo info(path);
        if (info.isDir())
            walkFolder(path);
        else if (info.isFile())
            walkFile(path, fileStamp(path), false);
    }

    std::vector<FleetInput> inputs;
    QHash<QString, FleetWalkedPath> walked;
    qint64 recognised = 0;

private:
    // An input found before and unchanged: taken as it was.
    bool takeKnown(const QString& path, FleetInputStamp stamp)
    {
        const auto it = m_known.constFind(path);
        if (it == m_known.constEnd() || !(stamp == it->stamp))
            return false;
        add(path, it->kind, stamp, it->passedOver);
        return true;
    }

    // A path walked before and not an input then, with the same stamp.
    const FleetWalkedPath* knownWalked(const QString& path, FleetInputStamp stamp) const
    {
        const auto it = m_knownWalked.constFind(path);
        return it != m_knownWalked.constEnd() && it->stamp == stamp ? &*it : nullptr;
    }

    void add(const QString& path, InputKind kind, FleetInputStamp stamp, const QString& passedOver = {})
    {
        if (m_added.contains(path))
            return;
        m_added.insert(path);
        inputs.push_back(FleetInput{path, kind, stamp, passedOver});
    }

    void walkFolder(const QString& folder)
    {
        const FolderListing& listing = m_listings.of(folder);
        if (takeKnown(folder, listing.files))
            return;
        const FleetInputStamp stamp{listing.files.size, listing.newestNs};
        QStringList skipped;
        const FleetWalkedPath* before = knownWalked(folder, stamp);
        if (before) {
            skipped = before->skipped;
        } else {
            ++recognised;
            const InputRecognition input = recognizeInput(folder);
            const bool itself = fleetPath(input.path) == folder;
            if ((input.kind == InputKind::StormlogTrace || input.kind == InputKind::OomBundle) && itself) {
                add(folder, input.kind, listing.files);
                return;
            }
            if (input.kind == InputKind::Job && oneJob(input.plan)) {
                add(folder, input.kind, listing.files);
                return;
            }
            // copies of a run (a file exported beside its sink) are read through the run's first path
            for (const FoundRun& run : input.plan.runs)
                for (qsizetype i = 1; i < run.paths.size(); ++i)
                    skipped << fleetPath(run.paths[i]);
            skipped.sort();
            skipped.removeDuplicates();
        }
        walked.insert(folder, FleetWalkedPath{stamp, skipped});
        for (const FolderEntry& entry : listing.entries) {
            if (entry.symLink || skipped.contains(entry.path))
                continue;
            if (entry.folder)
                walkFolder(entry.path);
            else if (entry.file)
                walkFile(entry.path, entry.stamp, before != nullptr);
        }
    }

    // folderUnchanged: the file's folder was taken as it was
    void walkFile(const QString& file, FleetInputStamp stamp, bool folderUnchanged)
    {
        if (takeKnown(file, stamp))
            return;
        if (folderUnchanged && knownWalked(file, stamp)) {
            walked.insert(file, FleetWalkedPath{stamp, {}});
            return;
        }
        ++recognised;
        const InputRecognition input = recognizeInput(file);
        const bool itself = fleetPath(input.path) == file;
        switch (input.kind) {
        case InputKind::StormlogTrace:
            if (itself)
                add(file, input.kind, stamp);
            else
                walked.insert(file, FleetWalkedPath{stamp, {}}); // a sink's manifest or segment
            return;
        case InputKind::BudgetLog:
        case InputKind::PytorchSnapshot:
            add(file, input.kind, stamp);
            return;
        case InputKind::OomBundle:
        case InputKind::Job:
        case InputKind::SeveralRuns:
            // part of a bundle or a folder the walk reads as such
            walked.insert(file, FleetWalkedPath{stamp, {}});
            return;
        case InputKind::FleetDatabase: // another index (or this one's shards): not a run
            add(file, input.kind, stamp, QStringLiteral("a fleet index database, not a run"));
            return;
        case InputKind::NvidiaSmiLog:
        case InputKind::Foreign:
        case InputKind::Unknown:
            add(file, input.kind, stamp,
                input.reason.isEmpty() ? QStringLiteral("not an input gapscope reads") : input.reason);
            return;
        }
    }

    const QHash<QString, KnownFleetInput>& m_known;
    const QHash<QString, FleetWalkedPath>& m_knownWalked;
    FolderListings m_listings;
    QSet<QString> m_added;
};

} // namespace

QString fleetPath(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

FleetInputStamp fleetInputStamp(const QString& path)
{
    if (!QFileInfo(path).isDir())
        return fileStamp(path);
    FolderListings listings;
    return listings.of(fleetPath(path)).files;
}

FleetWalk walkFleet(const QStringList& roots, const QHash<QString, KnownFleetInput>& known,
                    const QHash<QString, FleetWalkedPath>& knownWalked)
{
    FleetWalk found;
    Walker walker(known, knownWalked);
    for (const QString& root : roots) {
        const QString path = fleetPath(root);
        if (!QFileInfo::exists(path)) {
            found.problems << QStringLiteral("%1: no such file or folder").arg(root);
            continue;
        }
        walker.walk(path);
    }
    found.inputs = std::move(walker.inputs);
    found.walked = std::move(walker.walked);
    found.recognised = walker.recognised;
    return found;
}

bool inFleetShard(const QString& path, int index, int count)
{
    const QByteArray digest = QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1);
    const quint64 value = qFromBigEndian<quint64>(digest.constData());
    return int(value % quint64(count)) == index;
}

std::optional<InputKind> inputKindFromString(const QString& name)
{
    for (const InputKind kind : {InputKind::StormlogTrace, InputKind::BudgetLog, InputKind::Job,
                                 InputKind::SeveralRuns, InputKind::OomBundle, InputKind::PytorchSnapshot,
                                 InputKind::NvidiaSmiLog, InputKind::Foreign, InputKind::Unknown})
        if (toString(kind) == name)
            return kind;
    return std::nullopt;
}

IndexedInput indexFleetInput(const FleetInput& input)
{
    IndexedInput out;
    out.path = input.path;
    out.kind = toString(input.kind);
    out.stamp = input.stamp;
    if (!input.passedOver.isEmpty()) {
        out.error = input.passedOver;
        out.passedOver = true;
        return out;
    }
    // one thread per input: the inputs themselves run side by side
    LoadControl control;
    control.threads = 1;
    if (input.kind == InputKind::Job) {
        const JobOutcome job = loadJob({input.path}, control);
        if (!job.job)
            out.error = job.fatalError;
        else
            indexJob(job.job, out);
        return out;
    }
    const DocumentOutcome document = loadDocument(input.path, control);
    if (!document.ok() && input.kind == InputKind::OomBundle) {
        // a bundle whose events cannot be read is still an OOM: its manifest says so (upstream
        // counts a bundle by its manifest alone)
        const OomInfo oom = readOomInfo(input.path);
        FleetRun run;
        run.sessionId = oom.sessionId;
        run.sessionStatus = oom.sessionStatus;
        run.backend = oom.backend;
        run.oomCount = 1;
        FleetIssueSet issues;
        issues.addOomBundleIssue(oom);
        run.issues = issues.hits();
        out.runs.push_back(std::move(run));
        out.error = document.failure();
        return out;
    }
    if (!document.ok()) {
        out.error = document.failure();
        return out;
    }
    if (document.trace)
        indexTrace(document.trace, input.kind == InputKind::OomBundle, out);
    else if (document.budget)
        indexBudget(document, out);
    else if (document.snapshot)
        indexSnapshot(*document.snapshot, out);
    if (!out.runs.empty())
        out.error.clear(); // a session that could not be analysed beside ones that could
    return out;
}

} // namespace gapscope
