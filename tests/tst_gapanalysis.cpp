// The gap analysis against the upstream reference outputs (parity vectors) and against
// hand-made series for each branch of section 4 of stormlog-telemetry.md.

#include "analysis/GapAnalysis.h"
#include "analysis/Phases.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

using namespace gapscope;

// QCOMPARE on the enums would find gapscope::toString (a string_view) through ADL instead of
// QTest::toString, so the enums are compared by their names.
template <typename Enum> QString nameOf(Enum value)
{
    return QString::fromStdString(std::string(gapscope::toString(value)));
}

namespace {

// Columns of one trace as the store would hold them, plus the usable rows.
struct Columns
{
    std::vector<int64_t> timestampNs, allocated, reserved, used, total;
    std::vector<uint32_t> rows;

    GapInput input() const { return GapInput{timestampNs, allocated, reserved, used, total, rows}; }

    void add(int64_t ts, int64_t alloc, int64_t res, int64_t usedBytes, int64_t totalBytes)
    {
        rows.push_back(static_cast<uint32_t>(timestampNs.size()));
        timestampNs.push_back(ts);
        allocated.push_back(alloc);
        reserved.push_back(res);
        used.push_back(usedBytes);
        total.push_back(totalBytes);
    }
};

// A series of signed gaps (used - reserved) one second apart on a 80 GiB device, with the
// allocator holding everything it reserved (no fragmentation).
Columns gapSeries(const std::vector<int64_t>& gaps, int64_t stepNs = 1'000'000'000)
{
    Columns columns;
    const int64_t reserved = int64_t{20} << 30;
    for (size_t i = 0; i < gaps.size(); ++i)
        columns.add(1'700'000'000'000'000'000 + static_cast<int64_t>(i) * stepNs, reserved, reserved,
                    reserved + gaps[i], int64_t{80} << 30);
    return columns;
}

// A test-local reader of one parity trace: the events in file order.
struct TraceEvents
{
    std::vector<QJsonObject> events;
};

TraceEvents readJsonLines(const QString& path)
{
    TraceEvents trace;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    int lineNumber = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        ++lineNumber;
        if (line.isEmpty())
            continue;
        QJsonParseError error{};
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject())
            qFatal("%s:%d: %s", qPrintable(path), lineNumber, qPrintable(error.errorString()));
        trace.events.push_back(document.object());
    }
    return trace;
}

int64_t intOr(const QJsonValue& value, int64_t fallback)
{
    return value.isDouble() ? value.toInteger(fallback) : fallback;
}

// Usable rows as section 4 defines them, stably sorted by timestamp.
Columns usableColumns(const TraceEvents& trace)
{
    Columns columns;
    for (const auto& event : trace.events) {
        columns.timestampNs.push_back(intOr(event["timestamp_ns"], 0));
        columns.allocated.push_back(intOr(event["allocator_allocated_bytes"], 0));
        columns.reserved.push_back(intOr(event["allocator_reserved_bytes"], 0));
        columns.used.push_back(intOr(event["device_used_bytes"], 0));
        columns.total.push_back(intOr(event["device_total_bytes"], kNullInt));
    }
    for (size_t row = 0; row < trace.events.size(); ++row) {
        const QString type = trace.events[row]["event_type"].toString().trimmed().toLower();
        if (type == QLatin1String("sample") && columns.total[row] != kNullInt && columns.total[row] > 0)
            columns.rows.push_back(static_cast<uint32_t>(row));
    }
    std::stable_sort(columns.rows.begin(), columns.rows.end(),
                     [&](uint32_t a, uint32_t b) { return columns.timestampNs[a] < columns.timestampNs[b]; });
    return columns;
}

std::vector<std::string> toStrings(const QJsonValue& value)
{
    std::vector<std::string> parts;
    for (const auto& part : value.toArray())
        if (part.isString() && !part.toString().isEmpty())
            parts.push_back(part.toString().toStdString());
    return parts;
}

