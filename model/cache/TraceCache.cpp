#include "model/cache/TraceCache.h"

#include "analysis/Int64Math.h"
#include "model/cache/Hash64.h"
#include "model/trace/AnalysisRunner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#ifdef Q_OS_LINUX
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#endif

namespace gapscope {

namespace {

// Every field of these is written and read below. A field added to one of them changes its
// size and stops the build here: write and read it, then raise TraceCache::kFormatVersion.
// TraceData::ooms (24 bytes) is the one field not written: the OOM bundles are files of their
// own beside the input, which the entry's key does not cover, so loadDocument reads them again.
static_assert(sizeof(TraceData) == 1760 + 24, "TraceData changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(EventStore) == 1352, "EventStore changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(SessionInfo) == 192, "SessionInfo changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(EventSource) == 72, "EventSource changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(Partition) == 24, "Partition changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(PhaseSpan) == 312, "PhaseSpan changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(EventOrigin) == 56, "EventOrigin changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(LoadProblem) == 72, "LoadProblem changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(GapStatistics) == 168,
              "GapStatistics changed: serialise the new field (TraceCache.cpp)");
static_assert(sizeof(EvidenceValue) == 80, "EvidenceValue changed: serialise the new field (TraceCache.cpp)");
// of a Finding, the memo keeps what analyzeGaps sets (phase, texts, steps, episodes and growth
// intervals are added after, by runAnalysis; rank and ranks are set on job findings only)
static_assert(sizeof(Finding) == 544, "Finding changed: serialise the new field if analyzeGaps sets it");

constexpr char kMagic[8] = {'G', 'A', 'P', 'S', 'C', 'T', 'R', 'C'};
constexpr uint64_t kEndMarker = 0x444E454543415254ULL; // "TRACEEND"

// The fixed start of an entry; the payload (everything else) follows and is checksummed.
struct Header
{
    char magic[8];
    quint32 formatVersion;
    quint32 headerBytes;
    quint64 payloadBytes;
    quint64 checksum;
    quint64 reserved;
};
static_assert(sizeof(Header) == 40 && sizeof(Header) % 8 == 0);

// Appends to the entry's file through a buffer, hashing every byte; offsets are kept 8-byte
// aligned where a column starts so that it can be copied out of the mapped file as it is.
class PayloadWriter
{
public:
    PayloadWriter(QFileDevice& file, const std::atomic<bool>* cancel) : m_file(file), m_cancel(cancel)
    {
        m_buffer.reserve(kBufferBytes);
    }

    void bytes(const void* data, size_t size)
    {
        if (size == 0)
            return;
        m_hash.update(data, size);
        m_written += size;
        if (m_buffer.size() + size > kBufferBytes)
            flush();
        if (size >= kBufferBytes)
            writeOut(data, size);
        else
            m_buffer.append(static_cast<const char*>(data), size);
    }
    void u8(uint8_t value) { bytes(&value, sizeof value); }
    void u32(uint32_t value) { bytes(&value, sizeof value); }
    void u64(uint64_t value) { bytes(&value, sizeof value); }
    void i64(int64_t value) { bytes(&value, sizeof value); }
    void text(std::string_view value)
    {
        u64(value.size());
        bytes(value.data(), value.size());
    }
    void text(const QString& value) { text(std::string_view(value.toUtf8())); }
    void align()
    {
        static constexpr char zeros[8] = {};
        bytes(zeros, (8 - (sizeof(Header) + m_written) % 8) % 8);
    }
    bool finish()
    {
        flush();
        return m_ok;
    }
    uint64_t digest() const { return m_hash.digest(); }
    uint64_t written() const { return m_written; }
    bool cancelled() const { return m_cancel && m_cancel->load(std::memory_order_relaxed); }

private:
    static constexpr size_t kBufferBytes = size_t(1) << 20;

    void flush()
    {
        writeOut(m_buffer.data(), m_buffer.size());
        m_buffer.clear();
    }
    void writeOut(const void* data, size_t size)
    {
        if (!m_ok || size == 0)
            return;
        if (cancelled() || m_file.write(static_cast<const char*>(data), qint64(size)) != qint64(size))
            m_ok = false;
    }

    QFileDevice& m_file;
    const std::atomic<bool>* m_cancel;
    std::string m_buffer;
    Hash64 m_hash;
    uint64_t m_written = 0;
    bool m_ok = true;
};

// Reads the payload out of the mapped entry; every read is checked against what is left.
class PayloadReader
{
public:
    PayloadReader(const unsigned char* begin, size_t size) : m_begin(begin), m_size(size) {}

