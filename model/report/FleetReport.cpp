#include "model/report/FleetReport.h"

#include "model/text/Text.h"

#include <QDateTime>

#include <cmath>

namespace gapscope {

QString fleetTimeText(qint64 ns)
{
    if (ns == kFleetNoValue)
        return {};
    return QDateTime::fromMSecsSinceEpoch(ns / 1'000'000, Qt::UTC)
        .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss"));
}

namespace {

QString integerText(qint64 v)
{
    return v == kFleetNoValue ? QString() : QString::number(v);
}

QString realText(double v)
{
    return std::isnan(v) ? QString() : QString::number(v, 'g', 10);
}

} // namespace

QByteArray fleetRunsCsv(const FleetData& data, const std::vector<int>& rows)
{
    const FleetRuns& r = data.runs;
    QString out = QStringLiteral("path,job_id,rank,world_size,session_id,host,start_ns,end_ns,samples,"
                                 "peak_gap_bytes,latest_gap_bytes,drift_slope_bytes_per_s,worst_class,"
                                 "worst_severity,worst_confidence,worst_phase,notices,finding_count,"
                                 "oom_count\n");
    for (const int row : rows) {
        const auto i = size_t(row);
        const QStringList cells{csvField(data.text(r.path[i])),
                                csvField(data.text(r.jobId[i])),
                                integerText(r.rank[i]),
                                integerText(r.worldSize[i]),
                                csvField(data.text(r.sessionId[i])),
                                csvField(data.text(r.host[i])),
                                integerText(r.startNs[i]),
                                integerText(r.endNs[i]),
                                integerText(r.samples[i]),
                                integerText(r.peakGapBytes[i]),
                                integerText(r.latestGapBytes[i]),
                                realText(r.driftSlopeBytesPerS[i]),
                                csvField(data.text(r.worstClass[i])),
                                toString(r.worstSeverity[i]),
                                realText(r.worstConfidence[i]),
                                csvField(data.text(r.worstPhase[i])),
                                csvField(data.text(r.notices[i])),
                                integerText(r.findingCount[i]),
                                integerText(r.oomCount[i])};
        out += cells.join(QLatin1Char(','));
        out += QLatin1Char('\n');
    }
    return out.toUtf8();
}

namespace {

// A run as a line of a report: its path and who it is.
QString runLabel(const FleetData& data, int run)
{
    const FleetRuns& r = data.runs;
    const auto i = size_t(run);
    QString who = data.text(r.jobId[i]);
    if (r.rank[i] != kFleetNoValue)
        who += (who.isEmpty() ? QString() : QStringLiteral(" ")) + QStringLiteral("rank %1").arg(r.rank[i]);
    if (!data.text(r.host[i]).isEmpty())
        who += (who.isEmpty() ? QString() : QStringLiteral(", ")) + data.text(r.host[i]);
    return who;
}

QString seenText(qint64 firstNs, qint64 lastNs)
{
    return QStringLiteral("%1 to %2").arg(fleetTimeText(firstNs), fleetTimeText(lastNs));
}

// The lines of an issue's runs (at most runsPerIssue, then how many more), escaped by escape.
QStringList issueRunLines(const FleetData& data, const FleetIssue& issue, int runsPerIssue,
                          QString (*escape)(const QString&))
{
    QStringList lines;
    for (const FleetIssueRun& run : issue.runs) {
        if (lines.size() == runsPerIssue) {
            lines << QStringLiteral("and %1 more").arg(countText(issue.runs.size() - size_t(runsPerIssue)));
            break;
        }
        const QString who = runLabel(data, run.run);
        lines << QStringLiteral("%1%2: %3")
                     .arg(escape(data.text(data.runs.path[size_t(run.run)])),
                          who.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(escape(who)),
                          englishPlural(QStringLiteral("%1 hit(s)"), run.hitCount)
                              .arg(countText(run.hitCount)));
    }
    return lines;
}

// "12 runs, 3 recurring issues."
QString fleetCountsText(const FleetData& data)
{
    return QStringLiteral("%1 runs, %2.")
        .arg(countText(data.runs.size()))
        .arg(englishPlural(QStringLiteral("%1 recurring issue(s)"), qint64(data.issues.size()))
                 .arg(countText(data.issues.size())));
}

} // namespace

QString fleetIssuesMarkdown(const FleetData& data, int runsPerIssue)
{
    QString out = QStringLiteral("# Recurring issues of %1\n\n").arg(markdownEscape(data.path));
    out += fleetCountsText(data) + QStringLiteral("\n\n");
    out += QStringLiteral("| fingerprint | kind | class | severity | runs | hits | first seen | last seen |\n"
                          "|---|---|---|---|---:|---:|---|---|\n");
    for (const FleetIssue& issue : data.issues)
        out += QStringLiteral("| `%1` | %2 | %3 | %4 | %5 | %6 | %7 | %8 |\n")
                   .arg(issue.fingerprint, markdownEscape(issue.kind), markdownEscape(issue.issueClass),
                        markdownEscape(issue.severity), countText(issue.runCount), countText(issue.hitCount),
                        fleetTimeText(issue.firstSeenNs), fleetTimeText(issue.lastSeenNs));
    for (const FleetIssue& issue : data.issues) {
        out +=
            QStringLiteral("\n## %1\n\n`%2`: %3 %4, seen %5 in %6 (%7 hits).\n\n")
                .arg(
                    markdownEscape(issue.title), issue.fingerprint, markdownEscape(issue.severity),
                    markdownEscape(issue.issueClass), seenText(issue.firstSeenNs, issue.lastSeenNs),
                    englishPlural(QStringLiteral("%1 run(s)"), issue.runCount).arg(countText(issue.runCount)),
                    countText(issue.hitCount));
        for (const QString& line : issueRunLines(data, issue, runsPerIssue, markdownEscape))
            out += QStringLiteral("- %1\n").arg(line);
    }
    return out;
}

QString fleetIssuesHtml(const FleetData& data, int runsPerIssue)
{
    QString out =
        QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Recurring issues of "
                       "%1</title>\n<style>body{font-family:sans-serif}table{border-collapse:"
                       "collapse}td,th{border:1px solid #bbb;padding:2px 6px}td.n{text-align:right}"
                       "</style></head><body>\n<h1>Recurring issues of %1</h1>\n")
            .arg(htmlEscape(data.path));
    out += QStringLiteral("<p>%1</p>\n").arg(fleetCountsText(data));
    out += QStringLiteral("<table>\n<tr><th>fingerprint</th><th>kind</th><th>class</th><th>severity</th>"
                          "<th>runs</th><th>hits</th><th>first seen</th><th>last seen</th></tr>\n");
    for (const FleetIssue& issue : data.issues)
        out += QStringLiteral(
                   "<tr><td><code>%1</code></td><td>%2</td><td>%3</td><td>%4</td><td class=\"n\">%5</td>"
                   "<td class=\"n\">%6</td><td>%7</td><td>%8</td></tr>\n")
                   .arg(htmlEscape(issue.fingerprint), htmlEscape(issue.kind), htmlEscape(issue.issueClass),
                        htmlEscape(issue.severity), countText(issue.runCount), countText(issue.hitCount),
                        fleetTimeText(issue.firstSeenNs), fleetTimeText(issue.lastSeenNs));
    out += QStringLiteral("</table>\n");
    for (const FleetIssue& issue : data.issues) {
        out +=
            QStringLiteral("<h2>%1</h2>\n<p><code>%2</code>: %3 %4, seen %5 in %6 (%7 hits).</p>\n<ul>\n")
                .arg(
                    htmlEscape(issue.title), htmlEscape(issue.fingerprint), htmlEscape(issue.severity),
                    htmlEscape(issue.issueClass), seenText(issue.firstSeenNs, issue.lastSeenNs),
                    englishPlural(QStringLiteral("%1 run(s)"), issue.runCount).arg(countText(issue.runCount)),
                    countText(issue.hitCount));
        for (const QString& line : issueRunLines(data, issue, runsPerIssue, htmlEscape))
            out += QStringLiteral("<li>%1</li>\n").arg(line);
        out += QStringLiteral("</ul>\n");
    }
    out += QStringLiteral("</body></html>\n");
    return out;
}

} // namespace gapscope