// Phase boundaries of a trace, validated as upstream does, and the last timestamp of each
// (session, rank).
std::vector<PhaseBoundary> phaseBoundaries(const TraceEvents& trace, std::vector<SessionRankEnd>& ends)
{
    std::vector<PhaseBoundary> boundaries;
    std::map<std::pair<std::string, int64_t>, int64_t> last;
    for (size_t row = 0; row < trace.events.size(); ++row) {
        const QJsonObject& event = trace.events[row];
        if (!event["session_id"].isString())
            continue;
        const std::string session = event["session_id"].toString().toStdString();
        const int64_t rank = intOr(event["rank"], 0);
        const int64_t ts = intOr(event["timestamp_ns"], 0);
        auto [it, inserted] = last.try_emplace({session, rank}, ts);
        if (!inserted)
            it->second = std::max(it->second, ts);
        const QString type = event["event_type"].toString();
        if (type != QLatin1String("phase_enter") && type != QLatin1String("phase_exit"))
            continue;
        const QJsonObject scope = event["metadata"].toObject()["phase_scope"].toObject();
        const QString action = scope["action"].toString();
        if (action != (type == QLatin1String("phase_enter") ? QLatin1String("enter") : QLatin1String("exit")))
            continue;
        PhaseBoundary boundary;
        boundary.sessionId = session;
        boundary.rank = rank;
        boundary.timestampNs = ts;
        boundary.action = action == QLatin1String("enter") ? PhaseAction::Enter : PhaseAction::Exit;
        boundary.sequence = intOr(scope["sequence"], 0);
        boundary.scopeId = scope["scope_id"].toString().toStdString();
        if (scope["parent_scope_id"].isString())
            boundary.parentScopeId = scope["parent_scope_id"].toString().toStdString();
        boundary.name = scope["name"].toString().trimmed().toStdString();
        boundary.path = toStrings(scope["path"]);
        boundary.depth = static_cast<int64_t>(boundary.path.size());
        boundary.threadId = intOr(scope["thread_id"], 0);
        boundary.threadName = scope["thread_name"].toString().toStdString();
        boundary.eventRow = static_cast<uint32_t>(row);
        boundaries.push_back(std::move(boundary));
    }
    for (const auto& [key, ts] : last)
        ends.push_back(SessionRankEnd{key.first, key.second, ts});
    return boundaries;
}

// The attribution payload as upstream serialises it (null fields left out).
QJsonObject payload(const PhaseAttribution& attribution)
{
    QJsonObject object;
    object["phase_resolution"] = QString::fromStdString(std::string(toString(attribution.resolution)));
    QJsonArray paths;
    for (const auto& path : attribution.phasePaths)
        paths.append(QString::fromStdString(path));
    object["phase_paths"] = paths;
    if (attribution.source)
        object["phase_source"] = QString::fromStdString(*attribution.source);
    if (attribution.phasePath)
        object["phase_path"] = QString::fromStdString(*attribution.phasePath);
    if (attribution.scopeId)
        object["scope_id"] = QString::fromStdString(*attribution.scopeId);
    if (attribution.threadId)
        object["thread_id"] = static_cast<qint64>(*attribution.threadId);
    if (attribution.threadName)
        object["thread_name"] = QString::fromStdString(*attribution.threadName);
    if (attribution.summary)
        object["phase_summary"] =
            QJsonObject{{"phase_path", QString::fromStdString(attribution.summary->phasePath)},
                        {"source", QString::fromStdString(attribution.summary->source)}};
    return object;
}

// Upstream key order of the evidence of each classification (section 4).
std::vector<std::string> evidenceKeys(Classification classification)
{
    switch (classification) {
    case Classification::TransientSpike:
        return {"spike_count", "max_gap_bytes", "max_zscore", "mean_gap_bytes", "std_gap_bytes"};
    case Classification::PersistentDrift:
        return {"slope_bytes_per_sec", "r_squared", "p_value", "gap_start_bytes", "gap_end_bytes"};
    case Classification::FragmentationLike:
        return {"avg_fragmentation_ratio", "max_fragmentation_ratio", "avg_gap_bytes", "sample_count"};
    default:
        return {};
    }
}

const Finding* findClassification(const std::vector<Finding>& findings, Classification classification)
{
    for (const auto& finding : findings)
        if (finding.classification == classification)
            return &finding;
    return nullptr;
}

} // namespace

class TestGapAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void parity_data();
    void parity();
    void fewerThanThreeSamples();
    void gapUnderRatioThreshold();
    void ratioUsesTheSignedGap();
    void zeroStandardDeviation();
    void spikeHandComputed();
    void spikeThresholdIsStrict();
    void argmaxTieTakesFirst();
    void evidenceRowIsStoreRow();
    void allTimestampsEqual();
    void nonPositiveSlope();
    void perfectLineHasZeroPValue();
    void timestampsBecomeDoublesBeforeSubtracting();
    void driftNeedsFiveSamples();
    void driftBelowRSquared();
    void reservedZeroHasNoFragmentation();
    void fragmentationWarning();
    void orderBySeverityThenConfidence();
    void largeInputSumsAreNumpysPairwise();
    void nullTotalContributesNoRatio();
    void linregressPValueValues_data();
    void linregressPValueValues();
    void thresholdsByName();
};

