#include "model/work/TraceFollower.h"

#include "model/document/Recognition.h"
#include "model/read/WindowedReader.h"
#include "model/text/CharClass.h"
#include "model/trace/JsonDocumentReader.h"
#include "model/trace/SinkManifest.h"
#include "model/trace/TraceLoader.h"
#include "model/work/LoadJob.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include <sys/stat.h>

#include <algorithm>
#include <optional>

namespace gapscope {

using detail::EventChunk;

namespace {

struct FileState
{
    bool exists = false;
    quint64 inode = 0;
    qint64 size = 0;
};

// The inode tells a file replaced under the same name (log rotation by rename) from one
// that only grew; Qt has no portable way to ask.
FileState fileState(const QString& path)
{
    struct stat info
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &info) != 0 || !S_ISREG(info.st_mode))
        return {};
    return {true, quint64(info.st_ino), qint64(info.st_size)};
}

} // namespace

size_t detail::readFollowedLines(std::string_view bytes, EventRecordParser& parser, qint64* nextLine,
                                 EventChunk& chunk, EventChunk& pending)
{
    // The bytes start the file when no line was read before them: its byte order mark is not
    // part of line 1 (the loader skips it too).
    const size_t start = *nextLine == 1 && bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const std::string_view lines = bytes.substr(start);
    // Only complete lines: the writer may be in the middle of one.
    const size_t lastNewline = lines.rfind('\n');
    const size_t complete = lastNewline == std::string_view::npos ? 0 : lastNewline + 1;
    if (complete > 0) {
        const simdjson::padded_string text(lines.data(), complete);
        detail::parseJsonLinesRange(text.data(), 0, text.size(), text.size() + simdjson::SIMDJSON_PADDING,
                                    *nextLine, false, parser, chunk, {});
    }
    const qint64 completeLines = countNewlines(lines.data(), lines.data() + complete);
    // A last line without its newline is shown only when it is a whole valid record (a writer
    // that ends the file without a newline). It is not consumed: the writer may still add to it
    // (text after a record makes the line an error when read whole), so the next look reads it
    // again with whatever came.
    // Trimmed as QByteArray::trimmed does, as a view (a trimmed copy was an allocation per look).
    const std::string_view rest = trimmedBy(lines.substr(complete), kAsciiSpace);
    if (rest.ends_with('}')) {
        EventChunk last;
        const simdjson::padded_string text(rest.data(), rest.size());
        detail::parseJsonLinesRange(text.data(), 0, text.size(), text.size() + simdjson::SIMDJSON_PADDING,
                                    *nextLine + completeLines, true, parser, last, {});
        if (last.store.size() == 1 && last.problems.empty())
            pending = std::move(last);
    }
    *nextLine += completeLines;
    return complete > 0 ? start + complete : 0;
}

TraceFollower::TraceFollower(QObject* parent)
    : QObject(parent), m_builder(std::make_unique<EventChunk>()), m_analysisJob(new AnalysisJob(this)),
      m_watcher(new QFileSystemWatcher(this)), m_pollTimer(new QTimer(this)), m_publishTimer(new QTimer(this))
{
    auto elapsed = std::make_shared<QElapsedTimer>();
    elapsed->start();
    m_clock = [elapsed] { return elapsed->elapsed(); };
    m_pollTimer->setInterval(kPollIntervalMs);
    m_publishTimer->setSingleShot(true);
    // The watcher misses changes on some file systems (NFS, some containers): the timer is the
    // fallback, the watcher only makes the common case prompt.
    connect(m_pollTimer, &QTimer::timeout, this, [this] { poll(); });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { poll(); });
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] { poll(); });
    connect(m_publishTimer, &QTimer::timeout, this, &TraceFollower::publishIfDue);
    connect(m_analysisJob, &AnalysisJob::finished, this,
            [this](quint64, std::shared_ptr<const AnalysisResult> result) { emit analysisFinished(result); });
    connect(m_analysisJob, &AnalysisJob::failed, this,
            [this](quint64, const QString& error) { emit analysisFailed(error); });
}

