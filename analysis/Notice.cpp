#include "analysis/Notice.h"

#include <algorithm>

namespace gapscope {

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

} // namespace gapscope
