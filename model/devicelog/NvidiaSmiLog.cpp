#include "model/devicelog/NvidiaSmiLog.h"

#include "analysis/Int64Math.h"
#include "model/text/Text.h"

#include <QDateTime>
#include <QFile>
#include <QRegularExpression>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace gapscope {

QString toString(DeviceLogScope scope)
{
    return scope == DeviceLogScope::Device ? QStringLiteral("device") : QStringLiteral("process");
}

std::optional<QTimeZone> deviceLogTimeZone(const QString& given, QString* error)
{
    const QString text = given.trimmed();
    if (text.isEmpty())
        return QTimeZone::systemTimeZone();
    if (text.compare(QLatin1String("UTC"), Qt::CaseInsensitive) == 0 ||
        text.compare(QLatin1String("Z"), Qt::CaseInsensitive) == 0)
        return QTimeZone::utc();
    // +02:00, -0530, +2, UTC+02:00: an offset east of UTC
    static const QRegularExpression offset(QStringLiteral("^(?:UTC|GMT)?([+-])(\\d{1,2})(?::?(\\d{2}))?$"),
                                           QRegularExpression::CaseInsensitiveOption);
    if (const QRegularExpressionMatch m = offset.match(text); m.hasMatch()) {
        const int hours = m.captured(2).toInt();
        const int minutes = m.captured(3).isEmpty() ? 0 : m.captured(3).toInt();
        if (hours > 14 || minutes > 59) {
            *error = QStringLiteral("time zone offset '%1' is outside -14:00 to +14:00").arg(text);
            return std::nullopt;
        }
        const int seconds = (hours * 3600 + minutes * 60) * (m.captured(1) == QLatin1String("-") ? -1 : 1);
        return QTimeZone(seconds);
    }
    const QTimeZone zone(text.toUtf8());
    if (!zone.isValid()) {
        *error = QStringLiteral("unknown time zone '%1' (an IANA name such as Europe/Berlin, UTC, or an "
                                "offset such as +02:00)")
                     .arg(text);
        return std::nullopt;
    }
    return zone;
}

