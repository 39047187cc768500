// End-to-end: the real `gapscope compare` binary on the parity vectors. Its JSON must be the
// library's comparison of the same inputs byte for byte, and match the reference findings.
#include "model/report/ComparisonReport.h"
#include "model/trace/TraceComparison.h"
#include "model/trace/TraceLoader.h"

#include "tests/GapscopeProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gapscope;

class TestCliCompare : public QObject
{
    Q_OBJECT

    using Run = GapscopeRun;
    static Run run(const QStringList& args)
    {
        return runGapscope(QStringList{QStringLiteral("compare")} + args);
    }

    static QString parity(const QString& name)
    {
        return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name +
               QStringLiteral(".jsonl");
    }

    static QJsonObject reference(const QString& name, const QString& classification)
    {
        QFile file(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name +
                   QStringLiteral(".expected.json"));
        if (!file.open(QIODevice::ReadOnly))
            return {};
        for (const QJsonValue& v : QJsonDocument::fromJson(file.readAll())
                                       .object()
                                       .value(QLatin1String("gap_analysis"))
                                       .toArray()) {
            if (v.toObject().value(QLatin1String("classification")).toString() == classification)
                return v.toObject();
        }
        return {};
    }

    static QByteArray libraryJson(const QString& a, const QString& b, const CompareAlignment& alignment,
                                  const GapThresholds& thresholds = {})
    {
        AnalysisRequest request;
        request.thresholds = thresholds;
        const auto ra = runAnalysis(loadTrace(parity(a)).data, request);
        const auto rb = runAnalysis(loadTrace(parity(b)).data, request);
        const auto c = compareAnalyses(ra, rb, alignment);
        return c ? renderComparisonJson(*c) : QByteArray();
    }

