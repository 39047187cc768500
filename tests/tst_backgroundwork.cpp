// The one background-work mechanism (model/work/BackgroundWork): a newer start drops the
// results of the runs it supersedes and tells them to cancel; cancel reaches the run and its
// result still arrives, discard drops it; progress (post) arrives only while the run is current
// and unfinished; results arrive on the owner's thread; waitForDone delivers without an event
// loop; the destructor waits for the worker and stops a tail of work through the closing flag.

#include "model/work/BackgroundWork.h"

#include <QElapsedTimer>
#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <memory>
#include <vector>

using namespace gapscope;

namespace {

constexpr int kPatienceMs = 10000;

// Spins until flag is set (or the patience runs out: the test then fails on what it got).
bool waitFor(const std::atomic<bool>* flag)
{
    QElapsedTimer timer;
    timer.start();
    while (!flag->load()) {
        if (timer.elapsed() > kPatienceMs)
            return false;
        QThread::msleep(1);
    }
    return true;
}

} // namespace

class TestBackgroundWork : public QObject
{
    Q_OBJECT
private slots:
    void newerStartDropsOlderResults_data()
    {
        QTest::addColumn<int>("starts");
        QTest::addColumn<int>("threads");
        QTest::newRow("one run") << 1 << 2;
        QTest::newRow("two runs, second supersedes") << 2 << 2;
        QTest::newRow("five runs, queued behind two threads") << 5 << 2;
        QTest::newRow("five runs on one thread") << 5 << 1;
    }

    void newerStartDropsOlderResults()
    {
        QFETCH(int, starts);
        QFETCH(int, threads);
        BackgroundWork work(nullptr, threads);
        QSemaphore gate;
        std::vector<int> delivered;
        auto cancelledAtEnd = std::make_shared<std::vector<std::atomic<bool>>>(size_t(starts));
        for (int i = 0; i < starts; ++i) {
            const quint64 generation = work.start(
                [&gate, cancelledAtEnd, i](const BackgroundWork::Run& run) {
                    gate.acquire(); // every run is started before any finishes
                    (*cancelledAtEnd)[size_t(i)] = run.isCancelled();
                    return i;
                },
                [&delivered](int result) { delivered.push_back(result); });
            QCOMPARE(generation, quint64(i + 1));
            QVERIFY(work.isRunning());
        }
        gate.release(starts);
        work.waitForDone();
        QCOMPARE(delivered, std::vector<int>{starts - 1}); // only the newest
        QVERIFY(!work.isRunning());
        QCOMPARE(work.generation(), quint64(starts));
        for (int i = 0; i < starts; ++i)
            QCOMPARE((*cancelledAtEnd)[size_t(i)].load(), i < starts - 1); // the superseded were told
    }

    void cancelAndDiscard_data()
    {
        QTest::addColumn<bool>("discard");
        QTest::addColumn<bool>("delivered");
        QTest::newRow("cancel: the run stops, its outcome arrives") << false << true;
        QTest::newRow("discard: the run stops, nothing arrives") << true << false;
    }

    void cancelAndDiscard()
    {
        QFETCH(bool, discard);
        QFETCH(bool, delivered);
        BackgroundWork work;
        std::atomic<bool> started{false};
        std::vector<bool> outcomes; // whether the run saw its cancel flag
        work.start(
            [&started](const BackgroundWork::Run& run) {
                started = true;
                return waitFor(run.cancelFlag());
            },
            [&outcomes](bool sawCancel) { outcomes.push_back(sawCancel); });
        QVERIFY(waitFor(&started));
        discard ? work.discard() : work.cancel();
        QCOMPARE(work.isRunning(), !discard);
        QCOMPARE(work.generation(), quint64(discard ? 2 : 1));
        work.waitForDone();
        QVERIFY(!work.isRunning());
        QCOMPARE(outcomes, delivered ? std::vector<bool>{true} : std::vector<bool>{});
    }

    // Progress reports go out while the run is current; one after its result, or from a run
    // superseded meanwhile, is dropped.
    void progressWhileCurrentOnly_data()
    {
        QTest::addColumn<int>("before");
        QTest::addColumn<int>("after");
        QTest::addColumn<bool>("superseded");
        QTest::newRow("three reports") << 3 << 0 << false;
        QTest::newRow("reports after the result are dropped") << 2 << 4 << false;
        QTest::newRow("a superseded run's reports are dropped") << 3 << 0 << true;
    }

    void progressWhileCurrentOnly()
    {
        QFETCH(int, before);
        QFETCH(int, after);
        QFETCH(bool, superseded);
        BackgroundWork work;
        std::vector<int> reports;
        int results = 0;
        QSemaphore firstDone;
        work.startRun([&, before, after](const BackgroundWork::Run& run) {
            for (int i = 0; i < before; ++i)
                run.post([&reports, i] { reports.push_back(i); });
            run.finish([&results] { ++results; });
            for (int i = 0; i < after; ++i)
                run.post([&reports, i] { reports.push_back(100 + i); });
            firstDone.release();
        });
        firstDone.acquire(); // everything is queued, nothing delivered yet
        int newest = 0;
        if (superseded)
            work.start([](const BackgroundWork::Run&) { return 7; },
                       [&newest](int value) { newest = value; });
        work.waitForDone();
        std::vector<int> expected;
        for (int i = 0; !superseded && i < before; ++i)
            expected.push_back(i);
        QCOMPARE(reports, expected);
        QCOMPARE(results, superseded ? 0 : 1);
        QCOMPARE(newest, superseded ? 7 : 0);
    }

    // The work runs on a worker; its result is delivered on the owner's thread.
    void resultOnTheOwnersThread()
    {
        BackgroundWork work;
        QThread* worker = nullptr;
        QThread* deliveredOn = nullptr;
        work.start([&worker](const BackgroundWork::Run&) { return QThread::currentThread(); },
                   [&](QThread* ranOn) {
                       worker = ranOn;
                       deliveredOn = QThread::currentThread();
                   });
        work.waitForDone();
        QVERIFY(worker);
        QVERIFY(worker != QThread::currentThread());
        QCOMPARE(deliveredOn, QThread::currentThread());
    }

    // The destructor cancels the run, sets the closing flag (a newer start does not) and waits:
    // nothing the run hands back arrives after it.
    void destructorWaits_data()
    {
        QTest::addColumn<bool>("supersededFirst");
        QTest::newRow("one run") << false;
        QTest::newRow("a newer run does not close the first") << true;
    }

    void destructorWaits()
    {
        QFETCH(bool, supersededFirst);
        auto finished = std::make_shared<std::atomic<bool>>(false);
        auto closingSeenBeforeEnd = std::make_shared<std::atomic<bool>>(false);
        std::atomic<bool> started{false};
        int delivered = 0;
        {
            BackgroundWork work;
            work.startRun([=, &started](const BackgroundWork::Run& run) {
                started = true;
                run.finish([] {});
                // a tail after the result (a cache write) stops only when the owner goes
                waitFor(run.closingFlag());
                *closingSeenBeforeEnd = run.closingFlag()->load();
                *finished = true;
            });
            QVERIFY(waitFor(&started));
            if (supersededFirst) {
                work.start([](const BackgroundWork::Run&) { return 1; }, [&delivered](int) { ++delivered; });
                QThread::msleep(20);
                QVERIFY(!finished->load()); // superseded, cancelled, but not closed
            }
        }
        QVERIFY(finished->load());
        QVERIFY(closingSeenBeforeEnd->load());
        QCOMPARE(delivered, 0);
    }
};

QTEST_GUILESS_MAIN(TestBackgroundWork)
#include "tst_backgroundwork.moc"
