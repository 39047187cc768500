// End-to-end: the real `gapscope analyze` binary on the parity vectors and on bad input.
#include "tests/GapscopeProcess.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

#include <unistd.h>

class TestCli : public QObject
{
    Q_OBJECT

    using Run = GapscopeRun;
    static Run run(const QStringList& args) { return runGapscope(args); }

    static QString parity(const QString& name)
    {
        return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name;
    }

    static QString distributed(const QString& name)
    {
        return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed/") + name;
    }

    static QJsonObject readJson(const QString& path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(file.readAll()).object()
                                              : QJsonObject();
    }

    // Rows of badInvocations: NaN, infinities, negatives and values outside a threshold's
    // range are refused for every name, trace and budget, before anything is loaded; so is
    // an empty window.
    static void addInvalidSettings()
    {
        const QString drift = parity(QStringLiteral("drift.jsonl"));
        const QString budget = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");
        const QStringList gapNames{QStringLiteral("gap_ratio_threshold"), QStringLiteral("gap_spike_zscore"),
                                   QStringLiteral("gap_drift_r_squared"),
                                   QStringLiteral("gap_fragmentation_ratio")};
        QStringList budgetNames{QStringLiteral("min_trend_ticks"),
                                QStringLiteral("growth_r_squared"),
                                QStringLiteral("growth_p_value"),
                                QStringLiteral("min_growth_bytes"),
                                QStringLiteral("flat_tolerance_bytes"),
                                QStringLiteral("flat_tolerance_share"),
                                QStringLiteral("retention_share_of_growth"),
                                QStringLiteral("critical_r_squared"),
                                QStringLiteral("critical_growth_share_of_target"),
                                QStringLiteral("wedge_skip_ticks"),
                                QStringLiteral("over_target_share"),
                                QStringLiteral("hard_ceiling_bytes"),
                                QStringLiteral("hard_ceiling_approach_share"),
                                QStringLiteral("thrash_alternations"),
                                QStringLiteral("thrash_window_ticks"),
                                QStringLiteral("low_hit_rate"),
                                QStringLiteral("low_hit_rate_budget_share"),
                                QStringLiteral("min_hit_rate_ticks")};
        for (const QString& name : gapNames)
            budgetNames << QStringLiteral("os_gap.") + name;
        const QStringList values{QStringLiteral("NaN"), QStringLiteral("nan"), QStringLiteral("inf"),
                                 QStringLiteral("-inf"), QStringLiteral("-1")};
        for (const QString& command : {QStringLiteral("analyze"), QStringLiteral("export")}) {
            const QStringList exportArgs =
                command == QLatin1String("export")
                    ? QStringList{QStringLiteral("--format"), QStringLiteral("json"),
                                  QStringLiteral("--output"), QStringLiteral("/nonexistent-dir/x.json")}
                    : QStringList{};
            for (const QString& value : values) {
                for (const QString& name : gapNames)
                    QTest::addRow("%s trace %s=%s", qPrintable(command), qPrintable(name), qPrintable(value))
                        << (QStringList{command, drift, QStringLiteral("--set"),
                                        name + QLatin1Char('=') + value} +
                            exportArgs)
                        << name;
                for (const QString& name : budgetNames)
                    QTest::addRow("%s budget %s=%s", qPrintable(command), qPrintable(name), qPrintable(value))
                        << (QStringList{command, budget, QStringLiteral("--set"),
                                        name + QLatin1Char('=') + value} +
                            exportArgs)
                        << name;
            }
            QTest::addRow("%s --from after --to", qPrintable(command))
                << (QStringList{command, drift, QStringLiteral("--from"), QStringLiteral("5"),
                                QStringLiteral("--to"), QStringLiteral("1")} +
                    exportArgs)
                << QStringLiteral("--from 5 is after --to 1");
        }
        // the ranges of the gap thresholds (as the thresholds dialog offers them)
        for (const QString& setting :
             {QStringLiteral("gap_ratio_threshold=1.5"), QStringLiteral("gap_drift_r_squared=1.01"),
              QStringLiteral("gap_fragmentation_ratio=2"), QStringLiteral("gap_spike_zscore=1e300"),
              QStringLiteral("os_gap.gap_drift_r_squared=3")})
            QTest::addRow("range %s", qPrintable(setting))
                << QStringList{QStringLiteral("analyze"),
                               setting.startsWith(QLatin1String("os_gap")) ? budget : drift,
                               QStringLiteral("--set"), setting}
                << setting.section(QLatin1Char('='), 0, 0);
        // budget thresholds that are probabilities, r squared, hit rates or shares of all ticks
        for (const QString& setting :
             {QStringLiteral("growth_r_squared=5"), QStringLiteral("growth_p_value=2"),
              QStringLiteral("critical_r_squared=1.5"), QStringLiteral("over_target_share=1.01"),
              QStringLiteral("low_hit_rate=2")})
            QTest::addRow("range %s", qPrintable(setting))
                << QStringList{QStringLiteral("analyze"), budget, QStringLiteral("--set"), setting}
                << setting.section(QLatin1Char('='), 0, 0);
        // compare takes the same thresholds
        QTest::newRow("compare NaN") << QStringList{QStringLiteral("compare"), drift, drift,
                                                    QStringLiteral("--set"),
                                                    QStringLiteral("gap_spike_zscore=NaN")}
                                     << QStringLiteral("gap_spike_zscore");
    }

private slots:
    // analyze and export read the reopen cache but never write it; --no-cache is accepted by
    // both (and by the app), refused by compare
    void cacheNeverWritten_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        const QString trace = parity(QStringLiteral("drift.jsonl"));
        QTest::newRow("analyze") << QStringList{QStringLiteral("analyze"), trace} << 0;
        QTest::newRow("analyze --no-cache")
            << QStringList{QStringLiteral("analyze"), trace, QStringLiteral("--no-cache")} << 0;
        QTest::newRow("export --no-cache") << QStringList{QStringLiteral("export"),    trace,
                                                          QStringLiteral("--format"),  QStringLiteral("json"),
                                                          QStringLiteral("--output"),  QStringLiteral("-"),
                                                          QStringLiteral("--no-cache")}
                                           << 0;
        QTest::newRow("compare --no-cache")
            << QStringList{QStringLiteral("compare"), trace, trace, QStringLiteral("--no-cache")} << 2;
    }
    void cacheNeverWritten()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QTemporaryDir cacheHome;
        const QByteArray before = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", QFile::encodeName(cacheHome.path()));
        const Run r = run(args);
        qputenv("XDG_CACHE_HOME", before);
        QVERIFY2(r.exitCode == exitCode, r.err.constData());
        QCOMPARE(QDir(cacheHome.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }

    void parityVectors_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"drift", "frag", "mixed", "phases", "phasespike", "quiet", "spikes"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void parityVectors()
    {
        QFETCH(QString, name);
        const Run r = run({QStringLiteral("analyze"), parity(name + QStringLiteral(".jsonl")),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject report = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);

        QFile expectedFile(parity(name + QStringLiteral(".expected.json")));
        QVERIFY(expectedFile.open(QIODevice::ReadOnly));
        const QJsonObject expected = QJsonDocument::fromJson(expectedFile.readAll()).object();

        QCOMPARE(report.value(QStringLiteral("event_count")).toInteger(),
                 expected.value(QStringLiteral("event_count")).toInteger());
        const QJsonArray got = report.value(QStringLiteral("gap_analysis")).toArray();
        const QJsonArray want = expected.value(QStringLiteral("gap_analysis")).toArray();
        QCOMPARE(got.size(), want.size());
        for (qsizetype i = 0; i < want.size(); ++i) {
            const QJsonObject g = got[i].toObject();
            const QJsonObject w = want[i].toObject();
            for (const char* key :
                 {"classification", "severity", "confidence", "evidence", "phase_attribution"})
                QCOMPARE(g.value(QLatin1String(key)), w.value(QLatin1String(key)));
            // ns timestamps exceed 2^53: compare the text, not a double
            const QByteArray stamp =
                "\"evidence_timestamp_ns\": " +
                QByteArray::number(w.value(QStringLiteral("evidence_timestamp_ns")).toInteger());
            QVERIFY2(r.out.contains(stamp), stamp.constData());
            QVERIFY(!g.value(QStringLiteral("description")).toString().isEmpty());
            QVERIFY(!g.value(QStringLiteral("remediation")).toArray().isEmpty());
        }
        const QJsonObject session = report.value(QStringLiteral("session")).toObject();
        QCOMPARE(session.value(QStringLiteral("selected")).toString(),
                 QStringLiteral("6513270e-269e-0d37-f2a7-4de452e6b438"));
        QCOMPARE(report.value(QStringLiteral("input"))
                     .toObject()
                     .value(QStringLiteral("records_rejected"))
                     .toInt(),
                 0);
    }

    // Issue 30 item 2: `analyze` says what a trace cannot show. The stock collector's capture
    // (device used = max(allocated, reserved)) gets a gap_not_observable notice in text and
    // JSON; the same run recorded with cudaMemGetInfo an empty list. A job whose every rank is
    // blind says it once for the job, and each rank carries its own.
    void notices()
    {
        const QString real = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/real-gpu/");
        const QString stock = real + QStringLiteral("single/stock/telemetry_sink");
        const QString truth = real + QStringLiteral("single/truth/telemetry_sink");

        Run r = run({QStringLiteral("analyze"), stock, QStringLiteral("--format"), QStringLiteral("text")});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(
                     QStringLiteral("NOTICE WARNING  gap_not_observable\n  The gap cannot be observed in "
                                    "this trace: device used is recorded as max(allocated, reserved).")),
                 r.out.constData());
        QVERIFY(text.contains(QStringLiteral("This trace cannot show memory outside the allocator.")));
        QVERIFY(text.contains(QStringLiteral("its collector (stormlog.cuda_tracker)")));

        r = run({QStringLiteral("analyze"), stock, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QJsonArray notices =
            QJsonDocument::fromJson(r.out).object().value(QStringLiteral("notices")).toArray();
        QCOMPARE(notices.size(), 1);
        QCOMPARE(notices.first().toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("gap_not_observable"));

        r = run({QStringLiteral("analyze"), truth, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonValue none = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("notices"));
        QVERIFY(none.isArray());
        QVERIFY(none.toArray().isEmpty());

        QStringList job{QStringLiteral("analyze")};
        for (int rank = 0; rank < 4; ++rank)
            job << real + QStringLiteral("ddp/rank%1/telemetry_sink").arg(rank);
        r = run(job + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        notices = report.value(QStringLiteral("notices")).toArray();
        QCOMPARE(notices.size(), 1);
        const QJsonObject once = notices.first().toObject();
        QCOMPARE(once.value(QStringLiteral("code")).toString(), QStringLiteral("gap_not_observable"));
        QCOMPARE(once.value(QStringLiteral("ranks")).toInt(), 4);
        qint64 samples = 0;
        const QJsonArray ranks = report.value(QStringLiteral("ranks")).toArray();
        QCOMPARE(ranks.size(), 4);
        for (const QJsonValue& rank : ranks) {
            const QJsonArray own = rank.toObject().value(QStringLiteral("notices")).toArray();
            QCOMPARE(own.size(), 1);
            QCOMPARE(own.first().toObject().value(QStringLiteral("code")).toString(),
                     QStringLiteral("gap_not_observable"));
            samples += own.first().toObject().value(QStringLiteral("samples")).toInteger();
        }
        QCOMPARE(once.value(QStringLiteral("samples")).toInteger(), samples);

        r = run(job + QStringList{QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(r.exitCode, 0);
        const QString markdown = QString::fromUtf8(r.out);
        QCOMPARE(
            markdown.count(QStringLiteral("None of the job's 4 ranks can show memory outside the allocator")),
            1);
        QCOMPARE(markdown.count(QStringLiteral("This trace cannot show memory outside the allocator")), 0);
        QVERIFY(markdown.contains(QStringLiteral("| Notices |")));
    }

    void evidenceNumbersKeepPythonSpelling()
    {
        // upstream writes "max_gap_bytes": 11308576161.0 and "spike_count": 7
        const Run r = run({QStringLiteral("analyze"), parity(QStringLiteral("spikes.jsonl")),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("\"max_gap_bytes\": 11308576161.0"));
        QVERIFY(r.out.contains("\"spike_count\": 7,"));
        QVERIFY(r.out.contains("\"confidence\": 1.0"));
    }

    void thresholdOverride()
    {
        // a z threshold above every z-score leaves no spike finding
        const Run r = run({QStringLiteral("analyze"), parity(QStringLiteral("spikes.jsonl")),
                           QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--set"),
                           QStringLiteral("gap_spike_zscore=10")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(report.value(QStringLiteral("gap_analysis")).toArray().size(), 0);
        QCOMPARE(report.value(QStringLiteral("thresholds"))
                     .toObject()
                     .value(QStringLiteral("gap_spike_zscore"))
                     .toDouble(),
                 10.0);
    }

    // One multi-rank file: upstream's collective_attribution and cross_rank_analysis beside the
    // gap analysis, as upstream wrote them (its notes are not in the vectors; ours are there).
    void distributedVectors_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"collective-merged.jsonl", "nomarker-merged.jsonl", "quiet-merged.jsonl"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void distributedVectors()
    {
        QFETCH(QString, name);
        const Run r = run({QStringLiteral("analyze"), distributed(name), QStringLiteral("--format"),
                           QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        const QJsonObject expected = readJson(distributed(name + QStringLiteral(".expected.json")));
        QCOMPARE(report.value(QStringLiteral("session")).toObject().value(QStringLiteral("selected")),
                 expected.value(QStringLiteral("session_id")));
        QCOMPARE(report.value(QStringLiteral("collective_attribution")),
                 expected.value(QStringLiteral("collective_attribution")));
        QJsonObject crossRank = report.value(QStringLiteral("cross_rank_analysis")).toObject();
        QVERIFY(crossRank.take(QStringLiteral("notes")).isArray());
        QCOMPARE(crossRank, expected.value(QStringLiteral("cross_rank_analysis")).toObject());
        // the two come after upstream's gap analysis, in upstream's order
        QVERIFY(r.out.indexOf("\"gap_analysis\"") < r.out.indexOf("\"collective_attribution\""));
        QVERIFY(r.out.indexOf("\"collective_attribution\"") < r.out.indexOf("\"cross_rank_analysis\""));
    }

    // export --format json writes the object analyze prints, collective settings included.
    void exportCarriesCrossRankAnalyses()
    {
        for (const QStringList& settings :
             {QStringList{}, QStringList{QStringLiteral("--set"), QStringLiteral("collective.preset=low")}}) {
            const QString merged = distributed(QStringLiteral("collective-merged.jsonl"));
            const Run analysed = run(QStringList{QStringLiteral("analyze"), merged,
                                                 QStringLiteral("--format"), QStringLiteral("json")} +
                                     settings);
            const Run exported =
                run(QStringList{QStringLiteral("export"), merged, QStringLiteral("--format"),
                                QStringLiteral("json"), QStringLiteral("--output"), QStringLiteral("-")} +
                    settings);
            QCOMPARE(analysed.exitCode, 0);
            QCOMPARE(exported.exitCode, 0);
            QCOMPARE(exported.out, analysed.out);
            QVERIFY(analysed.out.contains("\"cross_rank_analysis\""));
        }
    }

    // One rank: the (empty) collective attribution, no cross-rank analysis, as upstream's report.
    void singleRankHasNoCrossRankAnalysis()
    {
        const Run r = run({QStringLiteral("analyze"), parity(QStringLiteral("drift.jsonl")),
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        QVERIFY(report.value(QStringLiteral("collective_attribution")).isArray());
        QCOMPARE(report.value(QStringLiteral("collective_attribution")).toArray().size(), 0);
        QVERIFY(!report.contains(QStringLiteral("cross_rank_analysis")));
    }

    // The preset and knobs change what collective attribution keeps.
    void collectiveSettings()
    {
        const auto count = [](const QStringList& settings) {
            QStringList args{QStringLiteral("analyze"), distributed(QStringLiteral("nomarker-merged.jsonl")),
                             QStringLiteral("--format"), QStringLiteral("json")};
            for (const QString& setting : settings)
                args << QStringLiteral("--set") << setting;
            const Run r = runGapscope(args);
            return r.exitCode == 0 ? QJsonDocument::fromJson(r.out)
                                         .object()
                                         .value(QStringLiteral("collective_attribution"))
                                         .toArray()
                                         .size()
                                   : -1;
        };
        QCOMPARE(count({}), 20);
        // low asks for 0.7: without markers no spike gets there
        QCOMPARE(count({QStringLiteral("collective.preset=low")}), 0);
        // a knob on top of the preset, whatever the order
        QCOMPARE(
            count({QStringLiteral("collective.min_confidence=0.5"), QStringLiteral("collective.preset=LOW")}),
            count(
                {QStringLiteral("collective.preset=low"), QStringLiteral("collective.min_confidence=0.5")}));
        QCOMPARE(count({QStringLiteral("collective.min_confidence=1")}), 0);
    }

    void otherFormats_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("mustContain");
        QTest::newRow("markdown") << QStringLiteral("markdown") << QStringLiteral("# gapscope report");
        QTest::newRow("text") << QStringLiteral("text") << QStringLiteral("CRITICAL  transient_spike");
    }

    void otherFormats()
    {
        QFETCH(QString, format);
        QFETCH(QString, mustContain);
        const Run r = run({QStringLiteral("analyze"), parity(QStringLiteral("phasespike.jsonl")),
                           QStringLiteral("--format"), format});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QString::fromUtf8(r.out).contains(mustContain), r.out.left(400).constData());
    }

    void outputFile()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("report.json"));
        const Run r =
            run({QStringLiteral("analyze"), parity(QStringLiteral("drift.jsonl")), QStringLiteral("--format"),
                 QStringLiteral("json"), QStringLiteral("--output"), file});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("persistent_drift"));
    }

    void badInvocations_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString drift = parity(QStringLiteral("drift.jsonl"));
        QTest::newRow("missing path")
            << QStringList{QStringLiteral("analyze")} << QStringLiteral("needs a PATH");
        QTest::newRow("no such file")
            << QStringList{QStringLiteral("analyze"), QStringLiteral("/nonexistent/x.jsonl")}
            << QStringLiteral("/nonexistent/x.jsonl");
        QTest::newRow("unknown threshold") << QStringList{QStringLiteral("analyze"), drift,
                                                          QStringLiteral("--set"), QStringLiteral("bogus=1")}
                                           << QStringLiteral("unknown threshold 'bogus'");
        QTest::newRow("bad threshold value")
            << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--set"),
                           QStringLiteral("gap_spike_zscore=x")}
            << QStringLiteral("NAME=VALUE");
        QTest::newRow("unknown format") << QStringList{QStringLiteral("analyze"), drift,
                                                       QStringLiteral("--format"), QStringLiteral("xml")}
                                        << QStringLiteral("unknown format");
        QTest::newRow("unknown session") << QStringList{QStringLiteral("analyze"), drift,
                                                        QStringLiteral("--session"), QStringLiteral("nope")}
                                         << QStringLiteral("no session 'nope'");
        QTest::newRow("unknown rank")
            << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--rank"), QStringLiteral("7")}
            << QStringLiteral("no rank 7");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--bogus")}
            << QStringLiteral("unknown option --bogus");
        addInvalidSettings();
        // the cross-rank analyses' settings: upstream's validation, whole numbers, analyze only
        const QString merged = distributed(QStringLiteral("collective-merged.jsonl"));
        const auto collective = [&](const char* row, const QString& setting, const QString& reason,
                                    const QString& command = QStringLiteral("analyze"),
                                    QString path = QString()) {
            QStringList args{command, path.isEmpty() ? merged : path};
            if (command == QLatin1String("compare"))
                args << merged;
            if (command == QLatin1String("export"))
                args << QStringLiteral("--format") << QStringLiteral("json") << QStringLiteral("--output")
                     << QStringLiteral("-");
            QTest::newRow(row) << (args << QStringLiteral("--set") << setting) << reason;
        };
        collective("collective unknown preset", QStringLiteral("collective.preset=extreme"),
                   QStringLiteral("unknown collective preset 'extreme' (known: high, low, medium)"));
        collective("collective unknown knob", QStringLiteral("collective.min_gap=5"),
                   QStringLiteral("unknown collective setting 'min_gap'"));
        collective("collective samples 2", QStringLiteral("collective.min_samples_per_rank=2"),
                   QStringLiteral("min_samples_per_rank must be >= 3"));
        collective("collective confidence 2", QStringLiteral("collective.min_confidence=2"),
                   QStringLiteral("min_confidence must be in [0, 1]"));
        collective("collective ratio NaN", QStringLiteral("collective.min_synchrony_ratio=NaN"),
                   QStringLiteral("min_synchrony_ratio needs a finite number"));
        collective("collective bytes 1.5", QStringLiteral("collective.min_gap_bytes=1.5"),
                   QStringLiteral("min_gap_bytes needs a whole number"));
        collective("collective without value", QStringLiteral("collective.preset"),
                   QStringLiteral("NAME=VALUE"));
        collective("collective compare", QStringLiteral("collective.preset=low"),
                   QStringLiteral("--set collective.preset applies to analyze and export only"),
                   QStringLiteral("compare"));
        collective("collective budget log", QStringLiteral("collective.preset=low"),
                   QStringLiteral("applies to stormlog traces only"), QStringLiteral("analyze"),
                   QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl"));
    }

    void badInvocations()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const Run r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(reason), qPrintable(err));
        QCOMPARE(err.trimmed().count(QLatin1Char('\n')), 0); // one line
    }

    // issue 32, item 7: a file name that is not UTF-8 is named as such, not "no such file"
    void nonUtf8ArgumentIsNamed()
    {
        QTemporaryDir dir;
        const QByteArray raw = QFile::encodeName(dir.path()) + "/rank\xff.jsonl";
        QVERIFY(
            QFile::copy(parity(QStringLiteral("drift.jsonl")), dir.filePath(QStringLiteral("plain.jsonl"))));
        QVERIFY(::rename(QFile::encodeName(dir.filePath(QStringLiteral("plain.jsonl"))).constData(),
                         raw.constData()) == 0);
        // QProcess passes QStrings: a shell makes the raw byte
        const Run r = runGapscope({dir.path() + QStringLiteral("/rank")}, {},
                                  {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                   QStringLiteral("exec \"$0\" analyze \"$1$(printf '\\377').jsonl\"")});
        QCOMPARE(r.exitCode, 2);
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(QStringLiteral("argument 2 is not valid UTF-8")), qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("no such file")), qPrintable(err));
        QCOMPARE(::unlink(raw.constData()), 0); // QDir cannot name it to remove it with dir
    }

    void validSettingsAtTheirBounds()
    {
        // the ends of each range are allowed
        for (const QString& setting :
             {QStringLiteral("gap_ratio_threshold=0"), QStringLiteral("gap_ratio_threshold=1"),
              QStringLiteral("gap_drift_r_squared=1"), QStringLiteral("gap_fragmentation_ratio=0"),
              QStringLiteral("gap_spike_zscore=0"), QStringLiteral("gap_spike_zscore=100"),
              QStringLiteral("growth_r_squared=1"), QStringLiteral("growth_p_value=0"),
              QStringLiteral("over_target_share=1"), QStringLiteral("low_hit_rate=1"),
              QStringLiteral("critical_growth_share_of_target=2")}) {
            const bool budgetSetting = !setting.startsWith(QLatin1String("gap_"));
            const Run r =
                run({QStringLiteral("analyze"),
                     budgetSetting ? QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl")
                                   : parity(QStringLiteral("drift.jsonl")),
                     QStringLiteral("--set"), setting});
            QVERIFY2(r.exitCode == 0, qPrintable(setting + QLatin1Char(' ') + QString::fromUtf8(r.err)));
        }
    }

    void budgetLogAnalyze_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::newRow("snapshot jsonl") << QStringLiteral("leak.jsonl");
        QTest::newRow("tracing json") << QStringLiteral("leak.json");
        QTest::newRow("text") << QStringLiteral("leak.text");
    }

    void budgetLogAnalyze()
    {
        // a memory-budget log is recognised by its content and analysed by the budget rules
        QFETCH(QString, fixture);
        const Run r = run({QStringLiteral("analyze"),
                           QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/") + fixture,
                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject report = QJsonDocument::fromJson(r.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(report.value(QStringLiteral("kind")).toString(), QStringLiteral("budget_log"));
        QStringList classifications;
        for (const QJsonValue& finding : report.value(QStringLiteral("gap_analysis")).toArray())
            classifications << finding.toObject().value(QStringLiteral("classification")).toString();
        QVERIFY2(classifications.contains(QStringLiteral("leak_outside_caches")),
                 qPrintable(classifications.join(QLatin1Char(','))));
    }

    void budgetLogOtherFormats_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::newRow("markdown") << QStringLiteral("markdown") << QStringLiteral("Leak outside caches");
        QTest::newRow("text") << QStringLiteral("text") << QStringLiteral("leak_outside_caches");
    }

    void budgetLogOtherFormats()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        const Run r = run({QStringLiteral("analyze"),
                           QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl"),
                           QStringLiteral("--format"), format});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QString::fromUtf8(r.out).contains(expected, Qt::CaseInsensitive),
                 r.out.left(2000).constData());
    }

    void budgetThresholdOverride()
    {
        // more fitted growth than the log has: the leak is no longer reported
        const Run r = run({QStringLiteral("analyze"),
                           QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl"),
                           QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--set"),
                           QStringLiteral("min_growth_bytes=1099511627776")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(r.out).object();
        for (const QJsonValue& finding : report.value(QStringLiteral("gap_analysis")).toArray())
            QVERIFY(finding.toObject().value(QStringLiteral("classification")).toString() !=
                    QLatin1String("leak_outside_caches"));
        QCOMPARE(report.value(QStringLiteral("thresholds"))
                     .toObject()
                     .value(QStringLiteral("min_growth_bytes"))
                     .toDouble(),
                 1099511627776.0);
    }

    void budgetThresholdNames()
    {
        // a budget-only name is refused for a trace; an unknown name lists the budget names
        const Run trace = run({QStringLiteral("analyze"), parity(QStringLiteral("spikes.jsonl")),
                               QStringLiteral("--set"), QStringLiteral("wedge_skip_ticks=3")});
        QCOMPARE(trace.exitCode, 2);
        QVERIFY2(trace.err.contains("memory-budget logs only"), trace.err.constData());
        const Run unknown = run({QStringLiteral("analyze"), parity(QStringLiteral("spikes.jsonl")),
                                 QStringLiteral("--set"), QStringLiteral("no_such_threshold=3")});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("min_trend_ticks"), unknown.err.constData());
        const Run usage = run({QStringLiteral("--help")});
        QVERIFY(usage.out.contains("wedge_skip_ticks"));
    }

    void version()
    {
        // the version of project() in CMakeLists.txt, on stdout, for scripts and bug reports
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("gapscope " GAPSCOPE_PROJECT_VERSION "\n"));
        QVERIFY(r.err.isEmpty());
        QVERIFY(QByteArray(GAPSCOPE_PROJECT_VERSION).contains('.'));
        // and the usage says so, as it says --help
        const Run usage = run({QStringLiteral("--help")});
        QVERIFY2(usage.out.contains("gapscope --version"), usage.out.constData());
        QVERIFY(usage.out.contains("gapscope --help"));
    }

    // A PyTorch memory snapshot (issue 34): analyze prints its totals, the numbers Python's
    // pickle.load and the allocator's memory_stats give (tests/data/snapshot/expected.py).
    void snapshotAnalyze_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<qint64>>("totals"); // segments, reserved, allocated, active, requested,
                                                   // trace entries, largest free block
        // peak active bytes, sites; the top site's bytes at peak, at snapshot, allocations,
        // largest, total (expected.py's `sites`)
        QTest::addColumn<QList<qint64>>("sites");
        QTest::addColumn<QString>("topSite");
        QTest::newRow("snapshot.pickle")
            << QStringLiteral("snapshot.pickle")
            << QList<qint64>{74, 1715470336, 278691840, 278691840, 274432000, 20000, 75497472}
            << QList<qint64>{990781720, 57, 149946368, 0, 76, 37486592, 1723858944}
            << QStringLiteral(
                   "relu (/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py:1723)");
        QTest::newRow("pair/snapshot.pickle.gz")
            << QStringLiteral("pair/snapshot.pickle.gz")
            << QList<qint64>{78, 6643777536, 6467485696, 6467485696, 6460096512, 100000, 16171008}
            << QList<qint64>{6460096512, 71, 6174015488, 6174015488, 46, 134217728, 6174015488}
            << QStringLiteral("scenario_pair (/home/trainer1/tools/gpu_capture/capture.py:300)");
    }

    void snapshotAnalyze()
    {
        QFETCH(QString, path);
        QFETCH(QList<qint64>, totals);
        const QString file = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + path;
        const Run json =
            run({QStringLiteral("analyze"), file, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        QVERIFY2(json.err.isEmpty(), json.err.constData());
        QJsonParseError error;
        const QJsonObject snapshot =
            QJsonDocument::fromJson(json.out, &error).object().value(QStringLiteral("snapshot")).toObject();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QList<qint64> got;
        for (const char* name : {"segment_count", "reserved_bytes", "allocated_bytes", "active_bytes",
                                 "requested_bytes", "trace_entry_count", "largest_free_block_bytes"})
            got << snapshot.value(QLatin1StringView(name)).toInteger(-1);
        QCOMPARE(got, totals);
        QCOMPARE(snapshot.value(QStringLiteral("path")).toString(), file);
        // where it came from: the 20 sites with the most bytes live at the peak
        QFETCH(QList<qint64>, sites);
        QFETCH(QString, topSite);
        const QJsonArray siteArray = snapshot.value(QStringLiteral("sites")).toArray();
        QCOMPARE(siteArray.size(), 20);
        const QJsonObject top = siteArray.first().toObject();
        got = {snapshot.value(QStringLiteral("peak_active_bytes")).toInteger(-1),
               snapshot.value(QStringLiteral("site_count")).toInteger(-1)};
        for (const char* name :
             {"bytes_at_peak", "bytes_at_snapshot", "allocations", "largest_bytes", "total_bytes"})
            got << top.value(QLatin1StringView(name)).toInteger(-1);
        QCOMPARE(got, sites);
        QCOMPARE(top.value(QStringLiteral("name")).toString(), topSite);
        const QJsonArray frames = top.value(QStringLiteral("frames")).toArray();
        QCOMPARE(frames.size(), 5);
        QCOMPARE(frames.first().toString(), topSite);
        for (int i = 1; i < siteArray.size(); ++i)
            QVERIFY(siteArray[i - 1].toObject().value(QStringLiteral("bytes_at_peak")).toInteger() >=
                    siteArray[i].toObject().value(QStringLiteral("bytes_at_peak")).toInteger());

        const Run text = run({QStringLiteral("analyze"), file});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.startsWith("PyTorch memory snapshot: " + file.toUtf8()), text.out.constData());
        QVERIFY2(text.out.contains(QByteArray("(") + QByteArray::number(totals[1]) + " bytes)"),
                 text.out.constData());
        const QByteArray sitesHeading = "Allocation sites: 10 of " + QByteArray::number(sites[1]) +
                                        ", by bytes live at the active peak (";
        QVERIFY2(text.out.contains("\n" + sitesHeading), text.out.constData());
        QVERIFY2(text.out.contains(topSite.toUtf8() + "\n"), text.out.constData());
        const Run markdown =
            run({QStringLiteral("analyze"), file, QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(markdown.exitCode, 0);
        QVERIFY2(markdown.out.startsWith("# PyTorch memory snapshot"), markdown.out.constData());
        // a heading, a table of the first 10
        const qsizetype heading = markdown.out.indexOf("\n## " + sitesHeading);
        QVERIFY2(heading > 0, markdown.out.constData());
        const qsizetype next = markdown.out.indexOf("\n## ", heading + 1);
        QVERIFY(next > heading);
        QCOMPARE(markdown.out.mid(heading, next - heading).count("\n| "), 1 + 10);
    }

    // What cannot be read or does not apply: exit 2 with the reason.
    void snapshotRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString data = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/");
        QTest::newRow("REDUCE of os.system")
            << QStringList{data + "hostile/reduce-os-system-p4.pickle"}
            << "opcode STACK_GLOBAL (0x93) at byte 28 names Python code (posix.system): refused";
        QTest::newRow("--rank") << QStringList{data + "snapshot.pickle", "--rank", "1"}
                                << "--rank does not apply to a PyTorch memory snapshot";
    }

    void snapshotRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const Run r = run(QStringList{QStringLiteral("analyze")} + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(QString::fromUtf8(r.err).contains(reason), r.err.constData());
    }

    void unusableInputs_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("not json") << QByteArray("hello world\nthis is not a trace\n");
    }

    void unusableInputs()
    {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        const Run r = run({QStringLiteral("analyze"), file});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(file), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
