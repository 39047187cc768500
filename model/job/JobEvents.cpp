#include "model/job/JobEvents.h"

#include "analysis/CollectiveAttribution.h"
#include "analysis/Phases.h"

#include <simdjson.h>

#include <algorithm>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

namespace gapscope {

namespace {

// Whether any string in a metadata value (an object's values, a list's items, nested) holds a
// collective token; keys do not count, as upstream iterates values only.
bool anyStringHasCollectiveToken(simdjson::dom::element element)
{
    std::string_view text;
    if (!element.get_string().get(text))
        return hasCollectiveToken(text);
    simdjson::dom::array array;
    if (!element.get_array().get(array)) {
        for (const simdjson::dom::element item : array)
            if (anyStringHasCollectiveToken(item))
                return true;
        return false;
    }
    simdjson::dom::object object;
    if (!element.get_object().get(object)) {
        for (const simdjson::dom::key_value_pair field : object)
            if (anyStringHasCollectiveToken(field.value))
                return true;
    }
    return false;
}

// (session id, rank): where upstream's replay index keeps the spans of a rank
using PhaseGroup = std::pair<std::string, int64_t>;

struct PhaseLookup
{
    std::vector<PhaseSpanIndex> indexes;
    std::vector<int32_t> indexOfSource; // per job source, -1: no phases
};

class JobEventsBuilder
{
public:
    explicit JobEventsBuilder(const std::optional<TimeWindow>& window) : m_window(window) {}

    void reserve(size_t rows) { m_events.reserve(rows); }
    // leftOut: partitions of the session not read (their rank is read from another input)
    void addInput(const TraceData& trace, size_t sessionIndex, const std::vector<size_t>& leftOut = {});
    JobEventsBuild finish();

private:
    // per string id of one store: what its text says (0 = not judged yet)
    enum StringFacts : uint8_t
    {
        kTextJudged = 1u << 0,
        kTextMarker = 1u << 1,
        kSampleStripLower = 1u << 2,
        kSampleCasefold = 1u << 3,
        kMetadataJudged = 1u << 4,
        kMetadataMarker = 1u << 5,
    };
    uint8_t textFacts(const EventStore& store, uint32_t id);
    bool metadataMarker(const EventStore& store, uint32_t id);
    uint32_t sourceIndex(const EventStore& store, uint32_t storeSource);
    void appendRow(const EventStore& store, uint32_t row);

