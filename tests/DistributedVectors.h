#pragma once
// The distributed parity vectors (tests/data/fixtures/stormlog/distributed, produced by upstream
// stormlog) loaded as a JobData the way the job loader will build one, and an exact comparison
// of our JSON with upstream's: keys, their order, integers to the digit, floats to the bit.
// Shared by tst_collectiveattribution and tst_crossrankanalysis.

#include "model/document/Document.h"
#include "model/job/JobData.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include <algorithm>

namespace distributed {

using namespace gapscope;

inline QString vectorsDir()
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed");
}

inline QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The six vectors: three merged files (one input, `mode: session`) and three jobs of per-rank
// artifacts (sink folders rank*/telemetry_sink, or rank*.jsonl files: `mode: job`).
inline QStringList vectorNames()
{
    return {QStringLiteral("collective-merged.jsonl"),
            QStringLiteral("nomarker-merged.jsonl"),
            QStringLiteral("quiet-merged.jsonl"),
            QStringLiteral("firstcause-job"),
            QStringLiteral("skew-job"),
            QStringLiteral("missing-files")};
}

// The vectors produced by running upstream on generated inputs (see the README there).
inline QStringList extraVectorNames()
{
    const QDir dir(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/distributed-extra"));
    QStringList names;
    for (const QFileInfo& entry :
         dir.entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot, QDir::Name))
        if (entry.isDir() || entry.fileName().endsWith(QLatin1String(".jsonl")))
            names << entry.absoluteFilePath();
    return names;
}

inline QString vectorPath(const QString& name)
{
    return QFileInfo(name).isAbsolute() ? name : vectorsDir() + QLatin1Char('/') + name;
}

// A job of the inputs in `paths` (mode as given), each at its default session, ranks from
// the partitions of those sessions. Empty inputs and *error set when one does not load.
inline JobData jobOf(const QStringList& paths, JobMode mode, QString* error)
{
    JobData job;
    job.mode = mode;
    for (const QString& path : paths) {
        const DocumentOutcome loaded = loadDocument(path);
        if (!loaded.trace || !loaded.trace->defaultSessionIndex()) {
            *error = loaded.failure();
            return {};
        }
        job.inputs.push_back(JobInput{path, loaded.trace, *loaded.trace->defaultSessionIndex(), {}});
    }
    for (size_t i = 0; i < job.inputs.size(); ++i) {
        const TraceData& trace = *job.inputs[i].trace;
        for (size_t p = 0; p < trace.partitions.size(); ++p) {
            const Partition& partition = trace.partitions[p];
            if (partition.sessionIndex != job.inputs[i].sessionIndex)
                continue;
            JobRank rank;
            rank.rank = partition.rank;
            rank.present = true;
            rank.parts.push_back(JobRankPart{i, p});
            job.ranks.push_back(rank);
        }
    }
    std::stable_sort(job.ranks.begin(), job.ranks.end(),
                     [](const JobRank& a, const JobRank& b) { return a.rank < b.rank; });
    return job;
}

// A vector as its expected file describes it: a file is one input (session mode), a folder
// holds one input per rank (a sink folder rankN/telemetry_sink, or a file rankN.jsonl).
inline JobData vectorJob(const QString& name, QString* error)
{
    const QString path = vectorPath(name);
    if (QFileInfo(path).isFile())
        return jobOf({path}, JobMode::Session, error);
    QStringList inputs;
    for (const QFileInfo& entry :
         QDir(path).entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString sink = entry.absoluteFilePath() + QStringLiteral("/telemetry_sink");
        inputs << (entry.isDir() && QFileInfo(sink).isDir() ? sink : entry.absoluteFilePath());
    }
    return jobOf(inputs, JobMode::Job, error);
}

inline QJsonObject expectedOf(const QString& name)
{
    return QJsonDocument::fromJson(readAll(vectorPath(name) + QStringLiteral(".expected.json"))).object();
}

// The keys of a JSON text in the order they are written (any depth), without those of `skip`
// and its value: upstream's order is part of what is compared.
inline QStringList keyOrder(const QByteArray& json, const QString& skip = QString())
{
    QStringList keys;
    static const QRegularExpression key(QStringLiteral("\"((?:[^\"\\\\]|\\\\.)*)\"\\s*:"));
    auto it = key.globalMatch(QString::fromUtf8(json));
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (name != skip)
            keys << name;
    }
    return keys;
}

