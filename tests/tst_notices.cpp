// The notices of a trace's analysis (analysis/Notice.h): gap_not_observable on a trace whose
// device used is only ever the allocator's own counters, and nothing where the gap is measured,
// where there is no device total, or where too few samples say anything.

#include "analysis/Notice.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace gapscope;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kTotal = int64_t{143771} * kMiB; // an H200

// Columns of one trace as the store holds them; the usable rows are chosen as the analysis
// runner chooses them (a device total above zero).
struct Columns
{
    std::vector<int64_t> timestampNs, allocated, reserved, used, total;
    std::vector<uint32_t> rows;

    void add(int64_t alloc, int64_t res, int64_t usedBytes, int64_t totalBytes = kTotal)
    {
        if (totalBytes != kNullInt && totalBytes > 0)
            rows.push_back(uint32_t(timestampNs.size()));
        timestampNs.push_back(1'796'404'901'000'000'000 + int64_t(timestampNs.size()) * 20'000'000);
        allocated.push_back(alloc);
        reserved.push_back(res);
        used.push_back(usedBytes);
        total.push_back(totalBytes);
    }
    GapInput input() const { return GapInput{timestampNs, allocated, reserved, used, total, rows}; }
};

enum class Shape
{
    StockCollector,   // used = max(allocated, reserved), reserved >= allocated (PyTorch's caching allocator)
    MaxAboveReserved, // used = max(allocated, reserved) with allocated above reserved on some samples
    ReservedOnly,     // used = reserved, also where allocated is above it
    Truth,            // used = total - free: the CUDA context and more outside the allocator
    OneSampleDiffers, // blind but for one sample that saw 2 MiB more
    CpuCapture,       // no device total: no usable sample
    FewSamples,       // blind, one sample short of the evidence needed
    EnoughSamples,    // blind, exactly the evidence needed
    IdleThenFew,      // many all-zero samples (before the context) and too few with counters
    NullUsed,         // a sample without device used
};

Columns columnsOf(Shape shape)
{
    Columns c;
    const auto stock = [&c](int n, int64_t from = 0) {
        for (int i = 0; i < n; ++i) {
            const int64_t alloc = (from + 80 + 3 * i) * kMiB;
            const int64_t res = (from + 100 + 4 * i) * kMiB;
            c.add(alloc, res, std::max(alloc, res));
        }
    };
    switch (shape) {
    case Shape::StockCollector:
        c.add(0, 0, 0); // the start, before anything was allocated
        stock(40);
        break;
    case Shape::MaxAboveReserved:
        stock(10);
        c.add(300 * kMiB, 200 * kMiB, 300 * kMiB);
        stock(10, 50);
        break;
    case Shape::ReservedOnly:
        stock(10);
        c.add(300 * kMiB, 200 * kMiB, 200 * kMiB);
        stock(10, 50);
        break;
    case Shape::Truth:
        for (int i = 0; i < 40; ++i)
            c.add((80 + i) * kMiB, (100 + i) * kMiB, (100 + i + 527) * kMiB);
        break;
    case Shape::OneSampleDiffers:
        stock(20);
        c.add(80 * kMiB, 100 * kMiB, 102 * kMiB);
        stock(20);
        break;
    case Shape::CpuCapture:
        for (int i = 0; i < 40; ++i)
            c.add(0, 0, (900 + i) * kMiB, kNullInt);
        break;
    case Shape::FewSamples:
        stock(int(kMinBlindEvidenceSamples) - 1);
        break;
    case Shape::EnoughSamples:
        stock(int(kMinBlindEvidenceSamples));
        break;
    case Shape::IdleThenFew:
        for (int i = 0; i < 30; ++i)
            c.add(0, 0, 0);
        stock(int(kMinBlindEvidenceSamples) - 1);
        break;
    case Shape::NullUsed:
        stock(20);
        c.add(80 * kMiB, 100 * kMiB, kNullInt);
        stock(20);
        break;
    }
    return c;
}

QString qstr(std::string_view text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

} // namespace

class TestNotices : public QObject
{
    Q_OBJECT
private slots:
    void descriptionLead_data()
    {
        QTest::addColumn<QString>("description");
        QTest::addColumn<QString>("lead");
        QTest::newRow("clause")
            << QStringLiteral("One episode of 10 steps (steps 621-630), peak 5.61 GiB, of memory: 4.13 sd.")
            << QStringLiteral("One episode of 10 steps (steps 621-630), peak 5.61 GiB, of memory");
        QTest::newRow("sentence")
            << QStringLiteral("It grew 1.88 GiB (6.69 MiB per step), then stopped. Upstream's line: 2.")
            << QStringLiteral("It grew 1.88 GiB (6.69 MiB per step), then stopped");
        QTest::newRow("a number's point is no sentence end")
            << QStringLiteral("Peak 5.61 GiB at 12.5 s.") << QStringLiteral("Peak 5.61 GiB at 12.5 s");
        QTest::newRow("no capital after the point") << QStringLiteral("a. b. c") << QStringLiteral("a. b. c");
        QTest::newRow("empty") << QStringLiteral("") << QStringLiteral("");
    }
    void descriptionLead()
    {
        QFETCH(QString, description);
        QFETCH(QString, lead);
        QCOMPARE(QString::fromStdString(gapscope::descriptionLead(description.toStdString())), lead);
    }