TraceFollower::~TraceFollower() = default;

qint64 TraceFollower::rowCount() const
{
    qint64 rows = qint64(m_builder->store.size());
    for (const FileCursor& cursor : m_files)
        rows += cursor.pending ? qint64(cursor.pending->store.size()) : 0;
    return rows;
}

bool TraceFollower::canFollow(const QString& path, QString* whyNot)
{
    auto fail = [whyNot](const QString& why) {
        if (whyNot)
            *whyNot = why;
        return false;
    };
    const QFileInfo info(path);
    if (info.isDir()) {
        QFile manifest(QDir(path).filePath(QStringLiteral("manifest.json")));
        if (!manifest.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("%1: no readable manifest.json (not a sink directory)").arg(path));
        const QByteArray text = manifest.readAll();
        QString error;
        if (!parseSinkManifest(std::string_view(text.constData(), size_t(text.size())), manifest.fileName(),
                               nullptr, &error))
            return fail(QStringLiteral("%1: manifest.json is not a stormlog sink manifest").arg(path));
        return true;
    }
    if (!fileState(path).exists)
        return fail(QStringLiteral("%1: not a regular file").arg(path));
    if (info.size() == 0)
        return true; // a writer that has not written yet
    const InputRecognition input = recognizeInput(path);
    if (!input.traceForm)
        return fail(QStringLiteral("%1: %2").arg(
            path, input.kind == InputKind::BudgetLog
                      ? QStringLiteral("a memory-budget log, not a stormlog trace")
                      : input.reason));
    // Legacy records can come as lines or as one JSON array; only lines can grow.
    if (!input.growsByLines)
        return fail(
            QStringLiteral("%1: only JSON lines files and sink directories can be followed (this is %2)")
                .arg(path, toString(*input.traceForm)));
    return true;
}

void TraceFollower::setClock(Clock clock)
{
    m_clock = std::move(clock);
}

void TraceFollower::setPollInterval(int ms)
{
    m_pollTimer->setInterval(ms);
}

void TraceFollower::setAnalysisRequest(std::optional<AnalysisRequest> request)
{
    m_request = std::move(request);
}

bool TraceFollower::start(const QString& path, QString* error)
{
    stop();
    if (!canFollow(path, error))
        return false;
    m_path = path;
    m_isSink = QFileInfo(path).isDir();
    m_paused = false;
    m_notices.clear();
    resetBuilder();
    bool rotated = false;
    readAll(&rotated);
    m_following = true;
    m_lastPublishMs.reset();
    m_dirty = true;
    publishIfDue();
    armTimers();
    emit followingChanged(true);
    return true;
}

void TraceFollower::stop()
{
    const bool was = m_following;
    m_following = false;
    m_pollTimer->stop();
    m_publishTimer->stop();
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
    if (was && m_dirty)
        publish(); // the rows read last are not lost by stopping
    if (was)
        emit followingChanged(false);
}

void TraceFollower::setPaused(bool paused)
{
    if (paused == m_paused || !m_following)
        return;
    m_paused = paused;
    if (paused) {
        m_pollTimer->stop();
        m_publishTimer->stop();
    } else {
        poll();
        armTimers();
    }
    emit followingChanged(!paused);
}

void TraceFollower::armTimers()
{
    m_pollTimer->start();
    QStringList paths;
    if (m_isSink) {
        paths << m_path << QDir(m_path).filePath(QStringLiteral("manifest.json"));
    }
    for (const FileCursor& cursor : m_files)
        paths << cursor.path;
    paths.removeIf([this](const QString& p) {
        return m_watcher->files().contains(p) || m_watcher->directories().contains(p) ||
               !QFileInfo::exists(p);
    });
    if (!paths.isEmpty())
        m_watcher->addPaths(paths);
}

