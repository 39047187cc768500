#include "model/document/JobOpen.h"

#include "model/document/Document.h"
#include "model/document/Recognition.h"
#include "model/read/WindowedReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QThread>

#include <algorithm>
#include <mutex>
#include <numeric>

#ifdef Q_OS_UNIX
#include <dirent.h>
#include <sys/stat.h>
#endif

namespace gapscope {

namespace {

// Why a recognised input is not a rank of a job ("...; left out of the job"); empty for a trace.
QString whyNotARank(const InputRecognition& input)
{
    switch (input.kind) {
    case InputKind::StormlogTrace:
        return {};
    case InputKind::BudgetLog:
        return QStringLiteral("a memory-budget log, not a stormlog trace; left out of the job");
    case InputKind::PytorchSnapshot:
    case InputKind::NvidiaSmiLog:
    case InputKind::Foreign:
        return QStringLiteral("%1; left out of the job").arg(input.reason);
    default:
        return QStringLiteral("not a stormlog trace (%1); left out of the job").arg(input.reason);
    }
}

bool hasManifest(const QString& folder)
{
    return QFileInfo(QDir(folder).filePath(QStringLiteral("manifest.json"))).isFile();
}

// Names with their digit runs compared as numbers: rank2 before rank10.
bool naturalLess(const QString& a, const QString& b)
{
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype endA = i;
            qsizetype endB = j;
            while (endA < a.size() && a[endA].isDigit())
                ++endA;
            while (endB < b.size() && b[endB].isDigit())
                ++endB;
            // without leading zeros the longer run is the larger number
            QStringView runA = QStringView(a).mid(i, endA - i);
            QStringView runB = QStringView(b).mid(j, endB - j);
            while (runA.size() > 1 && runA.front() == QLatin1Char('0'))
                runA = runA.mid(1);
            while (runB.size() > 1 && runB.front() == QLatin1Char('0'))
                runB = runB.mid(1);
            if (runA.size() != runB.size())
                return runA.size() < runB.size();
            if (const int order = runA.compare(runB); order != 0)
                return order < 0;
            i = endA;
            j = endB;
            continue;
        }
        if (a[i] != b[j])
            return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

QFileInfoList sortedEntries(const QString& folder, QDir::Filters filters)
{
    QFileInfoList entries = QDir(folder).entryInfoList(filters | QDir::NoDotAndDotDot);
    std::sort(entries.begin(), entries.end(),
              [](const QFileInfo& a, const QFileInfo& b) { return naturalLess(a.fileName(), b.fileName()); });
    return entries;
}

// A note for every entry of a job folder that the listing below never sees or cannot open,
// so that none is skipped in silence: a name that is not UTF-8 (Qt's name for it does not
// lead back to the file), a dangling link or link loop, a FIFO, socket or device (directly or
// through a link; never opened: a FIFO would block, a device never end). Hidden entries are
// left out by design, without a note.
void noteSkippedEntries(const QString& folder, ProblemLog& problems)
{
#ifdef Q_OS_UNIX
    const QByteArray encoded = QFile::encodeName(folder);
    DIR* dir = ::opendir(encoded.constData());
    if (!dir)
        return;
    std::vector<std::pair<QString, QString>> notes; // name, reason; sorted below
    while (const dirent* entry = ::readdir(dir)) {
        const QByteArray raw(entry->d_name);
        if (raw.startsWith('.'))
            continue;
        const QString name = QFile::decodeName(raw);
        const QString shown = QDir(folder).filePath(name);
        if (QFile::encodeName(name) != raw) {
            notes.emplace_back(shown, QStringLiteral("file name is not valid UTF-8 (shown with U+FFFD); "
                                                     "skipped: rename it to read it"));
            continue;
        }
        const QByteArray path = encoded + '/' + raw;
        struct stat status
        {
        };
        if (::stat(path.constData(), &status) != 0) {
            struct stat link
            {
            };
            if (::lstat(path.constData(), &link) == 0 && S_ISLNK(link.st_mode))
                notes.emplace_back(shown,
                                   QStringLiteral("dangling symbolic link or symbolic link loop; skipped"));
            continue;
        }
        if (!S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode))
            notes.emplace_back(shown,
                               QStringLiteral("not a regular file (a FIFO, socket or device); skipped"));
    }
    ::closedir(dir);
    std::sort(notes.begin(), notes.end(),
              [](const auto& a, const auto& b) { return naturalLess(a.first, b.first); });
    for (const auto& [shown, reason] : notes)
        problems.addWarning(shown, 0, reason);
#else
    Q_UNUSED(folder);
    Q_UNUSED(problems);
#endif
}

// What identifies a file whatever its name: device and inode (a hard link is the same file,
// so is a symbolic link), else the canonical path; empty when the path does not exist.
QString fileIdentity(const QString& path)
{
#ifdef Q_OS_UNIX
    struct stat status
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &status) == 0)
        return QStringLiteral("%1:%2").arg(quint64(status.st_dev)).arg(quint64(status.st_ino));
