#include "model/trace/OomBundle.h"

#include "model/text/Text.h"
#include "model/trace/SinkManifest.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

namespace gapscope {

namespace {

const QString kManifest = QStringLiteral("manifest.json");
const QString kEvents = QStringLiteral("events.json");
const QString kMetadata = QStringLiteral("metadata.json");
const QString kEnvironment = QStringLiteral("environment.json");

// A bundle's files are a few KB (events.json: the ring buffer, 10 000 events by default, a few
// MB); anything far larger is not one.
constexpr qint64 kMaxSmallFileBytes = 4 << 20;

// The JSON object in a small file, or nullopt with *why.
std::optional<QJsonObject> readObject(const QString& path, QString* why)
{
    QFile file(path);
    if (!file.exists()) {
        *why = QStringLiteral("missing");
        return std::nullopt;
    }
    if (file.size() > kMaxSmallFileBytes) {
        *why = QStringLiteral("larger than %1, not a bundle file").arg(bytesText(kMaxSmallFileBytes));
        return std::nullopt;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *why = QStringLiteral("cannot open for reading: %1").arg(file.errorString());
        return std::nullopt;
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError) {
        *why = QStringLiteral("invalid JSON at offset %1: %2").arg(error.offset).arg(error.errorString());
        return std::nullopt;
    }
    if (!document.isObject()) {
        *why = QStringLiteral("not a JSON object");
        return std::nullopt;
    }
    return document.object();
}

// The manifest of folder when it is a bundle's.
std::optional<QJsonObject> bundleManifest(const QString& folder)
{
    QString why;
    const auto manifest = readObject(QDir(folder).filePath(kManifest), &why);
    if (!manifest || manifest->contains(QStringLiteral("format")))
        return std::nullopt; // a sink manifest names its format; a bundle's does not
    if (manifest->value(QStringLiteral("bundle_name")).isString())
        return manifest;
    if (manifest->value(QStringLiteral("files")).toArray().contains(QJsonValue(kEvents)))
        return manifest;
    return std::nullopt;
}

// The bundles of an oom_dumps folder, newest first: by created_at_utc, then by name (which
// starts with the UTC time and ends with the recorder's sequence number).
QStringList bundlesIn(const QString& dumps)
{
    struct Found
    {
        QString folder;
        QString created;
        QString name;
    };
    std::vector<Found> found;
    const QDir dir(dumps);
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString folder = dir.filePath(name);
        if (const auto manifest = bundleManifest(folder))
            found.push_back({folder, manifest->value(QStringLiteral("created_at_utc")).toString(), name});
    }
    std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        return a.created != b.created ? a.created > b.created : a.name > b.name;
    });
    QStringList folders;
    for (const Found& f : found)
        folders << f.folder;
    return folders;
}

// Whether folder is a place a trace lives: a sink (manifest.json of its own) or the folder of
// one (a child folder other than oom_dumps holding a manifest.json).
bool holdsSink(const QString& folder)
{
    const QDir dir(folder);
    if (QFileInfo(dir.filePath(kManifest)).isFile())
        return true;
    for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (name != kOomDumpsFolder && QFileInfo(QDir(dir.filePath(name)).filePath(kManifest)).isFile())
            return true;
    }
    return false;
}

std::optional<int64_t> utcTextNs(const QString& text)
{
    QDateTime time = QDateTime::fromString(text, Qt::ISODate);
    if (!time.isValid())
        return std::nullopt;
    time.setTimeSpec(Qt::UTC);
    return time.toMSecsSinceEpoch() * int64_t(1'000'000);
}

QString stringOf(const QJsonObject& object, const char* key)
{
    return object.value(QLatin1StringView(key)).toString();
}

