// libFuzzer target: a job's analyses and its report (gapscope analyze A [B C] --format json, the
// job page). The input is one trace, or up to four cut at "\n--input--\n" (fuzz::jobInputs without
// halving), so a job of one input (its ranks are the job) is as near as a job of several. They go
// through loadJobBytes, analyzeJobDocument (every rank's gap analysis), the cross-rank and
// collective analyses, and the JSON report. Whatever the content, when the job loads:
// - there is one rank analysis per rank, none for a missing rank, or a failure that says why;
// - the cross-rank analysis is there exactly when there are several ranks;
// - the report JSON parses (simdjson: strict JSON, integers kept exact) and its "ranks" are the
//   job's, in the same order.
// The job's own invariants are fuzz_job's.
#include "fuzz/FuzzSupport.h"

#include "model/document/Document.h"
#include "model/job/JobAnalysis.h"
#include "model/job/JobLoader.h"
#include "model/report/ReportWriters.h"

#include <simdjson.h>

namespace {

using namespace gapscope;

void checkReportRanks(const QByteArray& report, const JobData& job)
{
    const simdjson::dom::element root = fuzz::parsedJson(
        std::string_view(report.constData(), size_t(report.size())), "the job's JSON report");
    simdjson::dom::array ranks;
    fuzz::require(!root["ranks"].get(ranks), "the job's JSON report has no ranks array");
    size_t i = 0;
    for (simdjson::dom::element rank : ranks) {
        int64_t number = 0;
        fuzz::require(!rank["rank"].get(number), "a report rank without an integer rank");
        fuzz::require(i < job.ranks.size() && number == job.ranks[i].rank,
                      "the report's ranks are not the job's");
        ++i;
    }
    fuzz::require(i == job.ranks.size(), "the report leaves out ranks of the job");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const JobOutcome loaded = loadJobBytes(fuzz::jobInputs(input, false));
    fuzz::require((loaded.job == nullptr) != loaded.fatalError.isEmpty(),
                  "a job outcome is exactly one of a job or a fatal error");
    if (!loaded.job)
        return 0;
    const JobData& job = *loaded.job;

    const DocumentAnalysis analysis = analyzeJobDocument(loaded.job, DocumentRequest{});
    if (!analysis.ok()) {
        fuzz::require(!analysis.error.isEmpty(), "a job analysis that failed without saying why");
        return 0;
    }
    fuzz::require(analysis.ranks.size() == job.ranks.size(), "not one rank analysis per rank");
    for (size_t i = 0; i < job.ranks.size(); ++i)
        fuzz::require(job.ranks[i].present || analysis.ranks[i] == nullptr, "a missing rank was analysed");

    const std::shared_ptr<const JobAnalysisResult> crossRank = analysis.jobAnalysis();
    fuzz::require(crossRank != nullptr, "a job without its cross-rank analyses");
    fuzz::require(crossRank->crossRank.has_value() == (crossRank->rankCount > 1),
                  "the cross-rank analysis is there exactly when there are several ranks");
    checkReportRanks(reportJson(analysis.reportContent(true)), job);
    return 0;
}
