#pragma once
// simdjson parsers lent out and taken back. A parser allocates its buffers (the structural
// index, about 4 bytes per document byte, and the nesting stacks) on its first document and
// keeps them for the next one; a parser made per call pays that allocation every time, which
// is most of the cost of a small input (a fuzz input, a line the follower reads, a short
// file). A parser is taken back only while its buffers stay small (kKeptCapacityBytes), so
// the pool never holds the memory of a large document after its load.

#include <simdjson.h>

#include <memory>

namespace gapscope {

class PooledJsonParser
{
public:
    // Documents up to this size are read by parsers that go back to the pool.
    static constexpr size_t kKeptCapacityBytes = size_t(256) << 10;

    // A parser of the pool, or a new one when none is free.
    PooledJsonParser();
    // Gives the parser back, or frees it when it grew beyond kKeptCapacityBytes.
    ~PooledJsonParser();
    PooledJsonParser(const PooledJsonParser&) = delete;
    PooledJsonParser& operator=(const PooledJsonParser&) = delete;

    simdjson::ondemand::parser& operator*() { return *m_parser; }
    simdjson::ondemand::parser* operator->() { return m_parser.get(); }

private:
    std::unique_ptr<simdjson::ondemand::parser> m_parser;
};

} // namespace gapscope
