// End-to-end: `gapscope analyze` and `export` on a distributed job, with the real binary: a job
// folder, several files, one merged multi-rank file. The report keeps the keys of a single
// analysis (of the rank shown) and adds "ranks" (each rank's own gap_analysis, the same as
// `analyze INPUT --rank N` alone writes) and "job"; its collective_attribution and
// cross_rank_analysis are upstream's for the whole job; the human formats add the rank table
// with the collective spikes and the first-cause suspects.
// Exit codes: 0 with a note when some inputs fail; 2 (unusable input, as for one path) with
// every reason when none loads, for a rank the job does not hold or a --session a job cannot
// take.
#include "tests/GapscopeProcess.h"
#include "tests/ReportChecks.h"

#include <QBuffer>
#include <QColor>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kDistributed = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed");

QString fixture(const QString& name)
{
    return kDistributed + QLatin1Char('/') + name;
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QJsonObject parse(const QByteArray& json)
{
    QJsonParseError error;
    const QJsonObject object = QJsonDocument::fromJson(json, &error).object();
    return error.error == QJsonParseError::NoError ? object : QJsonObject();
}

QStringList files(const QString& folder, const QStringList& names)
{
    QStringList paths;
    for (const QString& name : names)
        paths << fixture(folder + QLatin1Char('/') + name);
    return paths;
}

QStringList rankFiles()
{
    return files(
        QStringLiteral("missing-files"),
        {QStringLiteral("rank0.jsonl"), QStringLiteral("rank1.jsonl"), QStringLiteral("rank2.jsonl")});
}

QStringList errorLines(const QByteArray& err)
{
    return QString::fromUtf8(err).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// Why a picture is not the job heatmap of the firstcause-job fixture drawn for size: empty when
// it is. Its four ranks need less than the height asked for: the picture is as wide, lower.
// Drawn cells have many colours; rank 3, the leading first-cause suspect (high confidence),
// carries a marker filled with the high-confidence colour (#c92a2a on the light export palette,
// a colour the cells' ramp never takes).
QString heatmapProblem(const QImage& image, QSize size)
{
    if (image.isNull())
        return QStringLiteral("no image");
    if (image.width() != size.width() || image.height() >= size.height() ||
        image.height() < size.height() / 4)
        return QStringLiteral("size %1x%2 for %3x%4")
            .arg(image.width())
            .arg(image.height())
            .arg(size.width())
            .arg(size.height());
    QSet<QRgb> colours;
    qint64 marker = 0;
    const QColor suspect(0xc9, 0x2a, 0x2a);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            colours.insert(c.rgb());
            if (std::abs(c.red() - suspect.red()) + std::abs(c.green() - suspect.green()) +
                    std::abs(c.blue() - suspect.blue()) <=
                24)
                ++marker;
        }
    if (colours.size() <= 20)
        return QStringLiteral("%1 colours").arg(colours.size());
    // the marker is a triangle of a row's height, about 10 px across at this size
    if (marker < 20 * (image.width() / size.width()))
        return QStringLiteral("no first-cause marker (%1 pixels of its colour)").arg(marker);
    return {};
}

// The images of a PDF written by Qt (XObjects of /Subtype /Image; the stream runs to its
// "endstream", its /Length is an indirect object), decoded: DCT streams are JPEG files, Flate
// streams raw 8-bit RGB.
std::vector<QImage> pdfImages(const QByteArray& pdf)
{
    std::vector<QImage> images;
    static const QRegularExpression object(QStringLiteral("/Subtype\\s*/Image(.*?)>>\\s*stream\\r?\\n"),
                                           QRegularExpression::DotMatchesEverythingOption);
    const QString text = QString::fromLatin1(pdf);
    for (auto it = object.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        const QString dictionary = match.captured(1);
        const auto number = [&](const char* key) {
            const auto m =
                QRegularExpression(QStringLiteral("/%1\\s+(\\d+)").arg(QLatin1String(key))).match(dictionary);
            return m.hasMatch() ? m.captured(1).toInt() : -1;
        };
        const int width = number("Width");
        const int height = number("Height");
        const qsizetype begin = match.capturedEnd(0);
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (width <= 0 || height <= 0 || end < 0)
            continue;
        const QByteArray stream = pdf.mid(begin, end - begin);
        QImage image;
        if (dictionary.contains(QLatin1String("/DCTDecode"))) {
            image.loadFromData(stream, "JPEG");
        } else if (dictionary.contains(QLatin1String("/FlateDecode")) &&
                   dictionary.contains(QLatin1String("/DeviceRGB"))) {
            QByteArray sized(4, '\0');
            const quint32 size = quint32(width) * quint32(height) * 3;
            for (int i = 0; i < 4; ++i)
                sized[i] = char((size >> (24 - 8 * i)) & 0xff);
            const QByteArray raw = qUncompress(sized + stream);
            if (raw.size() == qsizetype(size))
                image = QImage(reinterpret_cast<const uchar*>(raw.constData()), width, height, width * 3,
                               QImage::Format_RGB888)
                            .copy();
        }
        if (!image.isNull())
            images.push_back(image);
    }
    return images;
}

} // namespace