void TestGapAnalysis::parity_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name : {"quiet", "spikes", "drift", "frag", "mixed", "phases", "phasespike"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestGapAnalysis::parity()
{
    QFETCH(QString, name);
    const QString base = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
    const TraceEvents trace = readJsonLines(base + ".jsonl");
    QFile expectedFile(base + ".expected.json");
    QVERIFY(expectedFile.open(QIODevice::ReadOnly));
    const QJsonObject expected = QJsonDocument::fromJson(expectedFile.readAll()).object();
    QCOMPARE(static_cast<qint64>(trace.events.size()), expected["event_count"].toInteger());

    const Columns columns = usableColumns(trace);
    const std::vector<Finding> findings = analyzeGaps(columns.input(), GapThresholds{});
    const QJsonArray expectedFindings = expected["gap_analysis"].toArray();
    QCOMPARE(findings.size(), static_cast<size_t>(expectedFindings.size()));

    std::vector<SessionRankEnd> ends;
    const std::vector<PhaseSpan> spans = replayPhases(phaseBoundaries(trace, ends), ends);

    for (qsizetype i = 0; i < expectedFindings.size(); ++i) {
        const QJsonObject want = expectedFindings[i].toObject();
        const Finding& got = findings[static_cast<size_t>(i)];
        QCOMPARE(QString::fromStdString(std::string(toString(got.classification))),
                 want["classification"].toString());
        QCOMPARE(QString::fromStdString(std::string(toString(got.severity))), want["severity"].toString());
        QCOMPARE(got.confidence, want["confidence"].toDouble());
        QCOMPARE(got.evidenceTimestampNs, want["evidence_timestamp_ns"].toInteger());
        QCOMPARE(columns.timestampNs[got.evidenceRow], got.evidenceTimestampNs);

        const QJsonObject wantEvidence = want["evidence"].toObject();
        QCOMPARE(got.evidence.size(), static_cast<size_t>(wantEvidence.size()));
        const std::vector<std::string> keys = evidenceKeys(got.classification);
        QCOMPARE(got.evidence.size(), keys.size());
        for (size_t k = 0; k < keys.size(); ++k) {
            const EvidenceValue& value = got.evidence[k];
            QCOMPARE(value.key, keys[k]);
            const QJsonValue wantValue = wantEvidence[QString::fromStdString(value.key)];
            QVERIFY2(wantValue.isDouble(), value.key.c_str());
            // The rounded values must be the same doubles, not merely close.
            if (value.value != wantValue.toDouble())
                QFAIL(qPrintable(QStringLiteral("%1: got %2, want %3")
                                     .arg(QString::fromStdString(value.key))
                                     .arg(value.value, 0, 'g', 17)
                                     .arg(wantValue.toDouble(), 0, 'g', 17)));
            QCOMPARE(value.isInteger, value.key == "spike_count" || value.key == "sample_count");
        }

        // Phase attribution of the evidence event among the spans of its session and rank.
        const QJsonObject& event = trace.events[got.evidenceRow];
        std::optional<PhaseAttribution> attribution;
        if (event["session_id"].isString()) {
            const std::string session = event["session_id"].toString().toStdString();
            const int64_t rank = intOr(event["rank"], 0);
            std::vector<PhaseSpan> own;
            for (const auto& span : spans)
                if (span.sessionId == session && span.rank == rank)
                    own.push_back(span);
            EventOrigin origin;
            const QJsonObject metadata = event["metadata"].toObject();
            if (metadata["origin_phase_scope_id"].isString())
                origin.phaseScopeId = metadata["origin_phase_scope_id"].toString().toStdString();
            if (metadata["origin_thread_id"].isDouble())
                origin.threadId = metadata["origin_thread_id"].toInteger();
            attribution = attributePhase(own, got.evidenceTimestampNs, origin);
        }
        if (want["phase_attribution"].isNull())
            QVERIFY(!attribution);
        else {
            QVERIFY(attribution);
            QCOMPARE(payload(*attribution), want["phase_attribution"].toObject());
        }
    }
}

void TestGapAnalysis::fewerThanThreeSamples()
{
    // Two samples with a gap of half the device: still nothing.
    const Columns columns = gapSeries({int64_t{40} << 30, 0});
    QVERIFY(analyzeGaps(columns.input(), GapThresholds{}).empty());
    QCOMPARE(computeGapStatistics(columns.input(), GapThresholds{}).sampleCount, size_t{2});
}

void TestGapAnalysis::gapUnderRatioThreshold()
{
    // A clear spike of 1 GiB is under 5 % of 80 GiB: the analysis stops before classifying.
    std::vector<int64_t> gaps(20, 0);
    gaps[7] = int64_t{1} << 30;
    const Columns columns = gapSeries(gaps);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QVERIFY(stats.belowRatioThreshold);
    QCOMPARE(stats.maxAbsGapRatio, 1.0 / 80.0);
    QVERIFY(analyzeGaps(columns.input(), GapThresholds{}).empty());
    // Lowering the ratio threshold lets the same spike through.
    GapThresholds low;
    low.gapRatio = 0.01;
    QVERIFY(findClassification(analyzeGaps(columns.input(), low), Classification::TransientSpike));
}

void TestGapAnalysis::ratioUsesTheSignedGap()
{
    // A negative gap (device reports less than reserved) counts by its magnitude.
    std::vector<int64_t> gaps(10, 0);
    gaps[3] = -(int64_t{8} << 30);
    const GapStatistics stats = computeGapStatistics(gapSeries(gaps).input(), GapThresholds{});
    QCOMPARE(stats.maxAbsGapRatio, 0.1);
    QVERIFY(!stats.belowRatioThreshold);
    QCOMPARE(stats.meanGap, -static_cast<double>(int64_t{8} << 30) / 10.0);
}

void TestGapAnalysis::zeroStandardDeviation()
{
    // A constant 10 GiB gap: no spike (std 0), no drift (y variance 0), no fragmentation.
    const Columns columns = gapSeries(std::vector<int64_t>(12, int64_t{10} << 30));
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QCOMPARE(stats.stdGap, 0.0);
    QCOMPARE(stats.r, 0.0);
    QVERIFY(analyzeGaps(columns.input(), GapThresholds{}).empty());
}

void TestGapAnalysis::spikeHandComputed()
{
    // Nine gaps of 10 GiB and one of 100 GiB-worth units: with unit u = 1 GiB the gaps are
    // 10 x9 and 100; mean 19 u, sum of squares 9*81 + 81^2 = 7290 u^2, std = sqrt(810) u,
    // z = 81 / sqrt(810) = 2.846 -> one spike, warning (<= 4), confidence 2.846 / 6.
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps(10, 10 * u);
    gaps[4] = 100 * u;
    Columns columns;
    for (size_t i = 0; i < gaps.size(); ++i)
        columns.add(1'000 + static_cast<int64_t>(i), 0, 0, gaps[i], 200 * u);
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    const Finding* spike = findClassification(findings, Classification::TransientSpike);
    QVERIFY(spike);
    const double z = 81.0 / std::sqrt(810.0);
    QCOMPARE(nameOf(spike->severity), nameOf(Severity::Warning));
    QCOMPARE(spike->confidence, std::round(z / 6.0 * 1000.0) / 1000.0);
    QCOMPARE(spike->findEvidence("spike_count")->value, 1.0);
    QCOMPARE(spike->findEvidence("max_gap_bytes")->value, static_cast<double>(100 * u));
    QCOMPARE(spike->findEvidence("max_zscore")->value, std::round(z * 1000.0) / 1000.0);
    QCOMPARE(spike->findEvidence("mean_gap_bytes")->value, static_cast<double>(19 * u));
    QCOMPARE(spike->findEvidence("std_gap_bytes")->value, std::round(std::sqrt(810.0) * u * 10.0) / 10.0);
    QCOMPARE(spike->evidenceRow, uint32_t{4});
    QCOMPARE(spike->evidenceTimestampNs, int64_t{1004});
    // Reserved is 0 everywhere: no fragmentation finding.
    QVERIFY(!findClassification(findings, Classification::FragmentationLike));
}

void TestGapAnalysis::spikeThresholdIsStrict()
{
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps(10, 10 * u);
    gaps[4] = 100 * u;
    const Columns columns = gapSeries(gaps);
    GapThresholds thresholds;
    thresholds.spikeZScore = computeGapStatistics(columns.input(), thresholds).maxZScore;
    // z equal to the threshold is not a spike.
    QCOMPARE(computeGapStatistics(columns.input(), thresholds).spikeCount, size_t{0});
    QVERIFY(!findClassification(analyzeGaps(columns.input(), thresholds), Classification::TransientSpike));
    thresholds.spikeZScore = std::nextafter(thresholds.spikeZScore, 0.0);
    QVERIFY(findClassification(analyzeGaps(columns.input(), thresholds), Classification::TransientSpike));
}

void TestGapAnalysis::argmaxTieTakesFirst()
{
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps(20, u);
    gaps[6] = 30 * u;
    gaps[13] = 30 * u;
    const Columns columns = gapSeries(gaps);
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    const Finding* spike = findClassification(findings, Classification::TransientSpike);
    QVERIFY(spike);
    QCOMPARE(spike->findEvidence("spike_count")->value, 2.0);
    QCOMPARE(spike->evidenceRow, uint32_t{6});
}

void TestGapAnalysis::evidenceRowIsStoreRow()
{
    // Usable rows interleaved with other events: evidence rows are store rows.
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 10; ++i) {
        columns.add(100 * i, 0, 0, 0, 80 * u); // e.g. an allocation event, not usable
        columns.add(100 * i + 50, 0, 0, i == 6 ? 50 * u : u, 80 * u);
    }
    std::vector<uint32_t> usable;
    for (uint32_t row = 1; row < columns.rows.size(); row += 2)
        usable.push_back(row);
    columns.rows = usable;
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    const Finding* spike = findClassification(findings, Classification::TransientSpike);
    QVERIFY(spike);
    QCOMPARE(spike->evidenceRow, uint32_t{13});
    QCOMPARE(spike->evidenceTimestampNs, int64_t{650});
}

void TestGapAnalysis::allTimestampsEqual()
{
    // A rising gap with every timestamp equal: x has no variance, r is 0, no drift.
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps;
    for (int i = 0; i < 10; ++i)
        gaps.push_back((10 + i) * u);
    const Columns columns = gapSeries(gaps, 0);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QVERIFY(!stats.hasFit);
    QCOMPARE(stats.r, 0.0);
    QVERIFY(
        !findClassification(analyzeGaps(columns.input(), GapThresholds{}), Classification::PersistentDrift));
}

void TestGapAnalysis::nonPositiveSlope()
{
    // A perfectly falling gap: r = -1 (r^2 = 1) but the slope is negative.
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps;
    for (int i = 0; i < 10; ++i)
        gaps.push_back((30 - i) * u);
    const Columns columns = gapSeries(gaps);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QVERIFY(stats.hasFit);
    QCOMPARE(stats.r, -1.0);
    QVERIFY(stats.slopePerNs < 0);
    QVERIFY(
        !findClassification(analyzeGaps(columns.input(), GapThresholds{}), Classification::PersistentDrift));
}

void TestGapAnalysis::perfectLineHasZeroPValue()
{
    // Gap rising by 1 GiB per second over five samples: r = 1, p = 0, critical, full confidence.
    const int64_t u = int64_t{1} << 30;
    const Columns columns = gapSeries({10 * u, 11 * u, 12 * u, 13 * u, 14 * u});
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    const Finding* drift = findClassification(findings, Classification::PersistentDrift);
    QVERIFY(drift);
    QCOMPARE(nameOf(drift->severity), nameOf(Severity::Critical));
    QCOMPARE(drift->confidence, 1.0);
    QCOMPARE(drift->findEvidence("r_squared")->value, 1.0);
    QCOMPARE(drift->findEvidence("p_value")->value, 0.0);
    QCOMPARE(drift->findEvidence("slope_bytes_per_sec")->value, static_cast<double>(u));
    QCOMPARE(drift->findEvidence("gap_start_bytes")->value, static_cast<double>(10 * u));
    QCOMPARE(drift->findEvidence("gap_end_bytes")->value, static_cast<double>(14 * u));
    QCOMPARE(drift->evidenceRow, uint32_t{4});
    QCOMPARE(linregressPValue(1.0, 5), 0.0);
    QCOMPARE(linregressPValue(-1.0, 5), 0.0);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QCOMPARE(stats.fitOriginNs, columns.timestampNs[0]);
    QCOMPARE(stats.intercept, static_cast<double>(10 * u));
}

void TestGapAnalysis::timestampsBecomeDoublesBeforeSubtracting()
{
    // Upstream computes x = float(ts) - float(ts0). Near 2^60 doubles are 256 ns apart, so
    // timestamps 0, 100, 200, 300, 400 ns after 2^60 become x = 0, 0, 256, 256, 512.
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 5; ++i)
        columns.add((int64_t{1} << 60) + 100 * i, 0, 0, (10 + i) * u, 80 * u);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    const std::vector<double> x{0, 0, 256, 256, 512};
    const double xMean = std::accumulate(x.begin(), x.end(), 0.0) / 5;
    double sxy = 0, sxx = 0;
    for (int i = 0; i < 5; ++i) {
        sxx += (x[i] - xMean) * (x[i] - xMean);
        sxy += (x[i] - xMean) * (static_cast<double>(i) - 2.0) * static_cast<double>(u);
    }
    QVERIFY(stats.hasFit);
    QCOMPARE(stats.slopePerNs, sxy / sxx);
    QVERIFY(std::fabs(stats.slopePerNs - static_cast<double>(u) / 100) > 1e5);
}

