#include "model/read/JsonParserPool.h"

#include <mutex>
#include <vector>

namespace gapscope {

namespace {

// Parsers kept at most: one per parse thread of a load and a few more for the GUI thread and
// a follower, all within kKeptCapacityBytes each.
constexpr size_t kMaxKept = 16;

struct Pool
{
    std::mutex mutex;
    std::vector<std::unique_ptr<simdjson::ondemand::parser>> free;
};

Pool& pool()
{
    static Pool instance; // never destroyed before the parsers lent out: they return to it
    return instance;
}

} // namespace

PooledJsonParser::PooledJsonParser()
{
    Pool& p = pool();
    {
        const std::lock_guard lock(p.mutex);
        if (!p.free.empty()) {
            m_parser = std::move(p.free.back());
            p.free.pop_back();
        }
    }
    if (!m_parser)
        m_parser = std::make_unique<simdjson::ondemand::parser>();
}

PooledJsonParser::~PooledJsonParser()
{
    if (m_parser->capacity() > kKeptCapacityBytes)
        return;
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    if (p.free.size() < kMaxKept)
        p.free.push_back(std::move(m_parser));
}

} // namespace gapscope
