// libFuzzer target: the live follower's incremental reads. The input (with a line break added
// when it has none at its end) grows in chunks of pseudo-random sizes, and after each one the
// bytes from the follower's cursor on go through detail::readFollowedLines, the function
// TraceFollower::readFile hands every look at a file to; the rows are then made into a trace as
// the follower publishes one (buildTraceData). Once all is read, the rows and errors must be
// those of loadTraceBytes reading the whole content as JSON lines.
//
// The file itself (stat, inode, rotation, the watcher) is not fuzzed: that is the operating
// system's side, tested by tst_tracefollower and tst_livefollow. Reading bytes in memory keeps
// an input at one parse per chunk, without a file written and read again for each.
#include "fuzz/FuzzSupport.h"

#include "model/trace/JsonDocumentReader.h"
#include "model/work/TraceFollower.h"

#include <cstdio>
#include <string>

namespace {

QString describe(const gapscope::TraceData* data)
{
    if (!data)
        return QStringLiteral("no data");
    return QStringLiteral("%1 rows, %2 errors").arg(data->store.size()).arg(data->problems.errorCount());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace gapscope;
    const QString path = QStringLiteral("follow.jsonl");
    std::string content(reinterpret_cast<const char*>(data), size);
    if (content.empty() || content.back() != '\n')
        content += '\n'; // a cut last line waits in the follower and is judged in a whole read
    uint32_t random = 2166136261u ^ static_cast<uint32_t>(size);
    for (size_t i = 0; i < std::min<size_t>(size, 16); ++i)
        random = (random ^ data[i]) * 16777619u;
    // 1..97 bytes, or up to an eighth of a larger content (about 16 looks at it): every look
    // parses what it finds afresh, and a boundary anywhere in a line is what is tested.
    const size_t largestChunk = std::max<size_t>(97, content.size() / 8);
    auto nextChunk = [&random, largestChunk] {
        random = random * 1664525u + 1013904223u;
        return static_cast<size_t>(random >> 8) % largestChunk + 1;
    };

    detail::EventChunk builder; // every row read so far, as the follower's
    size_t written = 0;         // bytes of the content the writer has written
    size_t offset = 0;          // the follower's cursor
    qint64 nextLine = 1;
    // The rows of a look, and the row shown until its line is read whole. Made once and reused
    // look after look (append leaves its argument empty, as the windowed reader's chunks are
    // reused): a pair of chunks made per look was a twelfth of an execution.
    detail::EventChunk chunk;
    detail::EventChunk pending;
    detail::EventRecordParser parser(path); // the file's, kept from look to look as the follower's
    while (written < content.size()) {
        written += std::min(nextChunk(), content.size() - written);
        pending.clear();
        const size_t used = detail::readFollowedLines(
            std::string_view(content).substr(offset, written - offset), parser, &nextLine, chunk, pending);
        fuzz::require(pending.store.size() <= 1, "more than one pending row");
        fuzz::require(pending.store.size() == 0 || written < content.size(),
                      "a row left pending once the content ended with its newline");
        fuzz::require(used <= written - offset, "the follower used more bytes than there were");
        offset += used;
        builder.append(std::move(chunk));
        fuzz::require(chunk.store.size() == 0 && chunk.store.sources.empty() && chunk.problems.empty() &&
                          chunk.recordsRead == 0,
                      "a chunk appended is not left empty");
    }
    fuzz::require(offset == content.size(), "the follower left a complete line unread");
    const std::shared_ptr<const TraceData> followed =
        buildTraceData(path, TraceForm::JsonLines, std::move(builder), qint64(offset));
    if (followed->store.size() > 0)
        fuzz::checkTraceOutcome(LoadOutcome{followed, QString(), false});

    const LoadOutcome whole = loadTraceBytes(content, TraceForm::JsonLines, path);
    if (!whole.data) {
        if (followed->store.size() != 0)
            std::fprintf(stderr, "follower: %s; whole read: %s\n", qPrintable(describe(followed.get())),
                         qPrintable(whole.fatalError));
        fuzz::require(followed->store.size() == 0, "the follower loaded rows a whole read rejects");
        return 0;
    }
    const bool same = followed->store.size() == whole.data->store.size() &&
                      followed->store.timestampNs == whole.data->store.timestampNs &&
                      followed->store.allocated == whole.data->store.allocated &&
                      followed->problems.errorCount() == whole.data->problems.errorCount();
    if (!same)
        std::fprintf(stderr, "follower: %s; whole read: %s\n", qPrintable(describe(followed.get())),
                     qPrintable(describe(whole.data.get())));
    fuzz::require(same, "following a growing file differs from reading it whole");
    return 0;
}