void TestGapAnalysis::driftNeedsFiveSamples()
{
    const int64_t u = int64_t{1} << 30;
    const Columns columns = gapSeries({10 * u, 11 * u, 12 * u, 13 * u});
    QVERIFY(computeGapStatistics(columns.input(), GapThresholds{}).hasFit);
    QVERIFY(
        !findClassification(analyzeGaps(columns.input(), GapThresholds{}), Classification::PersistentDrift));
}

void TestGapAnalysis::driftBelowRSquared()
{
    // A rise buried in alternating noise: r^2 well under 0.6.
    const int64_t u = int64_t{1} << 30;
    std::vector<int64_t> gaps;
    for (int i = 0; i < 20; ++i)
        gaps.push_back(10 * u + i * (u / 20) + (i % 2 == 0 ? 3 * u : -3 * u));
    const Columns columns = gapSeries(gaps);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QVERIFY(stats.slopePerNs > 0);
    QVERIFY(stats.r * stats.r < 0.6);
    QVERIFY(
        !findClassification(analyzeGaps(columns.input(), GapThresholds{}), Classification::PersistentDrift));
    GapThresholds loose;
    loose.driftRSquared = 0.0;
    const auto findings = analyzeGaps(columns.input(), loose);
    const Finding* drift = findClassification(findings, Classification::PersistentDrift);
    QVERIFY(drift);
    QCOMPARE(nameOf(drift->severity), nameOf(Severity::Warning));
}