    size_t remaining() const { return m_size - m_pos; }
    const unsigned char* view(size_t size)
    {
        if (size > remaining())
            return nullptr;
        const unsigned char* at = m_begin + m_pos;
        m_pos += size;
        return at;
    }
    template <typename T> bool scalar(T& value)
    {
        const unsigned char* at = view(sizeof(T));
        if (at)
            std::memcpy(&value, at, sizeof(T));
        return at != nullptr;
    }
    bool u8(uint8_t& value) { return scalar(value); }
    bool u32(uint32_t& value) { return scalar(value); }
    bool u64(uint64_t& value) { return scalar(value); }
    bool i64(int64_t& value) { return scalar(value); }
    bool i64(qint64& value) { return scalar(value); }
    // A count of items of at least minBytes each that the rest of the payload could hold.
    bool count(uint64_t& value, size_t minBytes) { return u64(value) && value <= remaining() / minBytes; }
    bool text(std::string& value)
    {
        uint64_t size = 0;
        const unsigned char* at = nullptr;
        if (!u64(size) || !(at = view(size)))
            return false;
        value.assign(reinterpret_cast<const char*>(at), size);
        return true;
    }
    bool text(QString& value)
    {
        uint64_t size = 0;
        const unsigned char* at = nullptr;
        if (!u64(size) || size > uint64_t(std::numeric_limits<qsizetype>::max()) || !(at = view(size)))
            return false;
        value = QString::fromUtf8(reinterpret_cast<const char*>(at), qsizetype(size));
        return true;
    }
    bool align() { return view((8 - (sizeof(Header) + m_pos) % 8) % 8) != nullptr; }

private:
    const unsigned char* m_begin;
    size_t m_size;
    size_t m_pos = 0;
};

// ---------------------------------------------------------------------------------------------
// the columns, through EventStore::forEachColumnOf: one overload per column type (every
// column is a PackedColumn; a dense one would need its overload here)

template <typename T> constexpr uint8_t columnKind(const PackedColumn<T>*)
{
    return 1;
}

// Which columns there are, dense or packed, and their element sizes: an entry written by a
// store with other columns is foreign.
std::string columnLayout()
{
    std::string layout;
    const EventStore empty;
    EventStore::forEachColumnOf(
        [&layout](const auto& column) {
            using Column = std::remove_cvref_t<decltype(column)>;
            layout += char('0' + columnKind(static_cast<const Column*>(nullptr)));
            layout += char('0' + sizeof(typename Column::value_type));
        },
        empty);
    return layout;
}

struct ColumnWriter
{
    PayloadWriter& out;
    template <typename T> void operator()(const PackedColumn<T>& column) const
    {
        column.writeTo(out);
        out.align();
    }
};

struct ColumnReader
{
    PayloadReader& in;
    size_t rows;
    bool& ok;
    template <typename T> void operator()(PackedColumn<T>& column) const
    {
        ok = ok && column.readFrom(in) && column.size() == rows && in.align();
    }
};

// ---------------------------------------------------------------------------------------------
// the rest of TraceData

void writeKey(PayloadWriter& out, const TraceCacheKey& key)
{
    out.text(key.givenPath);
    out.text(key.canonicalPath);
    out.u64(key.files.size());
    for (const TraceCacheKey::File& file : key.files) {
        out.text(file.name);
        out.i64(file.size);
        out.i64(file.modifiedNs);
        out.i64(file.changedNs);
        out.u64(file.device);
        out.u64(file.inode);
    }
}

bool readKey(PayloadReader& in, TraceCacheKey& key)
{
    uint64_t files = 0;
    if (!in.text(key.givenPath) || !in.text(key.canonicalPath) || !in.count(files, 48))
        return false;
    key.files.resize(files);
    for (TraceCacheKey::File& file : key.files) {
        if (!in.text(file.name) || !in.i64(file.size) || !in.i64(file.modifiedNs) ||
            !in.i64(file.changedNs) || !in.u64(file.device) || !in.u64(file.inode))
            return false;
    }
    return true;
}

void writeSources(PayloadWriter& out, const std::vector<EventSource>& sources)
{
    out.u64(sources.size());
    for (const EventSource& s : sources) {
        for (uint32_t id : {s.sessionId, s.collector, s.host, s.jobId})
            out.u32(id);
        for (int64_t value :
             {s.pid, s.rank, s.localRank, s.worldSize, s.deviceId, s.samplingIntervalMs, s.schemaVersion})
            out.i64(value);
    }
}

bool readSources(PayloadReader& in, std::vector<EventSource>& sources, size_t strings)
{
    uint64_t count = 0;
    if (!in.count(count, 4 * 4 + 7 * 8))
        return false;
    sources.resize(count);
    for (EventSource& s : sources) {
        for (uint32_t* id : {&s.sessionId, &s.collector, &s.host, &s.jobId}) {
            if (!in.u32(*id) || *id >= strings)
                return false;
        }
        for (int64_t* value : {&s.pid, &s.rank, &s.localRank, &s.worldSize, &s.deviceId,
                               &s.samplingIntervalMs, &s.schemaVersion}) {
            if (!in.i64(*value))
                return false;
        }
    }
    return true;
}

void writeStrings(PayloadWriter& out, const StringPool& strings)
{
    out.u64(strings.size());
    for (size_t id = 1; id < strings.size(); ++id)
        out.text(strings.at(uint32_t(id)));
}

bool readStrings(PayloadReader& in, StringPool& strings)
{
    uint64_t count = 0;
    if (!in.count(count, 8) || count == 0 || count > UINT32_MAX)
        return false;
    std::string value;
    for (uint64_t id = 1; id < count; ++id) {
        // each string once, none empty: the ids come out as they were
        if (!in.text(value) || strings.intern(value) != id)
            return false;
    }
    return true;
}

void writeOrigins(PayloadWriter& out, const std::unordered_map<uint32_t, EventOrigin>& origins)
{
    std::vector<uint32_t> rows;
    rows.reserve(origins.size());
    for (const auto& entry : origins)
        rows.push_back(entry.first);
    std::sort(rows.begin(), rows.end()); // the same trace, the same bytes
    out.u64(rows.size());
    for (uint32_t row : rows) {
        const EventOrigin& origin = origins.at(row);
        out.u32(row);
        out.u8(uint8_t((origin.phaseScopeId ? 1 : 0) | (origin.threadId ? 2 : 0)));
        if (origin.phaseScopeId)
            out.text(*origin.phaseScopeId);
        if (origin.threadId)
            out.i64(*origin.threadId);
    }
}

bool readOrigins(PayloadReader& in, std::unordered_map<uint32_t, EventOrigin>& origins, size_t rows)
{
    uint64_t count = 0;
    if (!in.count(count, 5))
        return false;
    origins.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
        uint32_t row = 0;
        uint8_t present = 0;
        if (!in.u32(row) || row >= rows || !in.u8(present) || present > 3)
            return false;
        EventOrigin origin;
        if (present & 1) {
            std::string scope;
            if (!in.text(scope))
                return false;
            origin.phaseScopeId = std::move(scope);
        }
        if (present & 2) {
            int64_t thread = 0;
            if (!in.i64(thread))
                return false;
            origin.threadId = thread;
        }
        if (!origins.emplace(row, std::move(origin)).second)
            return false;
    }
    return true;
}

void writeSessions(PayloadWriter& out, const std::vector<SessionInfo>& sessions)
{
    out.u64(sessions.size());
    for (const SessionInfo& s : sessions) {
        out.text(s.id);
        out.u8(uint8_t(s.status));
        out.text(s.host);
        out.i64(s.pid);
        out.text(s.jobId);
        out.u64(s.ranks.size());
        for (int64_t rank : s.ranks)
            out.i64(rank);
        for (qint64 value : {s.eventCount, s.manifestEventCount, s.startedNs, s.endedNs})
            out.i64(value);
        out.text(s.collector);
        out.text(s.backend);
    }
}

bool readSessions(PayloadReader& in, std::vector<SessionInfo>& sessions)
{
    uint64_t count = 0;
    if (!in.count(count, 64))
        return false;
    sessions.resize(count);
    for (SessionInfo& s : sessions) {
        uint8_t status = 0;
        uint64_t ranks = 0;
        if (!in.text(s.id) || !in.u8(status) || status > uint8_t(SessionStatus::Unknown) ||
            !in.text(s.host) || !in.i64(s.pid) || !in.text(s.jobId) || !in.count(ranks, 8))
            return false;
        s.status = SessionStatus(status);
        s.ranks.resize(ranks);
        for (int64_t& rank : s.ranks) {
            if (!in.i64(rank))
                return false;
        }
        for (qint64* value : {&s.eventCount, &s.manifestEventCount, &s.startedNs, &s.endedNs}) {
            if (!in.i64(*value))
                return false;
        }
        if (!in.text(s.collector) || !in.text(s.backend))
            return false;
    }
    return true;
}

void writePartitions(PayloadWriter& out, const std::vector<Partition>& partitions)
{
    out.u64(partitions.size());
    for (const Partition& p : partitions) {
        out.u32(p.sessionIndex);
        out.i64(p.rank);
        out.u32(p.begin);
        out.u32(p.end);
    }
}

bool readPartitions(PayloadReader& in, std::vector<Partition>& partitions, size_t sessions, size_t rows)
{
    uint64_t count = 0;
    if (!in.count(count, 20))
        return false;
    partitions.resize(count);
    for (Partition& p : partitions) {
        if (!in.u32(p.sessionIndex) || !in.i64(p.rank) || !in.u32(p.begin) || !in.u32(p.end) ||
            p.sessionIndex >= sessions || p.begin > p.end || p.end > rows)
            return false;
    }
    return true;
}

void writePhases(PayloadWriter& out, const std::vector<PhaseSpan>& phases)
{
    out.u64(phases.size());
    for (const PhaseSpan& span : phases) {
        out.text(span.sessionId);
        out.i64(span.rank);
        out.text(span.scopeId);
        out.u8(span.parentScopeId ? 1 : 0);
        if (span.parentScopeId)
            out.text(*span.parentScopeId);
        out.text(span.name);
        out.u64(span.path.size());
        for (const std::string& part : span.path)
            out.text(part);
        out.text(span.label);
        for (int64_t value : {span.depth, span.threadId})
            out.i64(value);
        out.text(span.threadName);
        for (int64_t value : {span.sequence, span.startNs, span.endNs})
            out.i64(value);
        out.u8(span.syntheticEnd ? 1 : 0);
        out.text(span.attributesJson);
    }
}

bool readPhases(PayloadReader& in, std::vector<PhaseSpan>& phases)
{
    uint64_t count = 0;
    if (!in.count(count, 100))
        return false;
    phases.resize(count);
    for (PhaseSpan& span : phases) {
        uint8_t hasParent = 0, synthetic = 0;
        uint64_t parts = 0;
        if (!in.text(span.sessionId) || !in.i64(span.rank) || !in.text(span.scopeId) || !in.u8(hasParent) ||
            hasParent > 1)
            return false;
        if (hasParent) {
            std::string parent;
            if (!in.text(parent))
                return false;
            span.parentScopeId = std::move(parent);
        }
        if (!in.text(span.name) || !in.count(parts, 8))
            return false;
        span.path.resize(parts);
        for (std::string& part : span.path) {
            if (!in.text(part))
                return false;
        }
        if (!in.text(span.label) || !in.i64(span.depth) || !in.i64(span.threadId) ||
            !in.text(span.threadName) || !in.i64(span.sequence) || !in.i64(span.startNs) ||
            !in.i64(span.endNs) || !in.u8(synthetic) || synthetic > 1 || !in.text(span.attributesJson))
            return false;
        span.syntheticEnd = synthetic != 0;
    }
    return true;
}

void writeProblems(PayloadWriter& out, const ProblemLog& problems)
{
    out.i64(problems.errorCount());
    out.i64(problems.warningCount());
    out.u64(problems.kept().size());
    for (const LoadProblem& problem : problems.kept()) {
        out.u8(uint8_t(problem.level));
        out.text(problem.file);
        out.i64(problem.line);
        out.i64(problem.index);
        out.text(problem.reason);
    }
}

bool readProblems(PayloadReader& in, ProblemLog& problems)
{
    qint64 errors = 0, warnings = 0;
    uint64_t count = 0;
    if (!in.i64(errors) || !in.i64(warnings) || !in.count(count, 33))
        return false;
    std::vector<LoadProblem> kept(count);
    for (LoadProblem& problem : kept) {
        uint8_t level = 0;
        if (!in.u8(level) || level > uint8_t(LoadProblem::Level::Error) || !in.text(problem.file) ||
            !in.i64(problem.line) || !in.i64(problem.index) || !in.text(problem.reason))
            return false;
        problem.level = LoadProblem::Level(level);
    }
    std::optional<ProblemLog> restored = ProblemLog::restored(std::move(kept), errors, warnings);
    if (!restored)
        return false;
    problems = std::move(*restored);
    return true;
}

void writeThresholds(PayloadWriter& out, const GapThresholds& t)
{
    for (double value : {t.gapRatio, t.spikeZScore, t.driftRSquared, t.fragmentation})
        out.bytes(&value, sizeof value);
}

bool readThresholds(PayloadReader& in, GapThresholds& t)
{
    for (double* value : {&t.gapRatio, &t.spikeZScore, &t.driftRSquared, &t.fragmentation}) {
        if (!in.scalar(*value))
            return false;
    }
    return true;
}

void writeOptionalIndex(PayloadWriter& out, const std::optional<size_t>& index)
{
    out.u8(index ? 1 : 0);
    out.u64(index.value_or(0));
}

bool readOptionalIndex(PayloadReader& in, std::optional<size_t>& index, size_t limit)
{
    uint8_t present = 0;
    uint64_t value = 0;
    if (!in.u8(present) || present > 1 || !in.u64(value) || (present && value >= limit))
        return false;
    index = present ? std::optional<size_t>(value) : std::nullopt;
    return true;
}

// The statistics and the findings as analyzeGaps gives them (phases and texts are added when
// a result is made of them).
void writeMemo(PayloadWriter& out, const std::optional<GapAnalysisMemo>& memo)
{
    out.u8(memo ? 1 : 0);
    if (!memo)
        return;
    out.u64(memo->sessionIndex);
    out.i64(memo->rank);
    writeThresholds(out, memo->thresholds);
    const GapStatistics& s = memo->statistics;
    out.u64(s.sampleCount);
    out.u64(s.spikeCount);
    out.u64(s.fragmentationCount);
    for (double value : {s.maxAbsGapRatio, s.meanGap, s.stdGap, s.maxZScore, s.slopePerNs, s.intercept, s.r,
                         s.pValue, s.avgFragmentation, s.maxFragmentation, s.avgGap})
        out.bytes(&value, sizeof value);
    out.u8(uint8_t((s.belowRatioThreshold ? 1 : 0) | (s.hasFit ? 2 : 0)));
    out.i64(s.fitOriginNs);
    writeOptionalIndex(out, s.maxGapIndex);
    writeOptionalIndex(out, s.maxFragmentationIndex);
    out.u64(memo->findings.size());
    for (const Finding& f : memo->findings) {
        out.u8(uint8_t(f.classification));
        out.u8(uint8_t(f.severity));
        out.bytes(&f.confidence, sizeof f.confidence);
        out.u64(f.evidence.size());
        for (const EvidenceValue& e : f.evidence) {
            out.text(e.key);
            out.bytes(&e.value, sizeof e.value);
            out.u8(e.isInteger ? 1 : 0);
            out.u8(uint8_t(e.unit));
            out.text(e.label);
        }
        out.i64(f.evidenceTimestampNs);
        out.u32(f.evidenceRow);
        out.u8(f.rank ? 1 : 0);
        out.i64(f.rank.value_or(0));
    }
}

bool readMemo(PayloadReader& in, std::optional<GapAnalysisMemo>& memo, size_t sessions, size_t rows)
{
    uint8_t present = 0;
    if (!in.u8(present) || present > 1)
        return false;
    if (!present)
        return true;
    GapAnalysisMemo m;
    GapStatistics& s = m.statistics;
    uint64_t sessionIndex = 0, sampleCount = 0, spikeCount = 0, fragmentationCount = 0, findings = 0;
    uint8_t flags = 0;
    if (!in.u64(sessionIndex) || sessionIndex >= sessions || !in.i64(m.rank) ||
        !readThresholds(in, m.thresholds) || !in.u64(sampleCount) || sampleCount > rows ||
        !in.u64(spikeCount) || !in.u64(fragmentationCount))
        return false;
    m.sessionIndex = sessionIndex;
    s.sampleCount = sampleCount;
    s.spikeCount = spikeCount;
    s.fragmentationCount = fragmentationCount;
    for (double* value : {&s.maxAbsGapRatio, &s.meanGap, &s.stdGap, &s.maxZScore, &s.slopePerNs, &s.intercept,
                          &s.r, &s.pValue, &s.avgFragmentation, &s.maxFragmentation, &s.avgGap}) {
        if (!in.scalar(*value))
            return false;
    }
    if (!in.u8(flags) || flags > 3 || !in.i64(s.fitOriginNs) ||
        !readOptionalIndex(in, s.maxGapIndex, sampleCount) ||
        !readOptionalIndex(in, s.maxFragmentationIndex, sampleCount) || !in.count(findings, 30))
        return false;
    s.belowRatioThreshold = flags & 1;
    s.hasFit = flags & 2;
    m.findings.resize(findings);
    for (Finding& f : m.findings) {
        uint8_t classification = 0, severity = 0, hasRank = 0;
        uint64_t evidence = 0;
        int64_t rank = 0;
        if (!in.u8(classification) || classification > uint8_t(Classification::FirstCause) ||
            !in.u8(severity) || severity > uint8_t(Severity::Critical) || !in.scalar(f.confidence) ||
            !in.count(evidence, 26))
            return false;
        f.classification = Classification(classification);
        f.severity = Severity(severity);
        f.evidence.resize(evidence);
        for (EvidenceValue& e : f.evidence) {
            uint8_t isInteger = 0, unit = 0;
            if (!in.text(e.key) || !in.scalar(e.value) || !in.u8(isInteger) || isInteger > 1 ||
                !in.u8(unit) || unit > uint8_t(EvidenceUnit::Nanoseconds) || !in.text(e.label))
                return false;
            e.isInteger = isInteger != 0;
            e.unit = EvidenceUnit(unit);
        }
        if (!in.i64(f.evidenceTimestampNs) || !in.u32(f.evidenceRow) || f.evidenceRow >= rows ||
            !in.u8(hasRank) || hasRank > 1 || !in.i64(rank))
            return false;
        f.rank = hasRank ? std::optional<int64_t>(rank) : std::nullopt;
    }
    memo = std::move(m);
    return true;
}

// The ids of the store's rows point into its tables.
bool idsInRange(const EventStore& store)
{
    const auto strings = uint32_t(store.strings.size());
    const bool typesKnown = std::all_of(store.type.begin(), store.type.end(),
                                        [](EventType type) { return type <= EventType::Collective; });
    return typesKnown && store.typeName.allBelow(strings) && store.context.allBelow(strings) &&
           store.metadata.allBelow(strings) && store.source.allBelow(uint32_t(store.sources.size()));
}

// The payload of an entry: key first (read before the checksum is computed, to tell a stale
// entry from a corrupt one cheaply), then everything TraceData holds.
void writePayload(PayloadWriter& out, const TraceCacheKey& key, const TraceData& data,
                  const std::optional<GapAnalysisMemo>& memo)
{
    out.text(std::string_view(traceCacheBuildId()));
    writeKey(out, key);
    out.text(columnLayout());
    out.u64(data.store.size());
    out.text(data.path);
    out.u8(uint8_t(data.form));
    out.i64(data.recordsRead);
    out.i64(data.bytesRead);
    EventStore::forEachColumnOf(ColumnWriter{out}, data.store);
    writeSources(out, data.store.sources);
    writeStrings(out, data.store.strings);
    writeOrigins(out, data.store.origins);
    writeSessions(out, data.sessions);
    writePartitions(out, data.partitions);
    writePhases(out, data.phases);
    writeProblems(out, data.problems);
    writeMemo(out, memo);
    out.u64(kEndMarker);
}

std::shared_ptr<TraceData> readPayload(PayloadReader& in)
{
    auto data = std::make_shared<TraceData>();
    std::string layout;
    uint64_t rows = 0;
    uint8_t form = 0;
    if (!in.text(layout) || layout != columnLayout() || !in.u64(rows) || rows > UINT32_MAX ||
        !in.text(data->path) || !in.u8(form) || form > uint8_t(TraceForm::DiagnoseTimeline) ||
        !in.i64(data->recordsRead) || !in.i64(data->bytesRead))
        return nullptr;
    data->form = TraceForm(form);
    bool ok = true;
    EventStore::forEachColumnOf(ColumnReader{in, size_t(rows), ok}, data->store);
    EventStore& store = data->store;
    // strings before sources: a source's ids are checked against them
    std::vector<EventSource> sources;
    uint64_t endMarker = 0;
    ok = ok && readSources(in, sources, UINT32_MAX) && readStrings(in, store.strings) &&
         readOrigins(in, store.origins, rows) && readSessions(in, data->sessions) &&
         readPartitions(in, data->partitions, data->sessions.size(), rows) && readPhases(in, data->phases) &&
         readProblems(in, data->problems) && readMemo(in, data->gapMemo, data->sessions.size(), rows) &&
         in.u64(endMarker) && endMarker == kEndMarker && in.remaining() == 0;
    if (!ok)
        return nullptr;
    for (const EventSource& s : sources) {
        for (uint32_t id : {s.sessionId, s.collector, s.host, s.jobId}) {
            if (id >= store.strings.size())
                return nullptr;
        }
    }
    store.sources = std::move(sources);
    if (!idsInRange(store))
        return nullptr;
    return data;
}

qint64 nanosecondsOf(const QFileInfo& info)
{
#ifdef Q_OS_UNIX
    struct stat status
    {
    };
    if (::stat(QFile::encodeName(info.filePath()).constData(), &status) == 0)
        return saturatingAdd(saturatingMul(status.st_mtim.tv_sec, 1000000000), status.st_mtim.tv_nsec);
#endif
    return saturatingMul(info.lastModified().toMSecsSinceEpoch(), 1000000);
}

// The key of one file: size, times, device and inode from one stat.
TraceCacheKey::File fileKey(const QFileInfo& info, const QString& name)
{
    TraceCacheKey::File file{name, info.size(), 0, 0, 0, 0};
#ifdef Q_OS_UNIX
    struct stat status
    {
    };
    if (::stat(QFile::encodeName(info.filePath()).constData(), &status) == 0) {
        file.size = qint64(status.st_size);
        file.modifiedNs =
            saturatingAdd(saturatingMul(status.st_mtim.tv_sec, 1000000000), status.st_mtim.tv_nsec);
        file.changedNs =
            saturatingAdd(saturatingMul(status.st_ctim.tv_sec, 1000000000), status.st_ctim.tv_nsec);
        file.device = quint64(status.st_dev);
        file.inode = quint64(status.st_ino);
        return file;
    }
#endif
    file.modifiedNs = nanosecondsOf(info);
    return file;
}

// The entry was just used (least recently used entries are evicted first).
void touch(const QString& path)
{
#ifdef Q_OS_UNIX
    ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), nullptr, 0);
