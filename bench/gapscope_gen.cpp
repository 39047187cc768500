// Writes large benchmark inputs (never committed; bench/run.sh puts them under /tmp).
//
// The events are those stormlog's CUDA tracker writes, in its own forms (see RealShape.h):
//   gapscope_gen jsonl  EVENTS OUT      JSON lines as the sink writes them (sorted keys, spaces)
//   gapscope_gen array  EVENTS OUT      the same events as the tracker's JSON export (indent 2)
//   gapscope_gen csv    EVENTS OUT      the same events as the tracker's CSV export
//   gapscope_gen sink   EVENTS OUTDIR [PER_SEGMENT]   a sink directory (manifest + segments of
//                                        PER_SEGMENT events, default 64 000: ~64 MB)
//   gapscope_gen cpu-jsonl EVENTS OUT   JSON lines of a CPU tracker run (null device counters)
//   gapscope_gen compact-jsonl SAMPLES OUT   the bench's former shape: compact JSON lines of
//                                        samples only, no context, empty metadata
//   gapscope_gen budget-text TICKS FIXTURE OUT   budget ticks: FIXTURE's ticks repeated with new times
//   gapscope_gen budget-json TICKS FIXTURE OUT   (tracing JSON lines; the fixture decides the form)
//
// Plain C++, no Qt.

#include "bench/RealShape.h"

#include <algorithm>
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

using namespace gapscope::bench;

// The bench's first shape, kept as one extra case: compact JSON lines (no spaces), fixed key
// order, no context, empty metadata. Not what stormlog writes (see RealShape.h).
int writeCompactJsonLines(int64_t samples, const std::string& out)
{
    FILE* file = std::fopen(out.c_str(), "wb");
    if (!file) {
        std::perror(out.c_str());
        return 1;
    }
    std::vector<char> buffer(1 << 20);
    std::setvbuf(file, buffer.data(), _IOFBF, buffer.size());
    CounterSource source;
    for (int64_t i = 0; i < samples; ++i) {
        const Counters s = source.next(i);
        std::fprintf(file,
                     "{\"schema_version\":3,\"session_id\":\"%s\",\"timestamp_ns\":%" PRId64
                     ",\"event_type\":\"sample\",\"collector\":\"stormlog.cuda\",\"sampling_interval_ms\":10,"
                     "\"pid\":4242,\"host\":\"gpu-node-7\",\"job_id\":null,\"rank\":0,\"local_rank\":0,"
                     "\"world_size\":1,\"device_id\":0,\"allocator_allocated_bytes\":%" PRId64
                     ",\"allocator_reserved_bytes\":%" PRId64 ",\"allocator_active_bytes\":%" PRId64
                     ",\"allocator_inactive_bytes\":%" PRId64 ",\"allocator_change_bytes\":%" PRId64
                     ",\"device_used_bytes\":%" PRId64 ",\"device_free_bytes\":%" PRId64
                     ",\"device_total_bytes\":%" PRId64 ",\"context\":null,\"metadata\":{}}\n",
                     kSessionId, s.ts, s.allocated, s.reserved, s.active, s.inactive, s.change, s.used,
                     s.free, kDeviceTotal);
    }
    return std::fclose(file) == 0 ? 0 : 1;
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
        std::cerr << "usage: gapscope_gen jsonl|array|csv|sink|cpu-jsonl|compact-jsonl EVENTS OUT\n"
                     "       gapscope_gen budget-text|budget-json TICKS FIXTURE OUT\n";
        return 2;
    }
    const std::string form = argv[1];
    const int64_t count = std::strtoll(argv[2], nullptr, 10);
    const std::string out = argv[3];
    auto written = [&out](bool ok) {
        if (!ok)
            std::perror(out.c_str());
        return ok ? 0 : 1;
    };
    if (form == "jsonl")
        return written(writeRealShape(RealForm::JsonLines, count, out));
    if (form == "array")
        return written(writeRealShape(RealForm::JsonArray, count, out));
    if (form == "csv")
        return written(writeRealShape(RealForm::Csv, count, out));
    if (form == "sink")
        return written(argc >= 5 ? writeRealShape(RealForm::Sink, count, out, false,
                                                  std::max<int64_t>(std::strtoll(argv[4], nullptr, 10), 1))
                                 : writeRealShape(RealForm::Sink, count, out));
    if (form == "cpu-jsonl")
        return written(writeRealShape(RealForm::JsonLines, count, out, true));
    if (form == "compact-jsonl")
        return writeCompactJsonLines(count, out);
    if ((form == "budget-text" || form == "budget-json") && argc >= 5)
        return writeBudget(count, argv[3], argv[4]);
    std::cerr << "unknown form " << form << "\n";
    return 2;
}
