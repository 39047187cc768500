// The reopen cache (model/cache/TraceCache): a trace read back from its entry is the trace
// read from its input (every form), an entry that is cut, flipped, of another version or of an
// input that changed is never used (deleted, the input read again), the least recently used
// entries go first, and a load without a cache writes nothing.

#include "model/cache/TraceCache.h"
#include "model/document/Document.h"
#include "model/report/ReportWriters.h"
#include "model/work/LoadJob.h"
#include "tests/StoreChecks.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>

using namespace gapscope;
using namespace gapscope::test;

namespace {

const QString kFixtures = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/");

// Copies a fixture file or folder into dir (tests change the copy's time and size).
QString copyInput(const QString& source, const QString& dir)
{
    const QFileInfo info(source);
    const QString target = dir + QLatin1Char('/') + info.fileName();
    if (!info.isDir()) {
        QFile::copy(source, target);
        return target;
    }
    QDir().mkpath(target);
    for (const QFileInfo& file : QDir(source).entryInfoList(QDir::Files))
        QFile::copy(file.filePath(), target + QLatin1Char('/') + file.fileName());
    return target;
}

// A JSON lines trace of `rows` samples whose counters vary (a few bytes per row), with nulls
// and several contexts, so that the packed columns hold sealed blocks of every width.
QByteArray generatedTrace(int rows)
{
    QByteArray text;
    for (int i = 0; i < rows; ++i) {
        const qint64 reserved = 30000000000LL + qint64(i % 97) * 1000003LL + (i / 1500) * 4000000000LL;
        const qint64 used = reserved + 2000000000LL + qint64(i % 13) * 65536;
        const QByteArray inactive =
            i % 11 == 3 ? QByteArray("null") : QByteArray::number(qint64(i % 7) * 300);
        text +=
            QStringLiteral("{\"schema_version\": 4, \"session_id\": \"s-1\", \"timestamp_ns\": %1, "
                           "\"event_type\": \"sample\", \"collector\": \"stormlog.cuda_tracker\", "
                           "\"sampling_interval_ms\": 100, \"pid\": 7, \"host\": \"h\", \"job_id\": \"j\", "
                           "\"rank\": %2, \"local_rank\": 0, \"world_size\": 2, \"device_id\": 0, "
                           "\"allocator_allocated_bytes\": %3, \"allocator_reserved_bytes\": %3, "
                           "\"allocator_active_bytes\": %3, \"allocator_inactive_bytes\": %4, "
                           "\"allocator_change_bytes\": %5, \"device_used_bytes\": %6, "
                           "\"device_free_bytes\": %7, \"device_total_bytes\": 85899345920, "
                           "\"context\": \"step %8\", \"metadata\": {\"backend\": \"cuda\", \"k\": %9}}\n")
                .arg(1796000000000000000LL + qint64(i) * 100000000LL)
                .arg(i % 2)
                .arg(reserved)
                .arg(QString::fromLatin1(inactive))
                .arg(i % 5 == 0 ? qint64(-(i % 1000)) * 4096 : qint64(i) * 17)
                .arg(used)
                .arg(85899345920LL - used)
                .arg(i / 700)
                .arg(i % 300 == 0 ? i : 0)
                .toUtf8();
    }
    return text;
}

QByteArray reportOf(const DocumentOutcome& document)
{
    return reportJson(analyzeDocument(document, DocumentRequest{}).reportContent());
}

// Everything a TraceData holds, compared; QCOMPARE returns at the first difference.
void compareTraces(const TraceData& got, const TraceData& want)
{
    QCOMPARE(got.path, want.path);
    QVERIFY(got.form == want.form);
    QCOMPARE(got.recordsRead, want.recordsRead);
    QCOMPARE(got.bytesRead, want.bytesRead);
    compareCounterColumns(got.store, want.store);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(got.store.typeName == want.store.typeName);
    QVERIFY(got.store.source == want.store.source);
    QVERIFY(got.store.context == want.store.context);
    QVERIFY(got.store.metadata == want.store.metadata);
    QCOMPARE(got.store.strings.size(), want.store.strings.size());
    for (uint32_t id = 0; id < want.store.strings.size(); ++id)
        QCOMPARE(storedText(got, id), storedText(want, id));
    QVERIFY(got.store.sources == want.store.sources);
    QCOMPARE(got.store.origins.size(), want.store.origins.size());
    for (const auto& [row, origin] : want.store.origins) {
        QVERIFY(got.store.origins.count(row));
        QVERIFY(got.store.origins.at(row).phaseScopeId == origin.phaseScopeId);
        QVERIFY(got.store.origins.at(row).threadId == origin.threadId);
    }
    QCOMPARE(got.sessions.size(), want.sessions.size());
    for (size_t i = 0; i < want.sessions.size(); ++i) {
        const SessionInfo& a = got.sessions[i];
        const SessionInfo& b = want.sessions[i];
        QCOMPARE(a.id, b.id);
        QVERIFY(a.status == b.status);
        QCOMPARE(a.host, b.host);
        QCOMPARE(a.pid, b.pid);
        QCOMPARE(a.jobId, b.jobId);
        QVERIFY(a.ranks == b.ranks);
        QCOMPARE(a.eventCount, b.eventCount);
        QCOMPARE(a.manifestEventCount, b.manifestEventCount);
        QCOMPARE(a.startedNs, b.startedNs);
        QCOMPARE(a.endedNs, b.endedNs);
        QCOMPARE(a.collector, b.collector);
        QCOMPARE(a.backend, b.backend);
    }
    QCOMPARE(got.partitions.size(), want.partitions.size());
    for (size_t i = 0; i < want.partitions.size(); ++i) {
        QCOMPARE(got.partitions[i].sessionIndex, want.partitions[i].sessionIndex);
        QCOMPARE(got.partitions[i].rank, want.partitions[i].rank);
        QCOMPARE(got.partitions[i].begin, want.partitions[i].begin);
        QCOMPARE(got.partitions[i].end, want.partitions[i].end);
    }
    QCOMPARE(got.phases.size(), want.phases.size());
    for (size_t i = 0; i < want.phases.size(); ++i) {
        const PhaseSpan& a = got.phases[i];
        const PhaseSpan& b = want.phases[i];
        QVERIFY(a.sessionId == b.sessionId && a.rank == b.rank && a.scopeId == b.scopeId &&
                a.parentScopeId == b.parentScopeId && a.name == b.name && a.path == b.path &&
                a.label == b.label && a.depth == b.depth && a.threadId == b.threadId &&
                a.threadName == b.threadName && a.sequence == b.sequence && a.startNs == b.startNs &&
                a.endNs == b.endNs && a.syntheticEnd == b.syntheticEnd &&
                a.attributesJson == b.attributesJson);
    }
    QCOMPARE(problemTexts(got), problemTexts(want));
    QCOMPARE(got.problems.errorCount(), want.problems.errorCount());
    QCOMPARE(got.problems.warningCount(), want.problems.warningCount());
}

TraceCacheSettings settingsIn(const QString& folder, qint64 maxBytes = TraceCacheSettings::kDefaultMaxBytes)
{
    TraceCacheSettings settings;
    settings.folder = folder;
    settings.maxBytes = maxBytes;
    settings.minInputBytes = 0; // the fixtures are small
    return settings;
}

void setLastUsed(const QString& path, const QDateTime& when)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(when, QFileDevice::FileModificationTime));
}