class TestCliJob : public QObject
{
    Q_OBJECT

private slots:
    void jobReport_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QString>("expectedFile"); // upstream's answer: world size, ranks
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("inputs");
        QTest::newRow("job folder of sinks")
            << QStringList{fixture(QStringLiteral("firstcause-job"))}
            << fixture(QStringLiteral("firstcause-job.expected.json")) << QStringLiteral("job") << 4;
        QTest::newRow("job folder of 8 skewed sinks")
            << QStringList{fixture(QStringLiteral("skew-job"))}
            << fixture(QStringLiteral("skew-job.expected.json")) << QStringLiteral("job") << 8;
        QTest::newRow("job folder of files, a rank missing")
            << QStringList{fixture(QStringLiteral("missing-files"))}
            << fixture(QStringLiteral("missing-files.expected.json")) << QStringLiteral("job") << 3;
        QTest::newRow("several files")
            << rankFiles() << fixture(QStringLiteral("missing-files.expected.json")) << QStringLiteral("job")
            << 3;
        QTest::newRow("several sinks")
            << files(QStringLiteral("firstcause-job"),
                     {QStringLiteral("rank3/telemetry_sink"), QStringLiteral("rank1/telemetry_sink"),
                      QStringLiteral("rank0/telemetry_sink"), QStringLiteral("rank2/telemetry_sink")})
            << fixture(QStringLiteral("firstcause-job.expected.json")) << QStringLiteral("job") << 4;
        for (const char* name : {"collective-merged.jsonl", "nomarker-merged.jsonl", "quiet-merged.jsonl"})
            QTest::newRow(name) << QStringList{fixture(QLatin1String(name))}
                                << fixture(QLatin1String(name) + QStringLiteral(".expected.json"))
                                << QStringLiteral("session") << 1;
    }

    void jobReport()
    {
        QFETCH(QStringList, paths);
        QFETCH(QString, expectedFile);
        QFETCH(QString, mode);
        QFETCH(int, inputs);
        const GapscopeRun r = runGapscope(QStringList{QStringLiteral("analyze")} + paths +
                                          QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = parse(r.out);
        QVERIFY2(!report.isEmpty(), r.out.left(400).constData());
        // the keys of a single analysis, then the job's
        const QStringList keys{
            QStringLiteral("gapscope_report"), QStringLiteral("kind"),        QStringLiteral("input"),
            QStringLiteral("session"),         QStringLiteral("event_count"), QStringLiteral("window"),
            QStringLiteral("thresholds"),      QStringLiteral("summary"),     QStringLiteral("gap_analysis"),
            QStringLiteral("ranks"),           QStringLiteral("job")};
        for (const QString& key : keys)
            QVERIFY2(report.contains(key), qPrintable(key));
        // after the single analysis' keys, at the top level
        QVERIFY(r.out.indexOf("\n  \"gap_analysis\": [") < r.out.indexOf("\n  \"ranks\": ["));
        QVERIFY(r.out.indexOf("\n  \"ranks\": [") < r.out.indexOf("\n  \"job\": {"));

        const QJsonObject expected =
            parse(readFile(expectedFile)).value(QStringLiteral("cross_rank_analysis")).toObject();
        const QJsonObject job = report.value(QStringLiteral("job")).toObject();
        QCOMPARE(job.value(QStringLiteral("mode")).toString(), mode);
        QCOMPARE(job.value(QStringLiteral("job_id")).toString(),
                 expected.value(QStringLiteral("job_id")).toString());
        QCOMPARE(job.value(QStringLiteral("world_size")).toInteger(),
                 expected.value(QStringLiteral("world_size")).toInteger());
        QCOMPARE(job.value(QStringLiteral("inputs")).toArray().size(), inputs);

        const QJsonArray ranks = report.value(QStringLiteral("ranks")).toArray();
        QCOMPARE(ranks.size(), expected.value(QStringLiteral("world_size")).toInteger());
        QJsonArray present, missing;
        qint64 previous = -1;
        for (const QJsonValue value : ranks) {
            const QJsonObject rank = value.toObject();
            const qint64 number = rank.value(QStringLiteral("rank")).toInteger();
            QVERIFY(number > previous); // ascending
            previous = number;
            for (const char* key : {"rank", "present", "input", "session", "host", "local_rank",
                                    "sample_count", "gap_analysis"})
                QVERIFY2(rank.contains(QLatin1String(key)), key);
            if (!rank.value(QStringLiteral("present")).toBool()) {
                missing.append(number);
                QVERIFY(rank.value(QStringLiteral("input")).isNull());
                QVERIFY(rank.value(QStringLiteral("gap_analysis")).isNull());
                QCOMPARE(rank.value(QStringLiteral("sample_count")).toInteger(), 0);
                continue;
            }
            present.append(number);
            QCOMPARE(rank.value(QStringLiteral("sample_count")).toInteger(),
                     expected.value(QStringLiteral("rank_sample_counts"))
                         .toObject()
                         .value(QString::number(number))
                         .toInteger());
            // the rank's gap analysis is what analyze gives for its input and rank alone
            const QString input = rank.value(QStringLiteral("input")).toString();
            QVERIFY2(paths.contains(input) || input.startsWith(paths.front() + QLatin1Char('/')),
                     qPrintable(input));
            const GapscopeRun alone =
                runGapscope({QStringLiteral("analyze"), input, QStringLiteral("--rank"),
                             QString::number(number), QStringLiteral("--format"), QStringLiteral("json")});
            QCOMPARE(alone.exitCode, 0);
            const QJsonObject aloneReport = parse(alone.out);
            QCOMPARE(rank.value(QStringLiteral("gap_analysis")),
                     aloneReport.value(QStringLiteral("gap_analysis")));
            QCOMPARE(rank.value(QStringLiteral("session")).toString(),
                     aloneReport.value(QStringLiteral("session"))
                         .toObject()
                         .value(QStringLiteral("selected"))
                         .toString());
            QCOMPARE(rank.value(QStringLiteral("host")).toString(), QStringLiteral("gpu-node-0"));
            // ns timestamps exceed 2^53: their text is in the job's report too
            for (const QByteArray& line : alone.out.split('\n'))
                if (line.contains("\"evidence_timestamp_ns\""))
                    QVERIFY2(r.out.contains(line.trimmed()), line.constData());
        }
        QCOMPARE(present, expected.value(QStringLiteral("participating_ranks")).toArray());
        QCOMPARE(missing, expected.value(QStringLiteral("missing_ranks")).toArray());

        // upstream's cross-rank analyses of the whole job, as its report has them (our
        // cross_rank_analysis adds its notes)
        const QJsonObject upstream = parse(readFile(expectedFile));
        QCOMPARE(report.value(QStringLiteral("collective_attribution")),
                 upstream.value(QStringLiteral("collective_attribution")));
        QJsonObject crossRank = report.value(QStringLiteral("cross_rank_analysis")).toObject();
        crossRank.remove(QStringLiteral("notes"));
        QCOMPARE(crossRank, expected);
        QVERIFY(r.out.indexOf("\n  \"cross_rank_analysis\": {") < r.out.indexOf("\n  \"ranks\": ["));

        // the rank shown (the lowest present) is the report's own analysis
        QCOMPARE(report.value(QStringLiteral("session")).toObject().value(QStringLiteral("rank")).toInteger(),
                 present.first().toInteger());
        QCOMPARE(report.value(QStringLiteral("gap_analysis")),
                 ranks[present.first().toInt()].toObject().value(QStringLiteral("gap_analysis")));
    }

    // --rank picks the rank shown; its report is the one analyze INPUT --rank N gives.
    void rankShown()
    {
        const GapscopeRun r = runGapscope({QStringLiteral("analyze"), fixture(QStringLiteral("skew-job")),
                                           QStringLiteral("--rank"), QStringLiteral("5"),
                                           QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = parse(r.out);
        const QString input = fixture(QStringLiteral("skew-job/rank5/telemetry_sink"));
        QCOMPARE(report.value(QStringLiteral("input")).toObject().value(QStringLiteral("path")).toString(),
                 input);
        const GapscopeRun alone = runGapscope(
            {QStringLiteral("analyze"), input, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(alone.exitCode, 0);
        // everything up to its gap analysis is the single analysis, byte for byte (the cross-rank
        // analyses after it are of the whole job, the single one's of its own input)
        const QByteArray crossRankKey = "\n  \"collective_attribution\": ";
        QVERIFY(alone.out.contains(crossRankKey));
        const QByteArray single = alone.out.left(alone.out.indexOf(crossRankKey));
        QVERIFY2(r.out.startsWith(single + crossRankKey), r.out.left(200).constData());
    }

    void humanFormats_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("format");
        const QString folder = fixture(QStringLiteral("missing-files"));
        QTest::newRow("analyze text")
            << QStringList{QStringLiteral("analyze"), folder} << QStringLiteral("text");
        QTest::newRow("analyze markdown")
            << QStringList{QStringLiteral("analyze"), folder, QStringLiteral("--format"),
                           QStringLiteral("markdown")}
            << QStringLiteral("markdown");
        QTest::newRow("export md of several files")
            << (QStringList{QStringLiteral("export")} + rankFiles() +
                QStringList{QStringLiteral("--format"), QStringLiteral("md"), QStringLiteral("--output"),
                            QStringLiteral("-")})
            << QStringLiteral("markdown");
        QTest::newRow("export html of a folder")
            << QStringList{QStringLiteral("export"),   folder,
                           QStringLiteral("--format"), QStringLiteral("html"),
                           QStringLiteral("--output"), QStringLiteral("-")}
            << QStringLiteral("html");
    }

    // The rank table: a row per rank with host, present, samples, latest gap, peak |gap| and
    // findings; the missing rank says so.
    void humanFormats()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, format);
        const GapscopeRun r = runGapscope(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        const QStringList lines = out.split(QLatin1Char('\n'));
        const auto rowOf = [&](int rank) -> QString {
            for (const QString& line : lines) {
                const QString t = line.trimmed();
                if ((format == QLatin1String("text") &&
                     t.startsWith(QString::number(rank) + QStringLiteral("  "))) ||
                    (format == QLatin1String("markdown") &&
                     t.startsWith(QStringLiteral("| %1 |").arg(rank))) ||
                    (format == QLatin1String("html") &&
                     t.startsWith(QStringLiteral("<tr><td class=\"num\">%1</td>").arg(rank))))
                    return t;
            }
            return {};
        };
        if (format == QLatin1String("markdown"))
            QVERIFY(out.contains(QLatin1String("\n## Ranks\n")));
        if (format == QLatin1String("html")) {
            QVERIFY(out.contains(QLatin1String("<h2>Ranks</h2>")));
            const QString problem = gapscope::checks::htmlProblem(out);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        QVERIFY(out.contains(QLatin1String("Latest gap")));
        QVERIFY(out.contains(QLatin1String("Peak |gap|")) || out.contains(QLatin1String("Peak \\|gap\\|")));
        for (int rank : {0, 1, 2}) {
            const QString row = rowOf(rank);
            QVERIFY2(!row.isEmpty(), qPrintable(out.left(2000)));
            QVERIFY2(row.contains(QLatin1String("gpu")) && row.contains(QLatin1String("yes")) &&
                         row.contains(QLatin1String("60")) && row.contains(QLatin1String("GiB")),
                     qPrintable(row));
        }
        const QString missing = rowOf(3);
        QVERIFY2(missing.contains(QLatin1String("missing")) && !missing.contains(QLatin1String("GiB")),
                 qPrintable(missing));
        // the note on the missing rank names the files that declare the world size
        QVERIFY(out.contains(QLatin1String("rank 3 missing")));
        // the cross-rank analyses: a row per collective spike (upstream's), the first-cause suspects
        QVERIFY2(out.contains(QLatin1String("Collective spikes"), Qt::CaseInsensitive) &&
                     out.contains(QLatin1String("First cause"), Qt::CaseInsensitive),
                 qPrintable(out.left(3000)));
        const QJsonArray spikes = parse(readFile(fixture(QStringLiteral("missing-files.expected.json"))))
                                      .value(QStringLiteral("collective_attribution"))
                                      .toArray();
        QVERIFY(!spikes.isEmpty());
        for (const QJsonValue spike : spikes)
            QCOMPARE(spike.toObject().value(QStringLiteral("classification")).toString(),
                     QStringLiteral("collective_confident"));
        // "collective\_confident" in Markdown
        QCOMPARE(out.count(QLatin1String("_confident")), spikes.size());
        // the findings count of a rank: one finding each
        QVERIFY2(rowOf(0).contains(format == QLatin1String("html") ? QStringLiteral(">1<")
                                                                   : QStringLiteral(" 1 ")),
                 qPrintable(rowOf(0)));
    }

    // The job heatmap as a picture: inline in HTML (PNG data URI) and PDF, beside the Markdown
    // (FILE-heatmap.png, linked); decoded, it has the size asked for, drawn cells and the
    // first-cause suspect's marker.
    void jobHeatmapPicture_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QSize>("size");
        QTest::newRow("markdown") << QStringLiteral("md") << QSize(1200, 600);
        QTest::newRow("markdown, --size") << QStringLiteral("md") << QSize(800, 500);
        QTest::newRow("html") << QStringLiteral("html") << QSize(1200, 600);
        QTest::newRow("pdf") << QStringLiteral("pdf") << QSize(1200, 600);
    }

    void jobHeatmapPicture()
    {
        QFETCH(QString, format);
        QFETCH(QSize, size);
        QTemporaryDir dir;
        const QString output = dir.filePath(QStringLiteral("job report.") + format);
        QStringList args{QStringLiteral("export"),   fixture(QStringLiteral("firstcause-job")),
                         QStringLiteral("--format"), format,
                         QStringLiteral("--output"), output};
        if (size != QSize(1200, 600))
            args << QStringLiteral("--size") << QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        const GapscopeRun r = runGapscope(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray report = readFile(output);
        QVERIFY(!report.isEmpty());
        if (format == QLatin1String("md")) {
            const QString picture = dir.filePath(QStringLiteral("job report-heatmap.png"));
            QVERIFY2(report.contains("![Job heatmap](job%20report-heatmap.png)"), report.constData());
            const QString problem = heatmapProblem(QImage(picture), size);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            const QString markdownProblem = gapscope::checks::markdownProblem(QString::fromUtf8(report));
            QVERIFY2(markdownProblem.isEmpty(), qPrintable(markdownProblem));
            // exactly the report and its picture
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
            // a second export without --force refuses the existing files and keeps them
            const GapscopeRun again = runGapscope(args);
            QCOMPARE(again.exitCode, 2);
            QCOMPARE(readFile(output), report);
        } else if (format == QLatin1String("html")) {
            static const QRegularExpression image(
                QStringLiteral("<img src=\"data:image/png;base64,([^\"]+)\" width=\"(\\d+)\" "
                               "height=\"(\\d+)\" alt=\"Job heatmap\" />"));
            const auto match = image.match(QString::fromUtf8(report));
            QVERIFY(match.hasMatch());
            const QImage decoded =
                QImage::fromData(QByteArray::fromBase64(match.captured(1).toLatin1()), "PNG");
            QCOMPARE(QSize(match.captured(2).toInt(), match.captured(3).toInt()), decoded.size());
            const QString problem = heatmapProblem(decoded, size);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            const QString htmlProblem = gapscope::checks::htmlProblem(QString::fromUtf8(report));
            QVERIFY2(htmlProblem.isEmpty(), qPrintable(htmlProblem));
        } else {
            // the gap chart and the heatmap, laid out 900 px wide and drawn 2.5 times as sharp
            const std::vector<QImage> images = pdfImages(report);
            const QSize drawn(2250, 1125);
            QString problems;
            int heatmaps = 0;
            for (const QImage& image : images) {
                const QString problem = heatmapProblem(image, drawn);
                heatmaps += problem.isEmpty() ? 1 : 0;
                problems += problem + QLatin1Char(';');
            }
            QVERIFY2(images.size() >= 2, qPrintable(QString::number(images.size())));
            QVERIFY2(heatmaps == 1, qPrintable(problems));
        }
    }

    // Markdown to standard output has nowhere to put the picture beside it: it says so.
    void markdownToStandardOutputNamesThePicture()
    {
        const GapscopeRun r = runGapscope(
            {QStringLiteral("export"), fixture(QStringLiteral("firstcause-job")), QStringLiteral("--format"),
             QStringLiteral("md"), QStringLiteral("--output"), QStringLiteral("-")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains(
            "*Job heatmap*: a picture written beside the report when the report is written to a file."));
        QVERIFY(!r.out.contains("![Job heatmap]"));
    }

    // The first-cause table lists the suspects in upstream's order (earliest aligned spike first:
    // 2, 0, 1 here, all with no lead over the onset).
    void firstCauseInUpstreamOrder()
    {
        const GapscopeRun r =
            runGapscope({QStringLiteral("analyze"), fixture(QStringLiteral("missing-files"))});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
        const qsizetype title = lines.indexOf(QStringLiteral("first cause:"));
        QVERIFY(title >= 0);
        QStringList ranks;
        for (qsizetype i = title + 2; i < lines.size() && !lines[i].trimmed().isEmpty(); ++i)
            ranks << lines[i].trimmed().section(QLatin1Char(' '), 0, 0);
        QStringList expected;
        for (const QJsonValue suspect :
             parse(readFile(fixture(QStringLiteral("missing-files.expected.json"))))
                 .value(QStringLiteral("cross_rank_analysis"))
                 .toObject()
                 .value(QStringLiteral("first_cause_suspects"))
                 .toArray())
            expected << QString::number(suspect.toObject().value(QStringLiteral("rank")).toInteger());
        QVERIFY(expected.size() > 1);
        QCOMPARE(ranks, expected);
    }

    void findingsCsvListsEveryRank()
    {
        const GapscopeRun r = runGapscope(
            {QStringLiteral("export"), fixture(QStringLiteral("firstcause-job")), QStringLiteral("--format"),
             QStringLiteral("findings-csv"), QStringLiteral("--output"), QStringLiteral("-")});
        QCOMPARE(r.exitCode, 0);
        const auto records = gapscope::checks::parseCsv(QString::fromUtf8(r.out));
        QCOMPARE(records.size(), 1 + 4); // one finding a rank
        for (int rank = 0; rank < 4; ++rank)
            QCOMPARE(records[rank + 1][2], QString::number(rank));
    }

    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("errNames"); // each must be named on a line of its own
        const QString nope = QStringLiteral("/nonexistent/rank0.jsonl");
        const QString alsoNope = QStringLiteral("/nonexistent/rank1.jsonl");
        const QString budget = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");
        const QString notATrace = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.text");
        // unusable input is exit 2 whether one path or several
        QTest::newRow("one path that does not load")
            << QStringList{QStringLiteral("analyze"), nope} << 2 << QStringList{nope};
        QTest::newRow("no input loads: every reason, exit 2")
            << QStringList{QStringLiteral("analyze"), nope, alsoNope, budget} << 2
            << QStringList{nope, alsoNope, budget};
        QTest::newRow("export: no input loads") << QStringList{QStringLiteral("export"),
                                                               nope,
                                                               alsoNope,
                                                               QStringLiteral("--format"),
                                                               QStringLiteral("json"),
                                                               QStringLiteral("--output"),
                                                               QStringLiteral("-")}
                                                << 2 << QStringList{nope, alsoNope};
        QTest::newRow("one bad input among good ones: a note, exit 0")
            << (QStringList{QStringLiteral("analyze")} + rankFiles() + QStringList{nope, notATrace}) << 0
            << QStringList{nope, notATrace};
        QTest::newRow("a rank the job does not hold")
            << QStringList{QStringLiteral("analyze"), fixture(QStringLiteral("missing-files")),
                           QStringLiteral("--rank"), QStringLiteral("3")}
            << 2 << QStringList{fixture(QStringLiteral("missing-files"))};
        QTest::newRow("--session with several inputs")
            << (QStringList{QStringLiteral("analyze")} + rankFiles() +
                QStringList{QStringLiteral("--session"), QStringLiteral("x")})
            << 2 << QStringList{rankFiles().front()};
        QTest::newRow("a budget-only threshold for a job")
            << QStringList{QStringLiteral("analyze"), fixture(QStringLiteral("firstcause-job")),
                           QStringLiteral("--set"), QStringLiteral("min_trend_ticks=3")}
            << 2 << QStringList{fixture(QStringLiteral("firstcause-job"))};
        QTest::newRow("an output inside the job folder")
            << QStringList{QStringLiteral("analyze"), fixture(QStringLiteral("firstcause-job")),
                           QStringLiteral("--output"), fixture(QStringLiteral("firstcause-job/report.json"))}
            << 2 << QStringList{fixture(QStringLiteral("firstcause-job/report.json"))};
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QStringList, errNames);
        const GapscopeRun r = runGapscope(args);
        QCOMPARE(r.exitCode, exitCode);
        const QStringList lines = errorLines(r.err);
        for (const QString& name : errNames)
            QVERIFY2(std::count_if(lines.begin(), lines.end(),
                                   [&](const QString& line) { return line.contains(name); }) >= 1,
                     r.err.constData());
        if (exitCode != 0) {
            QVERIFY(r.out.isEmpty());
            QCOMPARE(exitCode, 2); // input that cannot be used: 2, one path or several
            if (!args.contains(QStringLiteral("--rank")) && !args.contains(QStringLiteral("--session")) &&
                !args.contains(QStringLiteral("--set")) && !args.contains(QStringLiteral("--output")))
                QCOMPARE(lines.size(), errNames.size()); // one line per input, nothing else
            return;
        }
        // the report says what was left out, and the rest of the job is there
        const QJsonObject report =
            parse(runGapscope(args + QStringList{QStringLiteral("--format"), QStringLiteral("json")}).out);
        const QJsonArray notes =
            report.value(QStringLiteral("job")).toObject().value(QStringLiteral("notes")).toArray();
        for (const QString& name : errNames)
            QVERIFY2(std::any_of(notes.begin(), notes.end(),
                                 [&](const QJsonValue& note) {
                                     return note.toObject().value(QStringLiteral("file")).toString() == name;
                                 }),
                     qPrintable(QJsonDocument(notes).toJson()));
        QCOMPARE(
            report.value(QStringLiteral("job")).toObject().value(QStringLiteral("inputs")).toArray().size(),
            3);
    }

    // One trace whose session holds a single rank stays a single analysis (no "ranks").
    void singleRankStaysSingle()
    {
        const GapscopeRun r =
            runGapscope({QStringLiteral("analyze"), fixture(QStringLiteral("missing-files/rank1.jsonl")),
                         QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject report = parse(r.out);
        QVERIFY(report.contains(QStringLiteral("gap_analysis")));
        QVERIFY(!report.contains(QStringLiteral("ranks")));
        QVERIFY(!report.contains(QStringLiteral("job")));
    }
};

QTEST_GUILESS_MAIN(TestCliJob)
#include "tst_cli_job.moc"
