#pragma once
// Notices: gapscope's own judgement of what an input can show, beside upstream's findings.
// A finding says what the data shows; a notice says what the data cannot show (a trace whose
// collector records device used as the allocator's own counters has a gap of 0 by
// construction, and "no findings" there does not mean "no hidden memory"). Plain C++, no Qt:
// computed by pure functions over the columns, carried in AnalysisResult, written by every
// report (JSON `notices`, docs/report-json.md) and shown by the app.

#include "analysis/GapAnalysis.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gapscope {

enum class NoticeSeverity
{
    Info,
    Warning,
    Critical
};
std::string_view toString(NoticeSeverity severity); // "info", "warning", "critical"

// The stable codes (docs/report-json.md). A code is never reused for another meaning.
namespace notice_code {
inline constexpr std::string_view kGapNotObservable = "gap_not_observable";
inline constexpr std::string_view kBelowRatioGate = "below_ratio_gate";
inline constexpr std::string_view kFirstCauseAtStartup = "first_cause_at_startup";
} // namespace notice_code

// One extra key of a notice, in the order it is written. JSON writes std::monostate as null
// and a vector of strings or of integers as an array.
using NoticeValue = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<std::string>,
                                 std::vector<int64_t>>;
struct NoticeField
{
    std::string key;
    NoticeValue value;
};

struct Notice
{
    std::string code;
    NoticeSeverity severity = NoticeSeverity::Info;
    std::string title;   // one line: the chart's overlay and the summary's first line
    std::string message; // what it means, why, and what to do
    std::vector<NoticeField> fields;

    const NoticeValue* field(std::string_view key) const
    {
        for (const NoticeField& f : fields)
            if (f.key == key)
                return &f.value;
        return nullptr;
    }
};

// The notice with this code, or null. Codes are unique within one analysis's notices.
const Notice* findNotice(const std::vector<Notice>& notices, std::string_view code);

// How a blind trace records device used.
enum class BlindRelation
{
    MaxOfAllocatedAndReserved, // device_used = max(allocated, reserved): stormlog's stock collectors
    Reserved,                  // device_used = reserved (on a sample where allocated > reserved too)
};

// "max(allocated, reserved)", "reserved": the notice's `recorded_as`.
std::string_view toString(BlindRelation relation);
std::optional<BlindRelation> blindRelationFromString(std::string_view text);

// Samples where the allocator holds nothing (before the CUDA context, say) agree with every
// collector: they are no evidence. A blind verdict needs this many samples with reserved or
// allocated above zero, all of them agreeing; fewer can be chance.
inline constexpr size_t kMinBlindEvidenceSamples = 5;

struct GapObservability
{
    size_t samples = 0;         // usable samples looked at
    size_t evidenceSamples = 0; // of them, with allocated or reserved above zero
    bool blind = false;         // device used never differs from the allocator's counters
    BlindRelation relation = BlindRelation::MaxOfAllocatedAndReserved;
};

// Whether device used on the usable rows of input is only ever max(allocated, reserved) or
// reserved: then gap = used - reserved is 0 on every sample by construction, not by
// measurement. One pass, O(n). A null allocated counts as 0.
GapObservability gapObservability(const GapInput& input);

// The notices of one (session, rank) analysis: gap_not_observable when gapObservability says
// blind (collector: the session's `collector`, named in the message; empty when unknown).
std::vector<Notice> traceNotices(const GapInput& input, std::string_view collector);

// The gap_not_observable notice itself, for a count of samples and a collector. ranks > 0: the
// notice of a whole job, every one of whose ranks is blind (samples: of all of them together),
// said once instead of once per rank, with an extra field `ranks`.
Notice gapNotObservableNotice(size_t samples, std::string_view collector, BlindRelation relation,
                              size_t ranks = 0);

// What upstream's gap analysis finds with its ratio gate (gap_ratio_threshold) lowered to the
// trace's own peak |gap| / device total, every other threshold as given: the findings the gate
// alone hides. Empty when the gate lets the analysis through already, or with fewer than 3
// samples. stats: computeGapStatistics(input, thresholds). The gate decides nothing else (the
// spike count, the fit and the fragmentation do not read it), so the statistics are reused.
//
// Why keep the gate a share of the device rather than of the process: on the real H200
// captures (docs/report-json.md, below_ratio_gate) a share of peak reserved would pass the
// CUDA context alone (0.51 GiB, constant: 83 % of reserved on frag, 12 % on pair) and a fixed
// byte gate has no size that passes truth's 5.6 GiB without passing pair's 0.73 GiB of context.
// The gap above its own minimum (truth 5.1 GiB, frag 0.04 GiB, pair 0.22 GiB) separates them,
// but that is not upstream's rule; the notice says what the gate hides instead.
std::vector<Finding> findingsBelowRatioGate(const GapInput& input, const GapThresholds& thresholds,
                                            const GapStatistics& stats);

// below_ratio_gate: the gate hides belowGate (findingsBelowRatioGate, not empty) on a trace
// whose largest gap is stats.maxAbsGapRatio of the device.
Notice belowRatioGateNotice(const GapThresholds& thresholds, const GapStatistics& stats,
                            const std::vector<Finding>& belowGate);

// Says in the below_ratio_gate notice what the findings below the gate are, once their
// descriptions are written (episodes, growth intervals, steps): the lead of each description,
// "One episode of 10 steps (steps 621-630), peak 5.61 GiB, of memory held outside ...", is
// appended to the message and kept in the field `below_gate` (one per finding, in order), so
// a report read with default settings names the leak and the spike, not only their classes.
// Does nothing without that notice or without descriptions.
void describeBelowGateFindings(std::vector<Notice>& notices, const std::vector<Finding>& belowGate);

// The first clause or sentence of a finding's description: up to its first ": " or the end of
// its first sentence (". " before a capital letter), without the closing period.
std::string descriptionLead(std::string_view description);

// traceNotices, and below_ratio_gate when the gap can be observed and the ratio gate hides
// findings; *belowGate receives them (cleared otherwise).
std::vector<Notice> traceNotices(const GapInput& input, std::string_view collector,
                                 const GapThresholds& thresholds, const GapStatistics& stats,
                                 std::vector<Finding>* belowGate);

// first_cause_at_startup (information): upstream's first-cause suspects ranks (ascending:
// firstCauseSuspectsAtStartup in analysis/CrossRankAnalysis.h) spiked in the job's start-up,
// every rank rising together, not one rank leading. Field `ranks`: an array of the ranks.
Notice firstCauseAtStartupNotice(const std::vector<int64_t>& ranks);

// "5 %", "4.01 %": a ratio as a percentage, two decimals at most, trailing zeros dropped.
std::string ratioPercentText(double ratio);

} // namespace gapscope
