#pragma once
// Recurring issues by upstream stormlog's own fingerprint (stormlog/issues.py IssueFingerprint,
// stormlog/query.py QueryStore.list_issues, what `stormlog query issues` lists): the kind and
// its dimensions, normalised as upstream normalises them (lower case, hex and numbers as
// <hex> and <num>, blanks collapsed), hashed as upstream hashes them (fingerprint_id: "issue:"
// and the first 24 hex digits of the SHA-256 of the canonical JSON), so a group here and one
// of upstream's are the same group with the same id. What upstream counts as one hit is one hit
// here: an OOM bundle, an OOM error event, a collector-degradation event, an alert event, a
// hidden-memory finding at upstream's default thresholds. gapscope's notices are groups of
// their own (kind gapscope_notice, "gapscope:" ids), one hit per run.

#include "analysis/Finding.h"
#include "model/fleet/FleetRecord.h"
#include "model/store/EventStore.h"
#include "model/store/OomInfo.h"

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace gapscope {

struct AnalysisResult;

// issues.py normalize_text_dimension: a low-cardinality token of a text (empty: "unknown").
QString normalizeTextDimension(const QString& text);

// A dimension's value: None, a text (normalised when hashed), an integer, a list of texts.
using IssueDimension = std::variant<std::monostate, QString, qint64, QStringList>;
using IssueDimensions = std::vector<std::pair<QString, IssueDimension>>;
// The dimensions normalised and written as upstream's json.dumps(sort_keys=True,
// separators=(",", ":")) writes them.
QString issueDimensionsJson(const IssueDimensions& dimensions);
// IssueFingerprint.fingerprint_id (prefix "issue:"; gapscope's own groups "gapscope:").
QString issueFingerprintId(const QString& kind, const IssueDimensions& dimensions,
                           const QString& prefix = QStringLiteral("issue:"));

// phases.py summarize_phase_attribution: what a finding's phase is called in its fingerprint;
// empty for none (None).
QString summarizePhaseAttribution(const std::optional<PhaseAttribution>& phase);

// The hits of every issue of one run, by fingerprint.
class FleetIssueSet
{
public:
    // One hit of the issue (kind, dimensions) at seenNs.
    void add(const QString& kind, const IssueDimensions& dimensions, const QString& issueClass,
             const QString& severity, const QString& title, std::optional<qint64> seenNs,
             const QString& prefix = QStringLiteral("issue:"));
    // query.py: the OOM (error events naming oom_reason or oom_dump_path), collector-degradation
    // and alert events among rows [begin, end) of store, in that order of precedence.
    void addEventIssues(const EventStore& store, uint32_t begin, uint32_t end);
    // query.py _accumulate_hidden_memory_issues: upstream's gap findings of the analysis.
    void addHiddenMemoryIssues(const AnalysisResult& result);
    // query.py _accumulate_oom_bundle_issue.
    void addOomBundleIssue(const OomInfo& oom);
    // gapscope's own: one hit of a notice in a run.
    void addNotice(const QString& code, const QString& severity, const QString& collector,
                   const QString& backend, std::optional<qint64> seenNs);
    std::vector<FleetIssueHits> hits() const;

private:
    std::map<QString, FleetIssueHits> m_hits;
};

} // namespace gapscope