#endif
    return QFileInfo(path).canonicalFilePath();
}

// The per-rank inputs of a folder that is not a sink: sink folders one or two levels down and
// trace files directly in it. Files that are not traces are noted in `problems` (when given).
QStringList folderInputs(const QString& folder, ProblemLog* problems)
{
    QStringList inputs;
    if (problems)
        noteSkippedEntries(folder, *problems);
    for (const QFileInfo& entry : sortedEntries(folder, QDir::Dirs | QDir::Files)) {
        const QString path = entry.filePath();
        if (entry.isDir()) {
            if (hasManifest(path)) {
                inputs << path;
                continue;
            }
            for (const QFileInfo& inner : sortedEntries(path, QDir::Dirs)) {
                if (hasManifest(inner.filePath()))
                    inputs << inner.filePath();
            }
            continue;
        }
        // FIFOs, sockets, devices: never opened; a name that does not lead back to its file
        // (not UTF-8) cannot be: noteSkippedEntries named both
        if (!entry.isFile() || !QFileInfo::exists(path))
            continue;
        if (const QString why = whyNotARank(recognizeInput(path)); why.isEmpty())
            inputs << path;
        else if (problems)
            problems->addWarning(path, 0, why);
    }
    return inputs;
}

// The bytes an input will read: a file's size, a sink folder's files together.
qint64 estimatedBytes(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return std::max<qint64>(info.size(), 0);
    qint64 bytes = 0;
    for (const QFileInfo& entry : QDir(path).entryInfoList(QDir::Files))
        bytes += entry.size();
    return bytes;
}

// The progress of several inputs loading at once as one increasing sequence of (bytes read,
// total): each input's own reports scaled to its share of the total, never going back.
class JobProgress
{
public:
    JobProgress(std::function<void(qint64, qint64)> report, std::vector<qint64> estimates)
        : m_report(std::move(report)), m_estimates(std::move(estimates)), m_done(m_estimates.size(), 0),
          m_total(std::accumulate(m_estimates.begin(), m_estimates.end(), qint64(0)))
    {
    }
    qint64 total() const { return m_total; }

    void update(size_t input, qint64 read, qint64 inputTotal)
    {
        if (inputTotal <= 0)
            return;
        const double share = std::clamp(double(read) / double(inputTotal), 0.0, 1.0);
        advanceTo(input, qint64(share * double(m_estimates[input])));
    }
    void finish(size_t input) { advanceTo(input, m_estimates[input]); }

private:
    void advanceTo(size_t input, qint64 done)
    {
        if (!m_report)
            return;
        std::lock_guard lock(m_mutex);
        if (done <= m_done[input])
            return;
        m_sum += done - m_done[input];
        m_done[input] = done;
        m_report(m_sum, m_total);
    }

    const std::function<void(qint64, qint64)> m_report;
    const std::vector<qint64> m_estimates;
    std::vector<qint64> m_done;
    const qint64 m_total;
    qint64 m_sum = 0;
    std::mutex m_mutex;
};

} // namespace

QStringList jobFolderInputs(const QString& folder, ProblemLog* problems)
{
    return folderInputs(folder, problems);
}

bool isJobFolder(const QString& path)
{
    const QFileInfo info(path);
    return info.isDir() && !hasManifest(path) && !folderInputs(path, nullptr).isEmpty();
}