void TraceFollower::resetBuilder()
{
    *m_builder = EventChunk{};
    m_files.clear();
    m_pruned.clear();
    m_named.clear();
    m_manifest = SinkManifest{};
    m_bytesRead = 0;
    if (!m_isSink)
        m_files.push_back(FileCursor{.path = m_path});
}

qint64 TraceFollower::poll()
{
    if (!m_following || m_paused)
        return 0;
    bool rotated = false;
    qint64 added = readAll(&rotated);
    if (rotated) {
        resetBuilder();
        addNotice(
            QStringLiteral("%1: the file was truncated or replaced (rotation); read again from the start")
                .arg(m_path));
        added = readAll(&rotated);
        m_dirty = true;
        // A rotation replaces the data: show it at once rather than a mix of old and new.
        m_lastPublishMs.reset();
    }
    if (added > 0)
        m_dirty = true;
    publishIfDue();
    armTimers(); // new segments and a replaced manifest need watching again
    return added;
}

qint64 TraceFollower::readAll(bool* rotated)
{
    *rotated = false;
    if (m_isSink)
        refreshSegments();
    qint64 added = 0;
    for (FileCursor& cursor : m_files) {
        qint64 rows = 0;
        if (readFile(cursor, &rows) == ReadResult::Rotated) {
            *rotated = true;
            return added;
        }
        added += rows;
    }
    return added;
}

TraceFollower::ReadResult TraceFollower::readFile(FileCursor& cursor, qint64* rowsAdded)
{
    *rowsAdded = 0;
    const FileState state = fileState(cursor.path);
    if (!state.exists) {
        // A single followed file may be between "renamed away" and "created again".
        cursor.present = false;
        return ReadResult::Ok;
    }
    // Shrinking below what was seen (a partial last line included) is a rotation too: the row
    // shown for that line may be gone.
    if (cursor.inode != 0 && (state.inode != cursor.inode || state.size < cursor.seen))
        return ReadResult::Rotated;
    if (cursor.inode == 0 && state.size < cursor.seen)
        return ReadResult::Rotated;
    cursor.inode = state.inode;
    cursor.present = true;
    if (state.size == cursor.seen)
        return ReadResult::Ok;

    QFile file(cursor.path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(cursor.offset)) {
        addNotice(QStringLiteral("%1: cannot read: %2").arg(cursor.path, file.errorString()));
        return ReadResult::Ok;
    }
    const QByteArray bytes = file.read(state.size - cursor.offset);
    cursor.seen = cursor.offset + bytes.size();
    EventChunk chunk;
    EventChunk pending;
    if (!cursor.parser)
        cursor.parser = std::make_shared<detail::EventRecordParser>(cursor.path);
    const size_t used = detail::readFollowedLines(std::string_view(bytes.constData(), size_t(bytes.size())),
                                                  *cursor.parser, &cursor.nextLine, chunk, pending);
    // The snapshot changes with new problems (a line of errors only) and with a pending row
    // replaced (by the same row, now consumed, or by what its line became) or taken away, even
    // when no row was added.
    const qint64 pendingBefore = cursor.pending ? qint64(cursor.pending->store.size()) : 0;
    m_dirty = m_dirty || !chunk.problems.empty() || pendingBefore > 0 || pending.store.size() > 0;
    cursor.pending =
        pending.store.size() > 0 ? std::make_shared<const EventChunk>(std::move(pending)) : nullptr;
    *rowsAdded = qint64(chunk.store.size()) + (cursor.pending ? qint64(cursor.pending->store.size()) : 0) -
                 pendingBefore;
    cursor.offset += qint64(used);
    m_bytesRead += qint64(used);
    m_builder->append(std::move(chunk));
    return ReadResult::Ok;
}