#else
    QFile file(path);
    if (file.open(QIODevice::ReadWrite))
        file.setFileTime(QDateTime::currentDateTimeUtc(), QFileDevice::FileModificationTime);
#endif
}

// The trace read under another path than the one it was kept under names the path given now
// (the trace, and its problems: the file itself or a segment of a sink folder).
void renameInput(TraceData& data, const QString& from, const QString& to)
{
    if (data.path == from)
        data.path = to;
    const QString folder = from + QLatin1Char('/');
    std::vector<LoadProblem> kept = data.problems.kept();
    for (LoadProblem& problem : kept) {
        if (problem.file == from || problem.file.startsWith(folder))
            problem.file = to + problem.file.mid(from.size());
    }
    if (auto renamed =
            ProblemLog::restored(std::move(kept), data.problems.errorCount(), data.problems.warningCount()))
        data.problems = std::move(*renamed);
}

bool isTemporary(const QString& name)
{
    return !name.endsWith(QLatin1String(TraceCache::kSuffix));
}

} // namespace

qint64 TraceCacheKey::inputBytes() const
{
    qint64 bytes = 0;
    for (const File& file : files)
        bytes = saturatingAdd(bytes, std::max<qint64>(file.size, 0));
    return bytes;
}

std::optional<qint64> TraceCacheSettings::megabytesToBytes(qint64 megabytes)
{
    if (megabytes < 0)
        return std::nullopt;
    return checkedMul(megabytes, qint64(1) << 20);
}

