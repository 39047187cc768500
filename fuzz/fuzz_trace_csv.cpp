// libFuzzer target: CSV traces. The whole pipeline through loadTraceBytes, and the CSV reader
// directly (detail::parseCsv) so inputs whose header detection rejects still reach it.
#include "fuzz/FuzzSupport.h"

#include "model/trace/Csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    fuzz::checkTraceOutcome(loadTraceBytes(input, std::nullopt, QStringLiteral("trace.csv")));

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