void TestGapAnalysis::reservedZeroHasNoFragmentation()
{
    // reserved 0 on every row: no ratio at all, so no fragmentation finding, while the gap
    // (used - 0) still spikes.
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 10; ++i)
        columns.add(i, 5 * u, 0, i == 2 ? 40 * u : u, 80 * u);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QCOMPARE(stats.fragmentationCount, size_t{0});
    QVERIFY(!stats.maxFragmentationIndex);
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    QVERIFY(!findClassification(findings, Classification::FragmentationLike));
    QVERIFY(findClassification(findings, Classification::TransientSpike));
}

void TestGapAnalysis::fragmentationWarning()
{
    // Reserved 10 GiB, allocated 6 GiB (ratio 0.4) on all rows but row 3 (ratio 0.45) and
    // row 8 (allocated above reserved: ratio clamps to 0).
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 10; ++i) {
        int64_t allocated = 6 * u;
        if (i == 3)
            allocated = 10 * u - 45 * u / 10;
        if (i == 8)
            allocated = 12 * u;
        columns.add(i * 1000, allocated, 10 * u, 18 * u, 80 * u);
    }
    const double expectedAvg = (8 * 0.4 + 0.45 + 0.0) / 10.0;
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    const Finding* fragmentation = findClassification(findings, Classification::FragmentationLike);
    QVERIFY(fragmentation);
    QCOMPARE(nameOf(fragmentation->severity), nameOf(Severity::Warning));
    QCOMPARE(fragmentation->findEvidence("sample_count")->value, 10.0);
    QVERIFY(fragmentation->findEvidence("sample_count")->isInteger);
    QCOMPARE(fragmentation->findEvidence("max_fragmentation_ratio")->value, 0.45);
    QCOMPARE(fragmentation->findEvidence("avg_fragmentation_ratio")->value,
             std::round(expectedAvg * 1e4) / 1e4);
    QCOMPARE(fragmentation->confidence, std::round(expectedAvg / 0.6 * 1e3) / 1e3);
    QCOMPARE(fragmentation->findEvidence("avg_gap_bytes")->value, static_cast<double>(8 * u));
    QCOMPARE(fragmentation->evidenceRow, uint32_t{3});
    QCOMPARE(fragmentation->findEvidence("avg_fragmentation_ratio")->unit, EvidenceUnit::Ratio);
}