qint64 TraceCache::largestEntryFor(qint64 inputBytes)
{
    // A row takes well under 16 times the smallest record that makes it (a CSV row of ~40
    // bytes, a few dozen bytes of columns, origins and strings), problems are kept for at most
    // 10 000 lines with the text they quote, and the memo is a few MB at most.
    return saturatingAdd(qint64(64) << 20, saturatingMul(std::max<qint64>(inputBytes, 0), 16));
}

std::optional<TraceCacheKey> traceCacheKey(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return std::nullopt;
    TraceCacheKey key;
    key.givenPath = path;
    key.canonicalPath = info.canonicalFilePath();
    if (key.canonicalPath.isEmpty())
        return std::nullopt;
    if (info.isDir()) {
        const QFileInfoList files =
            QDir(key.canonicalPath)
                .entryInfoList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
        for (const QFileInfo& file : files)
            key.files.push_back(fileKey(file, file.fileName()));
    } else {
        key.files.push_back(fileKey(QFileInfo(key.canonicalPath), QString()));
    }
    return key;
}

QString defaultTraceCacheFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/traces");
}

QByteArray traceCacheBuildId()
{
    static const QByteArray id = [] {
        QByteArray text = QByteArrayLiteral("gapscope trace cache ") +
                          QByteArray::number(TraceCache::kFormatVersion) + ' ' +
                          QByteArray::fromStdString(columnLayout()) + ' ';
        QByteArray buildId;
#ifdef Q_OS_LINUX
        // the program's own build id (the first object dl_iterate_phdr lists)
        dl_iterate_phdr(
            [](dl_phdr_info* info, size_t, void* out) -> int {
                for (int i = 0; i < info->dlpi_phnum; ++i) {
                    const ElfW(Phdr)& header = info->dlpi_phdr[i];
                    if (header.p_type != PT_NOTE)
                        continue;
                    const auto* at = reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
                    const char* end = at + header.p_memsz;
                    while (at + sizeof(ElfW(Nhdr)) <= end) {
                        const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
                        const char* name = at + sizeof(ElfW(Nhdr));
                        const char* desc = name + ((note->n_namesz + 3) & ~3u);
                        if (desc + note->n_descsz > end)
                            break;
                        if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                            std::memcmp(name, "GNU", 4) == 0) {
                            *static_cast<QByteArray*>(out) = QByteArray(desc, note->n_descsz).toHex();
                            return 1;
                        }
                        at = desc + ((note->n_descsz + 3) & ~3u);
                    }
                }
                return 1; // only the program itself
            },
            &buildId);
#endif
        if (buildId.isEmpty()) // no build id: the time this file was compiled
            buildId = QByteArrayLiteral(__DATE__ " " __TIME__);
        return text + buildId;
    }();
    return id;
}

