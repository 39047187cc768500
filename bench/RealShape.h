#pragma once
// Benchmark records in the shape stormlog really writes (plain C++, no Qt; used by gapscope_gen
// and by tst_realshape, which checks that every form of them loads as the same events).
//
// A CUDA tracker run: samples of the allocator and device counters with a context string and
// the metadata every tracker event carries (the collector's health and capabilities), now and
// then an allocation or deallocation event with its size in the context, a usage warning with a
// float in its metadata, and phase_enter / phase_exit pairs whose metadata holds a nested
// phase_scope. A CPU run (cpu = true) writes what the CPU tracker writes: device -1, null
// active/inactive/free/total counters, so that it has no usable sample.
//
// The forms, as upstream writes them:
//   sink segments and JSON lines: json.dumps(record, sort_keys=True) - keys sorted at every
//     level, ", " and ": " between items;
//   JSON array (the tracker's export): json.dump(events, indent=2) - keys in the record's own
//     order, two spaces per level, no newline after the closing bracket;
//   CSV: one column per field, empty cell for null, metadata as Python's repr of the dict,
//     cells with a comma or a quote quoted ("" inside).

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gapscope::bench {

// A JSON value whose objects keep their keys in insertion order (as a Python dict does).
struct Json
{
    struct Null
    {
    };
    struct Number
    {
        std::string text; // as Python writes it
    };
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;
    std::variant<Null, bool, Number, std::string, Array, Object> value;

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool b) : value(b) {}
    Json(int64_t i) : value(Number{std::to_string(i)}) {}
    Json(int i) : value(Number{std::to_string(i)}) {}
    Json(double d) : value(Number{shortest(d)}) {}
    Json(const char* s) : value(std::string(s)) {}
    Json(std::string s) : value(std::move(s)) {}
    Json(Array a) : value(std::move(a)) {}
    Json(Object o) : value(std::move(o)) {}

    // Python's repr of a float for the values written here (shortest round trip, ".0" added).
    static std::string shortest(double d)
    {
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, d).ptr;
        std::string s(text, end);
        if (s.find_first_of(".en") == std::string::npos)
            s += ".0";
        return s;
    }
};

enum class JsonStyle
{
    SortedLine, // json.dumps(sort_keys=True)
    Indented,   // json.dumps(indent=2)
    PythonRepr, // repr(dict): single quotes, True/False/None
};

inline void appendQuoted(std::string& out, const std::string& s, char quote)
{
    out += quote;
    for (char c : s) {
        if (c == quote || c == '\\')
            out += '\\';
        out += c;
    }
    out += quote;
}

inline void appendJson(std::string& out, const Json& json, JsonStyle style, int depth = 0)
{
    const char quote = style == JsonStyle::PythonRepr ? '\'' : '"';
    auto newline = [&](int level) {
        if (style == JsonStyle::Indented) {
            out += '\n';
            out.append(static_cast<size_t>(2 * level), ' ');
        }
    };
    const char* itemSeparator = style == JsonStyle::Indented ? "," : ", ";
    if (std::holds_alternative<Json::Null>(json.value)) {
        out += style == JsonStyle::PythonRepr ? "None" : "null";
    } else if (const bool* b = std::get_if<bool>(&json.value)) {
        out += style == JsonStyle::PythonRepr ? (*b ? "True" : "False") : (*b ? "true" : "false");
    } else if (const auto* n = std::get_if<Json::Number>(&json.value)) {
        out += n->text;
    } else if (const auto* s = std::get_if<std::string>(&json.value)) {
        appendQuoted(out, *s, quote);
    } else if (const auto* a = std::get_if<Json::Array>(&json.value)) {
        out += '[';
        for (size_t i = 0; i < a->size(); ++i) {
            if (i > 0)
                out += itemSeparator;
            newline(depth + 1);
            appendJson(out, (*a)[i], style, depth + 1);
        }
        if (!a->empty())
            newline(depth);
        out += ']';
    } else if (const auto* o = std::get_if<Json::Object>(&json.value)) {
        std::vector<const std::pair<std::string, Json>*> items;
        for (const auto& item : *o)
            items.push_back(&item);
        if (style == JsonStyle::SortedLine)
            std::sort(items.begin(), items.end(), [](auto* x, auto* y) { return x->first < y->first; });
        out += '{';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i > 0)
                out += itemSeparator;
            newline(depth + 1);
            appendQuoted(out, items[i]->first, quote);
            out += ": ";
            appendJson(out, items[i]->second, style, depth + 1);
        }
        if (!items.empty())
            newline(depth);
        out += '}';
    }
}

