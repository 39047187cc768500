#pragma once
// The reopen cache: a loaded trace (everything TraceData holds) written as one binary file in
// the user's cache folder after the first load of a large input, and read back instead of
// parsing the input again while the input is unchanged. Qt Core only.
//
// An entry is never trusted: it is used only when its magic, format version and build id (the
// ELF build id of the running program: another build may parse differently) match, its key
// (the canonical path, and size, modification and status-change time in ns, device and inode
// of the file, or of every file of a sink folder) equals the input's key now, its checksum over
// the payload matches and every count and id in it is in range. The change time is in the key
// because user space can set a modification time back (touch -d) but not a change time: a
// file rewritten in place with its mtime restored is seen as changed. The path as given is
// display data, not identity: the same file named by another path (relative, absolute) reads
// the entry, with the trace and its problems naming the path given now. Anything else is
// deleted (unless the cache is read-only: the command line never writes it) and the input is
// read. An entry is opened only when it is a regular file (never following a link, never
// blocking on a FIFO), and mapped only when it is within the cap and within what its input
// could produce. Entries are written to a temporary file renamed into place, never beside the
// input (which is only ever read), after anything at the entry's path that is not a regular
// file (a link, a FIFO) is removed. The folder is kept under a size cap by deleting the least
// recently used entries (a read touches its entry).

#include "model/store/TraceData.h"

#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace gapscope {

// What identifies an input's content without reading it.
struct TraceCacheKey
{
    struct File
    {
        QString name; // within a sink folder; empty for a file input
        qint64 size = 0;
        qint64 modifiedNs = 0;
        qint64 changedNs = 0; // status change (ctime): cannot be set back from user space
        uint64_t device = 0;
        uint64_t inode = 0;
        bool operator==(const File&) const = default;
    };
    QString givenPath; // as the trace and its problems name the input: display data, not identity
    QString canonicalPath;
    std::vector<File> files; // a file: one; a folder: each regular file in it, by name
    // The sizes of the files, saturated at INT64_MAX (sizes come from the file system).
    qint64 inputBytes() const;
    // Identity: the same content by canonical path and file status; the path as given is not part of it.
    bool operator==(const TraceCacheKey& other) const
    {
        return canonicalPath == other.canonicalPath && files == other.files;
    }
};
// nullopt when path does not exist or cannot be examined.
std::optional<TraceCacheKey> traceCacheKey(const QString& path);

// QStandardPaths::CacheLocation + "/traces".
QString defaultTraceCacheFolder();

struct TraceCacheSettings
{
    static constexpr qint64 kDefaultMaxBytes = qint64(4) << 30;       // 4 GiB
    static constexpr qint64 kDefaultMinInputBytes = qint64(64) << 20; // 64 MiB
    QString folder;                                                   // empty: defaultTraceCacheFolder()
    qint64 maxBytes = kDefaultMaxBytes;
    qint64 minInputBytes = kDefaultMinInputBytes; // smaller inputs load fast enough: not cached
    // Read entries, never change the folder: an invalid entry is left for the app to replace,
    // a used one is not touched. The command line's reads.
    bool readOnly = false;
    // The cap for a number of megabytes (--cache-max-mb, the setting cache/maxMegabytes):
    // nullopt when it is negative or its bytes do not fit in qint64 (2^43 MB and over).
    static std::optional<qint64> megabytesToBytes(qint64 megabytes);
    // An entry also keeps the default analysis (default session, lowest rank, whole trace)
    // under these thresholds, so that a reopen under them is not analysed again.
    GapThresholds memoThresholds;
};

class TraceCache
{
public:
    static constexpr quint32 kFormatVersion = 3; // 3: change time and device in the key
    static constexpr const char* kSuffix = ".gstc";

    explicit TraceCache(TraceCacheSettings settings = {});

    const QString& folder() const { return m_settings.folder; }
    const TraceCacheSettings& settings() const { return m_settings; }
    // The file an input's entry is kept in (named by a hash of the canonical path).
    QString entryPath(const TraceCacheKey& key) const;

    // The trace kept for key, touched as just used; nullptr when there is none or it is not
    // valid (then deleted), with *whyNot saying which (for a test or a log line).
    // An entry is at most the cap and at most this much for an input of inputBytes: what any
    // trace of that input can take (rows, strings, problems, the memo) with a wide margin. A
    // larger one is refused before it is mapped.
    static qint64 largestEntryFor(qint64 inputBytes);
    std::shared_ptr<TraceData> read(const TraceCacheKey& key, QString* whyNot = nullptr) const;
    // Whether a load of key's input is worth keeping: large enough, and small enough for the cap.
    bool worthWriting(const TraceCacheKey& key, const TraceData& data) const;
    // Writes data as key's entry (temporary file, renamed into place), then evicts down to the
    // cap. False when cancelled or on a write error (*error), leaving no file behind.
    bool write(const TraceCacheKey& key, const TraceData& data, const std::atomic<bool>* cancel = nullptr,
               QString* error = nullptr) const;
    // Deletes least recently used entries until the folder holds at most maxBytes.
    void evict() const;
    // Every entry (and leftover temporary file) of the folder.
    struct Entry
    {
        QString path;
        qint64 bytes = 0;
        qint64 lastUsedNs = 0;
    };
    std::vector<Entry> entries() const;
    qint64 totalBytes() const;
    // Deletes every entry; false when one could not be deleted.
    bool clear() const;

private:
    TraceCacheSettings m_settings;
};

// The id an entry must carry to be read by this program (format version, layout of the stored
// types and the program's build id).
QByteArray traceCacheBuildId();

} // namespace gapscope
