#pragma once
// Reads a PyTorch memory snapshot: the pickle torch.cuda.memory._dump_snapshot writes (protocol
// 2 to 5; `pickle.dump(torch.cuda.memory._snapshot(), f)` alike), plain or gzip-compressed
// (`.pickle.gz`). The pickle is read by PickleReader (nothing in it is run: an opcode that names
// or calls code is refused with its offset) into an arena, SnapshotBuilder makes the columnar
// SnapshotData of it, and the arena is freed before the data is handed out.
//
// Files: PickleReader (the opcodes, the arena), SnapshotBuilder (the schema), SnapshotData (what
// a load gives), SnapshotSummary (the totals), SnapshotLoader (files, gzip, recognition).

#include "model/base/LoadControl.h"
#include "model/snapshot/PickleReader.h"
#include "model/snapshot/SnapshotData.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <optional>
#include <string_view>

namespace gapscope {

struct SnapshotLoadOutcome
{
    std::shared_ptr<const SnapshotData> data; // null when the input is unusable
    QString fatalError;                       // why data is null: "name: reason"
    // Where a pickle that could not be read went wrong: the byte offset in the pickle (the
    // decompressed bytes of a .gz), the offset fatalError names too.
    std::optional<qint64> errorOffset;
    bool cancelled = false;
};

struct SnapshotLoadLimits
{
    PickleLimits pickle;
    // A gzip file that inflates past this is refused (a small file that inflates to terabytes).
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    qint64 maxInflatedBytes = qint64(64) << 20; // libFuzzer's -rss_limit_mb is 2 GB
#else
    qint64 maxInflatedBytes = qint64(16) << 30;
#endif
};

// A snapshot file: mapped (or read) whole, inflated first when it is gzip. control: progress
// (bytes of the file, file size; a .gz's inflation is the first half) and cancel.
SnapshotLoadOutcome loadSnapshotFile(const QString& path, const LoadControl& control = {},
                                     const SnapshotLoadLimits& limits = {});

// The same for bytes in memory (a test, a fuzz input, a download): plain or gzip. name is what
// messages and problems call the input. The bytes are not kept: the data owns all its text.
SnapshotLoadOutcome loadSnapshotBytes(const QByteArray& bytes, const QString& name,
                                      const LoadControl& control = {}, const SnapshotLoadLimits& limits = {});
SnapshotLoadOutcome loadSnapshotBytes(std::string_view bytes, const QString& name,
                                      const LoadControl& control = {}, const SnapshotLoadLimits& limits = {});

// Recognition (model/document/Recognition), pure functions of a file's head:
// - a pickle of protocol 2 to 5 (PROTO 0x80 and the protocol: every snapshot PyTorch writes);
bool headIsPickle(std::string_view head);
// - gzip (1f 8b);
bool headIsGzip(std::string_view head);
// - gzip whose first inflated bytes are such a pickle (a .pickle.gz), inflating no more than
//   16 bytes of it (the head must hold the deflate block's code tables: a few hundred bytes).
bool gzipHeadIsPickle(std::string_view head);

// Inflates a whole gzip file (several members one after another, as gzip -c a b > c writes):
// nullopt and *error when it is not gzip, is damaged or cut short, or would pass maxBytes.
std::optional<QByteArray> gunzip(std::string_view compressed, qint64 maxBytes, QString* error,
                                 const LoadControl* control = nullptr);

} // namespace gapscope
