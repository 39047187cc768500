// libFuzzer target: the comparison of two traces (gapscope compare, the compare window). The
// input is trace A, then after "\n--b--\n" trace B (without the separator, B is A again, as
// `compare X X` compares two sessions or ranks of one run). Each goes through loadTraceBytes and
// runAnalysis, then both through compareAnalyses, aligned at their starts, or (an input of odd
// length) at the first phase of A. Whatever the content:
// - a side that cannot be compared, or a comparison that cannot be made, says why;
// - every finding compared is in A, in B or in both, as its change says, and the counts of the
//   changes add up to the findings;
// - the aligned gap series of each side are in time order;
// - the JSON report parses (simdjson) and the Markdown report passes the report checks
//   (tests/ReportChecks.h: no raw markup, table rows keep their header's cells).
#include "fuzz/FuzzSupport.h"

#include "model/report/ComparisonReport.h"
#include "model/trace/TraceComparison.h"
#include "tests/ReportChecks.h"

#include <cstdio>

namespace {

using namespace gapscope;

std::shared_ptr<const AnalysisResult> analyse(std::string_view bytes, const QString& name)
{
    const LoadOutcome loaded = loadTraceBytes(bytes, std::nullopt, name);
    fuzz::checkTraceOutcome(loaded);
    if (!loaded.data)
        return nullptr;
    QString error;
    std::shared_ptr<const AnalysisResult> result = runAnalysis(loaded.data, AnalysisRequest{}, &error);
    fuzz::require(result != nullptr || !error.isEmpty(), "an analysis that failed without saying why");
    return result;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kSeparator = "\n--b--\n";
    const size_t split = input.find(kSeparator);
    const std::shared_ptr<const AnalysisResult> a =
        analyse(input.substr(0, split), QStringLiteral("a.jsonl"));
    if (!a)
        return 0;
    const std::shared_ptr<const AnalysisResult> b =
        split == std::string_view::npos
            ? a
            : analyse(input.substr(split + kSeparator.size()), QStringLiteral("b.jsonl"));
    if (!b)
        return 0;

    CompareAlignment alignment;
    if (size % 2 == 1) {
        alignment.mode = CompareAlignment::Mode::Phase;
        const std::vector<QString> labels = phaseLabelsOf(*a);
        alignment.phaseLabel = labels.empty() ? QStringLiteral("step") : labels.front();
        fuzz::require(CompareAlignment::fromString(alignment.toString()).has_value(),
                      "an alignment does not read back from its text");
    }
    QString error;
    const std::optional<TraceComparison> comparison = compareAnalyses(a, b, alignment, &error);
    if (!comparison) {
        fuzz::require(!error.isEmpty(), "a comparison that failed without saying why");
        return 0;
    }
    size_t counted = 0;
    for (const FindingChange change :
         {FindingChange::New, FindingChange::Gone, FindingChange::Changed, FindingChange::Unchanged})
        counted += comparison->count(change);
    fuzz::require(counted == comparison->findings.size(), "the changes do not add up to the findings");
    for (const FindingComparison& finding : comparison->findings) {
        const bool inA = finding.a.has_value(), inB = finding.b.has_value();
        fuzz::require(inA || inB, "a finding compared on neither side");
        fuzz::require(finding.change != FindingChange::New || (!inA && inB), "a new finding that A has");
        fuzz::require(finding.change != FindingChange::Gone || (inA && !inB), "a gone finding that B has");
        fuzz::require(
            (finding.change != FindingChange::Changed && finding.change != FindingChange::Unchanged) ||
                (inA && inB),
            "a finding compared on both sides that one side lacks");
    }
    for (const ComparedSide* side : {&comparison->a, &comparison->b}) {
        const std::vector<AlignedGapPoint> series = TraceComparison::alignedGapSeries(*side);
        for (size_t i = 1; i < series.size(); ++i)
            fuzz::require(series[i - 1].offsetNs <= series[i].offsetNs,
                          "an aligned gap series out of time order");
    }

    const QByteArray json = renderComparisonJson(*comparison);
    fuzz::parsedJson(std::string_view(json.constData(), size_t(json.size())), "the comparison's JSON");
    if (const QString problem =
            checks::markdownProblem(QString::fromUtf8(renderComparisonMarkdown(*comparison)));
        !problem.isEmpty()) {
        std::fprintf(stderr, "comparison Markdown: %s\n", qPrintable(problem));
        fuzz::require(false, "the comparison's Markdown is not well formed");
    }
    return 0;
}