inline constexpr int64_t kStartNs = 1'796'000'000'000'000'000;
inline constexpr int64_t kStepNs = 10'000'000; // 100 Hz sampling
inline constexpr int64_t kDeviceTotal = 80LL << 30;
inline constexpr const char* kSessionId = "5f0c2d4e-8a1b-4c3d-9e7f-0123456789ab";
inline constexpr int64_t kPid = 4242;
inline constexpr const char* kHost = "gpu-node-7";

// The counters of sample i: the gap between device_used and allocator_reserved drifts slowly
// with noise and an occasional spike, so the analysis has real work to do.
struct Counters
{
    int64_t ts, allocated, reserved, active, inactive, change, used, free;
};

class CounterSource
{
public:
    Counters next(int64_t i)
    {
        m_state = m_state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto noise = static_cast<int64_t>((m_state >> 33) % (64ULL << 20));
        const int64_t allocated = (20LL << 30) + ((i % 100'000) << 12) + noise;
        const int64_t reserved = allocated + (2LL << 30) + noise / 2;
        int64_t gap = (1LL << 30) + i * 64 + noise / 4; // slow drift
        if (i % 250'000 == 1500)
            gap += 8LL << 30; // a spike now and then
        const int64_t used = std::min<int64_t>(reserved + gap, kDeviceTotal);
        const Counters c{kStartNs + i * kStepNs,
                         allocated,
                         reserved,
                         allocated + noise / 8,
                         reserved - allocated,
                         allocated - m_previousAllocated,
                         used,
                         kDeviceTotal - used};
        m_previousAllocated = allocated;
        return c;
    }

private:
    uint64_t m_state = 42;
    int64_t m_previousAllocated = 20LL << 30;
};

// stormlog's format_bytes: "1.50 GB".
inline std::string formatBytes(int64_t bytes)
{
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes < 0 ? -bytes : bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
    return text;
}

// The records of a run, one per call of next(); every 1000 records a phase span "train/step".
class RealShapeSource
{
public:
    explicit RealShapeSource(bool cpu = false) : m_cpu(cpu) {}

    // The record of event i (0, 1, 2, ...), keys in the order upstream's dict has them.
    Json::Object next(int64_t i)
    {
        const Counters c = m_counters.next(i);
        std::string type = "sample";
        std::string context = m_cpu ? "CPU memory sample" : "Collected telemetry sample.";
        int64_t change = 0;
        Json::Object metadata;
        const int64_t inSpan = i % 1000;
        if (inSpan == 0 || inSpan == 999) {
            const bool enter = inSpan == 0;
            type = enter ? "phase_enter" : "phase_exit";
            context = std::string(enter ? "Phase entered" : "Phase exited") + ": step";
            const int64_t span = i / 1000;
            metadata.emplace_back("phase_scope", Json::Object{{"action", enter ? "enter" : "exit"},
                                                              {"name", "step"},
                                                              {"path", Json::Array{"train", "step"}},
                                                              {"depth", 2},
                                                              {"scope_id", std::string(kSessionId) + ":" +
                                                                               std::to_string(span + 1)},
                                                              {"parent_scope_id", nullptr},
                                                              {"thread_id", int64_t(139723376164928)},
                                                              {"thread_name", "MainThread"},
                                                              {"sequence", 2 * span + (enter ? 1 : 2)}});
        } else if (i % 50 == 7 || i % 50 == 31) {
            change = i % 50 == 7 ? (int64_t(i % 97) + 1) << 20 : -((int64_t(i % 89) + 1) << 20);
            type = change > 0 ? "allocation" : "deallocation";
            context = (change > 0 ? "Memory allocated: " : "Memory freed: ") + formatBytes(change);
        } else if (i % 5000 == 2500) {
            const double percent = 80.0 + double(i % 64) / 4;
            type = "warning";
            char text[64];
            std::snprintf(text, sizeof text, "WARNING: Memory usage at %.1f%%", percent);
            context = text;
            metadata.emplace_back("usage_percent", percent);
        }
        if (!m_cpu) {
            metadata.emplace_back("collector_health_status", "healthy");
            metadata.emplace_back("telemetry_partial", false);
            metadata.emplace_back("collector_partial_fields", Json::Array{});
            metadata.emplace_back("collector_last_error", nullptr);
            metadata.emplace_back("collector_consecutive_failures", 0);
            metadata.emplace_back("collector_next_retry_epoch_s", nullptr);
            metadata.emplace_back("backend", "cuda");
            metadata.emplace_back("supports_device_total", true);
            metadata.emplace_back("supports_device_free", true);
            metadata.emplace_back("sampling_source", "torch.cuda.memory_stats");
        }
        auto nullable = [this](int64_t v) { return m_cpu ? Json(nullptr) : Json(v); };
        return Json::Object{
            {"schema_version", 3},
            {"session_id", kSessionId},
            {"timestamp_ns", c.ts},
            {"event_type", type},
            {"collector", m_cpu ? "stormlog.cpu_tracker" : "stormlog.cuda_tracker"},
            {"sampling_interval_ms", 10},
            {"pid", kPid},
            {"host", kHost},
            {"job_id", nullptr},
            {"rank", 0},
            {"local_rank", 0},
            {"world_size", 1},
            {"device_id", m_cpu ? -1 : 0},
            {"allocator_allocated_bytes", c.allocated},
            {"allocator_reserved_bytes", m_cpu ? c.allocated : c.reserved},
            {"allocator_active_bytes", nullable(c.active)},
            {"allocator_inactive_bytes", nullable(c.inactive)},
            {"allocator_change_bytes", change},
            {"device_used_bytes", c.used},
            {"device_free_bytes", nullable(c.free)},
            {"device_total_bytes", nullable(kDeviceTotal)},
            {"context", context},
            {"metadata", std::move(metadata)},
        };
    }

private:
    CounterSource m_counters;
    bool m_cpu = false;
};

// One JSON lines record (sink segment, JSON lines trace), with its newline.
inline void appendSortedLine(std::string& out, const Json::Object& record)
{
    appendJson(out, Json(record), JsonStyle::SortedLine);
    out += '\n';
}

// The CSV header of the tracker's export.
inline std::string csvHeader(const Json::Object& record)
{
    std::string header;
    for (const auto& [key, value] : record)
        header += (header.empty() ? "" : ",") + key;
    return header + "\n";
}

// One CSV row: null as an empty cell, metadata as Python's repr, quoted where csv.writer quotes.
inline void appendCsvRow(std::string& out, const Json::Object& record)
{
    bool first = true;
    for (const auto& [key, value] : record) {
        if (!first)
            out += ',';
        first = false;
        std::string cell;
        if (const auto* s = std::get_if<std::string>(&value.value))
            cell = *s;
        else if (!std::holds_alternative<Json::Null>(value.value))
            appendJson(cell, value, JsonStyle::PythonRepr);
        if (cell.find_first_of(",\"\r\n") == std::string::npos) {
            out += cell;
            continue;
        }
        out += '"';
        for (char c : cell) {
            if (c == '"')
                out += '"';
            out += c;
        }
        out += '"';
    }
    out += '\n';
}

// One element of the tracker's JSON array export (indent 2), without the separator.
inline void appendArrayElement(std::string& out, const Json::Object& record)
{
    out += "  ";
    std::string element;
    appendJson(element, Json(record), JsonStyle::Indented, 1);
    out += element;
}

enum class RealForm
{
    JsonLines,
    JsonArray,
    Csv,
    Sink, // a folder: manifest.json and segment-NNNNNN.jsonl files of perSegment records each
};

// Writes `records` records of a run in `form` to `path` (a folder for Sink). False when a file
// cannot be written.
inline bool writeRealShape(RealForm form, int64_t records, const std::string& path, bool cpu = false,
                           int64_t perSegment = 64'000)
{
    RealShapeSource source(cpu);
    std::string text;
    auto flush = [&text](FILE* file, bool force) {
        if (!force && text.size() < (size_t(1) << 20))
            return true;
        const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
        text.clear();
        return ok;
    };
    if (form == RealForm::Sink) {
        std::error_code error;
        std::filesystem::create_directories(path, error);
        std::string manifestSegments;
        for (int64_t first = 0, n = 1; first < records || n == 1; first += perSegment, ++n) {
            char name[64];
            std::snprintf(name, sizeof name, "segment-%06" PRId64 ".jsonl", n);
            FILE* file = std::fopen((path + "/" + name).c_str(), "wb");
            if (!file)
                return false;
            const int64_t last = std::min(records, first + perSegment);
            bool ok = true;
            for (int64_t i = first; i < last && ok; ++i) {
                appendSortedLine(text, source.next(i));
                ok = flush(file, false);
            }
            ok = ok && flush(file, true);
            const auto bytes = static_cast<int64_t>(std::ftell(file));
            ok = std::fclose(file) == 0 && ok;
            if (!ok)
                return false;
            manifestSegments +=
                std::string(manifestSegments.empty() ? "" : ",") + "\n    {\n      \"filename\": \"" + name +
                "\",\n      \"event_count\": " + std::to_string(last - first) +
                ",\n      \"size_bytes\": " + std::to_string(bytes) +
                ",\n      \"closed\": true,\n      \"session_id\": \"" + kSessionId + "\"\n    }";
            if (last >= records)
                break;
        }
        FILE* manifest = std::fopen((path + "/manifest.json").c_str(), "wb");
        if (!manifest)
            return false;
        const std::string end = std::to_string(kStartNs + records * kStepNs);
        text =
            std::string(
                "{\n  \"schema_version\": 2,\n  \"format\": \"stormlog.append_only_telemetry_sink\",\n") +
            "  \"sessions\": [\n    {\n      \"session_id\": \"" + kSessionId +
            "\",\n      \"status\": \"completed\",\n      \"started_at_ns\": " + std::to_string(kStartNs) +
            ",\n      \"ended_at_ns\": " + end + ",\n      \"host\": \"" + kHost +
            "\",\n      \"pid\": " + std::to_string(kPid) +
            ",\n      \"job_id\": null,\n      \"rank\": 0,\n      \"local_rank\": 0,\n      \"world_size\": "
            "1,\n      \"source\": \"stormlog.tracker\"\n    }\n  ],\n  \"segments\": [" +
            manifestSegments + "\n  ]\n}";
        const bool ok = flush(manifest, true);
        return std::fclose(manifest) == 0 && ok;
    }
    FILE* file = std::fopen(path.c_str(), "wb");
    if (!file)
        return false;
    bool ok = true;
    if (form == RealForm::JsonArray)
        text += "[\n";
    for (int64_t i = 0; i < records && ok; ++i) {
        const Json::Object record = source.next(i);
        switch (form) {
        case RealForm::JsonLines:
            appendSortedLine(text, record);
            break;
        case RealForm::JsonArray:
            if (i > 0)
                text += ",\n";
            appendArrayElement(text, record);
            break;
        case RealForm::Csv:
            if (i == 0)
                text += csvHeader(record);
            appendCsvRow(text, record);
            break;
        case RealForm::Sink:
            break;
        }
        ok = flush(file, false);
    }
    if (form == RealForm::JsonArray)
        text += records > 0 ? "\n]" : "]";
    ok = ok && flush(file, true);
    return std::fclose(file) == 0 && ok;
}

} // namespace gapscope::bench