// The numbers of a JSON text as written, in order (strings skipped): "1.0" is not "1", and a
// float must print as Python's repr prints it.
inline QStringList numberTokens(const QByteArray& json)
{
    QStringList numbers;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            for (++i; i < json.size() && json[i] != '"'; ++i)
                if (json[i] == '\\')
                    ++i;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            qsizetype end = i;
            while (end < json.size() && QByteArrayView("+-.eE0123456789").contains(json[end]))
                ++end;
            numbers << QString::fromLatin1(json.mid(i, end - i));
            i = end - 1;
        }
    }
    return numbers;
}

// Exact equality of two JSON values, with the path of the first difference in *where:
// numbers compare as written (an integer of 19 digits is not a double), objects key by key.
inline bool sameJson(const QJsonValue& ours, const QJsonValue& theirs, const QString& path, QString* where)
{
    if (ours.type() != theirs.type()) {
        *where = QStringLiteral("%1: type %2 vs %3").arg(path).arg(ours.type()).arg(theirs.type());
        return false;
    }
    switch (ours.type()) {
    case QJsonValue::Object: {
        const QJsonObject a = ours.toObject(), b = theirs.toObject();
        if (a.keys() != b.keys()) {
            *where = QStringLiteral("%1: keys %2 vs %3")
                         .arg(path, a.keys().join(QLatin1Char(',')), b.keys().join(QLatin1Char(',')));
            return false;
        }
        for (const QString& k : a.keys())
            if (!sameJson(a.value(k), b.value(k), path + QLatin1Char('.') + k, where))
                return false;
        return true;
    }
    case QJsonValue::Array: {
        const QJsonArray a = ours.toArray(), b = theirs.toArray();
        if (a.size() != b.size()) {
            *where = QStringLiteral("%1: %2 items vs %3").arg(path).arg(a.size()).arg(b.size());
            return false;
        }
        for (qsizetype i = 0; i < a.size(); ++i)
            if (!sameJson(a.at(i), b.at(i), QStringLiteral("%1[%2]").arg(path).arg(i), where))
                return false;
        return true;
    }
    case QJsonValue::Double: {
        // Qt keeps integers that fit 64 bits as integers: compare those exactly, the rest as doubles
        const bool integral = ours.toInteger(-1) == ours.toInteger(-2);
        const bool same =
            integral == (theirs.toInteger(-1) == theirs.toInteger(-2)) &&
            (integral ? ours.toInteger() == theirs.toInteger() : ours.toDouble() == theirs.toDouble());
        if (!same)
            *where = QStringLiteral("%1: %2 vs %3")
                         .arg(path, QString::number(ours.toDouble(), 'g', 17),
                              QString::number(theirs.toDouble(), 'g', 17));
        return same;
    }
    default:
        if (ours != theirs) {
            *where = QStringLiteral("%1: %2 vs %3")
                         .arg(path, ours.toVariant().toString(), theirs.toVariant().toString());
            return false;
        }
        return true;
    }
}

inline qsizetype numberCount(const QJsonValue& value)
{
    if (value.isDouble())
        return 1;
    qsizetype count = 0;
    if (value.isArray())
        for (const QJsonValue& item : value.toArray())
            count += numberCount(item);
    if (value.isObject())
        for (const QJsonValue& item : value.toObject())
            count += numberCount(item);
    return count;
}

// What an expected file says about each of its two sections, as written: the keys in order
// and the numbers in order (the file holds mode and session_id first, then
// collective_attribution, then cross_rank_analysis).
struct ExpectedSection
{
    QJsonValue value;
    QStringList keys;
    QStringList numbers;
};

inline ExpectedSection expectedSection(const QString& name, const QString& section)
{
    const QByteArray text = readAll(vectorPath(name) + QStringLiteral(".expected.json"));
    const QJsonObject expected = QJsonDocument::fromJson(text).object();
    ExpectedSection result;
    result.value = expected.value(section);
    const QStringList keys = keyOrder(text);
    const qsizetype collective = keys.indexOf(QStringLiteral("collective_attribution"));
    qsizetype cross = keys.indexOf(QStringLiteral("cross_rank_analysis"));
    if (cross < 0)
        cross = keys.size();
    const QStringList numbers = numberTokens(text);
    const qsizetype collectiveNumbers = numberCount(expected.value(QStringLiteral("collective_attribution")));
    if (section == QLatin1String("collective_attribution")) {
        result.keys = keys.mid(collective + 1, cross - collective - 1);
        result.numbers = numbers.mid(0, collectiveNumbers);
    } else {
        result.keys = keys.mid(cross + 1);
        result.numbers = numbers.mid(collectiveNumbers);
    }
    return result;
}

} // namespace distributed