QString deviceLogTimeZoneName(const QTimeZone& zone)
{
    if (zone == QTimeZone::utc())
        return QStringLiteral("UTC");
    const QString id = QString::fromUtf8(zone.id());
    if (id.contains(QLatin1Char('/')) || !id.startsWith(QLatin1String("UTC")))
        return id.isEmpty() ? QStringLiteral("system") : id; // an IANA id
    // a fixed offset (Qt names a whole hour "UTC+02"): always UTC+hh:mm
    const int offset = zone.offsetFromUtc(QDateTime::currentDateTimeUtc());
    if (offset == 0)
        return QStringLiteral("UTC");
    const int minutes = std::abs(offset) / 60;
    return QStringLiteral("UTC%1%2:%3")
        .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
        .arg(minutes / 60, 2, 10, QLatin1Char('0'))
        .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

namespace {

// The columns gapscope reads, by their name in the header (units stripped).
struct Columns
{
    qsizetype timestamp = -1;
    qsizetype used = -1;  // memory.used, or used_gpu_memory / used_memory
    qsizetype total = -1; // memory.total
    qsizetype pid = -1;
    qsizetype index = -1;
    qsizetype count = 0;
    QStringList names; // as written, for messages
};

QString columnName(const QString& field)
{
    QString name = field.trimmed();
    if (const qsizetype bracket = name.indexOf(QLatin1Char('[')); bracket >= 0)
        name = name.left(bracket).trimmed();
    return name.toLower();
}

bool isHeader(const QStringList& fields)
{
    return !fields.isEmpty() && columnName(fields.front()) == QLatin1String("timestamp");
}

// Bytes per unit as nvidia-smi writes them ("MiB"); 0 for an unknown unit.
int64_t unitBytes(QStringView unit)
{
    if (unit.isEmpty() || unit == QLatin1String("B"))
        return 1;
    if (unit == QLatin1String("KiB"))
        return int64_t(1) << 10;
    if (unit == QLatin1String("MiB"))
        return int64_t(1) << 20;
    if (unit == QLatin1String("GiB"))
        return int64_t(1) << 30;
    return 0;
}

// The unit of a header field ("memory.used [MiB]"): MiB when it names none (nvidia-smi's).
QString headerUnit(const QString& field)
{
    const qsizetype open = field.indexOf(QLatin1Char('['));
    const qsizetype close = field.indexOf(QLatin1Char(']'), open + 1);
    return open >= 0 && close > open ? field.mid(open + 1, close - open - 1).trimmed()
                                     : QStringLiteral("MiB");
}

// "609 MiB" or "609" (csv,nounits) in bytes; an error text for "[N/A]", "[Not Supported]", ...
std::optional<int64_t> parseBytes(const QString& field, const QString& defaultUnit, const QString& column,
                                  QString* why)
{
    const QString text = field.trimmed();
    const qsizetype space = text.indexOf(QLatin1Char(' '));
    const QString number = space < 0 ? text : text.left(space);
    const QString unit = space < 0 ? defaultUnit : text.mid(space + 1).trimmed();
    bool ok = false;
    const qlonglong value = number.toLongLong(&ok);
    if (!ok || value < 0) {
        *why = text.startsWith(QLatin1Char('['))
                   ? QStringLiteral("%1 is %2 (nvidia-smi could not read it)").arg(column, text)
                   : QStringLiteral("%1 '%2' is not a number of %3").arg(column, text, defaultUnit);
        return std::nullopt;
    }
    const int64_t scale = unitBytes(unit);
    if (scale == 0) {
        *why = QStringLiteral("%1 '%2': unknown unit '%3' (B, KiB, MiB, GiB)").arg(column, text, unit);
        return std::nullopt;
    }
    if (value > std::numeric_limits<int64_t>::max() / scale) {
        *why = QStringLiteral("%1 '%2' is too large").arg(column, text);
        return std::nullopt;
    }
    return int64_t(value) * scale;
}

// Reads the digits of text[at, at + n) into *out.
bool digits(QStringView text, qsizetype at, qsizetype n, int* out)
{
    if (at + n > text.size())
        return false;
    int value = 0;
    for (qsizetype i = at; i < at + n; ++i) {
        if (!text[i].isDigit())
            return false;
        value = value * 10 + text[i].digitValue();
    }
    *out = value;
    return true;
}

// Local wall times to the epoch in a zone. The offset is looked up once a minute of the log
// (a log of a day at 100 ms has 864 000 rows; zones change their offset on the minute).
class LocalClock
{
public:
    explicit LocalClock(const QTimeZone& zone) : m_zone(zone) {}

    // "2026/12/04 17:20:01.123" (milliseconds optional) in ns since the epoch
    std::optional<int64_t> toNs(QStringView text)
    {
        int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, ms = 0;
        if (!digits(text, 0, 4, &year) || text.size() < 19 || text[4] != QLatin1Char('/') ||
            !digits(text, 5, 2, &month) || text[7] != QLatin1Char('/') || !digits(text, 8, 2, &day) ||
            text[10] != QLatin1Char(' ') || !digits(text, 11, 2, &hour) || text[13] != QLatin1Char(':') ||
            !digits(text, 14, 2, &minute) || text[16] != QLatin1Char(':') || !digits(text, 17, 2, &second))
            return std::nullopt;
        if (text.size() > 19) {
            // a fraction of 1 to 9 digits, read to the millisecond
            if (text[19] != QLatin1Char('.') || text.size() == 20 || text.size() > 29)
                return std::nullopt;
            int fraction = 0;
            const qsizetype n = std::min<qsizetype>(text.size() - 20, 3);
            if (!digits(text, 20, n, &fraction) ||
                !std::all_of(text.begin() + 20, text.end(), [](QChar c) { return c.isDigit(); }))
                return std::nullopt;
            ms = fraction * (n == 1 ? 100 : n == 2 ? 10 : 1);
        }
        const QDate date(year, month, day);
        if (!date.isValid() || hour > 23 || minute > 59 || second > 59)
            return std::nullopt;
        const int64_t key = date.toJulianDay() * 1440 + hour * 60 + minute;
        if (key != m_minuteKey) {
            const QDateTime start(date, QTime(hour, minute), m_zone);
            if (!start.isValid())
                return std::nullopt;
            m_minuteKey = key;
            m_minuteStartMs = start.toMSecsSinceEpoch();
        }
        return (m_minuteStartMs + second * 1000 + ms) * 1000000;
    }

private:
    QTimeZone m_zone;
    int64_t m_minuteKey = std::numeric_limits<int64_t>::min();
    int64_t m_minuteStartMs = 0;
};

} // namespace

DeviceLog parseNvidiaSmiLog(const QByteArray& bytes, const QString& path, const QTimeZone& zone)
{
    DeviceLog log;
    log.path = path;
    log.timeZone = deviceLogTimeZoneName(zone);
    LocalClock clock(zone);
    Columns columns;
    QString usedUnit, totalUnit, usedName;
    QStringList headerFields;
    qint64 lineNumber = 0;
    qsizetype at = 0;
    while (at < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', at);
        if (end < 0)
            end = bytes.size();
        const QString line = QString::fromUtf8(bytes.constData() + at, end - at).trimmed();
        at = end + 1;
        ++lineNumber;
        if (line.isEmpty())
            continue;
        const QStringList fields = line.split(QLatin1Char(','));
        if (columns.count == 0) {
            if (!isHeader(fields)) {
                log.fatalError =
                    QStringLiteral("%1:%2: not an nvidia-smi CSV log: the first line is not a header that "
                                   "starts with 'timestamp' (log with --format=csv, not csv,noheader)")
                        .arg(path)
                        .arg(lineNumber);
                return log;
            }
            headerFields = fields;
            columns.count = fields.size();
            for (qsizetype i = 0; i < fields.size(); ++i) {
                const QString name = columnName(fields[i]);
                columns.names << name;
                if (name == QLatin1String("timestamp"))
                    columns.timestamp = i;
                else if (name == QLatin1String("memory.used") || name == QLatin1String("used_gpu_memory") ||
                         name == QLatin1String("used_memory")) {
                    columns.used = i;
                    usedUnit = headerUnit(fields[i]);
                    usedName = name;
                } else if (name == QLatin1String("memory.total")) {
                    columns.total = i;
                    totalUnit = headerUnit(fields[i]);
                } else if (name == QLatin1String("pid"))
                    columns.pid = i;
                else if (name == QLatin1String("index"))
                    columns.index = i;
            }
            if (columns.used < 0) {
                log.fatalError =
                    QStringLiteral("%1:%2: the log has no memory.used or used_memory column (it has: "
                                   "%3); log with --query-gpu=timestamp,memory.used,memory.total "
                                   "or --query-compute-apps=timestamp,pid,used_memory")
                        .arg(path)
                        .arg(lineNumber)
                        .arg(columns.names.join(QStringLiteral(", ")));
                return log;
            }
            log.scope =
                usedName == QLatin1String("memory.used") ? DeviceLogScope::Device : DeviceLogScope::Process;
            if (log.scope == DeviceLogScope::Process && columns.pid < 0) {
                log.fatalError = QStringLiteral("%1:%2: a per-process log needs a pid column (it has: %3)")
                                     .arg(path)
                                     .arg(lineNumber)
                                     .arg(columns.names.join(QStringLiteral(", ")));
                return log;
            }
            continue;
        }
        if (isHeader(fields)) {
            // a logger restarted onto the same file writes its header again
            if (fields != headerFields)
                log.problems.addError(path, lineNumber,
                                      QStringLiteral("a header with other columns than the first one; the "
                                                     "rows that follow are read by the first"));
            continue;
        }
        ++log.rowsRead;
        if (fields.size() != columns.count) {
            log.problems.addError(
                path, lineNumber,
                englishPlural(QStringLiteral("%1 field(s), the header names %2"), fields.size())
                    .arg(fields.size())
                    .arg(columns.count));
            continue;
        }
        const auto time = clock.toNs(QStringView(fields[columns.timestamp]).trimmed());
        if (!time) {
            log.problems.addError(path, lineNumber,
                                  QStringLiteral("timestamp '%1' is not YYYY/MM/DD HH:MM:SS.mmm (or not a "
                                                 "time in %2)")
                                      .arg(fields[columns.timestamp].trimmed(), log.timeZone));
            continue;
        }
        QString why;
        const auto used = parseBytes(fields[columns.used], usedUnit, usedName, &why);
        if (!used) {
            log.problems.addError(path, lineNumber, why);
            continue;
        }
        std::optional<int64_t> total;
        if (columns.total >= 0 &&
            !(total = parseBytes(fields[columns.total], totalUnit, QStringLiteral("memory.total"), &why))) {
            log.problems.addError(path, lineNumber, why);
            continue;
        }
        auto integer = [&](qsizetype column, const char* name) -> std::optional<int64_t> {
            bool ok = false;
            const qlonglong v = fields[column].trimmed().toLongLong(&ok);
            if (!ok || v < 0) {
                why = QStringLiteral("%1 '%2' is not a whole number")
                          .arg(QLatin1String(name), fields[column].trimmed());
                return std::nullopt;
            }
            return int64_t(v);
        };
        std::optional<int64_t> pid, index;
        if ((columns.pid >= 0 && !(pid = integer(columns.pid, "pid"))) ||
            (columns.index >= 0 && !(index = integer(columns.index, "index")))) {
            log.problems.addError(path, lineNumber, why);
            continue;
        }
        log.timestampNs.push_back(*time);
        log.usedBytes.push_back(*used);
        if (total)
            log.totalBytes.push_back(*total);
        if (pid)
            log.pid.push_back(*pid);
        if (index)
            log.gpuIndex.push_back(*index);
    }
    if (columns.count == 0)
        log.fatalError = QStringLiteral("%1: empty: no nvidia-smi CSV header").arg(path);
    else if (log.timestampNs.empty())
        log.fatalError =
            log.rowsRead == 0
                ? QStringLiteral("%1: no rows after the header (a per-process log of a time "
                                 "when no process used the GPU?)")
                      .arg(path)
                : QStringLiteral("%1: none of its %2 rows could be read; first: %3")
                      .arg(path)
                      .arg(log.rowsRead)
                      .arg(log.problems.kept().empty() ? QString() : log.problems.kept().front().toString());
    return log;
}

DeviceLog loadNvidiaSmiLog(const QString& path, const QTimeZone& zone)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        DeviceLog log;
        log.path = path;
        log.timeZone = deviceLogTimeZoneName(zone);
        log.fatalError = QStringLiteral("%1: %2").arg(path, file.errorString());
        return log;
    }
    return parseNvidiaSmiLog(file.readAll(), path, zone);
}

