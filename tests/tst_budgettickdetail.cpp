// The detail of one memory-budget tick at the cursor.
#include "analysis/Units.h"
#include "model/budget/BudgetLoader.h"
#include "widgets/budget/BudgetTickDetailView.h"

#include <QTest>

using namespace gapscope;

namespace {

std::shared_ptr<const BudgetAnalysisResult> analyse(const QString& name)
{
    const BudgetLoadOutcome loaded =
        loadBudgetLog(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + name);
    return loaded.data ? runBudgetAnalysis(loaded.data, BudgetThresholds{}) : nullptr;
}

QString bytes(int64_t value)
{
    return QString::fromStdString(formatBytes(double(value)));
}

} // namespace

class TestBudgetTickDetail : public QObject
{
    Q_OBJECT

private slots:
    void everyValueOfTheTick_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("where"); // share of the log
        QTest::newRow("leak start") << QStringLiteral("leak.text") << 0.0;
        QTest::newRow("leak middle") << QStringLiteral("leak.text") << 0.5;
        QTest::newRow("retention end") << QStringLiteral("retention.text") << 1.0;
        QTest::newRow("wedge middle") << QStringLiteral("wedge_info_only.text") << 0.5;
    }

    void everyValueOfTheTick()
    {
        QFETCH(QString, name);
        QFETCH(double, where);
        const auto result = analyse(name);
        QVERIFY(result);
        const BudgetTicks& t = result->data->ticks;
        const BudgetBuckets& b = result->buckets;
        const size_t tick = std::min(t.size() - 1, size_t(where * double(t.size())));
        BudgetTickDetailView view;
        view.setAnalysis(result);
        view.showTime(t.timestampNs[tick]);
        QCOMPARE(view.tick(), std::optional<size_t>(tick));
        const QString text = view.plainText();
        QVERIFY2(text.contains(QStringLiteral("Tick %1 of %2").arg(tick + 1).arg(t.size())),
                 qPrintable(text));
        // buckets with their share of rss
        QVERIFY(text.contains(bytes(t.rssBytes[tick])));
        QVERIFY(text.contains(bytes(b.cache[tick])));
        QVERIFY(text.contains(bytes(b.nonCache[tick])));
        QVERIFY(text.contains(bytes(b.nonCacheLive[tick])));
        QVERIFY(text.contains(bytes(b.nonCacheOther[tick])));
        QVERIFY(text.contains(bytes(b.allocatorRetention[tick])));
        QVERIFY(text.contains(bytes(t.effectiveTargetBytes[tick])));
        QVERIFY(text.contains(QStringLiteral("100.0 %"))); // rss of itself
        // each cache: current, caps before and after, delta, hit rate
        for (const BudgetCacheRow& c : t.cachesOf(tick)) {
            QVERIFY(text.contains(QString::fromStdString(t.names.text(c.name))));
            QVERIFY(text.contains(bytes(c.currentBytes)));
            QVERIFY(text.contains(bytes(c.previousMaxBytes)));
            QVERIFY(text.contains(bytes(c.newMaxBytes)));
            if (c.hitRate)
                QVERIFY(text.contains(QStringLiteral("%1 %").arg(*c.hitRate * 100.0, 0, 'f', 1)));
        }
        for (const BudgetReporterRow& r : t.reportersOf(tick)) {
            QVERIFY(text.contains(QString::fromStdString(t.names.text(r.name))));
            QVERIFY(text.contains(bytes(r.currentBytes)));
        }
        // the jemalloc six
        if (t.hasJemalloc(tick)) {
            for (int64_t v : {t.jeAllocatedBytes[tick], t.jeActiveBytes[tick], t.jeMetadataBytes[tick],
                              t.jeResidentBytes[tick], t.jeMappedBytes[tick], t.jeRetainedBytes[tick]})
                QVERIFY(text.contains(bytes(v)));
        }
        // the verdict with detail and streak
        QVERIFY(text.contains(QStringLiteral("Verdict %1").arg(QString::fromStdString(t.labelOf(tick)))));
        if (t.verdictStreak[tick] > 0)
            QVERIFY(text.contains(QStringLiteral("streak %1").arg(t.verdictStreak[tick])));
        if (t.verdictDetail[tick] != kEmptyName)
            QVERIFY(text.contains(QString::fromStdString(t.names.text(t.verdictDetail[tick]))));
    }

    void previousVerdictWhereTheLabelChanged()
    {
        const auto result = analyse(QStringLiteral("wedge_info_only.text"));
        QVERIFY(result);
        const BudgetTicks& t = result->data->ticks;
        BudgetTickDetailView view;
        view.setAnalysis(result);
        int changed = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            view.showTick(i);
            const bool shown = view.plainText().contains(QStringLiteral("Previous verdict"));
            QCOMPARE(shown, t.previousVerdictLabel[i] != kEmptyName);
            if (shown) {
                ++changed;
                QVERIFY(view.plainText().contains(
                    QStringLiteral("Previous verdict %1, streak %2")
                        .arg(QString::fromStdString(t.names.text(t.previousVerdictLabel[i])))
                        .arg(t.previousVerdictStreak[i])));
            }
        }
        QVERIFY(changed > 0);
    }

    void outOfRangeClears()
    {
        const auto result = analyse(QStringLiteral("leak.text"));
        QVERIFY(result);
        BudgetTickDetailView view;
        view.setAnalysis(result);
        QCOMPARE(view.tick(), std::optional<size_t>(0));
        view.showTick(result->data->ticks.size());
        QVERIFY(!view.tick());
        QVERIFY(view.html().isEmpty());
        view.setAnalysis(nullptr);
        QVERIFY(!view.tick());
    }
};

QTEST_MAIN(TestBudgetTickDetail)
#include "tst_budgettickdetail.moc"