void TestGapAnalysis::orderBySeverityThenConfidence()
{
    // All three classes critical, with confidences that reverse upstream's emission order:
    // a steep linear rise over 1000 samples (r^2 ~ 0.97), fragmentation 0.55 (0.917) and a
    // spike of 20 units in the middle (z ~ 5.1, confidence ~ 0.85).
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 1000; ++i) {
        const int64_t gap = i == 500 ? 20 * u : int64_t{i} * u / 100;
        columns.add(int64_t{i} * 1'000'000'000, 10 * u - 55 * u / 10, 10 * u, 10 * u + gap, 100 * u);
    }
    const auto findings = analyzeGaps(columns.input(), GapThresholds{});
    QCOMPARE(findings.size(), size_t{3});
    QCOMPARE(nameOf(findings[0].classification), nameOf(Classification::PersistentDrift));
    QCOMPARE(nameOf(findings[1].classification), nameOf(Classification::FragmentationLike));
    QCOMPARE(nameOf(findings[2].classification), nameOf(Classification::TransientSpike));
    for (const auto& finding : findings)
        QCOMPARE(nameOf(finding.severity), nameOf(Severity::Critical));
    QCOMPARE(findings[1].confidence, 0.917);
    QVERIFY(findings[0].confidence > findings[1].confidence);
    QVERIFY(findings[1].confidence > findings[2].confidence);
}

