// TraceComparison on the parity vectors: findings matched by classification (new, gone,
// changed with deltas) against the reference outputs, per-phase peak gaps against a scan of
// the raw lines, alignment at start and at a phase, and the JSON/Markdown reports.
#include "model/report/ComparisonReport.h"
#include "model/text/Text.h"
#include "model/trace/TraceComparison.h"
#include "model/trace/TraceLoader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>
#include <cmath>

#include <map>

using namespace gapscope;

namespace {

QString parity(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
}

std::shared_ptr<const AnalysisResult> analyse(const QString& name)
{
    const LoadOutcome loaded = loadTrace(parity(name + QStringLiteral(".jsonl")));
    if (!loaded.data)
        return nullptr;
    return runAnalysis(loaded.data, AnalysisRequest{});
}

// classification -> reference finding object of upstream's output
std::map<QString, QJsonObject> referenceFindings(const QString& name)
{
    QFile file(parity(name + QStringLiteral(".expected.json")));
    std::map<QString, QJsonObject> out;
    if (!file.open(QIODevice::ReadOnly))
        return out;
    for (const QJsonValue& v :
         QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("gap_analysis")).toArray())
        out[v.toObject().value(QLatin1String("classification")).toString()] = v.toObject();
    return out;
}

struct RawSample
{
    qint64 ts = 0;
    qint64 gap = 0;
};

// The usable samples of a fixture read straight from its lines (the oracle for phase peaks).
std::vector<RawSample> rawSamples(const QString& name)
{
    std::vector<RawSample> out;
    QFile file(parity(name + QStringLiteral(".jsonl")));
    if (!file.open(QIODevice::ReadOnly))
        return out;
    while (!file.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(file.readLine()).object();
        if (o.value(QLatin1String("event_type")).toString() != QLatin1String("sample") ||
            o.value(QLatin1String("device_total_bytes")).toDouble() <= 0)
            continue;
        out.push_back({o.value(QLatin1String("timestamp_ns")).toInteger(),
                       o.value(QLatin1String("device_used_bytes")).toInteger() -
                           o.value(QLatin1String("allocator_reserved_bytes")).toInteger()});
    }
    return out;
}

std::optional<qint64> rawPeak(const std::vector<RawSample>& samples, const std::vector<PhaseSpan>& phases,
                              const QString& label)
{
    std::optional<qint64> peak;
    for (const PhaseSpan& span : phases) {
        if (QString::fromStdString(span.label) != label)
            continue;
        for (const RawSample& s : samples) {
            if (span.contains(s.ts) && (!peak || s.gap > *peak))
                peak = s.gap;
        }
    }
    return peak;
}

const FindingComparison* findingOf(const TraceComparison& c, Classification classification)
{
    for (const FindingComparison& f : c.findings) {
        if (f.classification == classification)
            return &f;
    }
    return nullptr;
}

// A cut real capture (tests/data/fixtures/real-gpu) analysed with the ratio gate given.
std::shared_ptr<const AnalysisResult> analyseReal(const QString& relative, double gate)
{
    const LoadOutcome loaded = loadTrace(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/") +
                                         relative + QStringLiteral("/telemetry_sink"));
    if (!loaded.data)
        return nullptr;
    AnalysisRequest request;
    request.thresholds.gapRatio = gate;
    return runAnalysis(loaded.data, request);
}

} // namespace