TraceCache::TraceCache(TraceCacheSettings settings) : m_settings(std::move(settings))
{
    if (m_settings.folder.isEmpty())
        m_settings.folder = defaultTraceCacheFolder();
}

QString TraceCache::entryPath(const TraceCacheKey& key) const
{
    const QByteArray canonical = key.canonicalPath.toUtf8();
    const uint64_t hash = Hash64::of(canonical.constData(), size_t(canonical.size()));
    return m_settings.folder + QLatin1Char('/') + QStringLiteral("%1").arg(hash, 16, 16, QLatin1Char('0')) +
           QLatin1String(kSuffix);
}

std::shared_ptr<TraceData> TraceCache::read(const TraceCacheKey& key, QString* whyNot) const
{
    const QString path = entryPath(key);
    QFile file(path);
    auto refuse = [&](const QString& why, bool remove) -> std::shared_ptr<TraceData> {
        if (whyNot)
            *whyNot = why;
        file.close();
        if (remove && !m_settings.readOnly)
            QFile::remove(path);
        return nullptr;
    };
#ifdef Q_OS_UNIX
    // Only a regular file is opened: no link is followed (one could point out of the folder or
    // at a device) and a FIFO does not block the open (no writer would ever come).
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return refuse(QStringLiteral("no entry"), false);
        if (errno == ELOOP)
            return refuse(QStringLiteral("not a regular file (a symbolic link)"), true);
        return refuse(QStringLiteral("cannot open the entry"), false);
    }
    struct stat status
    {
    };
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        ::close(fd);
        return refuse(QStringLiteral("not a regular file (a FIFO, socket, device or folder)"), true);
    }
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return refuse(QStringLiteral("cannot open the entry"), false);
    }
