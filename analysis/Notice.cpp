#include "analysis/Notice.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace gapscope {

const Notice* findNotice(const std::vector<Notice>& notices, std::string_view code)
{
    for (const Notice& notice : notices)
        if (notice.code == code)
            return &notice;
    return nullptr;
}

std::string_view toString(NoticeSeverity severity)
{
    switch (severity) {
    case NoticeSeverity::Info:
        return "info";
    case NoticeSeverity::Warning:
        return "warning";
    case NoticeSeverity::Critical:
        return "critical";
    }
    return "info";
}

std::string_view toString(BlindRelation relation)
{
    return relation == BlindRelation::Reserved ? "reserved" : "max(allocated, reserved)";
}

std::optional<BlindRelation> blindRelationFromString(std::string_view text)
{
    for (const BlindRelation relation : {BlindRelation::MaxOfAllocatedAndReserved, BlindRelation::Reserved})
        if (text == toString(relation))
            return relation;
    return std::nullopt;
}

GapObservability gapObservability(const GapInput& input)
{
    GapObservability result;
    result.samples = input.size();
    if (input.size() == 0)
        return result;
    Int64ColumnReader allocatedColumn(input.allocated);
    Int64ColumnReader reservedColumn(input.reserved);
    Int64ColumnReader usedColumn(input.used);
    bool asMax = true;      // used == max(allocated, reserved) on every sample so far
    bool asReserved = true; // used == reserved on every sample so far
    for (const uint32_t row : input.rows) {
        const int64_t used = usedColumn[row];
        const int64_t reserved = reservedColumn[row];
        int64_t allocated = allocatedColumn[row];
        if (allocated == kNullInt)
            allocated = 0;
        if (used == kNullInt || reserved == kNullInt)
            return result; // a sample without the counters shows nothing either way
        asMax = asMax && used == std::max(allocated, reserved);
        asReserved = asReserved && used == reserved;
        if (!asMax && !asReserved)
            return result;
        if (allocated > 0 || reserved > 0)
            ++result.evidenceSamples;
    }
    result.blind = result.evidenceSamples >= kMinBlindEvidenceSamples;
    // where allocated <= reserved the two agree: max(allocated, reserved) is what stormlog's
    // stock collectors write, so it is named whenever it holds
    result.relation = asMax ? BlindRelation::MaxOfAllocatedAndReserved : BlindRelation::Reserved;
    return result;
}

Notice gapNotObservableNotice(size_t samples, std::string_view collector, BlindRelation relation,
                              size_t ranks)
{
    const std::string recordedAs(toString(relation));
    const std::string who = collector.empty() ? std::string(ranks > 0 ? "their collector" : "its collector")
                                              : (ranks > 0 ? "their collector (" : "its collector (") +
                                                    std::string(collector) + ")";
    const std::string sampleText =
        samples == 1 ? "its 1 sample" : "all " + std::to_string(samples) + " samples";
    Notice notice;
    notice.code = std::string(notice_code::kGapNotObservable);
    notice.severity = NoticeSeverity::Warning;
    notice.title = (ranks > 0 ? "The gap cannot be observed on any rank of this job"
                              : "The gap cannot be observed in this trace") +
                   std::string(": device used is recorded as ") + recordedAs;
    const std::string what =
        ranks > 0 ? "None of the job's " + std::to_string(ranks) +
                        " ranks can show memory outside the allocator. On " + sampleText + " of them, "
                  : "This trace cannot show memory outside the allocator. On " + sampleText + ", ";
    notice.message =
        what + who + " recorded device used as " + recordedAs +
        (relation == BlindRelation::MaxOfAllocatedAndReserved
             ? " (what stormlog's stock CUDA, ROCm and MPS collectors write)"
             : std::string()) +
        ", so the gap (device used - reserved) is 0 by construction, not by measurement: no "
        "hidden-memory findings here does not mean there is no hidden memory. To see it, attach a "
        "device log (--device-log FILE, or File > Attach Device Log...) or record with a collector "
        "that reads the device's own used memory (cudaMemGetInfo or NVML).";
    notice.fields.push_back({"samples", int64_t(samples)});
    notice.fields.push_back({"collector", collector.empty() ? NoticeValue(std::monostate{})
                                                            : NoticeValue(std::string(collector))});
    notice.fields.push_back({"recorded_as", recordedAs});
    if (ranks > 0)
        notice.fields.push_back({"ranks", int64_t(ranks)});
    return notice;
}

std::vector<Notice> traceNotices(const GapInput& input, std::string_view collector)
{
    std::vector<Notice> notices;
    if (const GapObservability observed = gapObservability(input); observed.blind)
        notices.push_back(gapNotObservableNotice(observed.samples, collector, observed.relation));
    return notices;
}

Notice firstCauseAtStartupNotice(const std::vector<int64_t>& ranks)
{
    std::string list;
    for (size_t i = 0; i < ranks.size(); ++i)
        list += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    const std::string who = (ranks.size() == 1 ? "rank " : "ranks ") + list;
    Notice notice;
    notice.code = std::string(notice_code::kFirstCauseAtStartup);
    // Information: start-up is every rank allocating its model and optimizer state, not a fault
    notice.severity = NoticeSeverity::Info;
    notice.title = "First cause at start-up: " + who + " rose with every other rank in the job's first steps";
    notice.message =
        "Upstream's cross-rank analysis names " + who + " as first-cause suspect" +
        (ranks.size() == 1 ? "" : "s") +
        ", but every rank's first spike came in the first 10 % of its run and stayed: the job's start-up "
        "(weights, optimizer state such as Adam's, the allocator's pools), allocated on every rank within "
        "milliseconds. Which rank's sampler saw it first says nothing about a fault, so these suspects are "
        "shown as information; cross_rank_analysis keeps upstream's numbers. A rank that leads the others "
        "later in the run is still a warning or critical finding.";
    notice.fields.push_back({"ranks", ranks});
    return notice;
}