class TestTraceComparison : public QObject
{
    Q_OBJECT

private slots:
    void driftVersusMixed()
    {
        const auto a = analyse(QStringLiteral("drift"));
        const auto b = analyse(QStringLiteral("mixed"));
        QVERIFY(a && b);
        QString error;
        const auto c = compareAnalyses(a, b, CompareAlignment{}, &error);
        QVERIFY2(c, qPrintable(error));
        const auto refA = referenceFindings(QStringLiteral("drift"));
        const auto refB = referenceFindings(QStringLiteral("mixed"));
        QCOMPARE(c->findings.size(), size_t(2));

        const FindingComparison* spike = findingOf(*c, Classification::TransientSpike);
        QVERIFY(spike);
        QVERIFY(spike->change == FindingChange::New);
        QVERIFY(!spike->a && spike->b);
        QCOMPARE(refA.count(QStringLiteral("transient_spike")), size_t(0));
        QCOMPARE(QString::fromLatin1(toString(spike->b->severity).data()),
                 refB.at(QStringLiteral("transient_spike")).value(QLatin1String("severity")).toString());

        const FindingComparison* drift = findingOf(*c, Classification::PersistentDrift);
        QVERIFY(drift);
        QVERIFY(drift->change == FindingChange::Changed);
        QVERIFY(drift->severityChanged());
        const QJsonObject driftA = refA.at(QStringLiteral("persistent_drift"));
        const QJsonObject driftB = refB.at(QStringLiteral("persistent_drift"));
        QCOMPARE(QString::fromLatin1(toString(drift->a->severity).data()),
                 driftA.value(QLatin1String("severity")).toString());
        QCOMPARE(QString::fromLatin1(toString(drift->b->severity).data()),
                 driftB.value(QLatin1String("severity")).toString());
        QCOMPARE(drift->a->confidence, driftA.value(QLatin1String("confidence")).toDouble());
        QCOMPARE(drift->b->confidence, driftB.value(QLatin1String("confidence")).toDouble());
        QCOMPARE(*drift->confidenceDelta(), driftB.value(QLatin1String("confidence")).toDouble() -
                                                driftA.value(QLatin1String("confidence")).toDouble());
        // every evidence key of the reference has its delta
        const QJsonObject evidenceA = driftA.value(QLatin1String("evidence")).toObject();
        const QJsonObject evidenceB = driftB.value(QLatin1String("evidence")).toObject();
        QCOMPARE(drift->evidence.size(), size_t(evidenceA.size()));
        for (const EvidenceDelta& delta : drift->evidence) {
            const QString key = QString::fromStdString(delta.key);
            QVERIFY2(evidenceA.contains(key) && evidenceB.contains(key), qPrintable(key));
            QCOMPARE(*delta.delta(), evidenceB.value(key).toDouble() - evidenceA.value(key).toDouble());
        }
        QCOMPARE(c->count(FindingChange::New), size_t(1));
        QCOMPARE(c->count(FindingChange::Changed), size_t(1));
        QCOMPARE(c->count(FindingChange::Gone), size_t(0));
        QVERIFY(c->phases.empty()); // neither vector has phases
    }

    void phasesVersusPhasespike()
    {
        const auto a = analyse(QStringLiteral("phases"));
        const auto b = analyse(QStringLiteral("phasespike"));
        QVERIFY(a && b);
        const auto c = compareAnalyses(a, b, CompareAlignment{});
        QVERIFY(c);
        const FindingComparison* drift = findingOf(*c, Classification::PersistentDrift);
        const FindingComparison* spike = findingOf(*c, Classification::TransientSpike);
        QVERIFY(drift && spike);
        QVERIFY(drift->change == FindingChange::Gone);
        QVERIFY(spike->change == FindingChange::New);
        QVERIFY(!drift->confidenceDelta());
        // spike of B is attributed to the phase upstream names
        const QJsonObject refSpike =
            referenceFindings(QStringLiteral("phasespike")).at(QStringLiteral("transient_spike"));
        QCOMPARE(QString::fromStdString(spike->b->phase.value().phasePath.value()),
                 refSpike.value(QLatin1String("phase_attribution"))
                     .toObject()
                     .value(QLatin1String("phase_path"))
                     .toString());

        // labels in order of first start, peaks equal to a scan of the raw lines
        QStringList labels;
        for (const PhasePeakDelta& p : c->phases)
            labels << p.label;
        QCOMPARE(labels, QStringList({QStringLiteral("train"), QStringLiteral("train / step"),
                                      QStringLiteral("evaluate")}));
        const auto samplesA = rawSamples(QStringLiteral("phases"));
        const auto samplesB = rawSamples(QStringLiteral("phasespike"));
        for (const PhasePeakDelta& p : c->phases) {
            const auto peakA = rawPeak(samplesA, a->phases, p.label);
            const auto peakB = rawPeak(samplesB, b->phases, p.label);
            QVERIFY(peakA && peakB);
            QCOMPARE(p.peakGapA.value(), *peakA);
            QCOMPARE(p.peakGapB.value(), *peakB);
            QCOMPARE(p.delta().value(), *peakB - *peakA);
        }
        // the spike sits in "train / step": B's peak there is higher, "evaluate" is lower
        QVERIFY(c->phases[1].delta().value() > 0);
        QVERIFY(c->phases[2].delta().value() < 0);
    }