void TraceFollower::refreshSegments()
{
    const QDir dir(m_path);
    QStringList named;
    // The writer replaces the manifest atomically, but a reader can still catch a torn copy on
    // some file systems: an unreadable manifest keeps the previous segment list.
    QString error;
    const std::optional<SinkManifest> manifest = readSinkManifest(m_path, nullptr, &error);
    const bool manifestRead = manifest.has_value();
    if (manifest) {
        for (const SinkManifestSegment& segment : manifest->segments)
            named << segment.filename;
        if (manifest->sessions != m_manifest.sessions) {
            m_manifest.sessions = manifest->sessions;
            m_dirty = true; // e.g. running -> completed: the sessions list shows it
        }
    }
    QStringList order = named;
    for (const QString& name : dir.entryList({QStringLiteral("segment-*.jsonl")}, QDir::Files, QDir::Name)) {
        if (!order.contains(name))
            order << name;
    }
    for (const QString& name : order) {
        const QString file = dir.filePath(name);
        const bool known =
            std::any_of(m_files.begin(), m_files.end(), [&](const FileCursor& c) { return c.path == file; });
        if (!known && QFileInfo(file).isFile())
            m_files.push_back(FileCursor{.path = file});
    }
    // Retention: a segment the manifest no longer names, or that is gone from disk, keeps the
    // rows already read from it.
    for (const FileCursor& cursor : m_files) {
        const QString name = QFileInfo(cursor.path).fileName();
        const bool dropped = (manifestRead && m_named.contains(name) && !named.contains(name)) ||
                             !QFileInfo(cursor.path).isFile();
        if (dropped && m_pruned.insert(name).second)
            addNotice(
                QStringLiteral("%1: segment %2 was pruned by retention; the events already read from it are "
                               "kept")
                    .arg(m_path, name));
    }
    if (manifestRead)
        m_named = named;
    // Pruned segments are read no further (a writer never appends to a pruned segment).
    m_files.erase(std::remove_if(m_files.begin(), m_files.end(),
                                 [this](const FileCursor& c) {
                                     return m_pruned.count(QFileInfo(c.path).fileName()) > 0;
                                 }),
                  m_files.end());
}

void TraceFollower::addNotice(const QString& message)
{
    m_notices << message;
    m_builder->problems.addWarning(m_path, 0, message);
    m_dirty = true;
    emit notice(message);
}

void TraceFollower::publishIfDue()
{
    if (!m_dirty)
        return;
    const qint64 now = m_clock();
    if (m_lastPublishMs && now - *m_lastPublishMs < m_analysisIntervalMs) {
        // Trailing rows are published when the interval is over, even if nothing else arrives.
        if (!m_publishTimer->isActive() && m_following && !m_paused)
            m_publishTimer->start(int(std::max<qint64>(1, m_analysisIntervalMs - (now - *m_lastPublishMs))));
        return;
    }
    m_lastPublishMs = now;
    publish();
}

void TraceFollower::publish()
{
    m_dirty = false;
    // The builder keeps growing; the snapshot gets a copy, so what was published never changes.
    EventChunk copy = *m_builder;
    for (const FileCursor& cursor : m_files) {
        if (cursor.pending) {
            EventChunk pending = *cursor.pending;
            copy.append(std::move(pending));
        }
    }
    const TraceForm form = m_isSink ? TraceForm::SinkDirectory : TraceForm::JsonLines;
    std::shared_ptr<TraceData> data = buildTraceData(m_path, form, std::move(copy), m_bytesRead);
    // What the manifest says about a session outranks inference (as loadTrace does).
    applySinkManifest(m_manifest, *data, false);
    m_snapshot = std::move(data);
    ++m_publishCount;
    emit snapshotPublished(m_snapshot);
    runAnalysis();
}

void TraceFollower::runAnalysis()
{
    if (!m_request || !m_snapshot || m_snapshot->store.size() == 0)
        return;
    ++m_analysisRuns;
    if (!m_synchronousAnalysis) {
        m_analysisJob->start(m_snapshot, *m_request);
        return;
    }
    QString error;
    if (auto result = gapscope::runAnalysis(m_snapshot, *m_request, &error))
        emit analysisFinished(result);
    else
        emit analysisFailed(error);
}

} // namespace gapscope