#else
    if (!file.exists())
        return refuse(QStringLiteral("no entry"), false);
    if (!QFileInfo(path).isFile())
        return refuse(QStringLiteral("not a regular file"), true);
    if (!file.open(QIODevice::ReadOnly))
        return refuse(QStringLiteral("cannot open the entry"), false);
#endif
    const qint64 size = file.size();
    if (size < qint64(sizeof(Header)))
        return refuse(QStringLiteral("cut (shorter than its header)"), true);
    // Bounded before it is mapped and hashed: no valid entry is larger.
    const qint64 largest = std::min(m_settings.maxBytes, largestEntryFor(key.inputBytes()));
    if (size > largest)
        return refuse(QStringLiteral("%1 bytes, more than the %2 an entry of this input may take")
                          .arg(size)
                          .arg(largest),
                      true);
    const uchar* mapped = file.map(0, size);
    if (!mapped)
        return refuse(QStringLiteral("cannot map the entry"), false);
    Header header{};
    std::memcpy(&header, mapped, sizeof header);
    if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0)
        return refuse(QStringLiteral("not a trace cache entry"), true);
    if (header.formatVersion != kFormatVersion || header.headerBytes != sizeof(Header) ||
        header.reserved != 0)
        return refuse(
            QStringLiteral("format version %1, not %2").arg(header.formatVersion).arg(kFormatVersion), true);
    if (header.payloadBytes != quint64(size) - sizeof(Header))
        return refuse(QStringLiteral("cut or extended (payload of %1 bytes, file of %2)")
                          .arg(header.payloadBytes)
                          .arg(size),
                      true);
    PayloadReader in(mapped + sizeof(Header), size_t(header.payloadBytes));
    std::string buildId;
    TraceCacheKey stored;
    if (!in.text(buildId) || !readKey(in, stored))
        return refuse(QStringLiteral("corrupt header"), true);
    if (QByteArray::fromStdString(buildId) != traceCacheBuildId())
        return refuse(QStringLiteral("written by another build"), true);
    if (stored != key)
        return refuse(QStringLiteral("the input changed since the entry was written"), true);
    if (Hash64::of(mapped + sizeof(Header), size_t(header.payloadBytes)) != header.checksum)
        return refuse(QStringLiteral("checksum mismatch"), true);
    std::shared_ptr<TraceData> data = readPayload(in);
    if (!data)
        return refuse(QStringLiteral("corrupt payload"), true);
    file.unmap(const_cast<uchar*>(mapped));
    file.close();
    if (stored.givenPath != key.givenPath)
        renameInput(*data, stored.givenPath, key.givenPath);
    if (!m_settings.readOnly)
        touch(path);
    return data;
}