    void traceVersusItself_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"drift", "frag", "mixed", "phases", "phasespike", "quiet", "spikes"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void traceVersusItself()
    {
        QFETCH(QString, name);
        const auto a = analyse(name);
        const auto b = analyse(name);
        QVERIFY(a && b);
        const auto c = compareAnalyses(a, b, CompareAlignment{});
        QVERIFY(c);
        QCOMPARE(c->findings.size(), a->findings.size());
        QCOMPARE(c->count(FindingChange::Unchanged), a->findings.size());
        for (const FindingComparison& f : c->findings) {
            QCOMPARE(*f.confidenceDelta(), 0.0);
            for (const EvidenceDelta& d : f.evidence)
                QCOMPARE(*d.delta(), 0.0);
        }
        for (const PhasePeakDelta& p : c->phases)
            QCOMPARE(p.delta().value(), qint64(0));
        const auto seriesA = TraceComparison::alignedGapSeries(c->a);
        const auto seriesB = TraceComparison::alignedGapSeries(c->b);
        QCOMPARE(seriesA.size(), a->usableRows.size());
        QCOMPARE(seriesA.size(), seriesB.size());
        for (size_t i = 0; i < seriesA.size(); ++i) {
            QCOMPARE(seriesA[i].offsetNs, seriesB[i].offsetNs);
            QCOMPARE(seriesA[i].gapBytes, seriesB[i].gapBytes);
        }
    }

    void alignAtPhase()
    {
        const auto a = analyse(QStringLiteral("phases"));
        const auto b = analyse(QStringLiteral("phasespike"));
        const auto alignment = CompareAlignment::fromString(QStringLiteral("phase:train / step"));
        QVERIFY(alignment);
        QVERIFY(alignment->mode == CompareAlignment::Mode::Phase);
        const auto c = compareAnalyses(a, b, *alignment);
        QVERIFY(c);
        for (const ComparedSide* side : {&c->a, &c->b}) {
            int64_t firstStart = 0;
            for (const PhaseSpan& span : side->result->phases) {
                if (span.label == "train / step") {
                    firstStart = span.startNs;
                    break;
                }
            }
            QCOMPARE(side->originNs, firstStart);
            // samples before the phase lie left of zero on the shared axis
            const auto series = TraceComparison::alignedGapSeries(*side);
            QVERIFY(series.front().offsetNs < 0);
            QCOMPARE(series.front().offsetNs,
                     side->result->trace->store.timestampNs[side->result->usableRows.front()] - firstStart);
        }
        QCOMPARE(c->alignment.toString(), QStringLiteral("phase:train / step"));
    }

    // B - A at each B sample inside A's span, A interpolated linearly between its neighbours;
    // checked against a plain scan of A for every point.
    void gapDifference_data()
    {
        QTest::addColumn<QString>("nameA");
        QTest::addColumn<QString>("nameB");
        QTest::addColumn<QString>("alignment");
        QTest::newRow("itself") << "phasespike"
                                << "phasespike"
                                << "start";
        QTest::newRow("drift vs mixed") << "drift"
                                        << "mixed"
                                        << "start";
        QTest::newRow("phases vs phasespike at a phase") << "phases"
                                                         << "phasespike"
                                                         << "phase:train / step";
    }

    void gapDifference()
    {
        QFETCH(QString, nameA);
        QFETCH(QString, nameB);
        QFETCH(QString, alignment);
        const auto c =
            compareAnalyses(analyse(nameA), analyse(nameB), *CompareAlignment::fromString(alignment));
        QVERIFY(c);
        const auto pointsA = TraceComparison::alignedGapSeries(c->a);
        const auto pointsB = TraceComparison::alignedGapSeries(c->b);
        const auto difference = c->gapDifference();
        QVERIFY(!difference.empty());
        size_t expectedCount = 0;
        for (const AlignedGapPoint& b : pointsB) {
            if (b.offsetNs >= pointsA.front().offsetNs && b.offsetNs <= pointsA.back().offsetNs)
                ++expectedCount;
        }
        QCOMPARE(difference.size(), expectedCount);
        size_t at = 0;
        for (const AlignedGapPoint& b : pointsB) {
            if (b.offsetNs < pointsA.front().offsetNs || b.offsetNs > pointsA.back().offsetNs)
                continue;
            double gapA = 0;
            for (size_t i = 0; i < pointsA.size(); ++i) {
                if (pointsA[i].offsetNs == b.offsetNs) {
                    gapA = double(pointsA[i].gapBytes);
                    break;
                }
                if (i + 1 < pointsA.size() && pointsA[i].offsetNs < b.offsetNs &&
                    pointsA[i + 1].offsetNs > b.offsetNs) {
                    const double f = double(b.offsetNs - pointsA[i].offsetNs) /
                                     double(pointsA[i + 1].offsetNs - pointsA[i].offsetNs);
                    gapA = double(pointsA[i].gapBytes) +
                           f * (double(pointsA[i + 1].gapBytes) - double(pointsA[i].gapBytes));
                    break;
                }
            }
            QCOMPARE(difference[at].offsetNs, b.offsetNs);
            QVERIFY2(std::abs(double(difference[at].gapBytes) - (double(b.gapBytes) - gapA)) <= 1.0,
                     qPrintable(QStringLiteral("point %1").arg(at)));
            if (nameA == nameB)
                QCOMPARE(difference[at].gapBytes, int64_t(0));
            ++at;
        }
    }