JobInputs discoverJobInputs(const QStringList& paths)
{
    JobInputs found;
    const auto isFolderOfInputs = [](const QString& path) {
        return QFileInfo(path).isDir() && !hasManifest(path);
    };
    found.mode = paths.size() == 1 && !isFolderOfInputs(paths.front()) ? JobMode::Session : JobMode::Job;
    QHash<QString, QString> seen; // file identity (device and inode) -> the path it was first given as
    const auto add = [&](const QString& path) {
        const QFileInfo info(path);
        QString key = fileIdentity(path); // a hard-linked copy is the same input too
        if (key.isEmpty())
            key = info.absoluteFilePath(); // does not exist: loading it says so
        if (const auto it = seen.constFind(key); it != seen.constEnd()) {
            found.problems.addWarning(path, 0, QStringLiteral("the same input as %1; read once").arg(*it));
            return;
        }
        seen.insert(key, path);
        found.paths << path;
    };
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (isFolderOfInputs(path)) {
            const QStringList inputs = folderInputs(path, &found.problems);
            if (inputs.isEmpty())
                found.problems.addError(
                    path, 0,
                    QStringLiteral("no stormlog sink or trace file in it (a job folder holds sink "
                                   "folders such as rank0/ or rank0/telemetry_sink/, or trace "
                                   "files)"));
            for (const QString& input : inputs)
                add(input);
            continue;
        }
        // a budget log or a form gapscope names is left out; anything else is loaded, and
        // what cannot be says why (a file that does not exist, say)
        const InputRecognition input = info.isFile() ? recognizeInput(path) : InputRecognition{};
        if (input.kind == InputKind::BudgetLog || input.namedForeign())
            found.problems.addWarning(path, 0, whyNotARank(input));
        else
            add(path);
    }
    return found;
}

JobOutcome loadJob(const QStringList& paths, const LoadControl& control, const TraceCache* cache,
                   std::vector<DocumentOutcome>* loaded)
{
    JobInputs found = discoverJobInputs(paths);
    if (loaded)
        loaded->clear();
    const QStringList& inputPaths = found.paths;
    const size_t count = size_t(inputPaths.size());
    const auto cancelled = [&] { return control.cancel && control.cancel->load(); };
    if (count == 0)
        return assembleJob(std::move(found), {});

    std::vector<qint64> estimates;
    for (const QString& path : inputPaths)
        estimates.push_back(estimatedBytes(path));
    JobProgress progress(control.progress, estimates);
    // Largest first, so a big input does not start last and leave the other threads idle.
    std::vector<size_t> order(count);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return estimates[a] > estimates[b]; });

    // Inputs load at once on up to the ideal thread count; each is parsed on a share of the
    // cores in proportion to its size (one big input alone gets all of them through the loader's
    // own windows, 64 small ones one each), so the threads together stay near the core count.
    const auto ideal = size_t(std::max(1, QThread::idealThreadCount()));
    const qint64 totalBytes = std::max<qint64>(progress.total(), 1);
    std::vector<DocumentOutcome> documents(count);
    forEachInParallel(count, [&](size_t taken) {
        const size_t index = order[taken];
        if (cancelled()) {
            documents[index].cancelled = true;
            return;
        }
        LoadControl input = control;
        if (control.threads <= 0) {
            const auto share = size_t(double(ideal) * double(estimates[index]) / double(totalBytes));
            input.threads = int(std::clamp<size_t>(share, 1, rangesFor(size_t(estimates[index]), 0)));
        }
        input.progress = [&progress, index](qint64 read, qint64 total) {
            progress.update(index, read, total);
        };
        // the loader of a single trace, the reopen cache included
        documents[index] = loadDocument(inputPaths[qsizetype(index)], input, cache);
        progress.finish(index);
    });
    if (cancelled())
        return {nullptr, QString(), true};

    std::vector<LoadOutcome> outcomes;
    outcomes.reserve(count);
    for (const DocumentOutcome& document : documents)
        outcomes.push_back(LoadOutcome{document.trace, document.fatalError, document.cancelled});
    if (loaded)
        *loaded = std::move(documents);
    return assembleJob(std::move(found), outcomes);
}

} // namespace gapscope