    std::optional<TimeWindow> m_window;
    JobEvents m_events;
    std::vector<uint8_t> m_facts;    // of the current store's strings
    std::vector<int64_t> m_sourceOf; // current store's source -> job source (-1: not yet)
    std::map<PhaseGroup, std::vector<PhaseSpan>> m_spans;
    simdjson::dom::parser m_parser;
};

uint8_t JobEventsBuilder::textFacts(const EventStore& store, uint32_t id)
{
    uint8_t& facts = m_facts[id];
    if (!(facts & kTextJudged)) {
        const std::string& text = store.str(id);
        facts |= kTextJudged;
        if (hasCollectiveToken(text))
            facts |= kTextMarker;
        if (isSampleByStripLower(text))
            facts |= kSampleStripLower;
        if (isSampleByCasefold(text))
            facts |= kSampleCasefold;
    }
    return facts;
}

bool JobEventsBuilder::metadataMarker(const EventStore& store, uint32_t id)
{
    uint8_t& facts = m_facts[id];
    if (!(facts & kMetadataJudged)) {
        facts |= kMetadataJudged;
        const std::string& text = store.str(id);
        // Without an escape every string value is a run of the text itself, so a token in no part
        // of the text is in no value: most metadata is decided without parsing it.
        if (text.find('\\') == std::string::npos && !hasCollectiveToken(text))
            return false;
        simdjson::dom::element metadata;
        // the loader wrote it: valid JSON (a failure only means no marker)
        if (!m_parser.parse(text).get(metadata) && anyStringHasCollectiveToken(metadata))
            facts |= kMetadataMarker;
    }
    return facts & kMetadataMarker;
}

uint32_t JobEventsBuilder::sourceIndex(const EventStore& store, uint32_t storeSource)
{
    int64_t& index = m_sourceOf[storeSource];
    if (index < 0) {
        const EventSource& from = store.sources[storeSource];
        JobEventSource source;
        source.rank = from.rank;
        source.worldSize = from.worldSize;
        source.pid = from.pid;
        source.samplingIntervalMs = from.samplingIntervalMs;
        source.host = store.str(from.host);
        source.jobId = store.str(from.jobId);
        source.sessionId = store.str(from.sessionId);
        source.hasSessionId = from.sessionId != 0;
        index = static_cast<int64_t>(m_events.sources.size());
        m_events.sources.push_back(std::move(source));
    }
    return static_cast<uint32_t>(index);
}

void JobEventsBuilder::appendRow(const EventStore& store, uint32_t row)
{
    const int64_t timestampNs = store.timestampNs[row];
    if (m_window && (timestampNs < m_window->beginNs || timestampNs > m_window->endNs))
        return;
    const uint8_t typeFacts = textFacts(store, store.typeName[row]);
    uint8_t flags = 0;
    if (typeFacts & kSampleStripLower)
        flags |= kSampleByStripLower;
    if (typeFacts & kSampleCasefold)
        flags |= kSampleByCasefold;
    // event_type, then context, then the metadata strings (parsed only when needed)
    const uint32_t context = store.context[row];
    const uint32_t metadata = store.metadata[row];
    if ((typeFacts & kTextMarker) || (context != 0 && (textFacts(store, context) & kTextMarker)) ||
        (metadata != 0 && metadataMarker(store, metadata)))
        flags |= kCollectiveMarker;
    const int64_t used = store.used[row];
    const int64_t reserved = store.reserved[row];
    if (store.allocated[row] != kNullInt && reserved != kNullInt && used != kNullInt)
        flags |= kCountersRecorded;
    m_events.append(timestampNs, used, reserved, store.total[row], sourceIndex(store, store.source[row]),
                    flags);
}

void JobEventsBuilder::addInput(const TraceData& trace, size_t sessionIndex,
                                const std::vector<size_t>& leftOut)
{
    const EventStore& store = trace.store;
    m_facts.assign(store.strings.size(), 0);
    m_sourceOf.assign(store.sources.size(), -1);
    std::vector<const Partition*> partitions;
    std::vector<int64_t> ranksLeftOut; // their phases are read from the input that holds them
    for (size_t p = 0; p < trace.partitions.size(); ++p) {
        const Partition& partition = trace.partitions[p];
        if (partition.sessionIndex != sessionIndex)
            continue;
        if (std::find(leftOut.begin(), leftOut.end(), p) != leftOut.end())
            ranksLeftOut.push_back(partition.rank);
        else
            partitions.push_back(&partition);
    }

    // the partitions merged by timestamp; a tie goes to the earlier partition (lower rank)
    using Head = std::tuple<int64_t, size_t, uint32_t>; // timestamp, partition, row
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (size_t p = 0; p < partitions.size(); ++p)
        if (partitions[p]->size() > 0)
            heads.emplace(store.timestampNs[partitions[p]->begin], p, partitions[p]->begin);
    while (!heads.empty()) {
        auto [timestampNs, p, row] = heads.top();
        heads.pop();
        // a partition runs on while its rows come first (one rank, or ranks far apart in time)
        const Partition& partition = *partitions[p];
        const bool alone = heads.empty();
        const int64_t nextOther = alone ? 0 : std::get<0>(heads.top());
        const size_t nextPartition = alone ? 0 : std::get<1>(heads.top());
        for (;;) {
            appendRow(store, row);
            if (++row == partition.end)
                break;
            const int64_t ts = store.timestampNs[row];
            if (!alone && (ts > nextOther || (ts == nextOther && p > nextPartition))) {
                heads.emplace(ts, p, row);
                break;
            }
        }
    }

    if (sessionIndex >= trace.sessions.size())
        return;
    const std::string sessionId = trace.sessions[sessionIndex].id.toStdString();
    for (const PhaseSpan& span : trace.phases)
        if (span.sessionId == sessionId &&
            std::find(ranksLeftOut.begin(), ranksLeftOut.end(), span.rank) == ranksLeftOut.end())
            m_spans[PhaseGroup{span.sessionId, span.rank}].push_back(span);
}

JobEventsBuild JobEventsBuilder::finish()
{
    auto lookup = std::make_shared<PhaseLookup>();
    std::map<PhaseGroup, int32_t> indexOfGroup;
    for (auto& [group, spans] : m_spans) {
        indexOfGroup.emplace(group, static_cast<int32_t>(lookup->indexes.size()));
        lookup->indexes.emplace_back(std::move(spans));
    }
    for (const JobEventSource& source : m_events.sources) {
        const auto it = source.hasSessionId ? indexOfGroup.find(PhaseGroup{source.sessionId, source.rank})
                                            : indexOfGroup.end();
        lookup->indexOfSource.push_back(it == indexOfGroup.end() ? -1 : it->second);
    }
    JobEventsBuild build;
    build.events = std::move(m_events);
    build.phases = [lookup](int64_t timestampNs, uint32_t source) -> std::optional<PhaseAttribution> {
        const int32_t index = source < lookup->indexOfSource.size() ? lookup->indexOfSource[source] : -1;
        if (index < 0)
            return std::nullopt;
        return lookup->indexes[size_t(index)].attribute(timestampNs);
    };
    return build;
}

size_t sessionRows(const TraceData& trace, size_t sessionIndex)
{
    size_t rows = 0;
    for (const Partition& partition : trace.partitions)
        if (partition.sessionIndex == sessionIndex)
            rows += partition.size();
    return rows;
}

} // namespace

JobEventsBuild buildJobEvents(const JobData& job, const std::optional<TimeWindow>& window)
{
    JobEventsBuilder builder(window);
    size_t rows = 0;
    for (const JobInput& input : job.inputs)
        rows += sessionRows(*input.trace, input.sessionIndex);
    builder.reserve(rows);
    for (const JobInput& input : job.inputs)
        builder.addInput(*input.trace, input.sessionIndex, input.leftOutPartitions);
    return builder.finish();
}

JobEventsBuild buildJobEvents(const TraceData& trace, size_t sessionIndex,
                              const std::optional<TimeWindow>& window)
{
    JobEventsBuilder builder(window);
    builder.reserve(sessionRows(trace, sessionIndex));
    builder.addInput(trace, sessionIndex);
    return builder.finish();
}

} // namespace gapscope
