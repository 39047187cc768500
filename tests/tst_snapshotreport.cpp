// The reports of a PyTorch memory snapshot (model/report/SnapshotReport, issue 34) on the real
// snapshots in tests/data/snapshot: the JSON object's totals are Python's pickle.load totals
// (tests/data/snapshot/expected.py), the Markdown and HTML carry them with the findings or the
// words for none, the segments CSV has a row per segment summing to the totals, the findings CSV
// a row per finding; text from the file is escaped in every form.

#include "model/report/SnapshotReport.h"
#include "model/snapshot/SnapshotFragmentation.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/text/Text.h"

#include "tests/SnapshotFixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <QXmlStreamReader>

using namespace gapscope;
using namespace gapscope::test;

namespace {

SnapshotReportInput loadInput(const QString& relative)
{
    const SnapshotLoadOutcome loaded = loadSnapshotFile(kSnapshotData + relative);
    if (!loaded.data)
        qFatal("%s", qPrintable(loaded.fatalError));
    return snapshotReportInput(loaded.data);
}

// expected.py's numbers: segment_count, block_count, reserved, allocated, active, requested,
// inactive_split, largest_free_block, trace_entry_count
const QStringList kTotalNames{
    QStringLiteral("segment_count"),        QStringLiteral("block_count"),
    QStringLiteral("reserved_bytes"),       QStringLiteral("allocated_bytes"),
    QStringLiteral("active_bytes"),         QStringLiteral("requested_bytes"),
    QStringLiteral("inactive_split_bytes"), QStringLiteral("largest_free_block_bytes"),
    QStringLiteral("trace_entry_count")};

QStringList csvLines(const QByteArray& csv)
{
    return QString::fromUtf8(csv).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
}

void checkWellFormed(const QString& html)
{
    QXmlStreamReader xml(html);
    while (!xml.atEnd())
        xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
}

} // namespace