// The OOM's time from the trace: the last `error` event whose metadata names the reason (the
// tracker writes one, "OOM detected (<reason>)", as it dumps), else the last `error` event.
std::optional<int64_t> errorEventTime(const TraceData& data, const QString& reason)
{
    const EventStore& store = data.store;
    std::optional<int64_t> anyError;
    for (size_t i = store.size(); i-- > 0;) {
        const auto row = static_cast<uint32_t>(i);
        if (store.type[row] != EventType::Error)
            continue;
        if (!anyError)
            anyError = store.timestampNs[row];
        const uint32_t metadata = store.metadata[row];
        if (metadata == 0)
            continue;
        const QJsonObject object =
            QJsonDocument::fromJson(QByteArray::fromStdString(store.str(metadata))).object();
        if (!reason.isEmpty() && object.value(QStringLiteral("oom_reason")).toString() == reason)
            return store.timestampNs[row];
    }
    return anyError;
}

// Whether data holds the session the OOM names (or the OOM names none).
bool sessionHeld(const TraceData& data, const OomInfo& oom)
{
    if (oom.sessionId.isEmpty())
        return true;
    return std::any_of(data.sessions.begin(), data.sessions.end(),
                       [&](const SessionInfo& s) { return s.id == oom.sessionId; });
}

void sortByTime(std::vector<OomInfo>& ooms)
{
    std::stable_sort(ooms.begin(), ooms.end(), [](const OomInfo& a, const OomInfo& b) {
        return a.timeNs.value_or(INT64_MAX) < b.timeNs.value_or(INT64_MAX);
    });
}

} // namespace

bool isOomBundleFolder(const QString& folder)
{
    return QFileInfo(folder).isDir() && bundleManifest(folder).has_value();
}

std::optional<OomBundleLocation> locateOomBundle(const QString& given)
{
    const QString path = QDir::cleanPath(given); // "oom_dumps/" is the folder oom_dumps
    const QFileInfo info(path);
    if (info.isFile()) {
        // manifest.json or events.json of a bundle: the bundle
        if (info.fileName() != kManifest && info.fileName() != kEvents)
            return std::nullopt;
        if (!isOomBundleFolder(info.absolutePath()))
            return std::nullopt;
        return OomBundleLocation{info.path(), {}};
    }
    if (!info.isDir())
        return std::nullopt;
    if (isOomBundleFolder(path))
        return OomBundleLocation{path, {}};
    QString dumps;
    if (info.fileName() == kOomDumpsFolder)
        dumps = path;
    else if (const QString below = QDir(path).filePath(kOomDumpsFolder);
             QFileInfo(below).isDir() && !holdsSink(path))
        dumps = below;
    if (dumps.isEmpty())
        return std::nullopt;
    QStringList bundles = bundlesIn(dumps);
    if (bundles.isEmpty())
        return std::nullopt;
    OomBundleLocation location{bundles.takeFirst(), {}};
    location.other = std::move(bundles);
    return location;
}

OomInfo readOomInfo(const QString& folder, ProblemLog* problems)
{
    const QDir dir(folder);
    OomInfo oom;
    oom.bundlePath = folder;
    oom.bundleName = QFileInfo(folder).fileName();
    auto read = [&](const QString& name) {
        QString why;
        const QString file = dir.filePath(name);
        auto object = readObject(file, &why);
        if (!object && problems)
            problems->addWarning(file, 0, QStringLiteral("OOM bundle file not read: %1").arg(why));
        return object.value_or(QJsonObject());
    };
    const QJsonObject manifest = read(kManifest);
    oom.metadata = read(kMetadata);
    oom.environment = read(kEnvironment);

    if (const QString name = stringOf(manifest, "bundle_name"); !name.isEmpty())
        oom.bundleName = name;
    // metadata.json is the fuller record; the manifest repeats the reason, backend and session
    auto either = [&](const char* key) {
        const QString value = stringOf(oom.metadata, key);
        return value.isEmpty() ? stringOf(manifest, key) : value;
    };
    oom.reason = either("reason");
    oom.backend = either("backend");
    oom.sessionId = either("session_id");
    oom.sessionStatus = either("session_status");
    oom.exceptionType = stringOf(oom.metadata, "exception_type");
    oom.exceptionModule = stringOf(oom.metadata, "exception_module");
    oom.exceptionMessage = stringOf(oom.metadata, "exception_message");
    oom.context = stringOf(oom.metadata, "context");
    oom.createdAtUtc = stringOf(manifest, "created_at_utc");
    const QJsonValue count = oom.metadata.contains(QStringLiteral("captured_event_count"))
                                 ? oom.metadata.value(QStringLiteral("captured_event_count"))
                                 : manifest.value(QStringLiteral("event_count"));
    if (count.isDouble())
        oom.capturedEventCount = count.toInteger(-1);
    oom.timeNs = utcTextNs(oom.createdAtUtc);
    return oom;
}