DeviceLogSeriesData deviceLogSeriesFor(const DeviceLog& log, int64_t pid, int64_t deviceId)
{
    DeviceLogSeriesData series;
    std::vector<size_t> rows;
    const bool byIndex = !log.gpuIndex.empty();
    std::vector<int64_t> pids;
    for (size_t i = 0; i < log.timestampNs.size(); ++i) {
        if (byIndex && log.gpuIndex[i] != deviceId)
            continue;
        if (log.scope == DeviceLogScope::Process && log.pid[i] != pid) {
            if (std::find(pids.begin(), pids.end(), log.pid[i]) == pids.end())
                pids.push_back(log.pid[i]);
            continue;
        }
        rows.push_back(i);
    }
    if (rows.empty()) {
        if (log.scope == DeviceLogScope::Process) {
            std::sort(pids.begin(), pids.end());
            QStringList names;
            for (int64_t p : pids)
                names << QString::number(p);
            series.error =
                QStringLiteral("%1: pid %2 is not in the per-process log (its pids: %3); "
                               "nvidia-smi names the host's pids, a trace recorded in a container "
                               "names the container's")
                    .arg(log.path)
                    .arg(pid)
                    .arg(names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
        } else {
            series.error =
                QStringLiteral("%1: no rows of GPU %2 (the trace's device_id)").arg(log.path).arg(deviceId);
        }
        return series;
    }
    // ascending time (a clock set back, a zone's change back from summer time, could disorder
    // them); a process's rows of one moment summed (its memory on each of its GPUs); a device
    // log without an index column with rows of one moment holds several GPUs: refused
    std::stable_sort(rows.begin(), rows.end(),
                     [&](size_t a, size_t b) { return log.timestampNs[a] < log.timestampNs[b]; });
    for (size_t row : rows) {
        if (!series.timestampNs.empty() && series.timestampNs.back() == log.timestampNs[row]) {
            if (log.scope == DeviceLogScope::Device) {
                series = {};
                series.error =
                    QStringLiteral("%1: several rows at %2 ns: the log holds several GPUs; log "
                                   "them with --query-gpu=timestamp,index,memory.used,memory.total "
                                   "so the trace's device can be picked")
                        .arg(log.path)
                        .arg(log.timestampNs[row]);
                return series;
            }
            series.usedBytes.back() = saturatingAdd(series.usedBytes.back(), log.usedBytes[row]);
            continue;
        }
        series.timestampNs.push_back(log.timestampNs[row]);
        series.usedBytes.push_back(log.usedBytes[row]);
    }
    return series;
}

} // namespace gapscope
