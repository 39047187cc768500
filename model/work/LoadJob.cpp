#include "model/work/LoadJob.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QMetaObject>

namespace gapscope {

namespace {

// Progress is reported at most this often: the loader may call back for every record and
// a flood of queued calls would itself make the GUI sluggish.
constexpr qint64 kProgressIntervalMs = 40;

} // namespace

LoadJob::LoadJob(QObject* parent) : QObject(parent)
{
    // One load at a time is enough; a second worker only holds a superseded load.
    m_pool.setMaxThreadCount(2);
}

LoadJob::~LoadJob()
{
    m_closing.store(true);
    if (m_cancelFlag)
        m_cancelFlag->store(true);
    m_pool.waitForDone();
}

template <typename Load> quint64 LoadJob::startLoad(const QString& label, Load&& load)
{
    if (m_cancelFlag)
        m_cancelFlag->store(true); // the superseded worker stops early; its result is dropped
    const quint64 generation = ++m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancelFlag = cancelFlag;
    m_running = true;
    m_path = label;
    emit started(generation, label);

    m_pool.start([this, generation, cancelFlag, load = std::forward<Load>(load)] {
        QElapsedTimer sinceLastReport;
        sinceLastReport.start();
        bool reportedOnce = false;
        LoadControl control;
        control.cancel = cancelFlag.get();
        control.progress = [&](qint64 bytesRead, qint64 totalBytes) {
            const bool done = totalBytes > 0 && bytesRead >= totalBytes;
            if (reportedOnce && !done && sinceLastReport.elapsed() < kProgressIntervalMs)
                return;
            reportedOnce = true;
            sinceLastReport.restart();
            // `this` is alive: the destructor waits for the pool before members go away.
            QMetaObject::invokeMethod(
                this,
                [this, generation, bytesRead, totalBytes] {
                    deliverProgress(generation, bytesRead, totalBytes);
                },
                Qt::QueuedConnection);
        };
        load(generation, control);
    });
    return generation;
}

quint64 LoadJob::start(const QString& path)
{
    return startLoad(
        path, [this, path, cache = m_traceCache](quint64 generation, const LoadControl& control) {
            DocumentOutcome outcome = loadDocument(path, control, cache.get());
            QMetaObject::invokeMethod(
                this, [this, generation, outcome] { deliver(generation, outcome); }, Qt::QueuedConnection);
            // after the delivery: the trace is shown while it is written
            if (cache && !(control.cancel && control.cancel->load()))
                keepInCache(outcome, *cache, &m_closing);
        });
}

quint64 LoadJob::startJob(const QStringList& paths)
{
    const QString label = paths.size() == 1 ? paths.front() : paths.join(QStringLiteral(", "));
    return startLoad(label, [this, paths](quint64 generation, const LoadControl& control) {
        JobOutcome outcome = loadJob(paths, control);
        QMetaObject::invokeMethod(
            this, [this, generation, outcome = std::move(outcome)] { deliverJob(generation, outcome); },
            Qt::QueuedConnection);
    });
}

void LoadJob::cancel()
{
    if (m_running && m_cancelFlag)
        m_cancelFlag->store(true);
}

void LoadJob::waitForDone()
{
    m_pool.waitForDone();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void LoadJob::deliverProgress(quint64 generation, qint64 bytesRead, qint64 totalBytes)
{
    if (generation != m_generation || !m_running)
        return;
    emit progress(generation, bytesRead, totalBytes);
}

void LoadJob::deliver(quint64 generation, const DocumentOutcome& outcome)
{
    if (generation != m_generation)
        return; // superseded by a newer load
    m_running = false;
    m_cancelFlag.reset();
    if (outcome.cancelled)
        emit cancelled(generation);
    else if (outcome.budget)
        emit budgetLoaded(generation, outcome.budget);
    else if (outcome.trace)
        emit loaded(generation, outcome.trace);
    else
        emit failed(generation, outcome.failure());
}

void LoadJob::deliverJob(quint64 generation, const JobOutcome& outcome)
{
    if (generation != m_generation)
        return; // superseded by a newer load
    m_running = false;
    m_cancelFlag.reset();
    if (outcome.cancelled)
        emit cancelled(generation);
    else if (outcome.job)
        emit jobLoaded(generation, outcome.job);
    else
        emit failed(generation, outcome.fatalError);
}

AnalysisJob::AnalysisJob(QObject* parent) : QObject(parent)
{
    m_pool.setMaxThreadCount(2);
}

AnalysisJob::~AnalysisJob()
{
    m_pool.waitForDone();
}

quint64 AnalysisJob::start(std::shared_ptr<const TraceData> trace, const AnalysisRequest& request)
{
    const quint64 generation = ++m_generation;
    m_running = true;
    m_pool.start([this, generation, trace = std::move(trace), request] {
        QString error;
        std::shared_ptr<const AnalysisResult> result;
        if (trace)
            result = runAnalysis(trace, request, &error);
        else
            error = tr("No trace is loaded");
        QMetaObject::invokeMethod(
            this,
            [this, generation, result = std::move(result), error] { deliver(generation, result, error); },
            Qt::QueuedConnection);
    });
    return generation;
}

void AnalysisJob::discard()
{
    ++m_generation;
    m_running = false;
}

void AnalysisJob::waitForDone()
{
    m_pool.waitForDone();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void AnalysisJob::deliver(quint64 generation, std::shared_ptr<const AnalysisResult> result,
                          const QString& error)
{
    if (generation != m_generation)
        return;
    m_running = false;
    if (result)
        emit finished(generation, std::move(result));
    else
        emit failed(generation, error.isEmpty() ? tr("The analysis produced no result") : error);
}

} // namespace gapscope
