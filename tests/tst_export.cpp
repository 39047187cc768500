// Export end to end: every format of a trace whose strings are hostile, image sizes, PDF
// pages, the `gapscope export` command (--force, atomic writes, no display) and the app's
// export actions writing the same bytes; the same for a PyTorch memory snapshot.
#include "app/ExportActions.h"
#include "app/cli/ExportCommand.h"
#include "model/budget/BudgetLoader.h"
#include "model/report/AnalysisReport.h"
#include "model/report/SeriesCsv.h"
#include "model/snapshot/SnapshotLoader.h"
#include "model/trace/TraceLoader.h"
#include "widgets/common/PdfReport.h"
#include "widgets/export/ChartExport.h"
#include "widgets/snapshot/SegmentMapExport.h"
#include "widgets/trace/GapChartView.h"

#include "tests/GapscopeProcess.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QTimer>
#include <QXmlStreamReader>

using namespace gapscope;

namespace {

const QString kScriptPhase = QStringLiteral("<script>alert(1)</script>");
const QString kFormulaHost = QStringLiteral("=cmd|' /C calc'!A0");

QString parity(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/parity/") + name +
           QStringLiteral(".jsonl");
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::shared_ptr<const AnalysisResult> analyse(const QString& path)
{
    const LoadOutcome loaded = loadTrace(path);
    return loaded.data ? runAnalysis(loaded.data, AnalysisRequest{}) : nullptr;
}

using Run = GapscopeRun;
Run runBinary(const QStringList& args)
{
    // as on CI, cron or a plain ssh login: Qt would warn on stderr unless gapscope provides one
    return runGapscope(args, {QStringLiteral("XDG_RUNTIME_DIR")});
}

// stderr as lines, nothing left out (Qt's XDG_RUNTIME_DIR remark included: it must not appear)
QString errorLines(const QByteArray& err)
{
    return QString::fromUtf8(err).split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QLatin1Char('\n'));
}

qsizetype pdfPageCount(const QByteArray& pdf)
{
    // "/Type /Page" also prefixes "/Type /Pages": count only the page objects
    qsizetype count = 0;
    for (qsizetype at = pdf.indexOf("/Type /Page"); at >= 0; at = pdf.indexOf("/Type /Page", at + 1))
        if (at + 11 >= pdf.size() || pdf[at + 11] != 's')
            ++count;
    return count;
}

QString snapshotFile(const QString& name)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/snapshot/") + name;
}

SnapshotReportInput snapshotInput(const QString& name)
{
    const SnapshotLoadOutcome loaded = loadSnapshotFile(snapshotFile(name));
    return snapshotReportInput(loaded.data);
}

// Pixels of the colour the segment map draws active allocated blocks in (light palette).
qsizetype activeBlockPixels(const QImage& image)
{
    const QRgb active = QColor(QStringLiteral("#3874cb")).rgb();
    qsizetype count = 0;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y)
        for (int x = 0; x < rgb.width(); ++x)
            count += rgb.pixel(x, y) == active ? 1 : 0;
    return count;
}