LoadOutcome loadOomBundle(const OomBundleLocation& location, const LoadControl& control)
{
    ProblemLog bundleProblems;
    OomInfo oom = readOomInfo(location.folder, &bundleProblems);
    const QString events = QDir(location.folder).filePath(kEvents);
    if (!QFileInfo(events).isFile()) {
        LoadOutcome outcome;
        outcome.fatalError =
            QStringLiteral("%1: OOM bundle without %2 (its events)").arg(location.folder, kEvents);
        return outcome;
    }
    LoadOutcome outcome = loadTrace(events, control, [&](TraceData& data) {
        data.path = location.folder;
        if (const auto at = errorEventTime(data, oom.reason)) {
            oom.timeNs = at;
            oom.timeFromEvent = true;
        }
        if (oom.capturedEventCount >= 0 && oom.capturedEventCount != static_cast<int64_t>(data.recordsRead))
            data.problems.addWarning(events, 0,
                                     QStringLiteral("the bundle says it holds %1 events; %2 were read")
                                         .arg(oom.capturedEventCount)
                                         .arg(data.recordsRead));
        data.problems.merge(bundleProblems);
        if (!location.other.isEmpty())
            data.problems.addWarning(
                QFileInfo(location.folder).path(), 0,
                QStringLiteral("%1 more OOM %2 in this folder, not opened (open each bundle folder): %3")
                    .arg(location.other.size())
                    .arg(location.other.size() == 1 ? QStringLiteral("bundle") : QStringLiteral("bundles"))
                    .arg(location.other.join(QStringLiteral(", "))));
        data.ooms.push_back(std::move(oom));
    });
    return outcome;
}

void attachOomBundlesBeside(TraceData& data)
{
    const QFileInfo input(data.path);
    const QString dumps = QDir(input.path()).filePath(kOomDumpsFolder);
    if (!QFileInfo(dumps).isDir())
        return;
    for (const QString& folder : bundlesIn(dumps)) {
        OomInfo oom = readOomInfo(folder, &data.problems);
        // the trace's own error event, when the bundle's session is the trace's
        oom.sessionInTrace = sessionHeld(data, oom);
        if (oom.sessionInTrace) {
            if (const auto at = errorEventTime(data, oom.reason);
                at && oom.timeNs && std::llabs(*at - *oom.timeNs) < 2'000'000'000) {
                oom.timeNs = at; // created_at_utc is that second; the event is the moment
                oom.timeFromEvent = true;
            }
        } else {
            data.problems.addWarning(
                folder, 0,
                QStringLiteral("OOM bundle of session %1, which this trace does not hold: shown, but it "
                               "may belong to another run")
                    .arg(oom.sessionId));
        }
        data.ooms.push_back(std::move(oom));
    }
    sortByTime(data.ooms);
}

