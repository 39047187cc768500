#include "model/fleet/FleetIssues.h"

#include "model/base/Rfc3339.h"
#include "model/trace/AnalysisRunner.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gapscope {

namespace {

// json.dumps of a text with ensure_ascii (Python's default): \uXXXX (lower-case hex) for every
// character outside ASCII, as UTF-16 units.
QString pythonJsonString(const QString& text)
{
    QString out = QStringLiteral("\"");
    for (const QChar c : text) {
        const ushort u = c.unicode();
        switch (u) {
        case '"':
            out += QStringLiteral("\\\"");
            break;
        case '\\':
            out += QStringLiteral("\\\\");
            break;
        case '\n':
            out += QStringLiteral("\\n");
            break;
        case '\r':
            out += QStringLiteral("\\r");
            break;
        case '\t':
            out += QStringLiteral("\\t");
            break;
        case '\b':
            out += QStringLiteral("\\b");
            break;
        case '\f':
            out += QStringLiteral("\\f");
            break;
        default:
            if (u < 0x20 || u > 0x7e)
                out += QStringLiteral("\\u%1").arg(u, 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    return out + QLatin1Char('"');
}

QString dimensionJson(const IssueDimension& value)
{
    if (std::holds_alternative<std::monostate>(value))
        return QStringLiteral("null");
    if (const auto* number = std::get_if<qint64>(&value))
        return QString::number(*number);
    if (const auto* text = std::get_if<QString>(&value))
        return pythonJsonString(normalizeTextDimension(*text));
    // a list: its items normalised, sorted by their JSON
    QStringList items;
    for (const QString& item : std::get<QStringList>(value))
        items << pythonJsonString(normalizeTextDimension(item));
    std::sort(items.begin(), items.end());
    return QLatin1Char('[') + items.join(QLatin1Char(',')) + QLatin1Char(']');
}

QString severityOfEvent(EventType type, const QJsonObject& metadata)
{
    // query.py _event_severity
    if (const QJsonValue given = metadata.value(QLatin1String("severity"));
        given.isString() && !given.toString().trimmed().isEmpty())
        return normalizeTextDimension(given.toString());
    if (type == EventType::Critical || type == EventType::Error)
        return QStringLiteral("critical");
    if (type == EventType::Warning)
        return QStringLiteral("warning");
    return QStringLiteral("info");
}

// issues.py categorize_alert_context
QString alertCategory(const QString& context)
{
    const QString normalized = normalizeTextDimension(context);
    if (normalized.contains(QLatin1String("fragmentation")))
        return QStringLiteral("high_fragmentation");
    if (normalized.contains(QLatin1String("oom")) || normalized.contains(QLatin1String("out of memory")))
        return QStringLiteral("oom_alert");
    if (normalized == QLatin1String("unknown"))
        return QStringLiteral("generic_alert");
    return normalized;
}

// issues.py normalized_error_stem
QString errorStem(const QJsonValue& error)
{
    QString text = normalizeTextDimension(error.isString() ? error.toString() : QString());
    if (text == QLatin1String("unknown"))
        return text;
    for (const QChar separator : {QLatin1Char(':'), QLatin1Char('\n')})
        if (const qsizetype at = text.indexOf(separator); at >= 0)
            text = text.left(at).trimmed();
    text = text.left(120);
    return text.isEmpty() ? QStringLiteral("unknown") : text;
}

// A metadata value as upstream's dimension takes it: a text, else None.
IssueDimension textOrNone(const QJsonValue& value)
{
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toDouble());
    return std::monostate{};
}

// Whether text holds word (lower case ASCII letters) in any case. Runs over the metadata of every
// event of a fleet: memchr to each place the word's first letter is, in either case, and no
// locale's tolower per byte.
bool containsCaseless(std::string_view text, std::string_view word)
{
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    const auto restMatches = [&](const char* at) {
        for (size_t i = 1; i < word.size(); ++i)
            if (lower(at[i]) != word[i])
                return false;
        return true;
    };
    if (word.empty() || text.size() < word.size())
        return false;
    const char* const last = text.data() + (text.size() - word.size()); // the last place it may start
    for (const char first : {word.front(), char(word.front() - 'a' + 'A')}) {
        for (const char* at = text.data(); at <= last; ++at) {
            at = static_cast<const char*>(std::memchr(at, first, size_t(last - at) + 1));
            if (!at)
                break;
            if (restMatches(at))
                return true;
        }
    }
    return false;
}

// Whether a metadata text may make its event an issue: it names a severity, an OOM or a
// collector's health of "degraded" or "unhealthy" (every sink record names its collector's
// health; only a degraded one is an issue). Parsed only then.
bool mayBeIssue(std::string_view metadataText)
{
    return metadataText.find("severity") != std::string_view::npos ||
           metadataText.find("oom_") != std::string_view::npos ||
           containsCaseless(metadataText, "degraded") || containsCaseless(metadataText, "unhealthy");
}

QString eventTypeName(const EventStore& store, uint32_t row)
{
    const EventType type = store.type[row];
    if (type == EventType::Other)
        return QString::fromStdString(store.str(store.typeName[row]));
    return QString::fromUtf8(toString(type).data(), qsizetype(toString(type).size()));
}

} // namespace

QString normalizeTextDimension(const QString& given)
{
    QString text = given.trimmed().toLower();
    if (text.isEmpty())
        return QStringLiteral("unknown");
    static const QRegularExpression hex(QStringLiteral("0x[0-9a-fA-F]+"));
    static const QRegularExpression number(QStringLiteral("(?<!\\w)\\d+(?:\\.\\d+)?%?(?!\\w)"),
                                           QRegularExpression::UseUnicodePropertiesOption);
    text.replace(hex, QStringLiteral("<hex>"));
    text.replace(number, QStringLiteral("<num>"));
    static const QRegularExpression blanks(QStringLiteral("\\s+"),
                                           QRegularExpression::UseUnicodePropertiesOption);
    text.replace(blanks, QStringLiteral(" "));
    return text;
}

QString issueDimensionsJson(const IssueDimensions& given)
{
    // sort_keys: the fields ordered by key (indices sorted, the values stay where they are)
    std::vector<size_t> order(given.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return given[a].first < given[b].first; });
    QStringList fields;
    for (const size_t i : order)
        fields << pythonJsonString(given[i].first) + QLatin1Char(':') + dimensionJson(given[i].second);
    return QLatin1Char('{') + fields.join(QLatin1Char(',')) + QLatin1Char('}');
}

QString issueFingerprintId(const QString& kind, const IssueDimensions& dimensions, const QString& prefix)
{
    // {"dimensions":...,"kind":...,"schema_version":1}: the payload's keys sorted
    const QString payload = QStringLiteral("{\"dimensions\":%1,\"kind\":%2,\"schema_version\":1}")
                                .arg(issueDimensionsJson(dimensions), pythonJsonString(kind));
    const QByteArray digest = QCryptographicHash::hash(payload.toUtf8(), QCryptographicHash::Sha256).toHex();
    return prefix + QString::fromLatin1(digest.left(24));
}

QString summarizePhaseAttribution(const std::optional<PhaseAttribution>& phase)
{
    if (!phase)
        return {};
    if (phase->summary) {
        const QString path = QString::fromStdString(phase->summary->phasePath);
        return phase->summary->source == "heuristic" ? QStringLiteral("(likely) ") + path : path;
    }
    QStringList labels;
    for (const std::string& path : phase->phasePaths)
        if (!path.empty())
            labels << QString::fromStdString(path);
    if (phase->resolution == PhaseResolution::Unique) {
        if (phase->phasePath && !phase->phasePath->empty())
            return QString::fromStdString(*phase->phasePath);
        return labels.size() == 1 ? labels.front() : QString();
    }
    return labels.isEmpty() ? QString() : QStringLiteral("(ambiguous) ") + labels.join(QStringLiteral(" | "));
}

void FleetIssueSet::add(const QString& kind, const IssueDimensions& dimensions, const QString& issueClass,
                        const QString& severity, const QString& title, std::optional<qint64> seenNs,
                        const QString& prefix)
{
    const QString id = issueFingerprintId(kind, dimensions, prefix);
    auto [it, added] = m_hits.try_emplace(id);
    FleetIssueHits& hits = it->second;
    if (added) {
        hits.fingerprint = id;
        hits.kind = kind;
        hits.issueClass = issueClass;
        hits.severity = severity;
        hits.title = title;
        hits.dimensions = issueDimensionsJson(dimensions);
    }
    ++hits.hitCount;
    if (seenNs) {
        hits.firstSeenNs = hits.firstSeenNs ? std::min(*hits.firstSeenNs, *seenNs) : *seenNs;
        hits.lastSeenNs = hits.lastSeenNs ? std::max(*hits.lastSeenNs, *seenNs) : *seenNs;
    }
}

void FleetIssueSet::addEventIssues(const EventStore& store, uint32_t begin, uint32_t end)
{
    // mayBeIssue of each metadata text by its pool id, looked at once: the samples of a run
    // share one text (-1: not looked at yet)
    std::vector<int8_t> mentionsById(store.strings.size(), -1);
    for (uint32_t row = begin; row < end; ++row) {
        const EventType type = store.type[row];
        // what makes an event an issue: its type, or its metadata
        const bool alertType =
            type == EventType::Warning || type == EventType::Critical || type == EventType::Error;
        if (!alertType && type != EventType::CollectorDegraded) {
            const uint32_t id = store.metadata[row];
            if (mentionsById[id] < 0)
                mentionsById[id] = mayBeIssue(store.str(id)) ? 1 : 0;
            if (mentionsById[id] == 0)
                continue;
        }
        const std::string& metadataText = store.str(store.metadata[row]);
        const QJsonObject metadata =
            metadataText.empty()
                ? QJsonObject()
                : QJsonDocument::fromJson(
                      QByteArray::fromRawData(metadataText.data(), qsizetype(metadataText.size())))
                      .object();
        const EventSource& source = store.sources[store.source[row]];
        const QString collector = QString::fromStdString(store.str(source.collector));
        const QString backend = normalizeTextDimension(metadata.value(QLatin1String("backend")).toString());
        const qint64 timeNs = store.timestampNs[row];
        const QString typeName = eventTypeName(store, row);
        if (type == EventType::Error && (metadata.contains(QLatin1String("oom_reason")) ||
                                         metadata.contains(QLatin1String("oom_dump_path")))) {
            const IssueDimension reason = textOrNone(metadata.value(QLatin1String("oom_reason")));
            add(QStringLiteral("oom"),
                {{QStringLiteral("backend"), backend}, {QStringLiteral("reason"), reason}},
                std::holds_alternative<QString>(reason) ? normalizeTextDimension(std::get<QString>(reason))
                                                        : QStringLiteral("unknown"),
                QStringLiteral("critical"), QStringLiteral("Out of memory"), timeNs);
            continue;
        }
        const QString health =
            normalizeTextDimension(metadata.value(QLatin1String("collector_health_status")).toString());
        if (type == EventType::CollectorDegraded || health == QLatin1String("degraded") ||
            health == QLatin1String("unhealthy")) {
            const QString status = metadata.value(QLatin1String("collector_health_status")).isString()
                                       ? health
                                       : QStringLiteral("degraded");
            QStringList partial;
            if (const QJsonValue fields = metadata.value(QLatin1String("collector_partial_fields"));
                fields.isArray())
                for (const QJsonValue& field : fields.toArray())
                    partial << (field.isString() ? field.toString() : QString());
            add(QStringLiteral("collector_degradation"),
                {{QStringLiteral("collector"), collector},
                 {QStringLiteral("backend"), backend},
                 {QStringLiteral("health_status"), status},
                 {QStringLiteral("partial_fields"), partial},
                 {QStringLiteral("error_stem"),
                  errorStem(metadata.value(QLatin1String("collector_last_error")))}},
                status,
                status == QLatin1String("unhealthy") ? QStringLiteral("critical") : QStringLiteral("warning"),
                QStringLiteral("Collector degradation"), timeNs);
            continue;
        }
        const QJsonValue metadataSeverity = metadata.value(QLatin1String("severity"));
        const bool severityNamed = metadataSeverity == QLatin1String("warning") ||
                                   metadataSeverity == QLatin1String("critical") ||
                                   metadataSeverity == QLatin1String("error");
        if (!alertType && !severityNamed)
            continue;
        const QString severity = severityOfEvent(type, metadata);
        const QString category = alertCategory(QString::fromStdString(store.str(store.context[row])));
        add(QStringLiteral("alert"),
            {{QStringLiteral("event_type"), typeName},
             {QStringLiteral("severity"), severity},
             {QStringLiteral("collector"), collector},
             {QStringLiteral("backend"), backend},
             {QStringLiteral("category"), category}},
            category, severity,
            QStringLiteral("Alert: %1").arg(QString(category).replace(QLatin1Char('_'), QLatin1Char(' '))),
            timeNs);
    }
}

void FleetIssueSet::addHiddenMemoryIssues(const AnalysisResult& result)
{
    const EventStore& store = result.trace->store;
    const Partition& partition = result.partition;
    for (const Finding& finding : result.findings) {
        if (!isGapClassification(finding.classification))
            continue; // gapscope's own findings are not upstream's gap analysis
        // the evidence event: the first of the partition at the finding's time (query.py
        // _event_at_timestamp)
        QString collector = QStringLiteral("unknown");
        QString backend = QStringLiteral("unknown");
        for (uint32_t row = partition.begin; row < partition.end; ++row) {
            if (store.timestampNs[row] != finding.evidenceTimestampNs)
                continue;
            collector = QString::fromStdString(store.str(store.sources[store.source[row]].collector));
            const std::string& metadataText = store.str(store.metadata[row]);
            const QJsonObject metadata =
                QJsonDocument::fromJson(
                    QByteArray::fromRawData(metadataText.data(), qsizetype(metadataText.size())))
                    .object();
            backend = normalizeTextDimension(metadata.value(QLatin1String("backend")).toString());
            break;
        }
        const QString classification = QString::fromUtf8(toString(finding.classification).data());
        const QString severity = QString::fromUtf8(toString(finding.severity).data());
        const QString phase = summarizePhaseAttribution(finding.phase);
        add(QStringLiteral("hidden_memory_anomaly"),
            {{QStringLiteral("classification"), classification},
             {QStringLiteral("severity"), severity},
             {QStringLiteral("phase"), phase.isEmpty() ? IssueDimension{} : IssueDimension{phase}},
             {QStringLiteral("collector"), collector},
             {QStringLiteral("backend"), backend}},
            classification, severity, QStringLiteral("Hidden-memory anomaly: %1").arg(classification),
            finding.evidenceTimestampNs);
    }
}

void FleetIssueSet::addOomBundleIssue(const OomInfo& oom)
{
    const auto textOrNull = [](const QString& text) {
        return text.isEmpty() ? IssueDimension{} : IssueDimension{text};
    };
    const std::optional<int64_t> created = parseRfc3339Ns(oom.createdAtUtc.toStdString());
    add(QStringLiteral("oom"),
        {{QStringLiteral("backend"), textOrNull(oom.backend)},
         {QStringLiteral("reason"), textOrNull(oom.reason)}},
        normalizeTextDimension(oom.reason), QStringLiteral("critical"), QStringLiteral("Out of memory"),
        created ? std::optional<qint64>(*created) : std::nullopt);
}

void FleetIssueSet::addNotice(const QString& code, const QString& severity, const QString& collector,
                              const QString& backend, std::optional<qint64> seenNs)
{
    add(QStringLiteral("gapscope_notice"),
        {{QStringLiteral("code"), code},
         {QStringLiteral("severity"), severity},
         {QStringLiteral("collector"), collector},
         {QStringLiteral("backend"), backend}},
        code, severity,
        QStringLiteral("Notice: %1").arg(QString(code).replace(QLatin1Char('_'), QLatin1Char(' '))), seenNs,
        QStringLiteral("gapscope:"));
}

std::vector<FleetIssueHits> FleetIssueSet::hits() const
{
    std::vector<FleetIssueHits> all;
    all.reserve(m_hits.size());
    for (const auto& [id, hits] : m_hits)
        all.push_back(hits);
    return all;
}

} // namespace gapscope