    static QJsonObject findingOf(const QJsonObject& report, const QString& classification)
    {
        for (const QJsonValue& v : report.value(QLatin1String("findings")).toArray()) {
            if (v.toObject().value(QLatin1String("classification")).toString() == classification)
                return v.toObject();
        }
        return {};
    }

private slots:
    void driftVersusMixed()
    {
        const Run r = run({parity(QStringLiteral("drift")), parity(QStringLiteral("mixed")),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, libraryJson(QStringLiteral("drift"), QStringLiteral("mixed"), CompareAlignment{}));
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(report.value(QLatin1String("summary")).toObject().value(QLatin1String("new")).toInt(), 1);
        QCOMPARE(report.value(QLatin1String("summary")).toObject().value(QLatin1String("changed")).toInt(),
                 1);
        QCOMPARE(
            findingOf(report, QStringLiteral("transient_spike")).value(QLatin1String("change")).toString(),
            QStringLiteral("new"));
        const QJsonObject drift = findingOf(report, QStringLiteral("persistent_drift"));
        QCOMPARE(drift.value(QLatin1String("change")).toString(), QStringLiteral("changed"));
        const QJsonObject refA = reference(QStringLiteral("drift"), QStringLiteral("persistent_drift"));
        const QJsonObject refB = reference(QStringLiteral("mixed"), QStringLiteral("persistent_drift"));
        for (const auto& [side, ref] : {std::pair{"a", refA}, std::pair{"b", refB}}) {
            const QJsonObject f = drift.value(QLatin1String(side)).toObject();
            QCOMPARE(f.value(QLatin1String("severity")).toString(),
                     ref.value(QLatin1String("severity")).toString());
            QCOMPARE(f.value(QLatin1String("confidence")).toDouble(),
                     ref.value(QLatin1String("confidence")).toDouble());
        }
        QCOMPARE(drift.value(QLatin1String("confidence_delta")).toDouble(),
                 refB.value(QLatin1String("confidence")).toDouble() -
                     refA.value(QLatin1String("confidence")).toDouble());
        QCOMPARE(
            drift.value(QLatin1String("evidence_deltas"))
                .toObject()
                .value(QLatin1String("r_squared"))
                .toDouble(),
            refB.value(QLatin1String("evidence")).toObject().value(QLatin1String("r_squared")).toDouble() -
                refA.value(QLatin1String("evidence"))
                    .toObject()
                    .value(QLatin1String("r_squared"))
                    .toDouble());
    }

    void phasesVersusPhasespikeAlignedAtPhase()
    {
        const QString align = QStringLiteral("phase:train / step");
        const Run r =
            run({parity(QStringLiteral("phases")), parity(QStringLiteral("phasespike")),
                 QStringLiteral("--align"), align, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, libraryJson(QStringLiteral("phases"), QStringLiteral("phasespike"),
                                    *CompareAlignment::fromString(align)));
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(report.value(QLatin1String("alignment")).toString(), align);
        QCOMPARE(
            findingOf(report, QStringLiteral("persistent_drift")).value(QLatin1String("change")).toString(),
            QStringLiteral("gone"));
        QCOMPARE(
            findingOf(report, QStringLiteral("transient_spike")).value(QLatin1String("change")).toString(),
            QStringLiteral("new"));
        QStringList labels;
        for (const QJsonValue& p : report.value(QLatin1String("phases")).toArray()) {
            const QJsonObject o = p.toObject();
            labels << o.value(QLatin1String("label")).toString();
            QCOMPARE(o.value(QLatin1String("delta_bytes")).toInteger(),
                     o.value(QLatin1String("peak_gap_b_bytes")).toInteger() -
                         o.value(QLatin1String("peak_gap_a_bytes")).toInteger());
        }
        QCOMPARE(labels, QStringList({QStringLiteral("train"), QStringLiteral("train / step"),
                                      QStringLiteral("evaluate")}));

        const Run md =
            run({parity(QStringLiteral("phases")), parity(QStringLiteral("phasespike")),
                 QStringLiteral("--align"), align, QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(md.exitCode, 0);
        QVERIFY(md.out.contains("| Phase | Peak gap A | Peak gap B | Delta |"));
        QVERIFY(md.out.contains("| train / step |"));
        QVERIFY(md.out.contains("1 new, 1 gone, 0 changed, 0 unchanged."));
    }

    void traceVersusItself()
    {
        const QString path = parity(QStringLiteral("phasespike"));
        const Run r = run({path, path, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        const QJsonObject summary = report.value(QLatin1String("summary")).toObject();
        QCOMPARE(summary.value(QLatin1String("unchanged")).toInt(), 1);
        QCOMPARE(summary.value(QLatin1String("new")).toInt() + summary.value(QLatin1String("gone")).toInt() +
                     summary.value(QLatin1String("changed")).toInt(),
                 0);
        for (const QJsonValue& f : report.value(QLatin1String("findings")).toArray()) {
            QCOMPARE(f.toObject().value(QLatin1String("confidence_delta")).toDouble(), 0.0);
            for (const QJsonValue& d : f.toObject().value(QLatin1String("evidence_deltas")).toObject())
                QCOMPARE(d.toDouble(), 0.0);
        }
        for (const QJsonValue& p : report.value(QLatin1String("phases")).toArray())
            QCOMPARE(p.toObject().value(QLatin1String("delta_bytes")).toInteger(), qint64(0));
    }

    void thresholdsApplyToBothSides()
    {
        // mixed's drift has r^2 0.6187: above 0.7 it is no finding there, so the drift is gone
        const Run r = run({parity(QStringLiteral("drift")), parity(QStringLiteral("mixed")),
                           QStringLiteral("--set"), QStringLiteral("gap_drift_r_squared=0.7"),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        GapThresholds thresholds;
        QVERIFY(thresholds.set("gap_drift_r_squared", 0.7));
        QCOMPARE(r.out, libraryJson(QStringLiteral("drift"), QStringLiteral("mixed"), CompareAlignment{},
                                    thresholds));
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(
            findingOf(report, QStringLiteral("persistent_drift")).value(QLatin1String("change")).toString(),
            QStringLiteral("gone"));
    }

    void writesOutputFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("compare.md"));
        const Run r =
            run({parity(QStringLiteral("drift")), parity(QStringLiteral("mixed")), QStringLiteral("--output"),
                 out, QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray md = file.readAll();
        QVERIFY(md.startsWith("# Trace comparison\n"));
        QVERIFY(md.contains("1 new, 0 gone, 1 changed, 0 unchanged."));
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString drift = parity(QStringLiteral("drift"));
        const QString phases = parity(QStringLiteral("phases"));
        QTest::newRow("one path") << QStringList{drift} << QStringLiteral("compare needs two paths");
        QTest::newRow("bad align") << QStringList{drift, drift, QStringLiteral("--align"),
                                                  QStringLiteral("end")}
                                   << QStringLiteral("--align needs start or phase:LABEL, got 'end'");
        QTest::newRow("missing phase")
            << QStringList{phases, drift, QStringLiteral("--align"), QStringLiteral("phase:train")}
            << QStringLiteral("B (") + drift + QStringLiteral("): no phase 'train' (phases: none)");
        QTest::newRow("no session") << QStringList{drift, drift, QStringLiteral("--session-b"),
                                                   QStringLiteral("nope")}
                                    << QStringLiteral("B: ") + drift + QStringLiteral(": no session 'nope'");
        QTest::newRow("no rank") << QStringList{drift, drift, QStringLiteral("--rank-a"), QStringLiteral("7")}
                                 << QStringLiteral("has no rank 7");
        QTest::newRow("bad format") << QStringList{drift, drift, QStringLiteral("--format"),
                                                   QStringLiteral("html")}
                                    << QStringLiteral("unknown format 'html' (json, markdown)");
        QTest::newRow("missing file") << QStringList{drift, QStringLiteral("/nonexistent/b.jsonl")}
                                      << QStringLiteral("/nonexistent/b.jsonl");
        const QString budget = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");
        QTest::newRow("budget log") << QStringList{drift, budget}
                                    << QStringLiteral("B: ") + budget +
                                           QStringLiteral(": a memory-budget log");
        // a PyTorch memory snapshot has totals and findings, no gap series to compare
        const QString snapshot = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/snapshot.pickle");
        QTest::newRow("snapshot") << QStringList{drift, snapshot}
                                  << QStringLiteral("B: ") + snapshot +
                                         QStringLiteral(
                                             ": a PyTorch memory snapshot has no gap analysis to compare; "
                                             "`gapscope analyze` and `gapscope export` report its totals "
                                             "and findings");
        QTest::newRow("bad threshold")
            << QStringList{drift, drift, QStringLiteral("--set"), QStringLiteral("nope=1")}
            << QStringLiteral("unknown threshold 'nope'");
    }

    void badArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(QString::fromUtf8(r.err).startsWith(QStringLiteral("gapscope compare: ")),
                 r.err.constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