    void observability_data()
    {
        QTest::addColumn<int>("shape");
        QTest::addColumn<bool>("blind");
        QTest::addColumn<QString>("recordedAs"); // empty when not blind
        QTest::addColumn<int>("samples");

        QTest::newRow("stock collector: max(allocated, reserved)")
            << int(Shape::StockCollector) << true << "max(allocated, reserved)" << 41;
        QTest::newRow("max with allocated above reserved")
            << int(Shape::MaxAboveReserved) << true << "max(allocated, reserved)" << 21;
        QTest::newRow("reserved, also below allocated")
            << int(Shape::ReservedOnly) << true << "reserved" << 21;
        QTest::newRow("truth: total - free") << int(Shape::Truth) << false << "" << 40;
        QTest::newRow("one sample differs") << int(Shape::OneSampleDiffers) << false << "" << 41;
        QTest::newRow("CPU capture: no device total") << int(Shape::CpuCapture) << false << "" << 0;
        QTest::newRow("too few samples")
            << int(Shape::FewSamples) << false << "" << int(kMinBlindEvidenceSamples) - 1;
        QTest::newRow("just enough samples") << int(Shape::EnoughSamples) << true
                                             << "max(allocated, reserved)" << int(kMinBlindEvidenceSamples);
        QTest::newRow("idle samples are no evidence")
            << int(Shape::IdleThenFew) << false << "" << 30 + int(kMinBlindEvidenceSamples) - 1;
        QTest::newRow("a sample without device used") << int(Shape::NullUsed) << false << "" << 41;
    }
    void observability()
    {
        QFETCH(int, shape);
        QFETCH(bool, blind);
        QFETCH(QString, recordedAs);
        QFETCH(int, samples);
        const Columns columns = columnsOf(Shape(shape));
        const GapInput input = columns.input();
        const GapObservability observed = gapObservability(input);
        QCOMPARE(observed.blind, blind);
        QCOMPARE(int(observed.samples), samples);

        const std::vector<Notice> notices = traceNotices(input, "stormlog.cuda_tracker");
        QCOMPARE(notices.size(), blind ? size_t(1) : size_t(0));
        if (!blind)
            return;
        const Notice& notice = notices.front();
        QCOMPARE(qstr(notice.code), QStringLiteral("gap_not_observable"));
        QCOMPARE(qstr(toString(notice.severity)), QStringLiteral("warning"));
        QVERIFY2(qstr(notice.title).endsWith(QStringLiteral("recorded as ") + recordedAs),
                 notice.title.c_str());
        const QString message = qstr(notice.message);
        QVERIFY2(message.contains(QStringLiteral("cannot show memory outside the allocator")),
                 notice.message.c_str());
        QVERIFY(message.contains(QStringLiteral("its collector (stormlog.cuda_tracker)")));
        QVERIFY(message.contains(QStringLiteral("recorded device used as ") + recordedAs));
        QVERIFY(message.contains(QStringLiteral("all %1 samples").arg(samples)));
        QVERIFY(message.contains(QStringLiteral("--device-log FILE")));
        QVERIFY(message.contains(QStringLiteral("cudaMemGetInfo or NVML")));
        // the extra keys, in their order
        QCOMPARE(notice.fields.size(), size_t(3));
        QCOMPARE(qstr(notice.fields[0].key), QStringLiteral("samples"));
        QCOMPARE(std::get<int64_t>(notice.fields[0].value), int64_t(samples));
        QCOMPARE(qstr(notice.fields[1].key), QStringLiteral("collector"));
        QCOMPARE(qstr(std::get<std::string>(notice.fields[1].value)),
                 QStringLiteral("stormlog.cuda_tracker"));
        QCOMPARE(qstr(std::get<std::string>(*notice.field("recorded_as"))), recordedAs);
    }