std::vector<std::pair<QString, QString>> oomKeyFacts(const OomInfo& oom)
{
    std::vector<std::pair<QString, QString>> facts;
    auto add = [&](const QString& label, const QString& value) {
        if (!value.isEmpty())
            facts.emplace_back(label, value);
    };
    add(QStringLiteral("Reason"), oom.reason);
    add(QStringLiteral("Exception"), oom.exceptionName());
    add(QStringLiteral("Message"), oom.exceptionMessage);
    add(QStringLiteral("Context"), oom.context);
    add(QStringLiteral("Backend"), oom.backend);
    if (oom.timeNs)
        add(QStringLiteral("Time"),
            QDateTime::fromMSecsSinceEpoch(*oom.timeNs / 1'000'000, Qt::UTC).toString(Qt::ISODateWithMs) +
                (oom.timeFromEvent ? QStringLiteral(" (its error event)")
                                   : QStringLiteral(" (the bundle's created_at_utc)")));
    add(QStringLiteral("Session"), oom.sessionStatus.isEmpty()
                                       ? oom.sessionId
                                       : QStringLiteral("%1 (%2)").arg(oom.sessionId, oom.sessionStatus));
    const QJsonObject session = oom.metadata.value(QStringLiteral("session")).toObject();
    if (!session.isEmpty()) {
        QStringList where;
        if (const QString host = stringOf(session, "host"); !host.isEmpty())
            where << QStringLiteral("host %1").arg(host);
        if (session.value(QStringLiteral("pid")).isDouble())
            where << QStringLiteral("pid %1").arg(session.value(QStringLiteral("pid")).toInteger());
        if (const QString job = stringOf(session, "job_id"); !job.isEmpty())
            where << QStringLiteral("job %1").arg(job);
        if (session.value(QStringLiteral("world_size")).toInteger(1) > 1)
            where << QStringLiteral("rank %1 of %2")
                         .arg(session.value(QStringLiteral("rank")).toInteger())
                         .arg(session.value(QStringLiteral("world_size")).toInteger());
        add(QStringLiteral("Process"), where.join(QStringLiteral(", ")));
    }
    const QJsonObject custom = oom.metadata.value(QStringLiteral("custom_metadata")).toObject();
    const QJsonObject stats = custom.value(QStringLiteral("tracker_stats")).toObject();
    auto bytesOf = [](const QJsonValue& v) { return v.isDouble() ? bytesText(v.toInteger()) : QString(); };
    add(QStringLiteral("Peak memory (tracker)"), bytesOf(stats.value(QStringLiteral("peak_memory"))));
    add(QStringLiteral("Allocated at the OOM"),
        bytesOf(stats.value(QStringLiteral("current_memory_allocated"))));
    add(QStringLiteral("Reserved at the OOM"),
        bytesOf(stats.value(QStringLiteral("current_memory_reserved"))));
    add(QStringLiteral("Device total"), bytesOf(custom.value(QStringLiteral("total_memory_bytes"))));
    if (stats.value(QStringLiteral("total_allocations")).isDouble())
        add(QStringLiteral("Allocations / deallocations"),
            QStringLiteral("%1 / %2")
                .arg(stats.value(QStringLiteral("total_allocations")).toInteger())
                .arg(stats.value(QStringLiteral("total_deallocations")).toInteger()));
    if (oom.capturedEventCount >= 0)
        add(QStringLiteral("Events in the bundle"), QString::number(oom.capturedEventCount));
    const QJsonObject system = oom.environment.value(QStringLiteral("system")).toObject();
    QStringList platform;
    for (const char* key : {"platform", "architecture"})
        if (const QString value = stringOf(system, key); !value.isEmpty())
            platform << value;
    add(QStringLiteral("Platform"), platform.join(QLatin1Char(' ')));
    add(QStringLiteral("Python"), stringOf(system, "python_version").section(QLatin1Char(' '), 0, 0));
    if (const QString cuda = stringOf(system, "cuda_version"); !cuda.isEmpty())
        add(QStringLiteral("CUDA"),
            system.value(QStringLiteral("cuda_device_count")).isDouble()
                ? QStringLiteral("%1, %2 device(s)")
                      .arg(cuda)
                      .arg(system.value(QStringLiteral("cuda_device_count")).toInteger())
                : cuda);
    add(QStringLiteral("Host memory"), bytesOf(system.value(QStringLiteral("memory_total"))));
    add(QStringLiteral("Bundle"), oom.bundlePath);
    return facts;
}

} // namespace gapscope
