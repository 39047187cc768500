// TimelineScrubber: cursor stepping by usable samples, phase jumps, mouse, painting.
#include "tests/SyntheticAnalysis.h"
#include "widgets/trace/TimelineScrubber.h"

#include <QSignalSpy>
#include <QTest>

#include <set>

using namespace gapscope;
using namespace gapscope::testing;

class TestTimelineScrubber : public QObject
{
    Q_OBJECT

    std::unique_ptr<TimelineScrubber> m_scrubber;
    std::shared_ptr<AnalysisResult> m_result;

    int64_t sampleTime(size_t i) const { return m_result->trace->store.timestampNs[m_result->usableRows[i]]; }
    // pixel of a time along the track (the track spans the widget minus a small margin)
    int xOf(int64_t ns) const
    {
        const double left = 6, right = m_scrubber->width() - 6;
        const int64_t begin = m_result->trace->store.timestampNs.front();
        const int64_t end = m_result->trace->store.timestampNs.back();
        return int(std::lround(left + double(ns - begin) / double(end - begin) * (right - left)));
    }

private slots:
    void init()
    {
        SyntheticOptions options;
        options.samples = 20'000;
        m_result = makeSyntheticAnalysis(options);
        m_scrubber = std::make_unique<TimelineScrubber>();
        m_scrubber->setAnalysis(m_result);
        m_scrubber->resize(1200, m_scrubber->sizeHint().height());
        m_scrubber->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_scrubber.get()));
        m_scrubber->setFocus();
    }
    void cleanup()
    {
        m_scrubber.reset();
        m_result.reset();
    }

    void startsAtFirstSample()
    {
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(0));
        QVERIFY(m_scrubber->sizeHint().height() >= 40);
        QVERIFY(m_scrubber->sizeHint().height() <= 160);
        QVERIFY(m_scrubber->focusPolicy() & Qt::TabFocus);
    }

    void setCursorDoesNotEmit()
    {
        QSignalSpy moved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        m_scrubber->setCursorTime(sampleTime(500));
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(500));
        QCOMPARE(moved.count(), 0);
    }

    void stepping_data()
    {
        QTest::addColumn<int>("startSample");
        QTest::addColumn<int>("key");
        QTest::addColumn<int>("modifiers");
        QTest::addColumn<int>("expectedSample");
        QTest::newRow("right") << 100 << int(Qt::Key_Right) << int(Qt::NoModifier) << 101;
        QTest::newRow("left") << 100 << int(Qt::Key_Left) << int(Qt::NoModifier) << 99;
        QTest::newRow("shift right") << 100 << int(Qt::Key_Right) << int(Qt::ShiftModifier) << 110;
        QTest::newRow("shift left") << 100 << int(Qt::Key_Left) << int(Qt::ShiftModifier) << 90;
        QTest::newRow("shift left clamps") << 3 << int(Qt::Key_Left) << int(Qt::ShiftModifier) << 0;
        QTest::newRow("end") << 100 << int(Qt::Key_End) << int(Qt::NoModifier) << 19'999;
        QTest::newRow("home") << 100 << int(Qt::Key_Home) << int(Qt::NoModifier) << 0;
    }
    void stepping()
    {
        QFETCH(int, startSample);
        QFETCH(int, key);
        QFETCH(int, modifiers);
        QFETCH(int, expectedSample);
        m_scrubber->setCursorTime(sampleTime(size_t(startSample)));
        QSignalSpy moved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        QTest::keyClick(m_scrubber.get(), Qt::Key(key), Qt::KeyboardModifiers(modifiers));
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(size_t(expectedSample)));
        QCOMPARE(moved.count(), 1);
        QCOMPARE(moved.at(0).at(0).toLongLong(), sampleTime(size_t(expectedSample)));
    }

    void stepFromBetweenSamples()
    {
        // halfway between samples 10 and 11: one step forward is 11, one back is 10
        const int64_t between = sampleTime(10) + kIntervalNs / 2;
        m_scrubber->setCursorTime(between);
        m_scrubber->stepCursor(1);
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(11));
        m_scrubber->setCursorTime(between);
        m_scrubber->stepCursor(-1);
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(10));
        // at the end a step forward stays and does not emit
        m_scrubber->setCursorTime(sampleTime(19'999));
        QSignalSpy moved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        m_scrubber->stepCursor(1);
        QCOMPARE(moved.count(), 0);
    }

    void pageKeysJumpToPhaseStarts()
    {
        std::vector<int64_t> starts;
        for (const PhaseSpan& span : m_result->phases)
            starts.push_back(span.startNs);
        std::sort(starts.begin(), starts.end());
        starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
        QVERIFY(starts.size() >= 4);

        m_scrubber->setCursorTime(sampleTime(0));
        QSignalSpy moved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        QTest::keyClick(m_scrubber.get(), Qt::Key_PageDown); // first start is the cursor itself
        QCOMPARE(m_scrubber->cursorTime(), starts[1]);
        QTest::keyClick(m_scrubber.get(), Qt::Key_PageDown);
        QCOMPARE(m_scrubber->cursorTime(), starts[2]);
        QTest::keyClick(m_scrubber.get(), Qt::Key_PageUp);
        QCOMPARE(m_scrubber->cursorTime(), starts[1]);
        QCOMPARE(moved.count(), 3);
        m_scrubber->setCursorTime(starts.back() + 1);
        QTest::keyClick(m_scrubber.get(), Qt::Key_PageDown); // nothing after the last start
        QCOMPARE(moved.count(), 3);
    }

    void clickAndDrag()
    {
        QSignalSpy moved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        const int64_t target = sampleTime(5000);
        const int y = m_scrubber->height() / 2;
        QTest::mousePress(m_scrubber.get(), Qt::LeftButton, Qt::NoModifier, QPoint(xOf(target), y));
        QCOMPARE(moved.count(), 1);
        const int64_t clicked = m_scrubber->cursorTime();
        const int64_t nsPerPixel = (sampleTime(19'999) - sampleTime(0)) / (m_scrubber->width() - 12);
        QVERIFY(std::abs(clicked - target) <= nsPerPixel);
        QCOMPARE((clicked - sampleTime(0)) % kIntervalNs, 0); // snapped to a usable sample

        QTest::mouseMove(m_scrubber.get(), QPoint(xOf(sampleTime(15'000)), y));
        QTRY_COMPARE(moved.count(), 2);
        QVERIFY(std::abs(m_scrubber->cursorTime() - sampleTime(15'000)) <= nsPerPixel);
        QTest::mouseRelease(m_scrubber.get(), Qt::LeftButton, Qt::NoModifier,
                            QPoint(xOf(sampleTime(15'000)), y));

        // beyond the right edge: the last sample
        QTest::mousePress(m_scrubber.get(), Qt::LeftButton, Qt::NoModifier,
                          QPoint(m_scrubber->width() - 1, y));
        QCOMPARE(m_scrubber->cursorTime(), sampleTime(19'999));
    }

    void paints()
    {
        m_scrubber->setVisibleRange(sampleTime(4000), sampleTime(9000));
        m_scrubber->setCursorTime(sampleTime(6000));
        const QPixmap pixmap = m_scrubber->grab();
        QVERIFY(!pixmap.isNull());
        const QImage image = pixmap.toImage();
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); x += 2)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        pixmap.save(QStringLiteral("/tmp/scrubber.png"));
    }

    void withoutAnalysis()
    {
        TimelineScrubber empty;
        empty.resize(400, 60);
        QSignalSpy moved(&empty, &TimelineScrubber::cursorMoved);
        empty.stepCursor(1);
        QTest::keyClick(&empty, Qt::Key_Right);
        QTest::mousePress(&empty, Qt::LeftButton, Qt::NoModifier, QPoint(200, 30));
        QCOMPARE(moved.count(), 0);
        QVERIFY(!empty.grab().isNull());
        m_scrubber->setAnalysis(nullptr);
        QCOMPARE(m_scrubber->cursorTime(), 0);

        // a result whose rows lie outside its store is shown as empty, not read out of bounds
        auto broken = makeSyntheticAnalysis(hundredSamples());
        broken->usableRows.push_back(100'000);
        m_scrubber->setAnalysis(broken);
        QSignalSpy brokenMoved(m_scrubber.get(), &TimelineScrubber::cursorMoved);
        QTest::keyClick(m_scrubber.get(), Qt::Key_End);
        QCOMPARE(brokenMoved.count(), 0);
        QVERIFY(!m_scrubber->grab().isNull());
    }
};

QTEST_MAIN(TestTimelineScrubber)
#include "tst_timelinescrubber.moc"
