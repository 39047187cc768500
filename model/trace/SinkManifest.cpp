#include "model/trace/SinkManifest.h"
#include "model/text/Text.h"

#include <simdjson.h>

#include <QDir>
#include <QFile>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace gapscope {

namespace {

SessionStatus statusFromString(std::string_view text)
{
    if (text == "running")
        return SessionStatus::Running;
    if (text == "completed")
        return SessionStatus::Completed;
    if (text == "interrupted")
        return SessionStatus::Interrupted;
    if (text == "incomplete")
        return SessionStatus::Incomplete;
    return SessionStatus::Unknown;
}

std::optional<qint64> intMember(simdjson::dom::object object, std::string_view key)
{
    int64_t v = 0;
    simdjson::dom::element e;
    if (object.at_key(key).get(e) || e.is_bool() || e.get_int64().get(v))
        return std::nullopt;
    return v;
}

std::optional<std::string_view> stringMember(simdjson::dom::object object, std::string_view key)
{
    std::string_view v;
    if (object.at_key(key).get_string().get(v))
        return std::nullopt;
    return v;
}

std::optional<QString> qstringMember(simdjson::dom::object object, std::string_view key)
{
    if (const auto v = stringMember(object, key))
        return qs(*v);
    return std::nullopt;
}

bool isPlainFileName(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\\') == std::string_view::npos;
}

} // namespace

std::optional<SinkManifest> parseSinkManifest(std::string_view text, const QString& manifestPath,
                                              ProblemLog* problems, QString* error)
{
    auto warn = [&](const QString& reason) {
        if (problems)
            problems->addWarning(manifestPath, 0, reason);
    };
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (auto e = parser.parse(text.data(), text.size()).get_object().get(root)) {
        *error = QStringLiteral("manifest.json is not a JSON object (%1)").arg(simdjson::error_message(e));
        return std::nullopt;
    }
    const auto format = stringMember(root, "format");
    if (format != kSinkFormat) {
        *error = QStringLiteral("manifest.json is not a stormlog sink manifest (format '%1')")
                     .arg(qs(format.value_or("")));
        return std::nullopt;
    }

    SinkManifest manifest;
    std::map<std::string, size_t, std::less<>> sessionIndex;
    simdjson::dom::array sessions;
    if (!root.at_key("sessions").get_array().get(sessions)) {
        for (simdjson::dom::element element : sessions) {
            simdjson::dom::object object;
            std::optional<std::string_view> id;
            if (element.get_object().get(object) || !(id = stringMember(object, "session_id"))) {
                warn(QStringLiteral("manifest session entry without a session_id ignored"));
                continue;
            }
            auto [it, inserted] = sessionIndex.try_emplace(std::string(*id), manifest.sessions.size());
            if (inserted) {
                manifest.sessions.emplace_back();
                manifest.sessions.back().id = qs(*id);
            } else {
                warn(QStringLiteral("session '%1' is listed twice in manifest.json; the later entry wins")
                         .arg(qs(*id)));
            }
            SinkManifestSession& session = manifest.sessions[it->second];
            if (auto status = stringMember(object, "status"))
                session.status = statusFromString(*status);
            auto keep = [](auto& slot, auto value) {
                if (value)
                    slot = value;
            };
            keep(session.startedNs, intMember(object, "started_at_ns"));
            keep(session.endedNs, intMember(object, "ended_at_ns"));
            keep(session.pid, intMember(object, "pid"));
            keep(session.rank, intMember(object, "rank"));
            keep(session.host, qstringMember(object, "host"));
            keep(session.jobId, qstringMember(object, "job_id"));
        }
    }

    std::set<std::string, std::less<>> named;
    simdjson::dom::array segments;
    if (!root.at_key("segments").get_array().get(segments)) {
        for (simdjson::dom::element element : segments) {
            simdjson::dom::object object;
            std::optional<std::string_view> filename;
            if (element.get_object().get(object) || !(filename = stringMember(object, "filename"))) {
                warn(QStringLiteral("segment entry without a filename ignored"));
                continue;
            }
            const auto eventCount = intMember(object, "event_count");
            std::optional<std::string> sessionId;
            if (const auto id = stringMember(object, "session_id"))
                sessionId = std::string(*id);
            else if (manifest.sessions.size() == 1)
                sessionId = manifest.sessions.front().id.toStdString();
            if (sessionId && eventCount) {
                if (auto it = sessionIndex.find(*sessionId); it != sessionIndex.end()) {
                    manifest.sessions[it->second].segmentEvents += *eventCount;
                    manifest.sessions[it->second].countKnown = true;
                }
            }
            if (!isPlainFileName(*filename)) {
                if (problems)
                    problems->addError(
                        manifestPath, 0,
                        QStringLiteral("segment filename '%1' is not a plain file name; skipped")
                            .arg(qs(*filename)));
                continue;
            }
            if (!named.insert(std::string(*filename)).second) {
                warn(QStringLiteral("segment '%1' is listed twice; read once").arg(qs(*filename)));
                continue;
            }
            manifest.segments.push_back({qs(*filename), eventCount});
        }
    }
    return manifest;
}

std::optional<SinkManifest> readSinkManifest(const QString& directory, ProblemLog* problems, QString* error)
{
    const QString path = QDir(directory).filePath(QStringLiteral("manifest.json"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read manifest.json: %1").arg(file.errorString());
        return std::nullopt;
    }
    const QByteArray text = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("cannot read manifest.json: %1").arg(file.errorString());
        return std::nullopt;
    }
    return parseSinkManifest(std::string_view(text.constData(), static_cast<size_t>(text.size())), path,
                             problems, error);
}

void applySinkManifest(const SinkManifest& manifest, TraceData& data, bool warnUnloaded)
{
    for (const SinkManifestSession& entry : manifest.sessions) {
        const auto index = data.findSession(entry.id);
        if (!index) {
            if (warnUnloaded)
                data.problems.addWarning(
                    data.path, 0,
                    QStringLiteral("session '%1' named by manifest.json has no loaded events").arg(entry.id));
            continue;
        }
        SessionInfo& info = data.sessions[*index];
        if (entry.status)
            info.status = *entry.status;
        if (entry.startedNs)
            info.startedNs = *entry.startedNs;
        if (entry.endedNs)
            info.endedNs = *entry.endedNs;
        if (entry.host)
            info.host = *entry.host;
        if (entry.pid)
            info.pid = *entry.pid;
        if (entry.jobId)
            info.jobId = *entry.jobId;
        if (entry.rank && std::find(info.ranks.begin(), info.ranks.end(), *entry.rank) == info.ranks.end()) {
            info.ranks.push_back(*entry.rank);
            std::sort(info.ranks.begin(), info.ranks.end());
        }
        if (entry.countKnown)
            info.manifestEventCount = entry.segmentEvents;
    }
}

} // namespace gapscope
