// libFuzzer target: the report writers (JSON, Markdown, HTML, findings CSV) with random text in
// every field a trace can set and random numbers in every other. The first byte of the input
// picks the writer (one report is written and checked per input, so each format is explored
// by inputs of its own instead of every input paying for all five); whatever the content:
// - the JSON parses, and the path reads back as written;
// - the HTML is well-formed XML without script or URL (tests/ReportChecks.h);
// - the Markdown (the whole report and each finding's section) has no raw '<' or '&' and
//   every table row keeps its header's cells;
// - the CSV has one record per finding after the header, each with the header's fields.
#include "fuzz/FuzzSupport.h"
#include "model/report/ReportWriters.h"
#include "tests/ReportChecks.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace gapscope;

namespace {

void fail(const char* what, const QString& detail)
{
    std::fprintf(stderr, "report writers: %s: %s\n", what, qPrintable(detail.left(400)));
    std::abort();
}

QString text(FuzzedDataProvider& in)
{
    return QString::fromUtf8(in.ConsumeRandomLengthString(48));
}

std::string rawText(FuzzedDataProvider& in)
{
    return text(in).toStdString();
}

double number(FuzzedDataProvider& in)
{
    // non-finite values included: the writers must stay valid whatever the content holds
    return in.ConsumeBool() ? in.ConsumeFloatingPoint<double>() : double(in.ConsumeIntegral<int32_t>()) / 8;
}

ReportContent randomContent(FuzzedDataProvider& in)
{
    ReportContent c;
    c.kind = in.ConsumeBool() ? ReportKind::StormlogTrace : ReportKind::BudgetLog;
    c.path = text(in);
    c.form = text(in);
    c.recordsRead = in.ConsumeIntegral<int64_t>();
    c.recordsLoaded = in.ConsumeIntegral<int64_t>();
    c.recordsRejected = in.ConsumeIntegral<int64_t>();
    c.warnings = in.ConsumeIntegral<int64_t>();
    for (int i = in.ConsumeIntegralInRange(0, 2); i > 0; --i)
        c.problems.push_back({text(in), in.ConsumeIntegral<int64_t>(), in.ConsumeIntegral<int64_t>(),
                              in.ConsumeBool(), text(in)});
    c.sessionId = text(in);
    c.sessionStatus = text(in);
    c.host = text(in);
    c.rank = in.ConsumeIntegral<int64_t>();
    for (int i = in.ConsumeIntegralInRange(0, 2); i > 0; --i)
        c.sessions.push_back({text(in),
                              text(in),
                              text(in),
                              in.ConsumeIntegral<int64_t>(),
                              text(in),
                              {in.ConsumeIntegral<int64_t>()},
                              in.ConsumeIntegral<int64_t>()});
    c.eventCount = in.ConsumeIntegral<int64_t>();
    if (in.ConsumeBool())
        c.window = TimeWindow{in.ConsumeIntegral<int64_t>(), in.ConsumeIntegral<int64_t>()};
    c.originNs = in.ConsumeIntegral<int64_t>();
    c.backend = text(in);
    c.sampleNoun = text(in);
    c.samples = in.ConsumeIntegral<uint64_t>();
    if (in.ConsumeBool()) {
        c.firstTimestampNs = in.ConsumeIntegral<int64_t>();
        c.lastTimestampNs = in.ConsumeIntegral<int64_t>();
    }
    if (in.ConsumeBool()) {
        c.peakGapBytes = in.ConsumeIntegral<int64_t>();
        c.peakGapTimestampNs = in.ConsumeIntegral<int64_t>();
    }
    if (in.ConsumeBool()) {
        c.peakRssBytes = in.ConsumeIntegral<int64_t>();
        c.peakRssTimestampNs = in.ConsumeIntegral<int64_t>();
        c.tickPeriodNs = in.ConsumeIntegral<int64_t>();
    }
    for (int i = in.ConsumeIntegralInRange(0, 3); i > 0; --i) {
        ReportFinding f;
        f.severity = static_cast<Severity>(in.ConsumeIntegralInRange(0, 2));
        f.classification =
            static_cast<Classification>(in.ConsumeIntegralInRange(0, int(Classification::RankDivergence)));
        f.confidence = number(in);
        f.timestampNs = in.ConsumeIntegral<int64_t>();
        f.relativeTime = text(in);
        if (in.ConsumeBool()) {
            PhaseAttribution a;
            a.resolution = in.ConsumeBool() ? PhaseResolution::Unique : PhaseResolution::Ambiguous;
            a.phasePaths = {rawText(in), rawText(in)};
            a.phasePath = rawText(in);
            a.source = rawText(in);
            a.scopeId = rawText(in);
            a.threadId = in.ConsumeIntegral<int64_t>();
            a.threadName = rawText(in);
            f.phase = a;
        }
        f.phaseText = text(in);
        f.description = text(in);
        for (int k = in.ConsumeIntegralInRange(0, 3); k > 0; --k)
            f.evidence.push_back(
                {rawText(in), number(in), in.ConsumeBool(),
                 static_cast<EvidenceUnit>(in.ConsumeIntegralInRange(0, int(EvidenceUnit::Nanoseconds))),
                 text(in)});
        for (int k = in.ConsumeIntegralInRange(0, 2); k > 0; --k)
            f.remediation << text(in);
        c.findings.push_back(std::move(f));
    }
    for (int i = in.ConsumeIntegralInRange(0, 2); i > 0; --i)
        c.thresholds.push_back({rawText(in), number(in)});
    return c;
}

enum class Writer
{
    Json,
    Html,
    Markdown,
    Csv,
    kLast = Csv
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const auto writer = static_cast<Writer>(data[0] % (int(Writer::kLast) + 1));
    FuzzedDataProvider in(data + 1, size - 1);
    const ReportContent content = randomContent(in);

    switch (writer) {
    case Writer::Json: {
        const QByteArray json = reportJson(content);
        const simdjson::dom::element root =
            fuzz::parsedJson(std::string_view(json.constData(), size_t(json.size())), "the JSON report");
        std::string_view path;
        if (root["input"]["path"].get(path) ||
            QString::fromUtf8(path.data(), qsizetype(path.size())) != content.path)
            fail("JSON path differs", content.path);
        break;
    }
    case Writer::Html:
        if (const QString problem = checks::htmlProblem(reportHtml(content), 0); !problem.isEmpty())
            fail("HTML", problem);
        break;
    case Writer::Markdown:
        if (const QString problem = checks::markdownProblem(reportMarkdown(content)); !problem.isEmpty())
            fail("Markdown", problem);
        for (size_t i = 0; i < content.findings.size(); ++i)
            if (const QString problem = checks::markdownProblem(reportFindingMarkdown(content, i));
                !problem.isEmpty())
                fail("finding Markdown", problem);
        break;
    case Writer::Csv: {
        const QList<QStringList> rows = checks::parseCsv(QString::fromUtf8(reportFindingsCsv(content)));
        if (rows.size() != qsizetype(content.findings.size()) + 1)
            fail("CSV records", QString::number(rows.size()));
        for (const QStringList& row : rows)
            if (row.size() != rows.front().size())
                fail("CSV fields", row.join(QLatin1Char('|')));
        break;
    }
    }
    return 0;
}
