// libFuzzer target: CSV traces. The whole pipeline through loadTraceBytes and, when form
// detection does not take the bytes for CSV, the CSV reader directly (detail::parseCsv), so
// inputs whose header detection rejects still reach it.
#include "fuzz/FuzzSupport.h"

#include "model/trace/Csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const bool detectedAsCsv = detectTraceBytesForm(input) == TraceForm::Csv;
    const LoadOutcome outcome = loadTraceBytes(input, std::nullopt, QStringLiteral("trace.csv"));
    fuzz::checkTraceOutcome(outcome);
    // What the pipeline read as CSV went through the CSV reader already (reading it again
    // directly was a fifth of the target's time; docs/robustness.md).
    if (detectedAsCsv) {
        if (outcome.data)
            fuzz::require(outcome.data->store.size() +
                                  static_cast<size_t>(outcome.data->problems.errorCount()) >=
                              static_cast<size_t>(outcome.data->recordsRead),
                          "a CSV row was neither loaded nor rejected with an error");
        return 0;
    }

    const simdjson::padded_string text(reinterpret_cast<const char*>(data), size);
    detail::EventRecordParser parser(QStringLiteral("trace.csv"));
    detail::EventChunk chunk;
    fuzz::require(detail::parseCsv(std::string_view(text.data(), text.size()), parser, chunk, {}),
                  "parseCsv without a cancel flag reports cancelled");
    fuzz::require(static_cast<qint64>(chunk.store.size()) <= chunk.recordsRead,
                  "CSV rows loaded without a read");
    fuzz::require(chunk.store.size() + static_cast<size_t>(chunk.problems.errorCount()) >=
                      static_cast<size_t>(chunk.recordsRead),
                  "a CSV row was neither loaded nor rejected with an error");
    return 0;
}
