#include "model/snapshot/SnapshotLoader.h"

#include "model/snapshot/SnapshotBuilder.h"
#include "model/snapshot/SnapshotTimeline.h"

#include <QFile>

#include <zlib.h>

#include <algorithm>

namespace gapscope {

namespace {

// zlib counts in 32-bit units: the input and the output go to it in slices of at most this.
constexpr size_t kZlibSlice = size_t(1) << 30;
constexpr qint64 kControlStride = qint64(4) << 20;

} // namespace

bool headIsPickle(std::string_view head)
{
    return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 &&
           static_cast<unsigned char>(head[1]) >= 2 && static_cast<unsigned char>(head[1]) <= 5;
}

bool headIsGzip(std::string_view head)
{
    return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
           static_cast<unsigned char>(head[1]) == 0x8b;
}

bool gzipHeadIsPickle(std::string_view head)
{
    if (!headIsGzip(head))
        return false;
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        return false;
    unsigned char out[16];
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(head.data()));
    zs.avail_in = uInt(std::min(head.size(), kZlibSlice));
    zs.next_out = out;
    zs.avail_out = sizeof out;
    const int status = inflate(&zs, Z_NO_FLUSH);
    const size_t produced = sizeof out - zs.avail_out;
    inflateEnd(&zs);
    return (status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR) &&
           headIsPickle(std::string_view(reinterpret_cast<const char*>(out), produced));
}

std::optional<QByteArray> gunzip(std::string_view in, qint64 maxBytes, QString* error,
                                 const LoadControl* control)
{
    if (!headIsGzip(in)) {
        *error = QStringLiteral("not gzip (it does not start with 1f 8b)");
        return std::nullopt;
    }
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        *error = QStringLiteral("zlib could not start");
        return std::nullopt;
    }
    // The last member's ISIZE (its size modulo 2^32) as the first guess, never trusted beyond
    // what deflate can do with the input (1032:1) nor the limit.
    qint64 guess = qint64(in.size()) * 4;
    if (in.size() >= 18) {
        const auto* tail = reinterpret_cast<const unsigned char*>(in.data() + in.size() - 4);
        const qint64 isize =
            qint64(tail[0]) | qint64(tail[1]) << 8 | qint64(tail[2]) << 16 | qint64(tail[3]) << 24;
        guess = std::max(guess, isize);
    }
    guess = std::clamp<qint64>(guess, 4096, std::min(maxBytes, qint64(in.size()) * 1032 + 4096));
    QByteArray out;
    out.resize(guess);
    size_t inPos = 0;
    qint64 outPos = 0;
    qint64 nextControl = kControlStride;
    const auto fail = [&](const QString& why) {
        inflateEnd(&zs);
        *error = why;
        return std::nullopt;
    };
    for (;;) {
        if (outPos == out.size()) {
            if (out.size() >= maxBytes)
                return fail(QStringLiteral("it inflates to more than %1 bytes, the most read").arg(maxBytes));
            out.resize(std::min(maxBytes, std::max<qint64>(out.size() * 2, 4096)));
        }
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + inPos));
        zs.avail_in = uInt(std::min(in.size() - inPos, kZlibSlice));
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + outPos);
        zs.avail_out = uInt(std::min<qint64>(out.size() - outPos, qint64(kZlibSlice)));
        const uInt availIn = zs.avail_in, availOut = zs.avail_out;
        const int status = inflate(&zs, Z_NO_FLUSH);
        inPos += availIn - zs.avail_in;
        outPos += availOut - zs.avail_out;
        if (status == Z_STREAM_END) {
            // another member follows (gzip -c a b > c); anything else after the end is ignored,
            // as gzip -d does ("trailing garbage ignored")
            if (in.size() - inPos >= 2 && headIsGzip(in.substr(inPos)) && inflateReset(&zs) == Z_OK)
                continue;
            break;
        }
        if (status == Z_BUF_ERROR || status == Z_OK) {
            if (zs.avail_out > 0 && inPos == in.size())
                return fail(QStringLiteral("the gzip data is cut short after %1 inflated bytes").arg(outPos));
        } else {
            return fail(QStringLiteral("damaged gzip data after %1 inflated bytes (%2)")
                            .arg(outPos)
                            .arg(QString::fromLatin1(zs.msg ? zs.msg : "zlib error")));
        }
        if (control && outPos >= nextControl) {
            nextControl = outPos + kControlStride;
            if (control->cancel && control->cancel->load(std::memory_order_relaxed))
                return fail(QStringLiteral("cancelled"));
            if (control->progress)
                control->progress(qint64(inPos), qint64(in.size()));
        }
    }
    inflateEnd(&zs);
    out.resize(outPos);
    out.squeeze();
    return out;
}

