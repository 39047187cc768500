#include "model/store/EventStore.h"

#include <array>
#include <utility>

namespace gapscope {

StringPool::StringPool(const StringPool& other) : m_recent(other.m_recent)
{
    if (!other.m_data)
        return;
    m_data = std::make_unique<Data>();
    m_data->strings = other.m_data->strings;
    m_data->index.reserve(m_data->strings.size());
    for (size_t id = 1; id < m_data->strings.size(); ++id)
        m_data->index.emplace(std::string_view(m_data->strings[id]), static_cast<uint32_t>(id));
}

StringPool& StringPool::operator=(const StringPool& other)
{
    if (this != &other)
        *this = StringPool(other);
    return *this;
}

const std::string& StringPool::emptyString()
{
    static const std::string empty;
    return empty;
}

uint32_t StringPool::intern(std::string_view s)
{
    if (s.empty())
        return 0;
    if (!m_data) {
        m_data = std::make_unique<Data>();
        m_data->strings.emplace_back(); // id 0
    } else if (auto it = m_data->index.find(s); it != m_data->index.end()) {
        return it->second;
    }
    const auto id = static_cast<uint32_t>(m_data->strings.size());
    m_data->strings.emplace_back(s);
    m_data->index.emplace(std::string_view(m_data->strings.back()), id);
    return id;
}

namespace {

constexpr std::array<std::pair<std::string_view, EventType>, 14> kEventTypeNames{{
    {"sample", EventType::Sample},
    {"allocation", EventType::Allocation},
    {"deallocation", EventType::Deallocation},
    {"peak", EventType::Peak},
    {"warning", EventType::Warning},
    {"critical", EventType::Critical},
    {"error", EventType::Error},
    {"start", EventType::Start},
    {"stop", EventType::Stop},
    {"collector_degraded", EventType::CollectorDegraded},
    {"collector_recovered", EventType::CollectorRecovered},
    {"phase_enter", EventType::PhaseEnter},
    {"phase_exit", EventType::PhaseExit},
    {"collective", EventType::Collective},
}};

} // namespace

EventType eventTypeFromString(std::string_view trimmedLower)
{
    for (const auto& [name, type] : kEventTypeNames) {
        if (name == trimmedLower)
            return type;
    }
    return EventType::Other;
}

std::string_view toString(EventType type)
{
    for (const auto& [name, known] : kEventTypeNames) {
        if (known == type)
            return name;
    }
    return "other";
}

void EventStore::shrinkToFit()
{
    // one column at a time, so the transient copy is one column, not the store
    forEachColumn([](auto& column) { column.shrink_to_fit(); });
    sources.shrink_to_fit();
}

void EventStore::reserveRows(size_t rows)
{
    forEachColumn([rows](auto& column) { column.reserveRows(rows); });
}

void EventStore::keepRowsUnpacked()
{
    forEachColumn([](auto& column) { column.keepUnpacked(); });
}

void EventStore::packRows()
{
    forEachColumn([](auto& column) { column.pack(); });
}

void EventStore::clearRows()
{
    forEachColumn([](auto& column) { column.clear(); });
    origins.clear();
    sources.clear();
    strings = StringPool();
}

EventStore::MemoryUse EventStore::memoryUse() const
{
    MemoryUse use;
    use.sources = sources.capacity() * sizeof(EventSource);
    forEachColumnOf([&use](const auto& column) { use.columns += column.memoryBytes(); }, *this);
    // unordered_map node: key + value + next pointer + cached hash, roughly.
    for (const auto& [row, origin] : origins) {
        use.origins += sizeof(row) + sizeof(origin) + 2 * sizeof(void*);
        if (origin.phaseScopeId)
            use.origins += origin.phaseScopeId->capacity();
    }
    use.origins += origins.bucket_count() * sizeof(void*);
    for (size_t id = 0; id < strings.size(); ++id) {
        const std::string& s = strings.at(static_cast<uint32_t>(id));
        // the pool's index holds a string_view and an id per string
        use.strings += sizeof(std::string) + s.capacity() + sizeof(std::string_view) + sizeof(uint32_t) +
                       2 * sizeof(void*);
    }
    return use;
}

} // namespace gapscope