    void alignAtMissingPhaseFails()
    {
        const auto a = analyse(QStringLiteral("drift"));
        const auto b = analyse(QStringLiteral("phases"));
        QString error;
        QVERIFY(!compareAnalyses(
            a, b, CompareAlignment{CompareAlignment::Mode::Phase, QStringLiteral("train")}, &error));
        QVERIFY2(error.startsWith(QStringLiteral("A (")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("no phase 'train' (phases: none)")), qPrintable(error));
        QVERIFY(!compareAnalyses(nullptr, b, CompareAlignment{}, &error));
        QVERIFY(!CompareAlignment::fromString(QStringLiteral("phase:")));
        QVERIFY(!CompareAlignment::fromString(QStringLiteral("end")));
    }

    void jsonReport()
    {
        const auto c = compareAnalyses(analyse(QStringLiteral("phases")),
                                       analyse(QStringLiteral("phasespike")), CompareAlignment{});
        QVERIFY(c);
        QJsonParseError error;
        const QJsonObject root = QJsonDocument::fromJson(renderComparisonJson(*c), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(root.value(QLatin1String("alignment")).toString(), QStringLiteral("start"));
        const QJsonObject summary = root.value(QLatin1String("summary")).toObject();
        QCOMPARE(summary.value(QLatin1String("new")).toInt(), 1);
        QCOMPARE(summary.value(QLatin1String("gone")).toInt(), 1);
        QCOMPARE(summary.value(QLatin1String("changed")).toInt(), 0);
        const QJsonArray findings = root.value(QLatin1String("findings")).toArray();
        QCOMPARE(findings.size(), 2);
        QCOMPARE(findings[0].toObject().value(QLatin1String("change")).toString(), QStringLiteral("gone"));
        QVERIFY(findings[0].toObject().value(QLatin1String("b")).isNull());
        const QJsonArray phases = root.value(QLatin1String("phases")).toArray();
        QCOMPARE(phases.size(), int(c->phases.size()));
        for (int i = 0; i < phases.size(); ++i) {
            const QJsonObject p = phases[i].toObject();
            QCOMPARE(p.value(QLatin1String("label")).toString(), c->phases[size_t(i)].label);
            QCOMPARE(p.value(QLatin1String("delta_bytes")).toInteger(), *c->phases[size_t(i)].delta());
        }
        QCOMPARE(root.value(QLatin1String("a")).toObject().value(QLatin1String("sample_count")).toInt(),
                 int(c->a.result->usableRows.size()));
    }

    void markdownReport()
    {
        const auto c = compareAnalyses(analyse(QStringLiteral("drift")), analyse(QStringLiteral("mixed")),
                                       CompareAlignment{});
        QVERIFY(c);
        const QString md = QString::fromUtf8(renderComparisonMarkdown(*c));
        QVERIFY(md.startsWith(QStringLiteral("# Trace comparison\n")));
        QVERIFY(md.contains(QStringLiteral("1 new, 0 gone, 1 changed, 0 unchanged.")));
        QVERIFY2(md.contains(QStringLiteral(
                     "| `persistent_drift` | changed | critical | warning | 0.999 | 0.619 | -0.38 |")),
                 qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("| `transient_spike` | new | - | critical |")));
        QVERIFY(md.contains(QStringLiteral("Neither side has phases.")));
    }
    // A side that cannot observe the gap (stormlog's stock collector: gap_not_observable) says
    // nothing about the other side's gap findings: they are "not comparable", never "gone" or
    // "new", and the comparison says which side is blind. A side whose findings exist only below
    // the ratio gate says that too. B = the blind stock trace, A = the truth trace's spike.
    void blindSide_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<double>("gate");
        QTest::addColumn<int>("notComparable");
        QTest::addColumn<int>("gone");
        QTest::addColumn<int>("added");
        QTest::addColumn<QStringList>("cautions"); // side and kind: "B blind", "A gate"
        QTest::addColumn<QString>("markdownSays");