SnapshotLoadOutcome loadSnapshotBytes(std::string_view bytes, const QString& name, const LoadControl& control,
                                      const SnapshotLoadLimits& limits)
{
    SnapshotLoadOutcome outcome;
    const qint64 total = qint64(bytes.size());
    QByteArray inflated;
    std::string_view pickle = bytes;
    const bool compressed = headIsGzip(bytes);
    if (compressed) {
        // the inflation is the first half of the progress, the pickle the second
        LoadControl halves;
        halves.cancel = control.cancel;
        if (control.progress)
            halves.progress = [&](qint64 done, qint64) { control.progress(done / 2, total); };
        QString why;
        auto out = gunzip(bytes, limits.maxInflatedBytes, &why, &halves);
        if (control.cancel && control.cancel->load()) {
            outcome.cancelled = true;
            return outcome;
        }
        if (!out) {
            outcome.fatalError = QStringLiteral("%1: a gzip file that cannot be read: %2").arg(name, why);
            return outcome;
        }
        inflated = std::move(*out);
        pickle = std::string_view(inflated.constData(), size_t(inflated.size()));
    }
    LoadControl parse;
    parse.cancel = control.cancel;
    if (control.progress) {
        parse.progress = [&](qint64 done, qint64 of) {
            if (compressed)
                control.progress(
                    total / 2 + (of > 0 ? qint64(double(done) / double(of) * double(total / 2)) : 0), total);
            else
                control.progress(done, total);
        };
    }
    std::shared_ptr<SnapshotData> data;
    qint64 stopOffset = 0;
    {
        PickleReadOutcome read = readPickle(pickle, limits.pickle, &parse);
        if (read.cancelled) {
            outcome.cancelled = true;
            return outcome;
        }
        if (!read.arena) {
            outcome.errorOffset = read.error.offset;
            outcome.fatalError =
                QStringLiteral("%1: %2").arg(name, QString::fromStdString(read.error.reason));
            if (read.error.offset == 0 && !pickleOpcodeName(static_cast<unsigned char>(pickle[0]))[0])
                outcome.fatalError +=
                    QStringLiteral(" (a PyTorch memory snapshot is a pickle of protocol 2 to 5, "
                                   "starting with bytes 80 02 to 80 05)");
            return outcome;
        }
        stopOffset = read.stopOffset;
        SnapshotBuildOutcome built = buildSnapshot(*read.arena, name, control.cancel);
        if (built.cancelled) {
            outcome.cancelled = true;
            return outcome;
        }
        if (!built.data) {
            outcome.fatalError = QStringLiteral("%1: %2").arg(name, built.fatalError);
            return outcome;
        }
        data = std::move(built.data);
    } // the arena goes here, before the data is handed out
    data->inputBytes = total;
    data->pickleBytes = qint64(pickle.size());
    data->compressed = compressed;
    if (stopOffset < qint64(pickle.size()))
        data->problems.addWarning(name, 0,
                                  QStringLiteral("%1 bytes after the pickle's STOP (byte %2) are not read")
                                      .arg(qint64(pickle.size()) - stopOffset)
                                      .arg(stopOffset - 1));
    data->timelines = std::make_shared<const std::vector<SnapshotTimeline>>(buildSnapshotTimelines(*data));
    if (control.progress)
        control.progress(total, total);
    outcome.data = std::move(data);
    return outcome;
}

SnapshotLoadOutcome loadSnapshotBytes(const QByteArray& bytes, const QString& name,
                                      const LoadControl& control, const SnapshotLoadLimits& limits)
{
    return loadSnapshotBytes(std::string_view(bytes.constData(), size_t(bytes.size())), name, control,
                             limits);
}

SnapshotLoadOutcome loadSnapshotFile(const QString& path, const LoadControl& control,
                                     const SnapshotLoadLimits& limits)
{
    SnapshotLoadOutcome outcome;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        outcome.fatalError = QStringLiteral("%1: cannot open for reading: %2").arg(path, file.errorString());
        return outcome;
    }
    const qint64 size = file.size();
    if (size == 0) {
        outcome.fatalError = QStringLiteral("%1: an empty file, not a pickle").arg(path);
        return outcome;
    }
    // mapped: the pages are read as the pickle is, and never copied
    if (uchar* mapped = file.map(0, size)) {
        outcome = loadSnapshotBytes(std::string_view(reinterpret_cast<const char*>(mapped), size_t(size)),
                                    path, control, limits);
        file.unmap(mapped);
        return outcome;
    }
    const QByteArray bytes = file.readAll();
    if (bytes.size() != size) {
        outcome.fatalError = QStringLiteral("%1: could not be read: %2").arg(path, file.errorString());
        return outcome;
    }
    return loadSnapshotBytes(bytes, path, control, limits);
}

} // namespace gapscope
