#pragma once
// Background loading (loadDocument: a trace, a budget log or a PyTorch snapshot; loadJob: a
// distributed job) and re-analysis for the GUI, on BackgroundWork (model/work/BackgroundWork.h): results and
// progress come back to the object's thread through queued calls, and every start() bumps a
// generation: a newer job supersedes an older one (which is told to cancel), and a result
// whose generation is no longer current is dropped, so results of two traces or two requests
// can never mix.

#include "model/document/Document.h"
#include "model/document/LoadedDocument.h"
#include "model/work/BackgroundWork.h"

#include <QObject>
#include <QString>

#include <memory>

namespace gapscope {

class LoadJob : public QObject
{
    Q_OBJECT
public:
    explicit LoadJob(QObject* parent = nullptr);
    // Cancels the running load and waits for the worker: no callback outlives the job.
    ~LoadJob() override;

    // Starts loading path in the background; returns the new generation. A load still
    // running is cancelled and its result will be dropped. With a trace cache (setTraceCache)
    // a valid entry is read instead of the input, and a large trace read from the input is
    // written into the cache after it has been delivered, on the same worker. snapshotBeside:
    // a PyTorch snapshot opened with the trace (OpenPlan::snapshot), handed on with it
    // (LoadedDocument::snapshotBeside) in place of the one loadDocument finds.
    quint64 start(const QString& path, const QString& snapshotBeside = {});
    // The reopen cache start() uses; nullptr (the default): none.
    void setTraceCache(std::shared_ptr<const TraceCache> cache) { m_traceCache = std::move(cache); }
    const std::shared_ptr<const TraceCache>& traceCache() const { return m_traceCache; }
    // Starts loading a distributed job (model/document/JobOpen loadJob: several paths or a job
    // folder, see opensAsJob) with the same generations, progress (bytes of all inputs),
    // cancel, failure and trace cache (each rank read from its entry, large ranks written after
    // the delivery) as start(); the result comes as jobLoaded().
    quint64 startJob(const QStringList& paths);
    // Cancels the current load. The cancelled() signal follows once the worker has stopped.
    void cancel();
    bool isRunning() const { return m_work.isRunning(); }
    quint64 generation() const { return m_work.generation(); }
    QString currentPath() const { return m_path; }

    // Blocks until the current load has delivered its result (tests, screenshots).
    void waitForDone();

signals:
    void started(quint64 generation, const QString& path);
    // bytesRead of totalBytes (totalBytes may be 0 when unknown). Throttled.
    void progress(quint64 generation, qint64 bytesRead, qint64 totalBytes);
    void loaded(quint64 generation, std::shared_ptr<const gapscope::TraceData> data);
    // The path held a memory-budget log.
    void budgetLoaded(quint64 generation, std::shared_ptr<const gapscope::BudgetData> data);
    // A job (startJob). Its notes (inputs that failed, ranks twice, ...) are in job->problems.
    void jobLoaded(quint64 generation, std::shared_ptr<const gapscope::JobData> job);
    // Whatever was loaded, of any kind, after its own signal above: what the window hands to a
    // tab without knowing the kinds.
    void documentLoaded(quint64 generation, const gapscope::LoadedDocument& document);
    void failed(quint64 generation, const QString& error);
    void cancelled(quint64 generation);

private:
    // Starts load(run, control) on m_work as the new generation; its result goes to deliver.
    template <typename Load> quint64 startLoad(const QString& label, Load&& load);
    void deliver(quint64 generation, const DocumentOutcome& outcome);
    void deliverJob(quint64 generation, const JobOutcome& outcome);

    BackgroundWork m_work;
    QString m_path;
    std::shared_ptr<const TraceCache> m_traceCache;
};

class AnalysisJob : public QObject
{
    Q_OBJECT
public:
    explicit AnalysisJob(QObject* parent = nullptr);
    // Waits for the running analysis (its result is dropped).
    ~AnalysisJob() override;

    // Runs the analysis in the background; returns the new generation. The result of any
    // earlier request is dropped when it arrives.
    quint64 start(std::shared_ptr<const TraceData> trace, const AnalysisRequest& request);
    // Drops the result of the running request (runAnalysis itself cannot be interrupted).
    void discard();
    bool isRunning() const { return m_work.isRunning(); }
    quint64 generation() const { return m_work.generation(); }
    void waitForDone() { m_work.waitForDone(); }

signals:
    void finished(quint64 generation, std::shared_ptr<const gapscope::AnalysisResult> result);
    void failed(quint64 generation, const QString& error);

private:
    BackgroundWork m_work;
};

} // namespace gapscope