bool TraceCache::worthWriting(const TraceCacheKey& key, const TraceData& data) const
{
    return key.inputBytes() >= m_settings.minInputBytes &&
           qint64(data.store.memoryBytes()) <= m_settings.maxBytes;
}

bool TraceCache::write(const TraceCacheKey& key, const TraceData& data, const std::atomic<bool>* cancel,
                       QString* error) const
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    if (!QDir().mkpath(m_settings.folder))
        return fail(QStringLiteral("%1: cannot create the folder").arg(m_settings.folder));
    const QString path = entryPath(key);
    if (m_settings.readOnly)
        return fail(QStringLiteral("%1: the cache is read-only here").arg(path));
    // QSaveFile writes through a link to its target (a dangling one would put the entry
    // outside the folder) and would block on a FIFO: anything there that is not a regular
    // file is removed first.
    const QFileInfo existing(path);
    if ((existing.isSymLink() || existing.exists()) && (existing.isSymLink() || !existing.isFile())) {
        const bool removed =
            existing.isDir() && !existing.isSymLink() ? QDir().rmdir(path) : QFile::remove(path);
        if (!removed)
            return fail(QStringLiteral("%1: not a regular file, and it cannot be removed").arg(path));
    }
    QSaveFile file(path); // a temporary file beside the entry, renamed into place by commit()
    if (!file.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("%1: %2").arg(path, file.errorString()));
    Header header{};
    std::memcpy(header.magic, kMagic, sizeof kMagic);
    header.formatVersion = kFormatVersion;
    header.headerBytes = sizeof(Header);
    file.write(reinterpret_cast<const char*>(&header),
               sizeof header); // the real one once the payload is known
    PayloadWriter out(file, cancel);
    writePayload(out, key, data,
                 data.gapMemo ? data.gapMemo : defaultGapAnalysisMemo(data, m_settings.memoThresholds));
    if (!out.finish()) {
        file.cancelWriting();
        return fail(out.cancelled() ? QStringLiteral("cancelled")
                                    : QStringLiteral("%1: %2").arg(path, file.errorString()));
    }
    header.payloadBytes = out.written();
    header.checksum = out.digest();
    if (!file.seek(0) ||
        file.write(reinterpret_cast<const char*>(&header), sizeof header) != qint64(sizeof header) ||
        !file.commit())
        return fail(QStringLiteral("%1: %2").arg(path, file.errorString()));
    evict();
    return true;
}

