// Writes large benchmark inputs (never committed; bench/run.sh puts them under /tmp).
//
//   gapscope_gen jsonl  SAMPLES OUT      schema 3 JSON lines, one session, rank 0
//   gapscope_gen array  SAMPLES OUT      the same events as one JSON array
//   gapscope_gen csv    SAMPLES OUT      the same events as CSV
//   gapscope_gen sink   SAMPLES OUTDIR   a sink directory (manifest + 64 MB segments)
//   gapscope_gen budget-text TICKS FIXTURE OUT   budget ticks: FIXTURE's ticks repeated with new times
//   gapscope_gen budget-json TICKS FIXTURE OUT   (tracing JSON lines; the fixture decides the form)
//
// The gap between device_used and allocator_reserved drifts slowly with noise and an occasional
// spike, so the analysis has real work to do. Plain C++, no Qt.

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int64_t kStartNs = 1'796'000'000'000'000'000;
constexpr int64_t kStepNs = 10'000'000; // 100 Hz sampling
constexpr int64_t kTotal = 80LL << 30;
const char* const kSession = "5f0c2d4e-8a1b-4c3d-9e7f-0123456789ab";

struct Sample
{
    int64_t ts, allocated, reserved, active, inactive, change, used, free;
};

class SampleSource
{
public:
    Sample next(int64_t i)
    {
        m_state = m_state * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto noise = static_cast<int64_t>((m_state >> 33) % (64ULL << 20));
        const int64_t allocated = (20LL << 30) + ((i % 100'000) << 12) + noise;
        const int64_t reserved = allocated + (2LL << 30) + noise / 2;
        int64_t gap = (1LL << 30) + i * 64 + noise / 4; // slow drift
        if (i % 250'000 == 1000)
            gap += 8LL << 30; // a spike now and then
        const int64_t used = std::min<int64_t>(reserved + gap, kTotal);
        const Sample s{kStartNs + i * kStepNs,
                       allocated,
                       reserved,
                       allocated + noise / 8,
                       reserved - allocated,
                       allocated - m_previousAllocated,
                       used,
                       kTotal - used};
        m_previousAllocated = allocated;
        return s;
    }

private:
    uint64_t m_state = 42;
    int64_t m_previousAllocated = 20LL << 30;
};

int writeJsonLike(const char* form, int64_t samples, const std::string& out)
{
    const bool array = std::strcmp(form, "array") == 0;
    const bool csv = std::strcmp(form, "csv") == 0;
    FILE* file = std::fopen(out.c_str(), "wb");
    if (!file) {
        std::perror(out.c_str());
        return 1;
    }
    std::vector<char> buffer(1 << 20);
    std::setvbuf(file, buffer.data(), _IOFBF, buffer.size());
    if (csv)
        std::fputs(
            "schema_version,session_id,timestamp_ns,event_type,collector,sampling_interval_ms,pid,host,"
            "job_id,rank,local_rank,world_size,device_id,allocator_allocated_bytes,"
            "allocator_reserved_bytes,allocator_active_bytes,allocator_inactive_bytes,"
            "allocator_change_bytes,device_used_bytes,device_free_bytes,device_total_bytes,context,"
            "metadata\n",
            file);
    if (array)
        std::fputs("[\n", file);
    SampleSource source;
    for (int64_t i = 0; i < samples; ++i) {
        const Sample s = source.next(i);
        if (csv) {
            std::fprintf(file,
                         "3,%s,%" PRId64 ",sample,stormlog.cuda,10,4242,gpu-node-7,,0,0,1,0,%" PRId64
                         ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                         ",,{}\n",
                         kSession, s.ts, s.allocated, s.reserved, s.active, s.inactive, s.change, s.used,
                         s.free, kTotal);
            continue;
        }
        std::fprintf(file,
                     "%s{\"schema_version\":3,\"session_id\":\"%s\",\"timestamp_ns\":%" PRId64
                     ",\"event_type\":\"sample\",\"collector\":\"stormlog.cuda\",\"sampling_interval_ms\":10,"
                     "\"pid\":4242,\"host\":\"gpu-node-7\",\"job_id\":null,\"rank\":0,\"local_rank\":0,"
                     "\"world_size\":1,\"device_id\":0,\"allocator_allocated_bytes\":%" PRId64
                     ",\"allocator_reserved_bytes\":%" PRId64 ",\"allocator_active_bytes\":%" PRId64
                     ",\"allocator_inactive_bytes\":%" PRId64 ",\"allocator_change_bytes\":%" PRId64
                     ",\"device_used_bytes\":%" PRId64 ",\"device_free_bytes\":%" PRId64
                     ",\"device_total_bytes\":%" PRId64 ",\"context\":null,\"metadata\":{}}%s\n",
                     array && i > 0 ? "," : "", kSession, s.ts, s.allocated, s.reserved, s.active, s.inactive,
                     s.change, s.used, s.free, kTotal, "");
    }
    if (array)
        std::fputs("]\n", file);
    return std::fclose(file) == 0 ? 0 : 1;
}

int writeSink(int64_t samples, const std::filesystem::path& dir)
{
    std::filesystem::create_directories(dir);
    constexpr int64_t kPerSegment = 160'000; // ~64 MB per segment
    std::vector<std::pair<std::string, int64_t>> segments;
    SampleSource source;
    for (int64_t first = 0, n = 1; first < samples; first += kPerSegment, ++n) {
        char name[64];
        std::snprintf(name, sizeof name, "segment-%06" PRId64 ".jsonl", n);
        FILE* file = std::fopen((dir / name).c_str(), "wb");
        if (!file)
            return 1;
        const int64_t last = std::min(samples, first + kPerSegment);
        for (int64_t i = first; i < last; ++i) {
            const Sample s = source.next(i);
            std::fprintf(
                file,
                "{\"schema_version\":3,\"session_id\":\"%s\",\"timestamp_ns\":%" PRId64
                ",\"event_type\":\"sample\",\"collector\":\"stormlog.cuda\",\"sampling_interval_ms\":10,"
                "\"pid\":4242,\"host\":\"gpu-node-7\",\"rank\":0,\"world_size\":1,"
                "\"allocator_allocated_bytes\":%" PRId64 ",\"allocator_reserved_bytes\":%" PRId64
                ",\"allocator_active_bytes\":%" PRId64 ",\"allocator_inactive_bytes\":%" PRId64
                ",\"allocator_change_bytes\":%" PRId64 ",\"device_used_bytes\":%" PRId64
                ",\"device_free_bytes\":%" PRId64 ",\"device_total_bytes\":%" PRId64 ",\"metadata\":{}}\n",
                kSession, s.ts, s.allocated, s.reserved, s.active, s.inactive, s.change, s.used, s.free,
                kTotal);
        }
        std::fclose(file);
        segments.emplace_back(name, last - first);
    }
    std::ofstream manifest(dir / "manifest.json");
    manifest << "{\"schema_version\":2,\"format\":\"stormlog.append_only_telemetry_sink\",\"sessions\":[{"
             << "\"session_id\":\"" << kSession << "\",\"status\":\"completed\",\"host\":\"gpu-node-7\","
             << "\"pid\":4242,\"rank\":0}],\"segments\":[";
    for (size_t i = 0; i < segments.size(); ++i)
        manifest << (i ? "," : "") << "{\"filename\":\"" << segments[i].first
                 << "\",\"event_count\":" << segments[i].second << ",\"session_id\":\"" << kSession << "\"}";
    manifest << "]}\n";
    return manifest ? 0 : 1;
}

// RFC 3339 time of tick k (one tick per second from 2026-11-30T00:00:00Z).
std::string tickTime(int64_t k)
{
    const std::time_t t = 1'796'000'000 + static_cast<std::time_t>(k);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S.000000Z", &utc);
    return text;
}

// Repeats the fixture's ticks: every line's timestamp (the first RFC 3339 time on the line) is
// replaced by the time of its tick; a new tick starts whenever the fixture's time changes.
int writeBudget(int64_t ticks, const std::string& fixture, const std::string& out)
{
    std::ifstream in(fixture);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    if (lines.empty()) {
        std::cerr << fixture << ": empty or unreadable\n";
        return 1;
    }
    auto timeOf = [](const std::string& line, size_t* at) {
        const size_t pos = line.find("20");
        *at = pos;
        if (pos == std::string::npos)
            return std::string();
        size_t end = pos;
        while (end < line.size() && line[end] != ' ' && line[end] != '"')
            ++end;
        return line.substr(pos, end - pos);
    };
    FILE* file = std::fopen(out.c_str(), "wb");
    if (!file)
        return 1;
    int64_t tick = -1;
    std::string previous;
    while (tick < ticks) {
        for (const std::string& line : lines) {
            size_t at = 0;
            const std::string time = timeOf(line, &at);
            if (time.empty())
                continue;
            if (time != previous) {
                previous = time;
                if (++tick >= ticks)
                    break;
            }
            std::string copy = line;
            copy.replace(at, time.size(), tickTime(tick));
            std::fputs(copy.c_str(), file);
            std::fputc('\n', file);
        }
        previous.clear();
    }
    return std::fclose(file) == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::cerr << "usage: gapscope_gen jsonl|array|csv|sink SAMPLES OUT\n"
                     "       gapscope_gen budget-text|budget-json TICKS FIXTURE OUT\n";
        return 2;
    }
    const std::string form = argv[1];
    const int64_t count = std::strtoll(argv[2], nullptr, 10);
    if (form == "jsonl" || form == "array" || form == "csv")
        return writeJsonLike(argv[1], count, argv[3]);
    if (form == "sink")
        return writeSink(count, argv[3]);
    if ((form == "budget-text" || form == "budget-json") && argc >= 5)
        return writeBudget(count, argv[3], argv[4]);
    std::cerr << "unknown form " << form << "\n";
    return 2;
}
