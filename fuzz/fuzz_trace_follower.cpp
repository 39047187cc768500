// libFuzzer target: the live follower's incremental reads. The input (with a line break added
// when it has none at its end) is written to a file in chunks of pseudo-random sizes, the
// follower reading after each; once all is written, the rows and errors it has must be those
// of loadTraceBytes reading the whole content as JSON lines.
#include "fuzz/FuzzSupport.h"

#include "model/trace/TraceFollower.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

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
    static int argc = 1;
    static char name[] = "fuzz_trace_follower";
    static char* argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv); // the follower's watcher and timers need one
    static QTemporaryDir dir;
    fuzz::require(dir.isValid(), "cannot create a scratch directory");
    const QString path = dir.filePath(QStringLiteral("follow.jsonl"));

    std::string content(reinterpret_cast<const char*>(data), size);
    if (content.empty() || content.back() != '\n')
        content += '\n'; // a cut last line waits in the follower and is judged in a whole read
    QFile::remove(path);
    QFile file(path);
    fuzz::require(file.open(QIODevice::WriteOnly), "cannot write the followed file");
    uint32_t random = 2166136261u ^ static_cast<uint32_t>(size);
    for (size_t i = 0; i < std::min<size_t>(size, 16); ++i)
        random = (random ^ data[i]) * 16777619u;
    auto nextChunk = [&random] {
        random = random * 1664525u + 1013904223u;
        return static_cast<size_t>(random >> 24) % 97 + 1; // 1..97 bytes
    };
    size_t written = std::min(nextChunk(), content.size());
    file.write(content.data(), static_cast<qint64>(written));
    file.flush();

    TraceFollower follower;
    follower.setClock([] { return qint64(0); });
    if (!follower.start(path)) {
        file.close();
        return 0; // the first chunk is not followable (not JSON lines)
    }
    while (written < content.size()) {
        const size_t chunk = std::min(nextChunk(), content.size() - written);
        file.write(content.data() + written, static_cast<qint64>(chunk));
        file.flush();
        written += chunk;
        follower.poll();
    }
    file.close();
    follower.poll();
    follower.stop();
    const std::shared_ptr<const TraceData> followed = follower.snapshot();
    // The follower decided on the form from the first chunk; the whole read is of that form
    // (detection on the whole content may decide otherwise, e.g. refuse a NUL byte found later).
    const LoadOutcome whole = loadTraceBytes(content, TraceForm::JsonLines, path);
    if (!whole.data) {
        if (followed && followed->store.size() != 0)
            std::fprintf(stderr, "follower: %s; whole read: %s\n", qPrintable(describe(followed.get())),
                         qPrintable(whole.fatalError));
        fuzz::require(!followed || followed->store.size() == 0,
                      "the follower loaded rows a whole read rejects");
        return 0;
    }
    const bool same = followed && followed->store.size() == whole.data->store.size() &&
                      followed->store.timestampNs == whole.data->store.timestampNs &&
                      followed->store.allocated == whole.data->store.allocated &&
                      followed->problems.errorCount() == whole.data->problems.errorCount();
    if (!same)
        std::fprintf(stderr, "follower: %s; whole read: %s\n", qPrintable(describe(followed.get())),
                     qPrintable(describe(whole.data.get())));
    fuzz::require(same, "following a growing file differs from reading it whole");
    return 0;
}