// Runs work on a thread; false (instead of hanging the suite) when it takes longer than limit.
template <typename Work> bool finishesWithin(std::chrono::seconds limit, Work work)
{
    auto done = std::async(std::launch::async, work);
    return done.wait_for(limit) == std::future_status::ready;
}

// Status change time of path in ns.
qint64 changedNs(const QString& path)
{
    struct stat status
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return -1;
    return qint64(status.st_ctim.tv_sec) * 1000000000 + status.st_ctim.tv_nsec;
}

} // namespace

class TestTraceCache : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(
            QStringLiteral("tst_tracecache-%1").arg(QCoreApplication::applicationPid()));
    }
    void cleanupTestCase()
    {
        QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).removeRecursively();
    }

    void defaultFolder()
    {
        // under the user's cache folder (here the test-mode one), never beside an input
        const QString folder = TraceCache().folder();
        QCOMPARE(folder,
                 QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/traces"));
        QVERIFY(folder.contains(QStringLiteral(".qttest")));
    }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QByteArray>("appended"); // lines added to the copy (problems)
        QTest::newRow("JSON lines") << "parity/mixed.jsonl" << QByteArray();
        QTest::newRow("JSON lines with phases") << "parity/phases.jsonl" << QByteArray();
        QTest::newRow("JSON array") << "real/cpu_phases.json" << QByteArray();
        QTest::newRow("CSV") << "real/cpu_phases.csv" << QByteArray();
        QTest::newRow("sink folder") << "real/cpu_sink" << QByteArray();
        QTest::newRow("ranks") << "distributed/collective-merged.jsonl" << QByteArray();
        QTest::newRow("sessions and ranks") << "distributed-extra/extra-16rank-s22.jsonl" << QByteArray();
        QTest::newRow("5000 samples (sealed blocks)") << "" << generatedTrace(5000);
        QTest::newRow("with problems")
            << "parity/drift.jsonl" << QByteArray("{\"broken\n[1,2]\n{\"schema_version\": 9}\n");
    }
    void roundTrip()
    {
        QFETCH(QString, fixture);
        QFETCH(QByteArray, appended);
        QTemporaryDir dir;
        const QString input = fixture.isEmpty() ? dir.path() + QStringLiteral("/generated.jsonl")
                                                : copyInput(kFixtures + fixture, dir.path());
        if (!appended.isEmpty()) {
            QFile file(input);
            QVERIFY(file.open(QIODevice::Append));
            file.write(appended);
        }
        const TraceCache cache(settingsIn(dir.path() + QStringLiteral("/cache")));

        const DocumentOutcome first = loadDocument(input, {}, &cache);
        QVERIFY(first.trace);
        QVERIFY(!first.fromCache);
        QVERIFY(first.cacheKey);
        if (fixture.isEmpty())
            QCOMPARE(first.trace->store.size(), size_t(5000));
        else if (!appended.isEmpty())
            QVERIFY(first.trace->problems.errorCount() >= 3);
        QString error;
        QVERIFY2(keepInCache(first, cache, nullptr, &error), qPrintable(error));
        QCOMPARE(cache.entries().size(), size_t(1));

        const DocumentOutcome second = loadDocument(input, {}, &cache);
        QVERIFY(second.trace);
        QVERIFY(second.fromCache);
        compareTraces(*second.trace, *first.trace);
        if (QTest::currentTestFailed())
            return;
        // the default analysis is kept in the entry: the reopen is not analysed again, and
        // gives the same report; under other thresholds it is analysed as before
        QVERIFY(second.trace->gapMemo);
        QVERIFY(!first.trace->gapMemo);
        QCOMPARE(reportOf(second), reportOf(first));
        DocumentRequest strict;
        strict.thresholds.spikeZScore = 1.0;
        strict.thresholds.driftRSquared = 0.1;
        QCOMPARE(reportJson(analyzeDocument(second, strict).reportContent()),
                 reportJson(analyzeDocument(first, strict).reportContent()));
        // read from the cache: not written again
        QVERIFY(!keepInCache(second, cache));
        // the input was only read; the entry is in the cache folder
        QVERIFY(traceCacheKey(input) == first.cacheKey);
        QVERIFY(cache.entryPath(*first.cacheKey).startsWith(cache.folder() + QLatin1Char('/')));
    }

    // Each damage leaves an entry that must be refused, deleted, and the input read instead.
    void damaged_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::newRow("cut") << "cut";
        QTest::newRow("flipped byte") << "flip";
        QTest::newRow("extended") << "extend";
        QTest::newRow("other format version") << "version";
        QTest::newRow("foreign file") << "foreign";
        QTest::newRow("input touched") << "mtime";
        QTest::newRow("input grew") << "size";
        QTest::newRow("input replaced") << "replace";
    }
    void damaged()
    {
        QFETCH(QString, damage);
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/phases.jsonl"), dir.path());
        const TraceCache cache(settingsIn(dir.path() + QStringLiteral("/cache")));
        const DocumentOutcome first = loadDocument(input, {}, &cache);
        QVERIFY(first.trace);
        QVERIFY(keepInCache(first, cache));
        const QString entry = cache.entryPath(*first.cacheKey);
        QFile file(entry);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray good = file.readAll();
        file.close();

        // every damaged form of the entry, one at a time
        std::vector<QByteArray> variants;
        if (damage == QLatin1String("cut")) {
            for (qsizetype size = 0; size < good.size(); size += 7)
                variants.push_back(good.left(size));
            variants.push_back(good.left(good.size() - 1));
        } else if (damage == QLatin1String("flip")) {
            for (qsizetype at = 0; at < good.size(); at += 5) {
                QByteArray bytes = good;
                bytes[at] = char(bytes[at] ^ 0x24);
                variants.push_back(bytes);
            }
        } else if (damage == QLatin1String("extend")) {
            variants.push_back(good + QByteArray(1, '\0'));
            variants.push_back(good + good);
        } else if (damage == QLatin1String("version")) {
            QByteArray bytes = good;
            bytes[8] = char(bytes[8] + 1); // the format version follows the 8-byte magic
            variants.push_back(bytes);
        } else if (damage == QLatin1String("foreign")) {
            variants.push_back(
                QByteArray("not a cache entry at all, but long enough to hold a header......"));
            variants.push_back(QByteArray(good.size(), 'x'));
        }
        const QDateTime later = QDateTime::currentDateTime().addSecs(5);
        for (const QByteArray& bytes : variants) {
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            file.write(bytes);
            file.close();
            QString why;
            QVERIFY2(!cache.read(*first.cacheKey, &why),
                     qPrintable(QStringLiteral("%1 bytes").arg(bytes.size())));
            QVERIFY2(!QFile::exists(entry), qPrintable(why));
        }
        if (variants.empty()) { // the input changed, the entry did not
            if (damage == QLatin1String("mtime")) {
                setLastUsed(input, later);
            } else if (damage == QLatin1String("size")) {
                QFile grow(input);
                QVERIFY(grow.open(QIODevice::Append));
                grow.write("\n");
            } else {
                QVERIFY(QFile::remove(input));
                QVERIFY(QFile::copy(kFixtures + QStringLiteral("parity/drift.jsonl"), input));
            }
            const auto key = traceCacheKey(input);
            QVERIFY(key);
            QString why;
            QVERIFY(!cache.read(*key, &why));
            QCOMPARE(why, QStringLiteral("the input changed since the entry was written"));
            QVERIFY(!QFile::exists(entry));
        }
        // the input is read again, as if there had been no cache, and kept again
        const DocumentOutcome again = loadDocument(input, {}, &cache);
        QVERIFY(again.trace);
        QVERIFY(!again.fromCache);
        const DocumentOutcome plain = loadDocument(input);
        compareTraces(*again.trace, *plain.trace);
        QVERIFY(keepInCache(again, cache));
        QVERIFY(loadDocument(input, {}, &cache).fromCache);
    }

    // issue 32, item 5: a sample rewritten in place (same size, same inode) with its
    // modification time set back (touch -d) is a changed input: the change time, which user
    // space cannot set, is in the key.
    void rewrittenInPlaceWithItsTimeRestored()
    {
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/phases.jsonl"), dir.path());
        const TraceCache cache(settingsIn(dir.path() + QStringLiteral("/cache")));
        const DocumentOutcome first = loadDocument(input, {}, &cache);
        QVERIFY(first.trace);
        QVERIFY(keepInCache(first, cache));
        struct stat before
        {
        };
        QVERIFY(::stat(QFile::encodeName(input).constData(), &before) == 0);
        const qint64 ctimeBefore = changedNs(input);
        // one digit changed in place: same size, same inode
        QFile file(input);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        const qsizetype at = bytes.indexOf("\"device_used_bytes\": ") + 21;
        QVERIFY(at > 21);
        bytes[at] = bytes[at] == '9' ? '1' : char(bytes[at] + 1);
        // the ctime clock may be coarse (a few ms): wait until a write moves it
        for (int tries = 0; tries < 100 && changedNs(input) == ctimeBefore; ++tries) {
            QTest::qWait(10);
            QVERIFY(file.seek(0));
            QCOMPARE(file.write(bytes), bytes.size());
            QVERIFY(file.flush());
        }
        file.close();
        const timespec times[2] = {before.st_atim, before.st_mtim};
        QVERIFY(::utimensat(AT_FDCWD, QFile::encodeName(input).constData(), times, 0) == 0);
        const auto key = traceCacheKey(input);
        QVERIFY(key);
        QCOMPARE(key->files.front().modifiedNs, first.cacheKey->files.front().modifiedNs);
        QCOMPARE(key->files.front().size, first.cacheKey->files.front().size);
        QCOMPARE(key->files.front().inode, first.cacheKey->files.front().inode);
        QString why;
        QVERIFY(!cache.read(*key, &why));
        QCOMPARE(why, QStringLiteral("the input changed since the entry was written"));
        const DocumentOutcome again = loadDocument(input, {}, &cache);
        QVERIFY(again.trace && !again.fromCache);
        compareTraces(*again.trace, *loadDocument(input).trace);
    }

    // issue 32, item 6: the path as given is display data. The same file named by another
    // path reads the entry (naming the path given now); a read-only cache (the command line)
    // deletes nothing it cannot use.
    void samePathByAnotherName()
    {
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/drift.jsonl"), dir.path());
        {
            QFile file(input);
            QVERIFY(file.open(QIODevice::Append));
            file.write("{\"broken\n"); // a problem naming the file
        }
        const TraceCache cache(settingsIn(dir.path() + QStringLiteral("/cache")));
        const DocumentOutcome first = loadDocument(input, {}, &cache);
        QVERIFY(first.trace);
        QVERIFY(first.trace->problems.errorCount() + first.trace->problems.warningCount() >= 1);
        QVERIFY(keepInCache(first, cache));
        const QString entry = cache.entryPath(*first.cacheKey);

        TraceCacheSettings readOnlySettings = cache.settings();
        readOnlySettings.readOnly = true;
        const TraceCache readOnly(readOnlySettings);
        const QString other = dir.path() + QStringLiteral("/./") + QFileInfo(input).fileName();
        const DocumentOutcome viaOther = loadDocument(other, {}, &readOnly);
        QVERIFY(viaOther.trace);
        QVERIFY(viaOther.fromCache);
        QCOMPARE(viaOther.trace->path, other);
        for (const LoadProblem& problem : viaOther.trace->problems.kept())
            QCOMPARE(problem.file, other);
        const DocumentOutcome plain = loadDocument(other);
        compareTraces(*viaOther.trace, *plain.trace);
        QVERIFY(QFile::exists(entry));
        // the app's entry is still read under its own path
        QVERIFY(loadDocument(input, {}, &cache).fromCache);

        // a stale entry: the read-only cache refuses it and leaves it; it writes nothing
        {
            QFile file(input);
            QVERIFY(file.open(QIODevice::Append));
            file.write("\n");
        }
        const QDateTime touched = QFileInfo(entry).lastModified();
        QString why;
        QVERIFY(!readOnly.read(*traceCacheKey(input), &why));
        QCOMPARE(why, QStringLiteral("the input changed since the entry was written"));
        QVERIFY(QFile::exists(entry));
        QCOMPARE(QFileInfo(entry).lastModified(), touched);
        QVERIFY(!readOnly.write(*traceCacheKey(input), *first.trace));
        // the app's cache replaces it
        QVERIFY(!cache.read(*traceCacheKey(input)));
        QVERIFY(!QFile::exists(entry));
    }

    // issue 32, items 3 and 6: what is at an entry's path may be anything. A FIFO is neither
    // opened for long (no writer would ever come) nor kept; a link is not followed, not even
    // by the write (a dangling one put the entry outside the folder).
    void entryThatIsNoRegularFile_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("FIFO") << "fifo";
        QTest::newRow("dangling symbolic link") << "dangling";
        QTest::newRow("link to a valid entry elsewhere") << "link";
        QTest::newRow("folder") << "folder";
    }
    void entryThatIsNoRegularFile()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/phases.jsonl"), dir.path());
        const QString cacheFolder = dir.path() + QStringLiteral("/cache");
        const TraceCache cache(settingsIn(cacheFolder));
        const auto key = traceCacheKey(input);
        QVERIFY(key);
        const QString entry = cache.entryPath(*key);
        QVERIFY(QDir().mkpath(cacheFolder));
        const QString outside = dir.path() + QStringLiteral("/outside.gstc");
        if (kind == QLatin1String("fifo")) {
            QVERIFY(::mkfifo(QFile::encodeName(entry).constData(), 0600) == 0);
        } else if (kind == QLatin1String("dangling")) {
            QVERIFY(QFile::link(outside, entry));
        } else if (kind == QLatin1String("link")) {
            // a valid entry, moved out of the folder and linked back
            QVERIFY(keepInCache(loadDocument(input, {}, &cache), cache));
            QVERIFY(QFile::rename(entry, outside));
            QVERIFY(QFile::link(outside, entry));
        } else {
            QVERIFY(QDir().mkpath(entry));
        }
        DocumentOutcome loaded;
        QString why;
        const bool finished = finishesWithin(std::chrono::seconds(20), [&] {
            cache.read(*key, &why);
            loaded = loadDocument(input, {}, &cache);
        });
        if (!finished) {
            const int fd = ::open(QFile::encodeName(entry).constData(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                ::close(fd);
            QFAIL("reading the entry blocked");
        }
        QVERIFY2(why.startsWith(QStringLiteral("not a regular file")), qPrintable(why));
        QVERIFY(loaded.trace);
        QVERIFY(!loaded.fromCache);
        QString error;
        QVERIFY2(keepInCache(loaded, cache, nullptr, &error), qPrintable(error));
        const QFileInfo written(entry);
        QVERIFY(written.isFile() && !written.isSymLink());
        QVERIFY(written.absoluteDir() == QDir(cacheFolder));
        QCOMPARE(QFileInfo::exists(outside), kind == QLatin1String("link")); // not written through
        QVERIFY(loadDocument(input, {}, &cache).fromCache);
    }

    // issue 32, item 6: an entry larger than the cap, or than its input could produce, is
    // refused before it is mapped and hashed (a 10 GB one took 30 s and 10.5 GB).
    void oversizedEntryIsRefusedUnread()
    {
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/phases.jsonl"), dir.path());
        const TraceCache cache(settingsIn(dir.path() + QStringLiteral("/cache")));
        const DocumentOutcome first = loadDocument(input, {}, &cache);
        QVERIFY(keepInCache(first, cache));
        const QString entry = cache.entryPath(*first.cacheKey);
        // valid header, payload size matching a sparse 1 GB file
        const qint64 size = qint64(1) << 30;
        {
            QFile file(entry);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.resize(size));
            const quint64 payload = quint64(size) - 40;
            QVERIFY(file.seek(16)); // magic (8), format version (4), header bytes (4)
            QCOMPARE(file.write(reinterpret_cast<const char*>(&payload), sizeof payload), qint64(8));
        }
        QString why;
        QVERIFY(!cache.read(*first.cacheKey, &why));
        // refused on its size, before the key and the checksum are looked at
        QVERIFY2(why.contains(QStringLiteral("more than the")), qPrintable(why));
        QVERIFY(!QFile::exists(entry));
        QVERIFY(TraceCache::largestEntryFor(first.cacheKey->inputBytes()) < size);
        QVERIFY(TraceCache::largestEntryFor(std::numeric_limits<qint64>::max()) ==
                std::numeric_limits<qint64>::max());
    }

    // issue 32, item 8: --cache-max-mb 17592186044416 (2^44) wrapped to a cap of 0 bytes.
    void megabytesToBytes_data()
    {
        QTest::addColumn<qint64>("megabytes");
        QTest::addColumn<qint64>("bytes"); // -1: refused
        QTest::newRow("0") << qint64(0) << qint64(0);
        QTest::newRow("4096") << qint64(4096) << (qint64(4096) << 20);
        QTest::newRow("largest") << (std::numeric_limits<qint64>::max() >> 20)
                                 << ((std::numeric_limits<qint64>::max() >> 20) << 20);
        QTest::newRow("2^43") << (qint64(1) << 43) << qint64(-1);
        QTest::newRow("2^44 (wrapped to 0)") << qint64(17592186044416) << qint64(-1);
        QTest::newRow("negative") << qint64(-1) << qint64(-1);
    }
    void megabytesToBytes()
    {
        QFETCH(qint64, megabytes);
        QFETCH(qint64, bytes);
        QCOMPARE(TraceCacheSettings::megabytesToBytes(megabytes).value_or(-1), bytes);
    }

    void smallInputsAreNotKept()
    {
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/mixed.jsonl"), dir.path());
        TraceCacheSettings settings = settingsIn(dir.path() + QStringLiteral("/cache"));
        settings.minInputBytes = QFileInfo(input).size() + 1;
        const TraceCache cache(settings);
        const DocumentOutcome loaded = loadDocument(input, {}, &cache);
        QVERIFY(loaded.trace);
        QVERIFY(!keepInCache(loaded, cache));
        QVERIFY(cache.entries().empty());
    }

    void leastRecentlyUsedGoesFirst()
    {
        QTemporaryDir dir;
        const QString cacheFolder = dir.path() + QStringLiteral("/cache");
        const QStringList fixtures{QStringLiteral("parity/mixed.jsonl"), QStringLiteral("parity/drift.jsonl"),
                                   QStringLiteral("parity/frag.jsonl"), QStringLiteral("parity/quiet.jsonl")};
        std::vector<DocumentOutcome> loaded;
        const TraceCache unbounded(settingsIn(cacheFolder));
        for (const QString& fixture : fixtures) {
            loaded.push_back(loadDocument(copyInput(kFixtures + fixture, dir.path()), {}, &unbounded));
            QVERIFY(keepInCache(loaded.back(), unbounded));
        }
        // used in the order 0, 1, 2, 3 long ago; then 0 is read again (a hit touches it)
        const QDateTime now = QDateTime::currentDateTime();
        for (size_t i = 0; i < loaded.size(); ++i)
            setLastUsed(unbounded.entryPath(*loaded[i].cacheKey), now.addSecs(-100 + qint64(i)));
        QVERIFY(unbounded.read(*loaded[0].cacheKey));
        // a cap that holds two entries: 1 and 2 go, 3 (used after them) and 0 (just used) stay
        qint64 largest = 0;
        for (const TraceCache::Entry& entry : unbounded.entries())
            largest = std::max(largest, entry.bytes);
        const qint64 twoEntries = QFileInfo(unbounded.entryPath(*loaded[0].cacheKey)).size() +
                                  QFileInfo(unbounded.entryPath(*loaded[3].cacheKey)).size();
        const TraceCache capped(settingsIn(cacheFolder, twoEntries));
        capped.evict();
        QVERIFY(QFile::exists(capped.entryPath(*loaded[0].cacheKey)));
        QVERIFY(!QFile::exists(capped.entryPath(*loaded[1].cacheKey)));
        QVERIFY(!QFile::exists(capped.entryPath(*loaded[2].cacheKey)));
        QVERIFY(QFile::exists(capped.entryPath(*loaded[3].cacheKey)));
        QVERIFY(capped.totalBytes() <= twoEntries);
        // writing evicts too: keeping 1 again pushes out the least recently used of 0 and 3
        setLastUsed(capped.entryPath(*loaded[3].cacheKey), now.addSecs(-50));
        QVERIFY(keepInCache(loadDocument(loaded[1].path, {}, &capped), capped));
        QVERIFY(QFile::exists(capped.entryPath(*loaded[1].cacheKey)));
        QVERIFY(!QFile::exists(capped.entryPath(*loaded[3].cacheKey)));
        QVERIFY(capped.totalBytes() <= twoEntries);
        QVERIFY(capped.clear());
        QCOMPARE(capped.totalBytes(), 0);
        QVERIFY(largest > 0);
    }

    // The GUI's load job: with a cache it keeps the trace after delivering it and reads the
    // entry on the next open; without one (--no-cache) it writes nothing.
    void loadJob_data()
    {
        QTest::addColumn<bool>("withCache");
        QTest::newRow("cache") << true;
        QTest::newRow("no cache") << false;
    }
    void loadJob()
    {
        QFETCH(bool, withCache);
        QTemporaryDir dir;
        const QString input = copyInput(kFixtures + QStringLiteral("parity/spikes.jsonl"), dir.path());
        const QString cacheFolder = dir.path() + QStringLiteral("/cache");
        auto cache = std::make_shared<const TraceCache>(settingsIn(cacheFolder));
        for (int open = 0; open < 2; ++open) {
            LoadJob job;
            if (withCache)
                job.setTraceCache(cache);
            QSignalSpy loaded(&job, &LoadJob::loaded);
            job.start(input);
            job.waitForDone();
            QCOMPARE(loaded.count(), 1);
            QVERIFY(loaded.front().at(1).value<std::shared_ptr<const TraceData>>());
        }
        QCOMPARE(cache->entries().size(), size_t(withCache ? 1 : 0));
        QCOMPARE(QDir(cacheFolder).exists(), withCache);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // beside the input: nothing
    }

    // The ranks of a job load through loadDocument, the reopen cache included: the first load
    // reads every input and its ranks are kept as a trace is (keepInCache; the GUI's load job
    // after delivering the job), the second reads every rank from its entry, and the job is
    // the same.
    void jobRanks_data()
    {
        QTest::addColumn<QString>("job"); // a folder of rank files, or of rankN/telemetry_sink sinks
        QTest::newRow("rank files") << QStringLiteral("../synthetic-jobs/gapleak-job");
        QTest::newRow("rank sinks") << QStringLiteral("distributed/firstcause-job");
    }
    void jobRanks()
    {
        QFETCH(QString, job);
        QTemporaryDir dir;
        const QString source = QDir::cleanPath(kFixtures + job);
        const QString folder = dir.filePath(QStringLiteral("job"));
        QVERIFY(QDir().mkpath(folder));
        for (const QFileInfo& entry :
             QDir(source).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (entry.isFile()) {
                QVERIFY(!copyInput(entry.filePath(), folder).isEmpty());
                continue;
            }
            const QString rank = folder + QLatin1Char('/') + entry.fileName();
            QVERIFY(QDir().mkpath(rank));
            copyInput(entry.filePath() + QStringLiteral("/telemetry_sink"), rank);
        }

        TraceCache cache(settingsIn(dir.filePath(QStringLiteral("cache"))));
        std::vector<DocumentOutcome> first;
        const JobOutcome loaded = gapscope::loadJob({folder}, {}, &cache, &first);
        QVERIFY2(loaded.job, qPrintable(loaded.fatalError));
        QCOMPARE(first.size(), size_t(4));
        for (const DocumentOutcome& rank : first) {
            QVERIFY(rank.trace && !rank.fromCache);
            QString error;
            QVERIFY2(keepInCache(rank, cache, nullptr, &error), qPrintable(error));
        }
        QCOMPARE(cache.entries().size(), first.size());

        std::vector<DocumentOutcome> second;
        const JobOutcome again = gapscope::loadJob({folder}, {}, &cache, &second);
        QVERIFY2(again.job, qPrintable(again.fatalError));
        QCOMPARE(second.size(), first.size());
        for (size_t i = 0; i < second.size(); ++i) {
            QVERIFY(second[i].fromCache);
            QCOMPARE(second[i].path, first[i].path);
            compareTraces(*second[i].trace, *first[i].trace);
        }
        QCOMPARE(again.job->ranks.size(), loaded.job->ranks.size());
        for (size_t i = 0; i < again.job->ranks.size(); ++i) {
            QCOMPARE(again.job->ranks[i].rank, loaded.job->ranks[i].rank);
            QCOMPARE(again.job->ranks[i].present, loaded.job->ranks[i].present);
            QCOMPARE(again.job->ranks[i].sampleCount, loaded.job->ranks[i].sampleCount);
        }

        // The GUI's load job writes the ranks after delivering the job.
        auto guiCache = std::make_shared<const TraceCache>(settingsIn(dir.filePath(QStringLiteral("gui"))));
        LoadJob loadJob;
        loadJob.setTraceCache(guiCache);
        QSignalSpy jobLoaded(&loadJob, &LoadJob::jobLoaded);
        loadJob.startJob({folder});
        loadJob.waitForDone();
        QCOMPARE(jobLoaded.count(), 1);
        QCOMPARE(guiCache->entries().size(), first.size());
    }
};

QTEST_GUILESS_MAIN(TestTraceCache)
#include "tst_tracecache.moc"