void TestGapAnalysis::nullTotalContributesNoRatio()
{
    // Callers keep rows with a null or non-positive total out of `rows` (section 4); if one
    // slips in anyway it adds no ratio rather than dividing by the null marker.
    const int64_t u = int64_t{1} << 30;
    Columns columns;
    for (int i = 0; i < 5; ++i)
        columns.add(i, 0, 0, u, 80 * u);
    columns.add(5, 0, 0, 70 * u, kNullInt);
    const GapStatistics stats = computeGapStatistics(columns.input(), GapThresholds{});
    QCOMPARE(stats.maxAbsGapRatio, 1.0 / 80.0);
    QVERIFY(stats.belowRatioThreshold);
}

void TestGapAnalysis::linregressPValueValues_data()
{
    QTest::addColumn<double>("r");
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("expected");
    QTest::addColumn<double>("tolerance");
    // t = r sqrt(df / (1 - r^2)); references from Student's t tables.
    QTest::newRow("r0") << 0.0 << 10 << 1.0 << 1e-12;
    // r = 0.5, n = 10: t = 1.63299, df 8, two-sided p = 0.14113
    QTest::newRow("r0.5 n10") << 0.5 << 10 << 0.14113 << 5e-5;
    // r = 0.8, n = 12: t = 4.21637, df 10, two-sided p = 0.00178
    QTest::newRow("r0.8 n12") << 0.8 << 12 << 0.001779 << 5e-6;
    // the sign of r does not matter (two-sided)
    QTest::newRow("r-0.5 n10") << -0.5 << 10 << 0.14113 << 5e-5;
}

void TestGapAnalysis::linregressPValueValues()
{
    QFETCH(double, r);
    QFETCH(int, n);
    QFETCH(double, expected);
    QFETCH(double, tolerance);
    const double p = linregressPValue(r, static_cast<size_t>(n));
    QVERIFY2(std::fabs(p - expected) <= tolerance, qPrintable(QString::number(p, 'g', 17)));
    QVERIFY(std::isnan(linregressPValue(0.5, 2)));
}

void TestGapAnalysis::thresholdsByName()
{
    GapThresholds thresholds;
    const auto& names = GapThresholds::names();
    QCOMPARE(names.size(), size_t{4});
    QCOMPARE(names[0], std::string_view("gap_ratio_threshold"));
    QCOMPARE(thresholds.get("gap_ratio_threshold"), std::optional<double>(0.05));
    QCOMPARE(thresholds.get("gap_spike_zscore"), std::optional<double>(2.0));
    QCOMPARE(thresholds.get("gap_drift_r_squared"), std::optional<double>(0.6));
    QCOMPARE(thresholds.get("gap_fragmentation_ratio"), std::optional<double>(0.3));
    QVERIFY(!thresholds.get("gap_unknown"));
    QVERIFY(thresholds.set("gap_spike_zscore", 3.5));
    QCOMPARE(thresholds.spikeZScore, 3.5);
    QVERIFY(!thresholds.set("spike", 1.0));
    QVERIFY(thresholds != GapThresholds{});
    for (const auto name : names)
        QVERIFY(thresholds.set(name, *GapThresholds{}.get(name)));
    QVERIFY(thresholds == GapThresholds{});
}

