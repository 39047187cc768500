#include "model/fleet/FleetIndex.h"

#include "model/fleet/FleetDatabase.h"
#include "model/fleet/FleetIndexer.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <QThreadPool>

#include <condition_variable>
#include <deque>
#include <mutex>

namespace gapscope {

namespace {

bool under(const QString& path, const QStringList& roots)
{
    for (const QString& root : roots)
        if (path == root || path.startsWith(root.endsWith(QLatin1Char('/')) ? root : root + QLatin1Char('/')))
            return true;
    return false;
}

// Results handed from the workers to the writer.
class ResultQueue
{
public:
    void push(IndexedInput result)
    {
        {
            std::lock_guard lock(m_mutex);
            m_results.push_back(std::move(result));
        }
        m_ready.notify_one();
    }
    IndexedInput pop()
    {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [&] { return !m_results.empty(); });
        IndexedInput result = std::move(m_results.front());
        m_results.pop_front();
        return result;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::deque<IndexedInput> m_results;
};

} // namespace

bool indexFleet(const FleetIndexRequest& request, FleetIndexSummary* summary, QString* error)
{
    FleetDatabase database;
    if (!database.open(request.output, error))
        return false;
    const QHash<QString, FleetDatabase::KnownInput> stored = database.knownInputs(error);
    if (!error->isEmpty())
        return false;
    QHash<QString, KnownFleetInput> known;
    for (auto it = stored.begin(); it != stored.end(); ++it)
        known.insert(it.key(), KnownFleetInput{inputKindFromString(it->kind).value_or(InputKind::Unknown),
                                               it->stamp, QString()});
    const QHash<QString, FleetWalkedPath> walkedBefore = database.walkedPaths(error);
    if (!error->isEmpty())
        return false;
    FleetWalk walk = walkFleet(request.roots, known, walkedBefore);
    summary->problems << walk.problems;
    summary->recognised = walk.recognised;
    // the database and SQLite's files beside it are never inputs
    const QString output = fleetPath(request.output);
    const QSet<QString> own = {output, output + QStringLiteral("-wal"), output + QStringLiteral("-shm"),
                               output + QStringLiteral("-journal")};
    std::vector<FleetInput> toRead;
    QStringList reappeared;
    QSet<QString> found;
    for (FleetInput& input : walk.inputs) {
        if (own.contains(input.path))
            continue;
        if (request.shard && !inFleetShard(input.path, request.shard->first, request.shard->second))
            continue;
        found.insert(input.path);
        ++summary->found;
        const auto before = stored.constFind(input.path);
        if (before != stored.constEnd() && before->stamp == input.stamp) {
            ++summary->unchanged;
            if (before->vanished)
                reappeared << input.path;
            continue;
        }
        toRead.push_back(std::move(input));
    }
    if (!database.setVanished(reappeared, false, error))
        return false;
    // inputs of these roots (and this shard) no longer found
    QStringList roots;
    for (const QString& root : request.roots)
        roots << fleetPath(root);
    QStringList vanished;
    for (auto it = stored.begin(); it != stored.end(); ++it)
        if (!it->vanished && !found.contains(it.key()) && under(it.key(), roots) &&
            (!request.shard || inFleetShard(it.key(), request.shard->first, request.shard->second)))
            vanished << it.key();
    if (!database.setVanished(vanished, true, error))
        return false;
    summary->vanished = vanished.size();

    QThreadPool pool;
    pool.setMaxThreadCount(request.threads > 0 ? request.threads : QThread::idealThreadCount());
    ResultQueue queue;
    for (const FleetInput& input : toRead)
        pool.start([&queue, input] { queue.push(indexFleetInput(input)); });
    bool ok = true;
    for (size_t i = 0; i < toRead.size(); ++i) {
        const IndexedInput result = queue.pop();
        if (!ok)
            continue; // drain what is running; nothing more is written
        ++summary->read;
        summary->runs += qint64(result.runs.size());
        if (result.runs.empty() && !result.passedOver) {
            ++summary->failed;
            summary->problems << result.error;
        }
        if (!database.writeInput(result, error)) {
            ok = false;
            pool.clear();
        }
    }
    pool.waitForDone();
    if (!ok)
        return false;
    // what the walk recognised, for the next index: only what changed, once the inputs are written
    // (an index killed before recognises again)
    QHash<QString, FleetWalkedPath> walkedChanged;
    for (auto it = walk.walked.cbegin(); it != walk.walked.cend(); ++it) {
        const auto before = walkedBefore.constFind(it.key());
        if (before == walkedBefore.constEnd() || !(before->stamp == it->stamp) ||
            before->skipped != it->skipped)
            walkedChanged.insert(it.key(), *it);
    }
    QStringList walkedGone;
    for (auto it = walkedBefore.cbegin(); it != walkedBefore.cend(); ++it)
        if (!walk.walked.contains(it.key()) && under(it.key(), roots))
            walkedGone << it.key();
    return database.updateWalkedPaths(walkedChanged, walkedGone, error);
}

bool mergeFleetIndexes(const QStringList& parts, const QString& output, QString* error)
{
    FleetDatabase database;
    if (!database.open(output, error))
        return false;
    for (const QString& part : parts) {
        if (fleetPath(part) == fleetPath(output)) {
            *error = QStringLiteral("%1: the output is one of the parts").arg(part);
            return false;
        }
        if (!database.mergeFrom(part, error))
            return false;
    }
    return true;
}

} // namespace gapscope
