#pragma once
// Writing a report or chart to a file (--output, the app's Export Report...) without ever
// damaging what is there: a path that is an input, or exists and is not a regular file, is
// refused; the bytes go to a temporary file beside the target, every write and the flush to
// disk are checked, and only a complete file is renamed over the target; without force the
// rename never replaces a file, even when another process creates it meanwhile.

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cstdio>

namespace gapscope {

// `--output -`: standard output.
inline constexpr char kStandardOutputName[] = "-";

struct OutputStatus
{
    enum class Kind
    {
        Written,
        Refused, // the path may not be written (an input, not a regular file, exists): exit 2
        Failed,  // the system said no (no such folder, disk full, ...): exit 1
    };
    Kind kind = Kind::Written;
    QString error; // one line, "path: reason"
    bool ok() const { return kind == Kind::Written; }
    int exitCode() const; // kExitOk, kExitUsage or kExitFailure
};

// Whether `output` may be written for these inputs, before any work is done: refused when it
// resolves to an input file (symbolic links followed, hard links by device and inode), lies
// inside an input folder, exists and is not a regular file, or exists and force is false.
// A path whose folder does not exist passes (writing it fails later, with the reason).
OutputStatus checkOutputPath(const QString& output, const QStringList& inputs, bool force);

// Writes data to file atomically; replaces an existing regular file only with force. Nothing
// is left behind on failure and the old file is kept.
OutputStatus writeOutputFile(const QString& file, const QByteArray& data, bool force);

// Writes data to a stream, checking the write and the flush (a full disk behind a redirect).
OutputStatus writeOutputStream(FILE* stream, const QByteArray& data);

// writeOutputFile for callers that only need the reason: empty when written.
QString writeOutput(const QString& file, const QByteArray& data, bool force);

} // namespace gapscope