std::vector<TraceCache::Entry> TraceCache::entries() const
{
    std::vector<Entry> list;
    const QFileInfoList files = QDir(m_settings.folder).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name);
    for (const QFileInfo& file : files) {
        if (file.fileName().contains(QLatin1String(kSuffix)))
            list.push_back({file.filePath(), file.size(), nanosecondsOf(file)});
    }
    return list;
}

qint64 TraceCache::totalBytes() const
{
    qint64 bytes = 0;
    for (const Entry& entry : entries())
        bytes += entry.bytes;
    return bytes;
}

void TraceCache::evict() const
{
    std::vector<Entry> list = entries();
    qint64 total = 0;
    for (const Entry& entry : list)
        total += entry.bytes;
    std::sort(list.begin(), list.end(),
              [](const Entry& a, const Entry& b) { return a.lastUsedNs < b.lastUsedNs; });
    for (const Entry& entry : list) {
        if (total <= m_settings.maxBytes)
            break;
        // a temporary file may be another process's write in progress: left alone
        if (isTemporary(QFileInfo(entry.path).fileName()))
            continue;
        if (QFile::remove(entry.path))
            total -= entry.bytes;
    }
}

bool TraceCache::clear() const
{
    bool all = true;
    for (const Entry& entry : entries())
        all = QFile::remove(entry.path) && all;
    return all;
}

} // namespace gapscope