        QTest::newRow("truth vs blind stock, gate lowered")
            << "single/truth_spike"
            << "single/stock" << 0.01 << 1 << 0 << 0 << QStringList{QStringLiteral("B blind")}
            << "B cannot observe the gap (device used is recorded as max(allocated, reserved)): its gap "
               "findings "
               "cannot be compared; 1 finding of A is not comparable, not gone or new.";
        QTest::newRow("blind stock vs truth, gate lowered")
            << "single/stock"
            << "single/truth_spike" << 0.01 << 1 << 0 << 0 << QStringList{QStringLiteral("A blind")}
            << "A cannot observe the gap";
        QTest::newRow("truth vs blind stock, default gate")
            << "single/truth_spike"
            << "single/stock" << 0.05 << 0 << 0 << 0
            << QStringList{QStringLiteral("A gate"), QStringLiteral("B blind")}
            << "A's gap analysis finds transient_spike only below the 5 % ratio gate (its largest gap is "
               "4.01 % of "
               "the device)";
        // both sides see the gap: what A finds and B does not is gone, as before
        QTest::newRow("truth spike vs truth start, gate lowered")
            << "single/truth_spike"
            << "single/truth" << 0.01 << 0 << 1 << 0 << QStringList{} << "1 gone";
    }

    void blindSide()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(double, gate);
        QFETCH(int, notComparable);
        QFETCH(int, gone);
        QFETCH(int, added);
        QFETCH(QStringList, cautions);
        QFETCH(QString, markdownSays);

        const auto resultA = analyseReal(a, gate);
        const auto resultB = analyseReal(b, gate);
        QVERIFY(resultA && resultB);
        QString error;
        const auto c = compareAnalyses(resultA, resultB, CompareAlignment{}, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(int(c->count(FindingChange::NotComparable)), notComparable);
        QCOMPARE(int(c->count(FindingChange::Gone)), gone);
        QCOMPARE(int(c->count(FindingChange::New)), added);
        QStringList said;
        for (const ComparisonCaution& caution : c->cautions)
            said << QStringLiteral("%1 %2").arg(QString(QLatin1Char(caution.side)),
                                                caution.kind == ComparisonCaution::Kind::GapNotObservable
                                                    ? QStringLiteral("blind")
                                                    : QStringLiteral("gate"));
        QCOMPARE(said, cautions);

        const QString md = QString::fromUtf8(renderComparisonMarkdown(*c));
        // every caution in the Markdown as it escapes it, and the one expected among them (the
        // counts line where there is none)
        for (const ComparisonCaution& caution : c->cautions)
            QVERIFY2(md.contains(markdownEscape(caution.text)), qPrintable(md));
        if (cautions.isEmpty())
            QVERIFY2(md.contains(markdownSays), qPrintable(md));
        else
            QVERIFY(
                std::any_of(c->cautions.begin(), c->cautions.end(), [&](const ComparisonCaution& caution) {
                    return caution.text.contains(markdownSays);
                }));
        if (notComparable > 0) {
            QVERIFY2(md.contains(QStringLiteral("%1 not comparable.").arg(notComparable)), qPrintable(md));
            QVERIFY2(
                md.contains(QStringLiteral("| %1 |").arg(markdownEscape(QStringLiteral("not_comparable")))),
                qPrintable(md));
        }
        // each side's notices are listed
        for (const auto& [name, result] : {std::pair{"A", resultA}, std::pair{"B", resultB}})
            for (const Notice& notice : result->notices)
                QVERIFY(md.contains(QStringLiteral("**%1 notice** (%2, `%3`)")
                                        .arg(QLatin1String(name),
                                             QString::fromStdString(std::string(toString(notice.severity))),
                                             QString::fromStdString(notice.code))));

        const QJsonObject json = QJsonDocument::fromJson(renderComparisonJson(*c)).object();
        QCOMPARE(
            json.value(QLatin1String("summary")).toObject().value(QLatin1String("not_comparable")).toInt(),
            notComparable);
        QCOMPARE(json.value(QLatin1String("cautions")).toArray().size(), qsizetype(cautions.size()));
        for (const auto& [key, result] : {std::pair{"a", resultA}, std::pair{"b", resultB}}) {
            const QJsonObject side = json.value(QLatin1String(key)).toObject();
            QCOMPARE(side.value(QLatin1String("gap_observable")).toBool(),
                     !findNotice(result->notices, notice_code::kGapNotObservable));
            QCOMPARE(side.value(QLatin1String("notices")).toArray().size(),
                     qsizetype(result->notices.size()));
        }
    }
};

QTEST_GUILESS_MAIN(TestTraceComparison)
#include "tst_tracecomparison.moc"
