#pragma once
// A restricted reader of Python pickles (protocols 0 to 5), for the data a PyTorch memory
// snapshot holds: None, booleans, ints of any size, floats, str, bytes, tuples, lists, dicts,
// sets and frozensets, and the memo that shares them. It never runs anything: an opcode that
// names or calls code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX,
// EXT1/2/4, PERSID, BINPERSID, NEXT_BUFFER, READONLY_BUFFER) is refused with its name and byte
// offset before anything is built from it, and so is every opcode this reader does not know.
//
// What it builds is an arena of 16-byte nodes, not a tree of objects: a string or bytes value
// is a view into the input (or into the arena's own text when it had to be decoded), an int or
// float is held in its node, a container is a range of child ids in one shared array. The memo
// holds node ids, so a value fetched again from the memo (BINGET) is the same node, as Python
// would give the same object: a PyTorch snapshot shares each frame dict among all the stacks
// that hold it, and so does the arena. A reader of the arena (SnapshotBuilder) walks it by
// schema, not by recursion, so the cycles a pickle can make (a list appended to itself) cannot
// trap it.
//
// Every length field is checked against the bytes left before anything is allocated, and the
// limits below bound the nesting, the memo and the values; a cut, malformed or hostile input is
// an error with its byte offset and reason, never a crash, a hang or an unbounded allocation.

#include "model/base/LoadControl.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

struct PickleLimits
{
    // Containers nested deeper than this (and MARKs open at once) are an error.
    uint32_t maxDepth = 1000;
    // Values (nodes) made at most; every opcode makes at most one, so an input of N bytes makes
    // at most N whatever this says.
    size_t maxValues = size_t(1) << 28;
    // Child ids held by all containers together (a value in two containers counts twice).
    size_t maxChildren = size_t(1) << 30;
    // Memo entries.
    size_t maxMemo = size_t(1) << 28;
};

enum class PickleKind : uint8_t
{
    None,
    Bool,
    Int,    // fits int64_t
    BigInt, // does not: bigIntText gives its decimal digits
    Float,
    Str,   // UTF-8
    Bytes, // bytes, bytearray, and a protocol-0/1 string that is not ASCII
    Tuple,
    List,
    Dict, // items: key, value, key, value, ...
    Set,
    FrozenSet
};
const char* toString(PickleKind kind);

// A value of the arena: a 16-byte node.
struct PickleNode
{
    PickleKind kind = PickleKind::None;
    uint8_t flags = 0;  // Str/Bytes: kInArenaText; BigInt: kDecimalText
    uint16_t depth = 0; // containers: how deep the values under it go (0 for a leaf)
    uint32_t size = 0;  // Str/Bytes/BigInt: bytes; containers: child ids (a dict: 2 per item)
    union {
        int64_t integer; // Int, Bool
        double real;     // Float
        uint64_t offset; // Str/Bytes/BigInt: where its bytes start (the input or the arena's text)
        struct
        {
            uint32_t first;    // containers: index of the first child id
            uint32_t capacity; // child ids reserved at first
        } items;
    };
    static constexpr uint8_t kInArenaText = 1;
    static constexpr uint8_t kDecimalText = 2; // BigInt written as decimal text (INT, LONG)
    PickleNode() : integer(0) {}
};
static_assert(sizeof(PickleNode) == 16, "a pickle value is one 16-byte node");

// What readPickle built: the values and the root. The input it was read from must outlive it
// (strings are views into it).
class PickleArena
{
public:
    using Id = uint32_t;

    Id root() const { return m_root; }
    size_t valueCount() const { return m_nodes.size(); }
    size_t childCount() const { return m_children.size(); }
    // Bytes held by the arena (nodes, child ids, decoded text), for the benchmarks.
    size_t heldBytes() const;

    const PickleNode& node(Id id) const { return m_nodes[id]; }
    PickleKind kind(Id id) const { return m_nodes[id].kind; }
    bool isContainer(Id id) const { return kind(id) >= PickleKind::Tuple; }

    // Int and Bool: the value; nullopt for any other kind (a BigInt that fits uint64_t: asUint64).
    std::optional<int64_t> asInt64(Id id) const;
    // Int >= 0, or a BigInt below 2^64 (a size_t or an address above 2^63).
    std::optional<uint64_t> asUint64(Id id) const;
    // Int, Bool or Float as a double.
    std::optional<double> asDouble(Id id) const;
    // Str and Bytes: their bytes (UTF-8 for Str); empty otherwise.
    std::string_view text(Id id) const;
    bool isStr(Id id) const { return kind(id) == PickleKind::Str; }
    // BigInt: its decimal digits with the sign ("-" first); an Int: its value; "" otherwise.
    // Digits of an int longer than 256 bytes are not spelled out ("<int of N bytes>").
    std::string bigIntText(Id id) const;

    // Containers: the child ids (a dict: key, value, key, value, ...); empty otherwise.
    std::span<const Id> items(Id id) const;
    // Dict: the value of the last item whose key is the string `key` (Python keeps the last).
    std::optional<Id> dictGet(Id dict, std::string_view key) const;

    // The value as Python's repr would write it (str values quoted), at most maxChars long
    // ("..." ends a cut text) and maxDepth containers deep: what a reader can print of a value it
    // does not know. Iterates depth-first by hand, so a cycle only costs the text's budget.
    std::string reprText(Id id, size_t maxChars = 200, uint32_t maxDepth = 8) const;

private:
    friend class PickleReaderImpl;
    std::string_view m_input;
    std::string m_text; // decoded text (UNICODE escapes, latin-1 strings)
    std::vector<PickleNode> m_nodes;
    std::vector<Id> m_children;
    Id m_root = 0;
};

struct PickleError
{
    int64_t offset = 0; // byte offset of the opcode (or of what was cut) in the input
    std::string reason;
};

struct PickleReadOutcome
{
    std::optional<PickleArena> arena; // set when the pickle was read to its STOP
    PickleError error;                // why arena is not set
    bool cancelled = false;
    int64_t stopOffset = -1; // the offset just after STOP (bytes after it are not read)
};

// Reads the pickle in `input` (which must outlive the arena). control: progress is called every
// few MB with (bytes read, input size); cancel stops the read (cancelled = true, no arena).
PickleReadOutcome readPickle(std::string_view input, const PickleLimits& limits = {},
                             const LoadControl* control = nullptr);

// The name of a pickle opcode ("BINGET"), or "" for a byte that is none.
const char* pickleOpcodeName(uint8_t opcode);

} // namespace gapscope