    // A trace without a collector name still gets the notice, with a null collector.
    // below_ratio_gate: raised exactly when the ratio gate alone hides findings (issue 31).
    void ratioGate_data()
    {
        QTest::addColumn<int>("spikeMiB"); // a buffer outside the allocator for 6 samples; 0: none
        QTest::addColumn<int>("shape");    // the gap under the spike
        QTest::addColumn<QStringList>("upstream");
        QTest::addColumn<QStringList>("wouldReport");
        const QStringList spike{QStringLiteral("transient_spike")};
        QTest::newRow("spike below the gate") << 3072 << int(Shape::Truth) << QStringList{} << spike;
        QTest::newRow("spike above the gate") << 10240 << int(Shape::Truth) << spike << QStringList{};
        QTest::newRow("a constant gap, nothing to find")
            << 0 << int(Shape::Truth) << QStringList{} << QStringList{};
        QTest::newRow("blind: stock collector")
            << 0 << int(Shape::StockCollector) << QStringList{} << QStringList{};
    }
    void ratioGate()
    {
        QFETCH(int, spikeMiB);
        QFETCH(int, shape);
        QFETCH(QStringList, upstream);
        QFETCH(QStringList, wouldReport);
        Columns columns = columnsOf(Shape(shape));
        for (int i = 0; i < 6 && spikeMiB > 0; ++i)
            columns.used[size_t(20 + i)] += spikeMiB * kMiB;
        const GapInput input = columns.input();
        const GapThresholds thresholds;
        const GapStatistics stats = computeGapStatistics(input, thresholds);
        QStringList found;
        for (const Finding& finding : analyzeGaps(input, thresholds, stats))
            found << qstr(toString(finding.classification));
        QCOMPARE(found, upstream);

        std::vector<Finding> belowGate{Finding{}}; // cleared when nothing is hidden
        const std::vector<Notice> notices =
            traceNotices(input, "stormlog.cuda_tracker", thresholds, stats, &belowGate);
        const auto gate = std::find_if(notices.begin(), notices.end(), [](const Notice& n) {
            return n.code == notice_code::kBelowRatioGate;
        });
        QCOMPARE(belowGate.size(), size_t(wouldReport.size()));
        if (wouldReport.isEmpty()) {
            QVERIFY(gate == notices.end());
            const bool blind = Shape(shape) == Shape::StockCollector;
            QCOMPARE(notices.size(), size_t(blind ? 1 : 0));
            return;
        }
        QVERIFY(gate != notices.end());
        QCOMPARE(qstr(toString(gate->severity)), QStringLiteral("info"));
        QCOMPARE(std::get<double>(*gate->field("ratio_threshold")), 0.05);
        QCOMPARE(std::get<double>(*gate->field("peak_gap_ratio")), stats.maxAbsGapRatio);
        QStringList classes;
        for (const std::string& name : std::get<std::vector<std::string>>(*gate->field("would_report")))
            classes << qstr(name);
        QCOMPARE(classes, wouldReport);
        QVERIFY(qstr(gate->title).startsWith(QStringLiteral("1 finding is hidden by the 5 % gate")));
        // the same classes the analysis gives with the gate at the peak ratio
        GapThresholds lowered = thresholds;
        lowered.gapRatio = stats.maxAbsGapRatio;
        QStringList atPeak;
        for (const Finding& finding : analyzeGaps(input, lowered))
            atPeak << qstr(toString(finding.classification));
        QCOMPARE(atPeak, wouldReport);
    }

    void ratioPercent_data()
    {
        QTest::addColumn<double>("ratio");
        QTest::addColumn<QString>("text");
        QTest::newRow("gate") << 0.05 << QStringLiteral("5 %");
        QTest::newRow("two decimals") << 0.040116 << QStringLiteral("4.01 %");
        QTest::newRow("one decimal") << 0.125 << QStringLiteral("12.5 %");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0 %");
    }
    void ratioPercent()
    {
        QFETCH(double, ratio);
        QFETCH(QString, text);
        QCOMPARE(qstr(ratioPercentText(ratio)), text);
    }

    void unknownCollector()
    {
        const Columns columns = columnsOf(Shape::StockCollector);
        const std::vector<Notice> notices = traceNotices(columns.input(), "");
        QCOMPARE(notices.size(), size_t(1));
        QVERIFY(std::holds_alternative<std::monostate>(*notices.front().field("collector")));
        QVERIFY(qstr(notices.front().message).contains(QStringLiteral(", its collector recorded")));
    }

    // Only the usable rows count: a blind window of a trace that has a gap elsewhere is blind.
    void onlyTheRowsGiven()
    {
        Columns columns = columnsOf(Shape::Truth);
        const Columns stock = columnsOf(Shape::StockCollector);
        const size_t first = columns.timestampNs.size();
        for (size_t i = 0; i < stock.timestampNs.size(); ++i)
            columns.add(stock.allocated[i], stock.reserved[i], stock.used[i]);
        QVERIFY(!gapObservability(columns.input()).blind);
        const std::vector<uint32_t> tail(columns.rows.begin() + qsizetype(first), columns.rows.end());
        GapInput input = columns.input();
        input.rows = tail;
        QVERIFY(gapObservability(input).blind);
    }
};

QTEST_APPLESS_MAIN(TestNotices)
#include "tst_notices.moc"