QSize svgSize(const QByteArray& svg, QString* error)
{
    QXmlStreamReader xml(svg);
    QSize size;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg") &&
            !size.isValid())
            size = QSize(xml.attributes().value(QLatin1String("width")).toInt(),
                         xml.attributes().value(QLatin1String("height")).toInt());
    }
    if (xml.hasError())
        *error = xml.errorString();
    return size;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_hostileTrace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // phasespike.jsonl with its "train" phase renamed to markup and its host to a formula
        QByteArray text = readFile(parity(QStringLiteral("phasespike")));
        QVERIFY(text.contains("\"train\""));
        text.replace("train", kScriptPhase.toUtf8());
        text.replace("\"host\": \"gpu-node-7\"", "\"host\": \"" + kFormulaHost.toUtf8() + "\"");
        m_hostileTrace = m_dir.filePath(QStringLiteral("hostile.jsonl"));
        QFile f(m_hostileTrace);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }

    void everyFormatEscapesTraceStrings_data()
    {
        QTest::addColumn<QString>("format");
        for (ExportFormat format : allExportFormats())
            QTest::newRow(qPrintable(exportFormatName(format))) << exportFormatName(format);
    }

    void everyFormatEscapesTraceStrings()
    {
        QFETCH(QString, format);
        const auto result = analyse(m_hostileTrace);
        QVERIFY(result);
        QVERIFY(!result->findings.empty());
        QCOMPARE(result->trace->sessions.front().host, kFormulaHost);
        const QSize size(900, 420);
        const ExportOutcome out = renderExport(result, *exportFormatFromString(format), size);
        QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
        QVERIFY(!out.data.isEmpty());
        const QString text = QString::fromUtf8(out.data);
        const QString phasePath = kScriptPhase + QStringLiteral(" / step");

        switch (*exportFormatFromString(format)) {
        case ExportFormat::Json: {
            QJsonParseError error;
            const QJsonObject json = QJsonDocument::fromJson(out.data, &error).object();
            QCOMPARE(error.error, QJsonParseError::NoError);
            const QJsonObject attribution = json.value(QStringLiteral("gap_analysis"))
                                                .toArray()
                                                .first()
                                                .toObject()
                                                .value(QStringLiteral("phase_attribution"))
                                                .toObject();
            QCOMPARE(attribution.value(QStringLiteral("phase_path")).toString(), phasePath);
            QCOMPARE(json.value(QStringLiteral("session"))
                         .toObject()
                         .value(QStringLiteral("sessions"))
                         .toArray()
                         .first()
                         .toObject()
                         .value(QStringLiteral("host"))
                         .toString(),
                     kFormulaHost);
            break;
        }
        case ExportFormat::Markdown:
            // every < is escaped
            QVERIFY(!text.contains(QRegularExpression(QStringLiteral("(?<!\\\\)<"))));
            QVERIFY(text.contains(QLatin1String("\\<script\\>alert(1)\\</script\\> / step")));
            QVERIFY(text.contains(QLatin1String("=cmd\\|' /C calc'!A0")));
            break;
        case ExportFormat::Html: {
            QVERIFY(!text.contains(QLatin1String("<script"), Qt::CaseInsensitive));
            QVERIFY(!text.contains(QLatin1String("http://")) && !text.contains(QLatin1String("https://")));
            QVERIFY(text.contains(QLatin1String("&lt;script&gt;alert(1)&lt;/script&gt; / step")));
            QVERIFY(text.contains(QLatin1String("=cmd|&#39; /C calc&#39;!A0")));
            QVERIFY(text.contains(QLatin1String("data:image/svg+xml;base64,")));
            QXmlStreamReader xml(text);
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            break;
        }
        case ExportFormat::FindingsCsv:
            QVERIFY(text.contains(QLatin1String("\"'=cmd|' /C calc'!A0\"")));
            QVERIFY(text.contains(phasePath));
            break;
        case ExportFormat::Csv: {
            const QStringList lines = text.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
            QCOMPARE(lines.front(),
                     QStringLiteral("time_ns,relative_s,gap,allocated,reserved,used,total,phase"));
            QCOMPARE(lines.size() - 1, qsizetype(result->usableRows.size()));
            QVERIFY(text.contains(QLatin1Char(',') + kScriptPhase + QStringLiteral("\r\n")));
            for (const QString& line : lines.mid(1)) {
                const QStringList cells = line.split(QLatin1Char(','));
                QCOMPARE(cells.size(), 8);
                bool ok = false;
                cells[0].toLongLong(&ok);
                QVERIFY(ok);
                // gap = used - reserved
                QCOMPARE(cells[2].toLongLong(), cells[5].toLongLong() - cells[4].toLongLong());
            }
            break;
        }
        case ExportFormat::Pdf:
            QVERIFY(out.data.startsWith("%PDF-"));
            QVERIFY(pdfPageCount(out.data) >= 1);
            break;
        case ExportFormat::Png: {
            const QImage image = QImage::fromData(out.data, "PNG");
            QCOMPARE(image.size(), size);
            break;
        }
        case ExportFormat::Svg: {
            QString error;
            QCOMPARE(svgSize(out.data, &error), size);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY(!text.contains(QLatin1String("<script"), Qt::CaseInsensitive));
            break;
        }
        }
    }

    void pdfHasPagesForLongReports()
    {
        const auto result = analyse(parity(QStringLiteral("mixed")));
        QVERIFY(result);
        const ExportOutcome out = renderExport(result, ExportFormat::Pdf, kDefaultChartSize);
        QVERIFY(out.data.startsWith("%PDF-"));
        // summary, chart and two findings with their remediation do not fit on one A4 page
        QVERIFY2(pdfPageCount(out.data) >= 2, qPrintable(QString::number(pdfPageCount(out.data))));
    }

    // The PDF lists the bookmarks as the Markdown and HTML reports do, names as the user typed
    // them (markup in a name is text); without bookmarks there is no empty section.
    void pdfListsBookmarks_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::newRow("none") << QStringList{};
        QTest::newRow("plain") << QStringList{QStringLiteral("warm-up done"), QStringLiteral("epoch 2")};
        QTest::newRow("hostile") << QStringList{QStringLiteral("<b>bold</b> & | *x* _y_"),
                                                QStringLiteral("</table><h1>out</h1>")};
    }
    void pdfListsBookmarks()
    {
        QFETCH(QStringList, names);
        const auto result = analyse(parity(QStringLiteral("phasespike")));
        QVERIFY(result);
        ReportContent content = buildReportContent(*result);
        for (int i = 0; i < names.size(); ++i)
            content.bookmarks.push_back({content.originNs + (i + 1) * int64_t{1'500'000'000}, names[i]});
        QTextDocument document;
        document.setHtml(reportPdfHtml(content, {}, 600));
        const QString text = document.toPlainText();
        QCOMPARE(text.contains(QStringLiteral("Bookmarks")), !names.isEmpty());
        for (int i = 0; i < names.size(); ++i) {
            QVERIFY2(text.contains(names[i]), qPrintable(names[i]));
            QVERIFY(text.contains(formatRelativeTime(content.bookmarks[size_t(i)].timeNs, content.originNs)));
        }
        // the sections after it are still there: a name did not swallow them
        QVERIFY(text.contains(QStringLiteral("Thresholds")));
        QVERIFY(reportPdf(content, {}).startsWith("%PDF-"));
    }

    void cliWritesEveryFormatHeadless_data()
    {
        QTest::addColumn<QString>("format");
        for (ExportFormat format : allExportFormats())
            QTest::newRow(qPrintable(exportFormatName(format))) << exportFormatName(format);
    }

    void cliWritesEveryFormatHeadless()
    {
        QFETCH(QString, format);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("out.") + format);
        const Run r = runBinary({QStringLiteral("export"), parity(QStringLiteral("phasespike")),
                                 QStringLiteral("--format"), format, QStringLiteral("--output"), file,
                                 QStringLiteral("--size"), QStringLiteral("640x360")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(errorLines(r.err).isEmpty(), r.err.constData());
        // atomic: the temporary file is gone, only the output is left
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("out.") + format});
        const QByteArray data = readFile(file);
        const ExportFormat f = *exportFormatFromString(format);
        if (f == ExportFormat::Png)
            QCOMPARE(QImage::fromData(data, "PNG").size(), QSize(640, 360));
        if (f == ExportFormat::Svg) {
            QString error;
            QCOMPARE(svgSize(data, &error), QSize(640, 360));
        }
        // same content as the app's export for the same inputs (text formats compare bytes)
        if (f == ExportFormat::Json || f == ExportFormat::Markdown || f == ExportFormat::Csv ||
            f == ExportFormat::FindingsCsv || f == ExportFormat::Html) {
            const auto result = analyse(parity(QStringLiteral("phasespike")));
            QCOMPARE(data, renderExport(result, f, QSize(640, 360)).data);
        }
    }

    void cliJsonIsTheAnalyzeObject()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("r.json"));
        const QStringList common{QStringLiteral("--set"), QStringLiteral("gap_spike_zscore=3"),
                                 QStringLiteral("--from"), QStringLiteral("1796000005000000000")};
        const Run exported = runBinary(QStringList{QStringLiteral("export"), parity(QStringLiteral("mixed")),
                                                   QStringLiteral("--format"), QStringLiteral("json"),
                                                   QStringLiteral("--output"), file} +
                                       common);
        QCOMPARE(exported.exitCode, 0);
        const Run analysed = runBinary(QStringList{QStringLiteral("analyze"), parity(QStringLiteral("mixed")),
                                                   QStringLiteral("--format"), QStringLiteral("json")} +
                                       common);
        QCOMPARE(analysed.exitCode, 0);
        QCOMPARE(readFile(file), analysed.out);
        QVERIFY(analysed.out.contains("\"begin_ns\": 1796000005000000000"));
    }

    void cliBudgetLogWindow()
    {
        // --from/--to restrict a memory-budget log's analysis as they do a trace's: export writes
        // the object analyze prints, window included (export used to refuse them with exit 2)
        const QString budget = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.jsonl");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("budget.json"));
        const QStringList window{QStringLiteral("--from"), QStringLiteral("1796029320000000000"),
                                 QStringLiteral("--to"), QStringLiteral("1796029680000000000")};
        const Run exported =
            runBinary(QStringList{QStringLiteral("export"), budget, QStringLiteral("--format"),
                                  QStringLiteral("json"), QStringLiteral("--output"), file} +
                      window);
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        const Run analysed = runBinary(QStringList{QStringLiteral("analyze"), budget,
                                                   QStringLiteral("--format"), QStringLiteral("json")} +
                                       window);
        QCOMPARE(analysed.exitCode, 0);
        QCOMPARE(readFile(file), analysed.out);
        QVERIFY(analysed.out.contains("\"begin_ns\": 1796029320000000000"));
        QVERIFY(analysed.out.contains("\"end_ns\": 1796029680000000000"));
        // the window changes what the rules see: the whole log's report differs
        const Run whole = runBinary(
            {QStringLiteral("analyze"), budget, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(whole.exitCode, 0);
        QVERIFY(whole.out != analysed.out);
    }

    void cliForce()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("report.md"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("keep me");
        }
        const QStringList args{QStringLiteral("export"),   parity(QStringLiteral("drift")),
                               QStringLiteral("--format"), QStringLiteral("markdown"),
                               QStringLiteral("--output"), file};
        const Run refused = runBinary(args);
        QCOMPARE(refused.exitCode, 2);
        const QString err = errorLines(refused.err);
        QVERIFY2(err.contains(QLatin1String("--force")) && err.contains(file), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 0);
        QCOMPARE(readFile(file), QByteArray("keep me"));

        const Run forced = runBinary(args + QStringList{QStringLiteral("--force")});
        QCOMPARE(forced.exitCode, 0);
        QVERIFY(readFile(file).startsWith("# gapscope report"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("report.md")});
    }

    void cliReportsRejectedRecords_data()
    {
        QTest::addColumn<QByteArray>("badLine");
        QTest::addColumn<QString>("unit");
        QTest::newRow("trace") << QByteArray("this is not a record\n") << QStringLiteral("record(s)");
    }

    void cliReportsRejectedRecords()
    {
        // export says what analyze says about the records it could not use, on stderr
        QFETCH(QByteArray, badLine);
        QFETCH(QString, unit);
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("partly-bad.jsonl"));
        {
            QFile f(trace);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(readFile(parity(QStringLiteral("drift"))) + badLine);
        }
        const Run analyzed =
            runBinary({QStringLiteral("analyze"), trace, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(analyzed.exitCode, 0);
        const QString analyzeLine = errorLines(analyzed.err);
        QVERIFY2(
            analyzeLine.startsWith(QLatin1String("gapscope analyze: 1 ") + unit + QLatin1String(" rejected")),
            qPrintable(analyzeLine));
        const QString file = dir.filePath(QStringLiteral("report.json"));
        const Run exported = runBinary({QStringLiteral("export"), trace, QStringLiteral("--format"),
                                        QStringLiteral("json"), QStringLiteral("--output"), file});
        QCOMPARE(exported.exitCode, 0);
        QCOMPARE(errorLines(exported.err),
                 QString(analyzeLine)
                     .replace(QLatin1String("gapscope analyze: "), QLatin1String("gapscope export: ")));
        QCOMPARE(readFile(file), analyzed.out);
    }

    void cliBadInvocations_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString drift = parity(QStringLiteral("drift"));
        const QString out = QStringLiteral("/nonexistent-dir/x.json");
        QTest::newRow("no format") << QStringList{QStringLiteral("export"), drift, QStringLiteral("--output"),
                                                  out}
                                   << QStringLiteral("--format is required");
        QTest::newRow("unknown format") << QStringList{QStringLiteral("export"),   drift,
                                                       QStringLiteral("--format"), QStringLiteral("docx"),
                                                       QStringLiteral("--output"), out}
                                        << QStringLiteral("unknown format 'docx'");
        QTest::newRow("no output") << QStringList{QStringLiteral("export"), drift, QStringLiteral("--format"),
                                                  QStringLiteral("json")}
                                   << QStringLiteral("--output FILE is required");
        QTest::newRow("bad size") << QStringList{QStringLiteral("export"),   drift,
                                                 QStringLiteral("--format"), QStringLiteral("png"),
                                                 QStringLiteral("--output"), out,
                                                 QStringLiteral("--size"),   QStringLiteral("10x")}
                                  << QStringLiteral("--size needs WxH");
        QTest::newRow("unknown session") << QStringList{QStringLiteral("export"),    drift,
                                                        QStringLiteral("--format"),  QStringLiteral("json"),
                                                        QStringLiteral("--output"),  out,
                                                        QStringLiteral("--session"), QStringLiteral("nope")}
                                         << QStringLiteral("no session 'nope'");
        QTest::newRow("missing trace")
            << QStringList{QStringLiteral("export"),   QStringLiteral("/nonexistent/t.jsonl"),
                           QStringLiteral("--format"), QStringLiteral("json"),
                           QStringLiteral("--output"), out}
            << QStringLiteral("/nonexistent/t.jsonl");
        QTest::newRow("size is export only")
            << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--size"),
                           QStringLiteral("100x100")}
            << QStringLiteral("unknown option --size");
    }

    void cliBadInvocations()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const Run r = runBinary(args);
        QCOMPARE(r.exitCode, 2);
        const QString err = errorLines(r.err);
        QVERIFY2(err.contains(reason), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 0);
    }

    void cliUnwritableOutput()
    {
        const Run r = runBinary({QStringLiteral("export"), parity(QStringLiteral("drift")),
                                 QStringLiteral("--format"), QStringLiteral("json"),
                                 QStringLiteral("--output"), QStringLiteral("/nonexistent-dir/x.json")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(errorLines(r.err).contains(QLatin1String("/nonexistent-dir/x.json")));
    }

    void typedExtensionDecides_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<int>("filter");
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("format");
        QTest::addColumn<bool>("renamed");
        const auto f = [](ExportFormat format) { return int(format); };
        QTest::newRow("pdf typed, HTML filter") << "/tmp/report.pdf" << f(ExportFormat::Html)
                                                << "/tmp/report.pdf" << f(ExportFormat::Pdf) << false;
        QTest::newRow("upper case") << "/tmp/report.JSON" << f(ExportFormat::Html) << "/tmp/report.JSON"
                                    << f(ExportFormat::Json) << false;
        QTest::newRow("htm") << "/tmp/r.htm" << f(ExportFormat::Pdf) << "/tmp/r.htm" << f(ExportFormat::Html)
                             << false;
        QTest::newRow("markdown") << "/tmp/r.md" << f(ExportFormat::Html) << "/tmp/r.md"
                                  << f(ExportFormat::Markdown) << false;
        QTest::newRow("svg image") << "/tmp/r.svg" << f(ExportFormat::Html) << "/tmp/r.svg"
                                   << f(ExportFormat::Svg) << false;
        QTest::newRow("csv, findings filter") << "/tmp/r.csv" << f(ExportFormat::FindingsCsv) << "/tmp/r.csv"
                                              << f(ExportFormat::FindingsCsv) << false;
        QTest::newRow("csv, other filter")
            << "/tmp/r.csv" << f(ExportFormat::Html) << "/tmp/r.csv" << f(ExportFormat::Csv) << false;
        QTest::newRow("no extension")
            << "/tmp/report" << f(ExportFormat::Html) << "/tmp/report.html" << f(ExportFormat::Html) << false;
        QTest::newRow("unknown extension") << "/tmp/report.txt" << f(ExportFormat::Html)
                                           << "/tmp/report.txt.html" << f(ExportFormat::Html) << true;
        QTest::newRow("dotted name") << "/tmp/run.v2" << f(ExportFormat::Markdown) << "/tmp/run.v2.md"
                                     << f(ExportFormat::Markdown) << true;
    }

    void typedExtensionDecides()
    {
        QFETCH(QString, typed);
        QFETCH(int, filter);
        QFETCH(QString, file);
        QFETCH(int, format);
        QFETCH(bool, renamed);
        const ExportActions::Target target =
            ExportActions::targetFor(typed, ExportFormat(filter), allExportFormats());
        QCOMPARE(target.file, file);
        QCOMPARE(int(target.format), format);
        QCOMPARE(target.renamed, renamed);
    }

    void saveChartKeepsToItsFormats()
    {
        const std::vector<ExportFormat> chart{ExportFormat::Png, ExportFormat::Svg, ExportFormat::Csv};
        auto target = ExportActions::targetFor(QStringLiteral("/tmp/c.svg"), ExportFormat::Png, chart);
        QCOMPARE(int(target.format), int(ExportFormat::Svg));
        // a report format is not a chart format: the PNG is not written into a .pdf
        target = ExportActions::targetFor(QStringLiteral("/tmp/c.pdf"), ExportFormat::Png, chart);
        QCOMPARE(target.file, QStringLiteral("/tmp/c.pdf.png"));
        QCOMPARE(int(target.format), int(ExportFormat::Png));
        QVERIFY(target.renamed);
    }

    // The dialog as the user met it: the default "HTML report" filter and report.pdf typed.
    void exportDialogWritesTheTypedFormat_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("written");
        QTest::addColumn<QByteArray>("magic");
        QTest::addColumn<bool>("asked");
        QTest::newRow("pdf") << "report.pdf"
                             << "report.pdf" << QByteArray("%PDF") << false;
        QTest::newRow("json") << "report.json"
                              << "report.json" << QByteArray("{") << false;
        QTest::newRow("unknown, shown first") << "report.txt"
                                              << "report.txt.html" << QByteArray("<!DOCTYPE") << true;
    }

    void exportDialogWritesTheTypedFormat()
    {
        QFETCH(QString, typed);
        QFETCH(QString, written);
        QFETCH(QByteArray, magic);
        QFETCH(bool, asked);
        const auto result = analyse(parity(QStringLiteral("phasespike")));
        QVERIFY(result);
        QWidget window;
        ExportActions actions(&window, [&] { return result; });
        QTemporaryDir dir;
        QString question;
        bool dialogSeen = false;
        // answers the save dialog, then the message box showing the final name (if any)
        QTimer driver;
        driver.setInterval(50);
        connect(&driver, &QTimer::timeout, this, [&] {
            QWidget* modal = QApplication::activeModalWidget();
            if (auto* dialog = qobject_cast<QFileDialog*>(modal)) {
                dialogSeen = true;
                QCOMPARE(dialog->selectedNameFilter(), ExportActions::nameFilter(ExportFormat::Html));
                // the whole path typed into the name field: selectFile() would change the
                // folder asynchronously, and an early accept() would resolve the name in the
                // folder of the previous run
                if (auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit")))
                    name->setText(dir.filePath(typed));
                else
                    dialog->selectFile(dir.filePath(typed));
                QMetaObject::invokeMethod(dialog, "accept"); // protected: as the Save button does
            } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
                question = box->text();
                box->button(QMessageBox::Ok)->click();
            }
        });
        driver.start();
        actions.exportReportAction()->trigger();
        driver.stop();
        QVERIFY(dialogSeen);
        QCOMPARE(!question.isEmpty(), asked);
        if (asked)
            QVERIFY2(question.contains(written), qPrintable(question));
        QFile out(dir.filePath(written));
        QVERIFY2(out.open(QIODevice::ReadOnly), qPrintable(out.fileName()));
        QVERIFY(out.read(magic.size()) == magic);
        QVERIFY(!QFile::exists(dir.filePath(typed)) || typed == written);
    }

    void appActionsWriteTheSameBytes()
    {
        const auto result = analyse(parity(QStringLiteral("phasespike")));
        QVERIFY(result);
        QWidget window;
        auto chart = createExportGapChart(result, QSize(700, 300));
        int selected = -1;
        ExportActions actions(
            &window, [&] { return result; }, [&]() -> QWidget* { return chart.get(); },
            [&] { return selected; });
        QVERIFY(actions.exportReportAction()->isEnabled());
        QCOMPARE(actions.exportReportAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
        QVERIFY(window.actions().contains(actions.saveChartAction()));
        QVERIFY(!actions.copyFindingAction()->isEnabled());
        selected = 0;
        actions.updateEnabled();
        QVERIFY(actions.copyFindingAction()->isEnabled());
        const QString markdown = actions.selectedFindingMarkdown();
        QVERIFY(markdown.startsWith(QLatin1String("### 1. Transient spike")));
        QVERIFY(markdown.contains(QLatin1String(", host gpu-node-7")));

        for (ExportFormat format : allExportFormats())
            QVERIFY(ExportActions::formatForFilter(ExportActions::nameFilter(format)) == format);
        QCOMPARE(ExportActions::withSuffix(QStringLiteral("/tmp/r"), ExportFormat::Markdown),
                 QStringLiteral("/tmp/r.md"));
        QCOMPARE(ExportActions::withSuffix(QStringLiteral("/tmp/r.txt"), ExportFormat::Json),
                 QStringLiteral("/tmp/r.txt"));

        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("r.json"));
        QString error;
        QVERIFY2(actions.writeReport(file, ExportFormat::Json, kDefaultChartSize, false, &error),
                 qPrintable(error));
        QCOMPARE(readFile(file), analysisReportJson(*result));
        // an existing file is only replaced when the user confirmed
        QVERIFY(!actions.writeReport(file, ExportFormat::Markdown, kDefaultChartSize, false, &error));
        QVERIFY(error.contains(QLatin1String("exists")));
        QVERIFY(readFile(file).startsWith("{"));
        QVERIFY(actions.writeReport(file, ExportFormat::Markdown, kDefaultChartSize, true, &error));
        QVERIFY(readFile(file).startsWith("# gapscope report"));

        // "Save Chart As..." draws the chart as shown, at its size
        const QString png = dir.filePath(QStringLiteral("c.png"));
        QVERIFY2(actions.writeChart(png, ExportFormat::Png, false, &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(700, 300));
        const QString svg = dir.filePath(QStringLiteral("c.svg"));
        QVERIFY(actions.writeChart(svg, ExportFormat::Svg, false, &error));
        QCOMPARE(svgSize(readFile(svg), &error), QSize(700, 300));
        const QString csv = dir.filePath(QStringLiteral("c.csv"));
        QVERIFY(actions.writeChart(csv, ExportFormat::Csv, false, &error));
        QCOMPARE(readFile(csv), chartSeriesCsv(*result));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 4);
    }

    // Export Report and Save Chart As refuse the document shown as their target, as
    // `gapscope export` refuses its input: directly, through a symbolic link, in every format.
    void appActionsRefuseTheirInput()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.jsonl"));
        QVERIFY(QFile::copy(parity(QStringLiteral("phasespike")), trace));
        const QByteArray before = readFile(trace);
        const auto result = analyse(trace);
        QVERIFY(result);
        QWidget window;
        auto chart = createExportGapChart(result, QSize(400, 200));
        ExportActions actions(
            &window, [&] { return result; }, [&]() -> QWidget* { return chart.get(); });
        const QString link = dir.filePath(QStringLiteral("link.json"));
        QVERIFY(QFile::link(trace, link));
        for (const QString& target : {trace, link}) {
            for (ExportFormat format : {ExportFormat::Json, ExportFormat::Html, ExportFormat::Csv}) {
                QString error;
                QVERIFY(!actions.writeReport(target, format, kDefaultChartSize, true, &error));
                QVERIFY2(error.contains(QLatin1String("is an input")), qPrintable(error));
            }
            QString error;
            QVERIFY(!actions.writeChart(target, ExportFormat::Png, true, &error));
            QVERIFY2(error.contains(QLatin1String("is an input")), qPrintable(error));
        }
        QCOMPARE(readFile(trace), before);
        QVERIFY(QFileInfo(link).isSymLink());
        // another file beside it is written as before
        QString error;
        QVERIFY2(actions.writeReport(dir.filePath(QStringLiteral("r.json")), ExportFormat::Json,
                                     kDefaultChartSize, true, &error),
                 qPrintable(error));
    }

    void budgetLogEveryFormat_data()
    {
        QTest::addColumn<QString>("format");
        for (ExportFormat format : allExportFormats())
            QTest::newRow(qPrintable(exportFormatName(format))) << exportFormatName(format);
    }

    void budgetLogEveryFormat()
    {
        QFETCH(QString, format);
        // leak.text with its reporter named in markup and one verdict label a formula
        QByteArray text = readFile(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/budget/leak.text"));
        QVERIFY(text.contains("reporter=\"reasoner\""));
        text.replace("reporter=\"reasoner\"", "reporter=\"" + kScriptPhase.toUtf8() + "\"");
        text.replace("verdict=\"grow\"", "verdict=\"" + kFormulaHost.toUtf8() + "\"");
        const QString path = m_dir.filePath(QStringLiteral("hostile-budget.log"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const BudgetLoadOutcome loaded = loadBudgetLog(path);
        QVERIFY2(loaded.data, qPrintable(loaded.fatalError));
        BudgetExportInput input{loaded.data, analyzeBudget(loaded.data->ticks), BudgetThresholds{}};
        QVERIFY(!input.findings.empty());
        const ExportFormat f = *exportFormatFromString(format);

        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("budget.") + format);
        const Run r = runBinary({QStringLiteral("export"), path, QStringLiteral("--format"), format,
                                 QStringLiteral("--output"), file});
        if (!budgetExportSupports(f)) {
            // no breakdown chart widget yet: refused with a usage error, nothing written
            QCOMPARE(r.exitCode, 2);
            QVERIFY(errorLines(r.err).contains(QLatin1String("no chart image")));
            QVERIFY(!QFile::exists(file));
            QVERIFY(!renderBudgetExport(input, f).error.isEmpty());
            return;
        }
        QCOMPARE(r.exitCode, 0);
        const ExportOutcome out = renderBudgetExport(input, f);
        QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
        if (f != ExportFormat::Pdf) // PDFs carry a creation date
            QCOMPARE(readFile(file), out.data);
        const QString data = QString::fromUtf8(out.data);
        switch (f) {
        case ExportFormat::Json: {
            QJsonParseError error;
            const QJsonObject json = QJsonDocument::fromJson(out.data, &error).object();
            QCOMPARE(error.error, QJsonParseError::NoError);
            QCOMPARE(json.value(QStringLiteral("kind")).toString(), QStringLiteral("budget_log"));
            const QJsonObject summary = json.value(QStringLiteral("summary")).toObject();
            QCOMPARE(summary.value(QStringLiteral("ticks")).toInteger(), qint64(loaded.data->ticks.size()));
            QVERIFY(summary.contains(QStringLiteral("peak_rss_bytes")));
            QVERIFY(summary.contains(QStringLiteral("duration_ns")));
            QCOMPARE(json.value(QStringLiteral("gap_analysis")).toArray().size(),
                     qsizetype(input.findings.size()));
            QVERIFY(json.value(QStringLiteral("gap_analysis"))
                        .toArray()
                        .first()
                        .toObject()
                        .value(QStringLiteral("description"))
                        .toString()
                        .contains(kScriptPhase));
            break;
        }
        case ExportFormat::Markdown:
            QVERIFY(data.contains(QLatin1String("Ticks analysed")));
            QVERIFY(data.contains(QLatin1String("Peak RSS")));
            QVERIFY(data.contains(QLatin1String("\\<script\\>alert(1)\\</script\\>")));
            QVERIFY(!data.contains(QRegularExpression(QStringLiteral("(?<!\\\\)<"))));
            break;
        case ExportFormat::Html: {
            QVERIFY(data.contains(QLatin1String("&lt;script&gt;alert(1)&lt;/script&gt;")));
            QVERIFY(!data.contains(QLatin1String("<script")));
            QXmlStreamReader xml(data);
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            break;
        }
        case ExportFormat::Csv: {
            const QStringList lines = data.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
            QCOMPARE(lines.size() - 1, qsizetype(loaded.data->ticks.size()));
            QVERIFY(lines.front().endsWith(QLatin1String(",verdict")));
            QVERIFY(data.contains(QStringLiteral(",\"'%1\"\r\n").arg(kFormulaHost)));
            break;
        }
        case ExportFormat::FindingsCsv:
            QVERIFY(data.contains(QLatin1String("leak_outside_caches")));
            QVERIFY(data.contains(kScriptPhase)); // quoted text, not a formula
            break;
        case ExportFormat::Pdf:
            QVERIFY(out.data.startsWith("%PDF-"));
            QVERIFY(pdfPageCount(out.data) >= 1);
            break;
        case ExportFormat::Png:
        case ExportFormat::Svg:
            break;
        }
    }

    // issue 32, item 4: a row-oriented export clips a name that repeats on every row of its
    // phase (a 1 MB name made a 4.3 MB trace's CSV 210 MB); the JSON report keeps it whole.
    void csvClipsLongPhaseNames()
    {
        const QString longName = QString(100 * 1024, QLatin1Char('n'));
        QByteArray text = readFile(parity(QStringLiteral("phases")));
        QVERIFY(text.contains("\"train\""));
        text.replace("\"train\"", "\"" + longName.toUtf8() + "\"");
        const QString path = m_dir.filePath(QStringLiteral("long-phase.jsonl"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        }
        const auto result = analyse(path);
        QVERIFY(result);
        const QByteArray csv = chartSeriesCsv(*result);
        const QList<QByteArray> rows = csv.split('\n');
        qsizetype longest = 0;
        int named = 0;
        for (const QByteArray& row : rows) {
            longest = std::max(longest, row.size());
            named += row.contains(QByteArray(256, 'n') + " \xE2\x80\xA6 (") ? 1 : 0;
        }
        QVERIFY2(named > 0, "no row names the long phase");
        QVERIFY2(longest < 512, qPrintable(QStringLiteral("a row of %1 bytes").arg(longest)));
        QVERIFY(csv.size() < text.size());
    }

    // `gapscope export` of a PyTorch memory snapshot (issue 34): every format, headless, the bytes
    // renderSnapshotExport gives (what the app's Export Report writes), pictures of the size asked.
    void snapshotEveryFormat_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("format");
        for (const char* name : {"snapshot.pickle", "pair/snapshot.pickle.gz"})
            for (ExportFormat format : allExportFormats())
                QTest::newRow(
                    qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(name), exportFormatName(format))))
                    << QString::fromLatin1(name) << exportFormatName(format);
    }

    void snapshotEveryFormat()
    {
        QFETCH(QString, name);
        QFETCH(QString, format);
        const ExportFormat f = *exportFormatFromString(format);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("out.") + format);
        const Run r = runBinary({QStringLiteral("export"), snapshotFile(name), QStringLiteral("--format"),
                                 format, QStringLiteral("--output"), file, QStringLiteral("--size"),
                                 QStringLiteral("640x360")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(errorLines(r.err).isEmpty(), r.err.constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("out.") + format});
        const QByteArray data = readFile(file);
        QVERIFY(!data.isEmpty());
        const SnapshotReportInput input = snapshotInput(name);
        const ExportOutcome rendered = renderSnapshotExport(input, f, QSize(640, 360));
        QVERIFY2(rendered.error.isEmpty(), qPrintable(rendered.error));
        if (f != ExportFormat::Pdf) // a PDF carries its creation date
            QCOMPARE(data, rendered.data);
        const QString text = QString::fromUtf8(data);
        const SnapshotTotals& totals = input.summary.totals;
        switch (f) {
        case ExportFormat::Json: {
            const Run analysed = runBinary({QStringLiteral("analyze"), snapshotFile(name),
                                            QStringLiteral("--format"), QStringLiteral("json")});
            QCOMPARE(analysed.exitCode, 0);
            QCOMPARE(data, analysed.out); // the analyze object
            break;
        }
        case ExportFormat::Markdown: {
            const Run analysed = runBinary({QStringLiteral("analyze"), snapshotFile(name),
                                            QStringLiteral("--format"), QStringLiteral("markdown")});
            QCOMPARE(data, analysed.out);
            QVERIFY(text.contains(QString::number(totals.reservedBytes)));
            break;
        }
        case ExportFormat::Html: {
            QXmlStreamReader xml(text);
            while (!xml.atEnd())
                xml.readNext();
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY(text.contains(QLatin1String("<img src=\"data:image/svg+xml;base64,")));
            // as wide as asked, no higher (a report's picture ends below its last bar)
            static const QRegularExpression picture(
                QStringLiteral("width=\"640\" height=\"(\\d+)\" alt=\"Segment map\""));
            const QRegularExpressionMatch m = picture.match(text);
            QVERIFY(m.hasMatch());
            QVERIFY(m.captured(1).toInt() > 300 && m.captured(1).toInt() <= 360);
            break;
        }
        case ExportFormat::Pdf:
            QVERIFY(data.startsWith("%PDF-"));
            QVERIFY(pdfPageCount(data) >= 2);
            break;
        case ExportFormat::Csv:
            QCOMPARE(data.count("\r\n") - 1, totals.segmentCount);
            break;
        case ExportFormat::FindingsCsv:
            QCOMPARE(data,
                     QByteArray("severity,classification,confidence,description,evidence,remediation\r\n"));
            break;
        case ExportFormat::Png: {
            const QImage image = QImage::fromData(data, "PNG");
            QCOMPARE(image.size(), QSize(640, 360));
            QVERIFY(activeBlockPixels(image) > 1000); // the bars are drawn, not an empty frame
            break;
        }
        case ExportFormat::Svg: {
            QString error;
            QCOMPARE(svgSize(data, &error), QSize(640, 360));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            break;
        }
        }
    }

    // The PDF's rich text of a snapshot: the totals, the finding's remediation, the segment map.
    void snapshotPdfText()
    {
        const SnapshotReportInput input = snapshotInput(QStringLiteral("layouts/fragmented.pickle"));
        const SnapshotReportContent content = buildSnapshotReportContent(input);
        QTextDocument document;
        document.setHtml(snapshotReportPdfHtml(
            content, {{QStringLiteral("Segment map"), QStringLiteral("c"), QImage()}}, 600));
        const QString text = document.toPlainText();
        QVERIFY(text.contains(QLatin1String("PyTorch memory snapshot report")));
        QVERIFY(text.contains(QString::number(input.summary.totals.reservedBytes)));
        QVERIFY(text.contains(QLatin1String("What to try")));
        QVERIFY(text.contains(QLatin1String("expandable_segments:True")));
        QVERIFY(text.contains(QLatin1String("Segment map.")));
        QVERIFY(snapshotReportPdf(content, {}).startsWith("%PDF-"));
    }

    // Options of a trace's analysis do not apply to a snapshot: exit 2, nothing written.
    void snapshotRefusesTraceOptions()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("r.json"));
        const Run r =
            runBinary({QStringLiteral("export"), snapshotFile(QStringLiteral("snapshot.pickle")),
                       QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--output"), file,
                       QStringLiteral("--from"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(errorLines(r.err).contains(
                     QLatin1String("--from/--to does not apply to a PyTorch memory snapshot")),
                 r.err.constData());
        QVERIFY(!QFile::exists(file));
    }

    // The app's actions on a snapshot page (what SnapshotPage::pageExport gives): Export Report
    // writes the bytes `gapscope export` writes, Save Chart As the whole segment map at the size
    // shown, Copy Finding the selected finding.
    void snapshotAppActionsWriteTheSameBytes()
    {
        const QString name = QStringLiteral("layouts/fragmented.pickle");
        const SnapshotReportInput input = snapshotInput(name);
        QVERIFY(input.data);
        QWidget window;
        auto shown = createExportSegmentMap(input.data, QSize(700, 300));
        shown->setFitToSize(false); // as on the page: it scrolls
        int selected = -1;
        ExportActions actions(
            &window, [] { return std::shared_ptr<const AnalysisResult>(); },
            [&]() -> QWidget* { return shown.get(); }, [] { return -1; });
        actions.setSnapshotProvider([&] { return SnapshotExport{input, selected}; });
        actions.updateEnabled();
        QVERIFY(actions.exportReportAction()->isEnabled());
        QVERIFY(actions.saveChartAction()->isEnabled());
        QVERIFY(!actions.copyFindingAction()->isEnabled());
        selected = 0;
        actions.updateEnabled();
        QVERIFY(actions.copyFindingAction()->isEnabled());
        QCOMPARE(actions.selectedFindingMarkdown(),
                 snapshotFindingMarkdown(buildSnapshotReportContent(input), 0));
        QVERIFY(
            actions.selectedFindingMarkdown().startsWith(QLatin1String("### 1. Allocator fragmentation")));

        QTemporaryDir dir;
        for (ExportFormat format : allExportFormats()) {
            if (format == ExportFormat::Pdf)
                continue; // its creation date differs
            const QString cli = dir.filePath(QStringLiteral("cli.") + exportFormatName(format));
            const Run r = runBinary({QStringLiteral("export"), snapshotFile(name), QStringLiteral("--format"),
                                     exportFormatName(format), QStringLiteral("--output"), cli});
            QCOMPARE(r.exitCode, 0);
            const QString app = dir.filePath(QStringLiteral("app.") + exportFormatName(format));
            QString error;
            QVERIFY2(actions.writeReport(app, format, kDefaultChartSize, false, &error), qPrintable(error));
            QVERIFY(!readFile(app).isEmpty());
            QVERIFY2(readFile(app) == readFile(cli), qPrintable(exportFormatName(format)));
        }
        // Save Chart As: every segment at the size on screen, the picture `gapscope export --size` draws
        const QString png = dir.filePath(QStringLiteral("map.png"));
        QString error;
        QVERIFY2(actions.writeChart(png, ExportFormat::Png, false, &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(700, 300));
        QCOMPARE(readFile(png), renderSnapshotExport(input, ExportFormat::Png, QSize(700, 300)).data);
        const QString csv = dir.filePath(QStringLiteral("map.csv"));
        QVERIFY(actions.writeChart(csv, ExportFormat::Csv, false, &error));
        QCOMPARE(readFile(csv), snapshotSegmentsCsv(*input.data));
        // never over the snapshot shown
        QVERIFY(
            !actions.writeReport(snapshotFile(name), ExportFormat::Json, kDefaultChartSize, true, &error));
        QVERIFY2(error.contains(QLatin1String("is an input")), qPrintable(error));
    }

    void noAnalysisNoExport()
    {
        QWidget window;
        ExportActions actions(&window, [] { return std::shared_ptr<const AnalysisResult>(); });
        QVERIFY(!actions.exportReportAction()->isEnabled());
        QVERIFY(!actions.saveChartAction()->isEnabled());
        QString error;
        QVERIFY(!actions.writeReport(QDir::temp().filePath(QStringLiteral("never.json")), ExportFormat::Json,
                                     kDefaultChartSize, false, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(QDir::temp().filePath(QStringLiteral("never.json"))));
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
