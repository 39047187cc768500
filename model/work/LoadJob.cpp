#include "model/work/LoadJob.h"

#include "model/document/JobOpen.h"

#include <QElapsedTimer>

namespace gapscope {

namespace {

// Progress is reported at most this often: the loader may call back for every record and
// a flood of queued calls would itself make the GUI sluggish.
constexpr qint64 kProgressIntervalMs = 40;

} // namespace

LoadJob::LoadJob(QObject* parent) : QObject(parent) {}

// m_work cancels the running load, stops a cache write and waits for the worker.
LoadJob::~LoadJob() = default;

template <typename Load> quint64 LoadJob::startLoad(const QString& label, Load&& load)
{
    m_path = label;
    // started() goes out before anything the work hands back: that comes by queued calls
    const quint64 generation =
        m_work.startRun([this, load = std::forward<Load>(load)](const BackgroundWork::Run& run) {
            QElapsedTimer sinceLastReport;
            sinceLastReport.start();
            bool reportedOnce = false;
            LoadControl control;
            control.cancel = run.cancelFlag();
            control.progress = [&](qint64 bytesRead, qint64 totalBytes) {
                const bool done = totalBytes > 0 && bytesRead >= totalBytes;
                if (reportedOnce && !done && sinceLastReport.elapsed() < kProgressIntervalMs)
                    return;
                reportedOnce = true;
                sinceLastReport.restart();
                run.post([this, generation = run.generation(), bytesRead, totalBytes] {
                    emit progress(generation, bytesRead, totalBytes);
                });
            };
            load(run, control);
        });
    emit started(generation, label);
    return generation;
}

quint64 LoadJob::start(const QString& path, const QString& snapshotBeside)
{
    return startLoad(path, [this, path, snapshotBeside, cache = m_traceCache](const BackgroundWork::Run& run,
                                                                              const LoadControl& control) {
        DocumentOutcome outcome = loadDocument(path, control, cache.get());
        if (!snapshotBeside.isEmpty())
            outcome.snapshotBeside = snapshotBeside;
        run.finish([this, generation = run.generation(), outcome] { deliver(generation, outcome); });
        // after the delivery: the trace is shown while it is written
        if (cache && !run.isCancelled())
            keepInCache(outcome, *cache, run.closingFlag());
    });
}

quint64 LoadJob::startJob(const QStringList& paths)
{
    const QString label = paths.size() == 1 ? paths.front() : paths.join(QStringLiteral(", "));
    return startLoad(label, [this, paths, cache = m_traceCache](const BackgroundWork::Run& run,
                                                                const LoadControl& control) {
        std::vector<DocumentOutcome> ranks;
        JobOutcome outcome = loadJob(paths, control, cache.get(), &ranks);
        run.finish([this, generation = run.generation(), outcome = std::move(outcome)] {
            deliverJob(generation, outcome);
        });
        // after the delivery, as for one trace: the job is shown while its large ranks are written
        for (const DocumentOutcome& rank : ranks) {
            if (!cache || run.isCancelled())
                break;
            keepInCache(rank, *cache, run.closingFlag());
        }
    });
}

void LoadJob::cancel()
{
    m_work.cancel();
}

void LoadJob::waitForDone()
{
    m_work.waitForDone();
}

void LoadJob::deliver(quint64 generation, const DocumentOutcome& outcome)
{
    if (outcome.cancelled)
        emit cancelled(generation);
    else if (outcome.ok()) {
        if (outcome.budget)
            emit budgetLoaded(generation, outcome.budget);
        else if (outcome.trace)
            emit loaded(generation, outcome.trace);
        emit documentLoaded(generation, outcome.loaded()); // a snapshot has no signal of its own
    } else
        emit failed(generation, outcome.failure());
}

void LoadJob::deliverJob(quint64 generation, const JobOutcome& outcome)
{
    if (outcome.cancelled)
        emit cancelled(generation);
    else if (outcome.job) {
        emit jobLoaded(generation, outcome.job);
        emit documentLoaded(generation, LoadedDocument{nullptr, nullptr, outcome.job});
    } else
        emit failed(generation, outcome.fatalError);
}

AnalysisJob::AnalysisJob(QObject* parent) : QObject(parent) {}

AnalysisJob::~AnalysisJob() = default;

quint64 AnalysisJob::start(std::shared_ptr<const TraceData> trace, const AnalysisRequest& request)
{
    struct Outcome
    {
        std::shared_ptr<const AnalysisResult> result;
        QString error;
    };
    return m_work.start(
        [trace = std::move(trace), request](const BackgroundWork::Run&) {
            Outcome outcome;
            if (trace)
                outcome.result = runAnalysis(trace, request, &outcome.error);
            else
                outcome.error = tr("No trace is loaded");
            return outcome;
        },
        [this](Outcome outcome) {
            const quint64 generation = m_work.generation();
            if (outcome.result)
                emit finished(generation, std::move(outcome.result));
            else
                emit failed(generation,
                            outcome.error.isEmpty() ? tr("The analysis produced no result") : outcome.error);
        });
}

void AnalysisJob::discard()
{
    m_work.discard();
}

} // namespace gapscope
