// libFuzzer target: Python-literal metadata cells of CSV traces. Whatever converts must be
// valid JSON when the input is valid UTF-8 (the CSV reader hands it to simdjson).
#include "model/trace/PyLiteral.h"

#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    const auto json = gapscope::pythonLiteralToJson(text, &error);
    if (!json) {
        if (error.empty()) {
            std::fprintf(stderr, "pythonLiteralToJson failed without saying why\n");
            std::abort();
        }
        return 0;
    }
    if (!simdjson::validate_utf8(text.data(), text.size()))
        return 0;
    static simdjson::dom::parser parser;
    simdjson::dom::element element;
    if (auto failure = parser.parse(*json).get(element)) {
        // 1e400 is a JSON number simdjson cannot hold; that is refused later, not invalid text.
        if (failure == simdjson::NUMBER_ERROR)
            return 0;
        std::fprintf(stderr, "converted literal is not JSON (%s): %s\n", simdjson::error_message(failure),
                     json->c_str());
        std::abort();
    }
    return 0;
}