std::string ratioPercentText(double ratio)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", ratio * 100.0);
    std::string text(buffer);
    if (const size_t dot = text.find('.'); dot != std::string::npos) {
        while (text.back() == '0')
            text.pop_back();
        if (text.back() == '.')
            text.pop_back();
    }
    return text + " %";
}

std::vector<Finding> findingsBelowRatioGate(const GapInput& input, const GapThresholds& thresholds,
                                            const GapStatistics& stats)
{
    if (input.size() < 3 || !stats.belowRatioThreshold)
        return {};
    GapThresholds lowered = thresholds;
    lowered.gapRatio = stats.maxAbsGapRatio; // maxRatio < gapRatio is false: the gate opens
    GapStatistics opened = stats;
    opened.belowRatioThreshold = false;
    return analyzeGaps(input, lowered, opened);
}

Notice belowRatioGateNotice(const GapThresholds& thresholds, const GapStatistics& stats,
                            const std::vector<Finding>& belowGate)
{
    std::vector<std::string> classes;
    for (const Finding& finding : belowGate)
        classes.emplace_back(toString(finding.classification));
    std::string list;
    for (size_t i = 0; i < classes.size(); ++i)
        list += (i == 0 ? "" : i + 1 == classes.size() ? " and " : ", ") + classes[i];
    const std::string gate = ratioPercentText(thresholds.gapRatio);
    const std::string peak = ratioPercentText(stats.maxAbsGapRatio);
    Notice notice;
    notice.code = std::string(notice_code::kBelowRatioGate);
    // Information, not an alarm: upstream's z-score rule finds a "spike" in the noise of many
    // quiet traces (the quiet parity vector's 2.03 % peak is one), so a warning here would raise
    // an alarm on normal runs. The notice is still the summary page's first line.
    notice.severity = NoticeSeverity::Info;
    notice.title = (belowGate.size() == 1 ? std::string("1 finding is")
                                          : std::to_string(belowGate.size()) + " findings are") +
                   " hidden by the " + gate + " gate: the largest gap is " + peak + " of device memory";
    notice.message =
        "Upstream's analysis reports nothing while the largest gap (device used - reserved) is below "
        "gap_ratio_threshold (" +
        gate + " of the device's total memory); here it is " + peak + ". With the gate lowered to " + peak +
        ", every other threshold unchanged, the same analysis finds " + list +
        ". On a large device a gap that matters to this process can stay under a share of the whole "
        "device: look at the findings below the gate, or lower gap_ratio_threshold (--set "
        "gap_ratio_threshold=VALUE, or Analysis > Thresholds...).";
    notice.fields.push_back({"ratio_threshold", thresholds.gapRatio});
    notice.fields.push_back({"peak_gap_ratio", stats.maxAbsGapRatio});
    notice.fields.push_back({"would_report", std::move(classes)});
    return notice;
}

std::string descriptionLead(std::string_view description)
{
    size_t end = description.size();
    if (const size_t colon = description.find(": "); colon != std::string_view::npos)
        end = colon;
    for (size_t dot = description.find(". "); dot != std::string_view::npos && dot < end;
         dot = description.find(". ", dot + 1)) {
        if (dot + 2 < description.size() && std::isupper(static_cast<unsigned char>(description[dot + 2]))) {
            end = dot;
            break;
        }
    }
    std::string lead(description.substr(0, end));
    while (!lead.empty() && (lead.back() == '.' || lead.back() == ' '))
        lead.pop_back();
    return lead;
}

void describeBelowGateFindings(std::vector<Notice>& notices, const std::vector<Finding>& belowGate)
{
    Notice* notice = nullptr;
    for (Notice& n : notices)
        if (n.code == notice_code::kBelowRatioGate)
            notice = &n;
    if (!notice || belowGate.empty())
        return;
    std::vector<std::string> leads;
    std::string text = " Below the gate:";
    for (const Finding& finding : belowGate) {
        std::string lead = descriptionLead(finding.description);
        if (lead.empty())
            continue;
        text += " " + std::string(toString(finding.classification)) + ": " + lead + ".";
        leads.push_back(std::move(lead));
    }
    if (leads.empty())
        return;
    notice->message += text;
    notice->fields.push_back({"below_gate", std::move(leads)});
}

std::vector<Notice> traceNotices(const GapInput& input, std::string_view collector,
                                 const GapThresholds& thresholds, const GapStatistics& stats,
                                 std::vector<Finding>* belowGate)
{
    std::vector<Notice> notices = traceNotices(input, collector);
    std::vector<Finding> hidden;
    // a blind trace's gap is 0 by construction: nothing is below the gate but the collector
    if (!findNotice(notices, notice_code::kGapNotObservable))
        hidden = findingsBelowRatioGate(input, thresholds, stats);
    if (!hidden.empty())
        notices.push_back(belowRatioGateNotice(thresholds, stats, hidden));
    if (belowGate)
        *belowGate = std::move(hidden);
    return notices;
}

} // namespace gapscope