class TestSnapshotReport : public QObject
{
    Q_OBJECT
private slots:
    void realSnapshots_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QList<qint64>>("totals"); // as kTotalNames
        QTest::addColumn<QStringList>("actions");  // action=count, as expected.py prints them
        QTest::newRow("snapshot.pickle")
            << QStringLiteral("snapshot.pickle")
            << QList<qint64>{74, 262, 1715470336, 278691840, 278691840, 274432000, 37978112, 75497472, 20000}
            << QStringList{"alloc=6631", "free_completed=6678", "free_requested=6678", "segment_alloc=13"};
        QTest::newRow("pair/snapshot.pickle.gz")
            << QStringLiteral("pair/snapshot.pickle.gz")
            << QList<qint64>{78,         270,       6643777536, 6467485696, 6467485696,
                             6460096512, 176291840, 16171008,   100000}
            << QStringList{"alloc=33312", "free_completed=33283", "free_requested=33283",
                           "oom=1",       "segment_alloc=41",     "segment_free=80"};
    }

    void realSnapshots()
    {
        QFETCH(QString, path);
        QFETCH(QList<qint64>, totals);
        QFETCH(QStringList, actions);
        const SnapshotReportInput input = loadInput(path);
        QVERIFY(input.findings && input.findings->empty()); // neither is fragmented past the rule

        // JSON: analyze's `snapshot` object, Python's totals
        QJsonParseError error;
        const QJsonObject json = QJsonDocument::fromJson(snapshotReportJson(input), &error)
                                     .object()
                                     .value(QStringLiteral("snapshot"))
                                     .toObject();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QList<qint64> got;
        for (const QString& name : kTotalNames)
            got << json.value(name).toInteger(-1);
        QCOMPARE(got, totals);
        const QJsonObject byAction = json.value(QStringLiteral("trace_entries_by_action")).toObject();
        for (const QString& pair : actions)
            QCOMPARE(byAction.value(pair.section(QLatin1Char('='), 0, 0)).toInteger(),
                     pair.section(QLatin1Char('='), 1).toLongLong());
        QCOMPARE(json.value(QStringLiteral("findings")).toArray().size(), 0);
        QCOMPARE(json.value(QStringLiteral("allocator_settings"))
                     .toObject()
                     .value(QStringLiteral("expandable_segments"))
                     .toString(),
                 QStringLiteral("False"));

        // Markdown: the totals under the allocator's counters' names, the words for no finding
        const SnapshotReportContent content = buildSnapshotReportContent(input);
        const QString markdown = snapshotReportMarkdown(content);
        QVERIFY(markdown.startsWith(QLatin1String("# PyTorch memory snapshot report\n")));
        QVERIFY(markdown.contains(QLatin1String("torch.cuda.memory_stats()")));
        for (const auto& [name, value] :
             {std::pair{"reserved_bytes", totals[2]}, std::pair{"allocated_bytes", totals[3]},
              std::pair{"active_bytes", totals[4]}, std::pair{"requested_bytes", totals[5]},
              std::pair{"inactive_split_bytes", totals[6]}})
            QVERIFY2(markdown.contains(QStringLiteral("| `%1` | %2 | %3 |")
                                           .arg(QLatin1String(name), bytesText(value))
                                           .arg(value)),
                     name);
        QVERIFY(markdown.contains(QStringLiteral("| Segments | segment | %1 |").arg(totals[0])));
        QVERIFY(markdown.contains(QStringLiteral("The largest free block is %1 (%2 bytes)")
                                      .arg(bytesText(totals[7]))
                                      .arg(totals[7])));
        QVERIFY(markdown.contains(QStringLiteral("## Findings\n\n") +
                                  markdownEscape(noFragmentationFindingText(totals[6], totals[2]))));
        QVERIFY(markdown.contains(QLatin1String("## Allocator settings in force")));
        QVERIFY(markdown.contains(QLatin1String("| `expandable_segments` | False |")));
        QVERIFY(markdown.contains(QLatin1String("## Segments by stream and pool")));
        QVERIFY(!markdown.contains(QLatin1String("## Segment map"))); // no picture given

        // HTML: the same sections, well-formed, the picture inlined
        const ReportImage image{QStringLiteral("Segment map"), QStringLiteral("caption"),
                                QStringLiteral("image/png"), QByteArray("png bytes"), QSize(12, 6)};
        const QString html = snapshotReportHtml(content, {image});
        checkWellFormed(html);
        QVERIFY(html.contains(QStringLiteral("<td class=\"num\">%1</td>").arg(totals[2])));
        QVERIFY(html.contains(QLatin1String("data:image/png;base64,") +
                              QLatin1String(QByteArray("png bytes").toBase64())));
        QVERIFY(html.contains(htmlEscape(content.noFindings)));

        // CSV: a row per segment, each byte column summing to the total of its name
        const QStringList lines = csvLines(snapshotSegmentsCsv(*input.data));
        QCOMPARE(lines.front(), QStringLiteral("device,address,stream,pool,type,total_bytes,allocated_bytes,"
                                               "active_bytes,requested_bytes,blocks,inactive_split_bytes,"
                                               "is_expandable"));
        QCOMPARE(lines.size() - 1, totals[0]);
        // "(0, 0)" is one quoted field: split after it
        static const QRegularExpression row(
            QStringLiteral("^(\\d+),(\\d+),(-?\\d+),\"\\((-?\\d+), "
                           "(-?\\d+)\\)\",(\\w+),(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),(true|false)$"));
        qint64 reserved = 0, allocated = 0, active = 0, requested = 0, blocks = 0, split = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QRegularExpressionMatch m = row.match(lines[i]);
            QVERIFY2(m.hasMatch(), qPrintable(lines[i]));
            QCOMPARE(m.captured(2).toULongLong(), input.data->segments[size_t(i - 1)].address);
            reserved += m.captured(7).toLongLong();
            allocated += m.captured(8).toLongLong();
            active += m.captured(9).toLongLong();
            requested += m.captured(10).toLongLong();
            blocks += m.captured(11).toLongLong();
            split += m.captured(12).toLongLong();
        }
        QCOMPARE(QList<qint64>({blocks, reserved, allocated, active, requested, split}), totals.mid(1, 6));

        // no finding: the findings CSV is its header
        QCOMPARE(snapshotFindingsCsv(content),
                 QByteArray("severity,classification,confidence,description,evidence,remediation\r\n"));
        QVERIFY(snapshotFindingMarkdown(content, 0).isEmpty());
    }

    // layouts/fragmented.pickle (make_fragmented.py): one pool with 800 MiB free inside segments in
    // use: its finding, with the page's texts and remediation, in every form.
    void fragmentedFinding()
    {
        const SnapshotReportInput input = loadInput(QStringLiteral("layouts/fragmented.pickle"));
        QCOMPARE(input.findings->size(), size_t(1));
        const Finding& finding = input.findings->front();
        const SnapshotReportContent content = buildSnapshotReportContent(input);
        QCOMPARE(content.findings.size(), size_t(1));

        const QJsonArray findings = QJsonDocument::fromJson(snapshotReportJson(input))
                                        .object()
                                        .value(QStringLiteral("snapshot"))
                                        .toObject()
                                        .value(QStringLiteral("findings"))
                                        .toArray();
        QCOMPARE(findings.size(), 1);
        const QJsonObject json = findings.first().toObject();
        QCOMPARE(json.value(QStringLiteral("classification")).toString(),
                 QStringLiteral("allocator_fragmentation"));
        QCOMPARE(json.value(QStringLiteral("severity")).toString(), QStringLiteral("warning"));
        QCOMPARE(json.value(QStringLiteral("evidence"))
                     .toObject()
                     .value(QStringLiteral("inactive_split_bytes"))
                     .toInteger(),
                 qint64(800) << 20);
        QCOMPARE(json.value(QStringLiteral("description")).toString(), qs(finding.description));
        QCOMPARE(json.value(QStringLiteral("remediation")).toArray().size(),
                 qsizetype(finding.remediation.size()));

        const QString markdown = snapshotReportMarkdown(content);
        QVERIFY(
            markdown.contains(QLatin1String("### 1. Allocator fragmentation (warning, confidence 100.0 %)")));
        QVERIFY(markdown.contains(markdownEscape(qs(finding.description))));
        QVERIFY(markdown.contains(
            QLatin1String("**What to try**\n\n1. Set `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`")));
        QVERIFY(markdown.contains(QLatin1String("| `inactive_split_bytes` | 800.00 MiB |")));
        QVERIFY(!markdown.contains(QLatin1String("No fragmentation finding")));

        // the clipboard's copy names its input; the report's does not repeat it
        const QString copied = snapshotFindingMarkdown(content, 0);
        QVERIFY(copied.startsWith(QLatin1String("### 1. Allocator fragmentation")));
        QVERIFY(copied.contains(
            QStringLiteral("- Input: %1 (PyTorch memory snapshot)").arg(markdownEscape(content.path))));
        QVERIFY(markdown.contains(snapshotFindingMarkdown(content, 0, false)));

        const QString html = snapshotReportHtml(content, {});
        checkWellFormed(html);
        QVERIFY(html.contains(QLatin1String("<article class=\"finding warning\">")));
        QVERIFY(html.contains(QLatin1String("<h4>What to try</h4>")));

        const QStringList lines = csvLines(snapshotFindingsCsv(content));
        QCOMPARE(lines.size(), 2);
        QVERIFY2(
            lines[1].startsWith(QLatin1String("warning,allocator_fragmentation,1.0,\"device 0, stream 0")),
            qPrintable(lines[1]));
        QVERIFY(lines[1].contains(QLatin1String("inactive_split_bytes=800.00 MiB; reserved_bytes=1.00 GiB")));
        QVERIFY(lines[1].contains(QLatin1String(" | Or set max_split_size_mb")));
    }

    // Text from the file (a setting, a segment type, the path) is data: escaped in every form, and
    // a "%1" in it is not filled in.
    void fileTextIsEscaped()
    {
        const SnapshotLoadOutcome loaded =
            loadSnapshotFile(kSnapshotData + QStringLiteral("layouts/two-devices.pickle"));
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        auto data = std::make_shared<SnapshotData>(*loaded.data);
        const QString markup = QStringLiteral("<script>alert(1)</script>");
        data->path = QStringLiteral("/tmp/%1 ") + markup + QStringLiteral(".pickle");
        data->allocatorSettings.push_back({markup, QStringLiteral("=cmd|' /C calc'!A0 %2")});
        data->segments.front().typeName = data->strings.append("large,%3\"\n<b>");
        const SnapshotReportInput input = snapshotReportInput(data);
        const SnapshotReportContent content = buildSnapshotReportContent(input);

        const QString markdown = snapshotReportMarkdown(content);
        QVERIFY(markdown.contains(QLatin1String("\\<script\\>alert(1)\\</script\\>")));
        // outside code spans (C++ frames of the sites: `c10::ArrayRef<long>`) every < is escaped
        QString prose = markdown;
        prose.remove(QRegularExpression(QStringLiteral("`[^`\n]*`")));
        QVERIFY(!prose.contains(QRegularExpression(QStringLiteral("(?<!\\\\)<"))));
        const QString html = snapshotReportHtml(content, {});
        checkWellFormed(html);
        QVERIFY(!html.contains(QLatin1String("<script")));
        QVERIFY(html.contains(QLatin1String("/tmp/%1 &lt;script&gt;")));
        const QJsonObject json = QJsonDocument::fromJson(snapshotReportJson(input)).object();
        QCOMPARE(json.value(QStringLiteral("snapshot")).toObject().value(QStringLiteral("path")).toString(),
                 data->path);

        const QStringList lines = csvLines(snapshotSegmentsCsv(*data));
        // the type is one quoted field holding its comma, quote and line break, "%3" as written
        QVERIFY2(
            QString::fromUtf8(snapshotSegmentsCsv(*data)).contains(QLatin1String(",\"large,%3\"\"\n<b>\",")),
            qPrintable(lines[1]));
    }
};

QTEST_MAIN(TestSnapshotReport)
#include "tst_snapshotreport.moc"
