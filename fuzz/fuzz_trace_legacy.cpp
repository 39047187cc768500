// libFuzzer target: legacy records (no schema_version; OOM dump events.json). The bytes go
// to loadTraceBytes and, when it did not load them as JSON lines or legacy records, bypassing
// form detection to the JSON lines reader with the record parser, so every line reaches the
// legacy field rules.
#include "fuzz/FuzzSupport.h"

#include "model/trace/JsonDocumentReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const LoadOutcome outcome = loadTraceBytes(input, std::nullopt, QStringLiteral("events.json"));
    fuzz::checkTraceOutcome(outcome);
    // Records the pipeline loaded as JSON lines or legacy records went through the line reader
    // and the legacy rules already; the direct read below is for the inputs it turned away.
    if (outcome.data &&
        (outcome.data->form == TraceForm::JsonLines || outcome.data->form == TraceForm::Legacy))
        return 0;

    const simdjson::padded_string text(reinterpret_cast<const char*>(data), size);
    detail::EventRecordParser parser(QStringLiteral("events.jsonl"));
    detail::EventChunk chunk;
    fuzz::require(detail::parseJsonLinesRange(text.data(), 0, text.size(),
                                              text.size() + simdjson::SIMDJSON_PADDING, 1, true, parser,
                                              chunk, {}),
                  "parseJsonLinesRange without a cancel flag reports cancelled");
    // Every non-blank line is one record: loaded, or rejected with a problem of its own.
    fuzz::require(chunk.store.size() + static_cast<size_t>(chunk.problems.errorCount()) + 1 >=
                      static_cast<size_t>(chunk.recordsRead),
                  "a line was neither loaded nor reported");
    return 0;
}