// numpy's pairwise summation as numpy's source writes it (pairwise_sum in loops_utils.h),
// over materialised doubles: the reference the analysis must equal to the bit, also when
// it splits the top level of the sums over two threads (from 1 M samples on).
static double numpyPairwise(const double* a, size_t n)
{
    if (n < 8) {
        double res = 0.;
        for (size_t i = 0; i < n; ++i)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        for (size_t j = 0; j < 8; ++j)
            r[j] = a[j];
        size_t i = 8;
        for (; i < n - (n % 8); i += 8)
            for (size_t j = 0; j < 8; ++j)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return numpyPairwise(a, n2) + numpyPairwise(a + n2, n - n2);
}

void TestGapAnalysis::largeInputSumsAreNumpysPairwise()
{
    const size_t n = 3'000'011; // odd, above the two-thread threshold
    std::vector<int64_t> ts(n), allocated(n), reserved(n), used(n), total(n, int64_t(80) << 30);
    std::vector<uint32_t> rows(n);
    uint64_t state = 88172645463325252ull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    for (size_t i = 0; i < n; ++i) {
        ts[i] = 1'796'000'000'000'000'000 + static_cast<int64_t>(i) * 100'000'000 +
                static_cast<int64_t>(next() % 1000);
        allocated[i] = static_cast<int64_t>(next() % (int64_t(30) << 30));
        reserved[i] = allocated[i] + static_cast<int64_t>(next() % (int64_t(2) << 30));
        used[i] =
            reserved[i] + static_cast<int64_t>(next() % (int64_t(4) << 30)) + static_cast<int64_t>(i) * 1000;
        rows[i] = static_cast<uint32_t>(i);
    }
    const GapInput input{ts, allocated, reserved, used, total, rows};
    const GapStatistics stats = computeGapStatistics(input, GapThresholds{});

    std::vector<double> gaps(n), squares(n), x(n), ratios(n);
    for (size_t i = 0; i < n; ++i)
        gaps[i] = static_cast<double>(used[i] - reserved[i]);
    const double mean = numpyPairwise(gaps.data(), n) / static_cast<double>(n);
    for (size_t i = 0; i < n; ++i)
        squares[i] = (gaps[i] - mean) * (gaps[i] - mean);
    const double stdGap = std::sqrt(numpyPairwise(squares.data(), n) / static_cast<double>(n - 1));
    for (size_t i = 0; i < n; ++i)
        x[i] = static_cast<double>(ts[i]) - static_cast<double>(ts[0]);
    const double xMean = numpyPairwise(x.data(), n) / static_cast<double>(n);
    std::vector<double> xx(n), xy(n);
    for (size_t i = 0; i < n; ++i) {
        xx[i] = (x[i] - xMean) * (x[i] - xMean);
        xy[i] = (x[i] - xMean) * (gaps[i] - mean);
        ratios[i] = static_cast<double>(std::max<int64_t>(0, reserved[i] - allocated[i])) /
                    static_cast<double>(reserved[i]);
    }
    const double slope = (numpyPairwise(xy.data(), n) / static_cast<double>(n)) /
                         (numpyPairwise(xx.data(), n) / static_cast<double>(n));
    const double avgFragmentation = numpyPairwise(ratios.data(), n) / static_cast<double>(n);

    // == on purpose: the same bits, not close values
    QVERIFY2(stats.meanGap == mean, qPrintable(QString::number(stats.meanGap - mean)));
    QVERIFY2(stats.stdGap == stdGap, qPrintable(QString::number(stats.stdGap - stdGap)));
    QVERIFY(stats.hasFit);
    QVERIFY2(stats.slopePerNs == slope, qPrintable(QString::number(stats.slopePerNs - slope)));
    QVERIFY2(stats.avgFragmentation == avgFragmentation,
             qPrintable(QString::number(stats.avgFragmentation - avgFragmentation)));
}

QTEST_GUILESS_MAIN(TestGapAnalysis)
#include "tst_gapanalysis.moc"
