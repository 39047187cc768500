#pragma once
// The one background-work mechanism of the GUI: loads (LoadJob), analyses (AnalysisJob) and
// the job page's cross-rank analyses and rank finding counts all run through it. Work runs on
// a private thread pool; what it hands back reaches the owner's thread by a queued call. Every
// start() bumps a generation: the work it supersedes is told to cancel, and a result (or a
// progress report) whose generation is no longer current is dropped, so the results of two
// documents or two requests never mix. The destructor cancels and waits, so no work outlives
// its owner; waitForDone() delivers the current result at once (tests, screenshots).

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>

namespace gapscope {

class BackgroundWork : public QObject
{
    Q_OBJECT
public:
    // What one piece of work sees on its worker thread.
    class Run
    {
    public:
        quint64 generation() const { return m_generation; }
        // Set when a newer start() supersedes this run, cancel() or discard() is called, or the
        // owner goes away: a loader polls it (LoadControl::cancel) and stops early.
        const std::atomic<bool>* cancelFlag() const { return m_cancel.get(); }
        bool isCancelled() const { return m_cancel->load(); }
        // Set only when the owner goes away (not by a newer run): a tail of work that outlives
        // its result (a cache write) stops.
        const std::atomic<bool>* closingFlag() const;
        // Calls fn on the owner's thread while this run is current and has not finished
        // (progress); dropped otherwise.
        void post(std::function<void()> fn) const;
        // Calls fn on the owner's thread as this run's result, unless a newer run or discard()
        // superseded it; the work is not running from then on. Work may go on after it (a cache
        // write after the load is shown).
        void finish(std::function<void()> fn) const;

    private:
        friend class BackgroundWork;
        Run(BackgroundWork* owner, quint64 generation, std::shared_ptr<std::atomic<bool>> cancel)
            : m_owner(owner), m_generation(generation), m_cancel(std::move(cancel))
        {
        }
        BackgroundWork* m_owner;
        quint64 m_generation;
        std::shared_ptr<std::atomic<bool>> m_cancel;
    };

    // maxThreads: one runs the current work; a second only holds a superseded run finishing.
    explicit BackgroundWork(QObject* parent = nullptr, int maxThreads = 2);
    // Cancels the running work and waits for it: no callback outlives the owner.
    ~BackgroundWork() override;

    // Runs work(run) on the pool as the new generation, which it returns; the running work is
    // told to cancel and its result will be dropped. work hands its result back by run.finish().
    quint64 startRun(std::function<void(const Run&)> work);
    // The usual shape: result = work(run) on the pool, then deliver(result) on the owner's
    // thread if still current. The result must be copyable (a shared_ptr, a vector).
    template <typename Work, typename Deliver> quint64 start(Work work, Deliver deliver)
    {
        return startRun([work = std::move(work), deliver = std::move(deliver)](const Run& run) {
            auto result = work(run);
            run.finish([deliver, result = std::move(result)]() mutable { deliver(std::move(result)); });
        });
    }
    // Tells the running work to stop; what it hands back still arrives (a cancelled outcome).
    void cancel();
    // Drops the result of the running work (it is told to cancel too): a new generation with
    // nothing running.
    void discard();
    bool isRunning() const { return m_running; }
    quint64 generation() const { return m_generation; }
    // Blocks until every run has finished and delivers the current one's result (tests,
    // screenshots). Other queued calls of the owner are left where they are.
    void waitForDone();

private:
    void deliver(quint64 generation, const std::function<void()>& fn, bool final);

    QThreadPool m_pool;
    quint64 m_generation = 0;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::atomic<bool> m_closing{false};
};

} // namespace gapscope
