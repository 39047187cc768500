#include "app/cli/OutputFile.h"

#include "app/cli/Cli.h"

#include <QFile>
#include <QRandomGenerator>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gapscope {

int OutputStatus::exitCode() const
{
    switch (kind) {
    case Kind::Written:
        return kExitOk;
    case Kind::Refused:
        return kExitUsage;
    case Kind::Failed:
        break;
    }
    return kExitFailure;
}

namespace {

OutputStatus refused(const QString& file, const QString& why)
{
    return {OutputStatus::Kind::Refused, QStringLiteral("%1: %2").arg(file, why)};
}

OutputStatus failed(const QString& file, int error)
{
    return {OutputStatus::Kind::Failed,
            QStringLiteral("%1: not written: %2").arg(file, QString::fromLocal8Bit(std::strerror(error)))};
}

OutputStatus existsStatus(const QString& file)
{
    return refused(file, QStringLiteral("exists (use --force to replace it)"));
}

std::optional<QByteArray> realPath(const QByteArray& path)
{
    char resolved[PATH_MAX];
    if (!::realpath(path.constData(), resolved))
        return std::nullopt;
    return QByteArray(resolved);
}

QByteArray folderOf(const QByteArray& path)
{
    const qsizetype slash = path.lastIndexOf('/');
    if (slash < 0)
        return QByteArrayLiteral(".");
    return slash == 0 ? QByteArrayLiteral("/") : path.left(slash);
}

QByteArray nameOf(const QByteArray& path)
{
    return path.mid(path.lastIndexOf('/') + 1);
}

// What an output path leads to: the file a write would replace (a symbolic link's target,
// so that the link stays) and whether it exists.
struct OutputTarget
{
    QByteArray path; // the one to rename onto
    bool exists = false;
    struct stat info
    {
    };
};

// nullopt with *why set when the path leads somewhere that is not a file to replace.
std::optional<OutputTarget> resolveTarget(const QString& file, OutputStatus* why)
{
    OutputTarget target;
    target.path = QFile::encodeName(file);
    struct stat entry
    {
    };
    if (::lstat(target.path.constData(), &entry) != 0)
        return target; // a new file (or a folder that is missing: the write says so)
    if (S_ISLNK(entry.st_mode)) {
        const auto resolved = realPath(target.path);
        if (!resolved) {
            *why = refused(file, QStringLiteral("not a regular file (a symbolic link to nothing)"));
            return std::nullopt;
        }
        target.path = *resolved;
    }
    if (::stat(target.path.constData(), &target.info) != 0) {
        *why = failed(file, errno);
        return std::nullopt;
    }
    if (!S_ISREG(target.info.st_mode)) {
        *why = refused(file, QStringLiteral("not a regular file"));
        return std::nullopt;
    }
    target.exists = true;
    return target;
}

// Where the output lands with every link and ".." resolved; nullopt when its folder does
// not exist.
std::optional<QByteArray> outputLocation(const OutputTarget& target)
{
    if (target.exists)
        return realPath(target.path);
    const auto folder = realPath(folderOf(target.path));
    if (!folder)
        return std::nullopt;
    return (*folder == "/" ? QByteArray() : *folder) + '/' + nameOf(target.path);
}

bool writeAll(int fd, const QByteArray& data)
{
    const char* at = data.constData();
    qsizetype left = data.size();
    while (left > 0) {
        const ssize_t written = ::write(fd, at, size_t(left));
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            if (written == 0)
                errno = ENOSPC; // no progress and no reason: the disk is full
            return false;
        }
        at += written;
        left -= written;
    }
    return true;
}

// Creates a file beside `path` no other process has; -1 (errno set) when the folder
// refuses. New files get 0666 minus the umask, as any other file the user creates.
int createTemporaryBeside(const QByteArray& path, QByteArray* temporary)
{
    const QByteArray stem = folderOf(path) + "/." + nameOf(path) + ".gapscope-";
    for (int attempt = 0; attempt < 100; ++attempt) {
        *temporary = stem + QByteArray::number(QRandomGenerator::global()->generate64(), 36);
        const int fd = ::open(temporary->constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

} // namespace

OutputStatus checkOutputPath(const QString& output, const QStringList& inputs, bool force)
{
    OutputStatus why;
    const auto target = resolveTarget(output, &why);
    const auto location = target ? outputLocation(*target) : std::nullopt;
    for (const QString& input : inputs) {
        if (input.isEmpty())
            continue;
        const QByteArray inputPath = QFile::encodeName(input);
        struct stat info
        {
        };
        if (::stat(inputPath.constData(), &info) != 0)
            continue; // the load reports it
        if (S_ISDIR(info.st_mode)) {
            const auto folder = realPath(inputPath);
            if (location && folder && location->startsWith(*folder + '/'))
                return refused(output, QStringLiteral("is an input (a file in the folder %1)").arg(input));
        } else if (target && target->exists && target->info.st_dev == info.st_dev &&
                   target->info.st_ino == info.st_ino) {
            return refused(output, QStringLiteral("is an input (%1)").arg(input));
        }
    }
    if (!target)
        return why;
    if (target->exists && !force)
        return existsStatus(output);
    return {};
}

OutputStatus writeOutputFile(const QString& file, const QByteArray& data, bool force)
{
    OutputStatus why;
    const auto target = resolveTarget(file, &why);
    if (!target)
        return why;
    if (target->exists && !force)
        return existsStatus(file);

    QByteArray temporary;
    const int fd = createTemporaryBeside(target->path, &temporary);
    if (fd < 0)
        return failed(file, errno);
    bool written = writeAll(fd, data);
    // a replaced file keeps its permissions; the owner may always set them
    if (written && target->exists)
        written = ::fchmod(fd, target->info.st_mode & 07777) == 0;
    // some file systems report a full disk only when the data is flushed
    if (written)
        written = ::fsync(fd) == 0;
    int error = errno;
    if (::close(fd) != 0 && written) {
        written = false;
        error = errno;
    }
    if (!written) {
        ::unlink(temporary.constData());
        return failed(file, error);
    }

    int committed = 0;
    if (force) {
        committed = ::rename(temporary.constData(), target->path.constData());
    } else {
        // never replaces a file another process created since the check above
        committed = ::renameat2(AT_FDCWD, temporary.constData(), AT_FDCWD, target->path.constData(),
                                RENAME_NOREPLACE);
        if (committed != 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
            // a file system without RENAME_NOREPLACE: link() never replaces either
            committed = ::link(temporary.constData(), target->path.constData());
            if (committed == 0)
                ::unlink(temporary.constData());
        }
    }
    if (committed != 0) {
        error = errno;
        ::unlink(temporary.constData());
        return error == EEXIST ? existsStatus(file) : failed(file, error);
    }
    return {};
}

OutputStatus writeOutputStream(FILE* stream, const QByteArray& data)
{
    const size_t size = size_t(data.size());
    errno = 0;
    const bool written = std::fwrite(data.constData(), 1, size, stream) == size && std::fflush(stream) == 0;
    if (written)
        return {};
    return failed(QStringLiteral("standard output"), errno != 0 ? errno : EIO);
}

QString writeOutput(const QString& file, const QByteArray& data, bool force)
{
    return writeOutputFile(file, data, force).error;
}

} // namespace gapscope
