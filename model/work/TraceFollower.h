#pragma once
// Follows a growing trace (one JSON lines file, or a sink directory whose writer is still
// adding segments): reads only what was appended since the last look, keeps the parsed rows in
// one incremental builder, and publishes immutable TraceData snapshots (a snapshot is never
// changed after publication; the next one is built from a copy of the builder). Publication
// and the analysis of the new snapshot are throttled to one per interval, so a writer that
// appends a line every millisecond costs one analysis a second.
//
// Handled: a last line without its newline waits for its end (when it already is a whole
// record it is shown meanwhile, but read again with whatever the writer adds to it, so the
// rows are always those of reading the file whole); a new segment (or one the
// manifest names later) is read from its start; a file that shrinks or is replaced (other
// inode) is taken as rotated: everything is read again from the start, with a notice; a
// segment dropped by retention keeps its loaded rows, with a notice.

#include "model/trace/AnalysisRunner.h"
#include "model/trace/SinkManifest.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

class QFileSystemWatcher;
class QTimer;

namespace gapscope {

class AnalysisJob;
namespace detail {
struct EventChunk;
class EventRecordParser;

// One look at a followed JSON lines file: `bytes` is its content from the cursor on (what was
// appended since the last look, after the partial line left then). The rows of its complete
// lines go to chunk. A last line without its newline is not used (it waits for the rest of its
// line); when it already is one whole valid record (a writer that ends the file without a
// newline) its row goes to pending, to be shown until the line is read whole. Returns the bytes
// used (the cursor moves by them); *nextLine, the line number at the cursor, moves over their
// lines. The follower reads every file through this; the fuzz target fuzz_trace_follower feeds
// it a content in random chunks. parser is the file's, kept from look to look (its file name
// goes into the problems; what it remembers of the lines before only spares work).
size_t readFollowedLines(std::string_view bytes, EventRecordParser& parser, qint64* nextLine,
                         EventChunk& chunk, EventChunk& pending);
} // namespace detail

class TraceFollower : public QObject
{
    Q_OBJECT
public:
    // Milliseconds on a monotonic clock; tests pass a fake one.
    using Clock = std::function<qint64()>;
    static constexpr int kPollIntervalMs = 500;
    static constexpr int kAnalysisIntervalMs = 1000;

    explicit TraceFollower(QObject* parent = nullptr);
    ~TraceFollower() override;

    // Whether path can be followed (a JSON lines file or a sink directory).
    static bool canFollow(const QString& path, QString* whyNot = nullptr);

    // Reads everything there is now, publishes the first snapshot and starts watching.
    // false with *error when the path cannot be followed.
    bool start(const QString& path, QString* error = nullptr);
    // Stops watching; the data read so far stays (snapshot()). start() begins anew.
    void stop();
    // Pausing keeps the data and the read offsets; resuming reads what came meanwhile.
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    bool isFollowing() const { return m_following && !m_paused; }
    bool isStarted() const { return m_following; } // following or paused, not stopped
    QString path() const { return m_path; }

    // Reads what is new now (the watcher and the poll timer call this; so can tests). Returns
    // how many rows rowCount() gained (0 after a rotation that found nothing; -1 when a row shown
    // for a last line without its newline went, as the rest of the line made it an error).
    qint64 poll();
    // Publishes now if rows arrived since the last snapshot and the interval has passed since
    // the last publication (called by poll and by a timer for the trailing rows).
    void publishIfDue();

    void setClock(Clock clock);
    void setAnalysisInterval(qint64 ms) { m_analysisIntervalMs = ms; }
    void setPollInterval(int ms);
    // What the analysis of each snapshot asks (session, rank, thresholds); none = no analysis.
    void setAnalysisRequest(std::optional<AnalysisRequest> request);
    // Analyses on the calling thread instead of a worker (tests).
    void setSynchronousAnalysis(bool synchronous) { m_synchronousAnalysis = synchronous; }

    std::shared_ptr<const TraceData> snapshot() const { return m_snapshot; }
    qint64 rowCount() const; // rows read, published or not
    qint64 publishCount() const { return m_publishCount; }
    qint64 analysisRunCount() const { return m_analysisRuns; }
    QStringList notices() const { return m_notices; }

signals:
    void snapshotPublished(std::shared_ptr<const gapscope::TraceData> snapshot);
    void analysisFinished(std::shared_ptr<const gapscope::AnalysisResult> result);
    void analysisFailed(const QString& error);
    // Rotation, retention pruning, unreadable files: one line for the status bar.
    void notice(const QString& message);
    void followingChanged(bool following);

private:
    struct FileCursor
    {
        QString path;
        qint64 offset = 0;   // bytes consumed (up to the end of the last complete line)
        qint64 nextLine = 1; // line number at offset
        quint64 inode = 0;
        bool present = true;
        qint64 seen = 0; // size at the last read (offset plus a partial last line)
        // The row of a last line without its newline that is a whole record: shown, not consumed.
        std::shared_ptr<const detail::EventChunk> pending = nullptr;
        // Made at the first look (shared: a cursor is copied when the file list is rebuilt).
        std::shared_ptr<detail::EventRecordParser> parser = nullptr;
    };
    enum class ReadResult
    {
        Ok,
        Rotated
    };

    void resetBuilder();
    qint64 readAll(bool* rotated);
    ReadResult readFile(FileCursor& cursor, qint64* rowsAdded);
    // Sink: the segment list of the manifest plus segments on disk it does not name yet.
    void refreshSegments();
    void addNotice(const QString& message);
    void publish();
    void runAnalysis();
    void armTimers();

    QString m_path;
    bool m_isSink = false;
    bool m_following = false;
    bool m_paused = false;
    std::vector<FileCursor> m_files;               // in read order
    std::set<QString> m_pruned;                    // segments noted as dropped
    QStringList m_named;                           // segments the manifest named at the last look
    SinkManifest m_manifest;                       // its sessions as the manifest said at the last look
    std::unique_ptr<detail::EventChunk> m_builder; // every row read so far
    qint64 m_bytesRead = 0;
    bool m_dirty = false; // rows since the last publication
    std::shared_ptr<const TraceData> m_snapshot;
    std::optional<AnalysisRequest> m_request;
    bool m_synchronousAnalysis = false;
    AnalysisJob* m_analysisJob = nullptr;
    Clock m_clock;
    std::optional<qint64> m_lastPublishMs;
    qint64 m_analysisIntervalMs = kAnalysisIntervalMs;
    qint64 m_publishCount = 0;
    qint64 m_analysisRuns = 0;
    QStringList m_notices;
    QFileSystemWatcher* m_watcher = nullptr;
    QTimer* m_pollTimer = nullptr;
    QTimer* m_publishTimer = nullptr;
};

} // namespace gapscope
