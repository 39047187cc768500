#include "model/snapshot/PickleReader.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace gapscope {

namespace {

// The opcodes of pickle protocols 0 to 5 (Python's Lib/pickle.py names them so).
enum Op : uint8_t
{
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    FLOAT = 'F',
    INT = 'I',
    BININT = 'J',
    BININT1 = 'K',
    LONG = 'L',
    BININT2 = 'M',
    NONE = 'N',
    PERSID = 'P',
    BINPERSID = 'Q',
    REDUCE = 'R',
    STRING = 'S',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    UNICODE = 'V',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    GET = 'g',
    BINGET = 'h',
    INST = 'i',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    OBJ = 'o',
    PUT = 'p',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    EXT1 = 0x82,
    EXT2 = 0x83,
    EXT4 = 0x84,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    NEWOBJ_EX = 0x92,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
    NEXT_BUFFER = 0x97,
    READONLY_BUFFER = 0x98,
};

constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
// Node ids are 32-bit; kUnset marks an empty memo slot.
constexpr size_t kMaxIds = size_t(kUnset) - 1;
// Progress and cancel are looked at every this many input bytes.
constexpr size_t kControlStride = size_t(4) << 20;

std::string hex(unsigned value)
{
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
}

std::string decimal(int64_t value)
{
    return std::to_string(value);
}

// Text of the input shown in a message: printable ASCII, at most 80 characters.
std::string shown(std::string_view text)
{
    std::string out;
    for (const char c : text.substr(0, 80))
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    if (text.size() > 80)
        out += "...";
    return out;
}

uint64_t readLittle(const unsigned char* p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

// Well-formed UTF-8 (no surrogates, no overlongs, at most U+10FFFF).
bool validUtf8(const unsigned char* p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        // 8 ASCII bytes at a time
        if (i + 8 <= n) {
            uint64_t chunk;
            std::memcpy(&chunk, p + i, 8);
            if ((chunk & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int extra;
        uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i <= size_t(extra))
            return false;
        for (int k = 1; k <= extra; ++k) {
            const unsigned char d = p[i + k];
            if ((d & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        if ((extra == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return false;
        i += size_t(extra) + 1;
    }
    return true;
}

void appendUtf8(std::string& out, uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xc0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += char(0xe0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    } else {
        out += char(0xf0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3f));
        out += char(0x80 | ((cp >> 6) & 0x3f));
        out += char(0x80 | (cp & 0x3f));
    }
}

bool allAscii(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Python's int() of a decimal text (sign, digits, blanks around): the value when it fits int64,
// else *big is set and the digits (with their sign) are in *digits. False: not an integer.
bool parseDecimalInt(std::string_view text, int64_t* value, bool* big, std::string* digits)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    bool negative = false;
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    *big = false;
    uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude);
    (void)end;
    const uint64_t limit = negative ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
    if (ec == std::errc() && magnitude <= limit) {
        *value = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
        return true;
    }
    *big = true;
    const size_t firstDigit = std::min(text.find_first_not_of('0'), text.size() - 1);
    *digits = (negative ? "-" : "") + std::string(text.substr(firstDigit));
    return true;
}

// Every opcode of protocols 0 to 5, by name.
constexpr std::pair<uint8_t, const char*> kOpcodeNames[] = {
    {MARK, "MARK"},
    {STOP, "STOP"},
    {POP, "POP"},
    {POP_MARK, "POP_MARK"},
    {DUP, "DUP"},
    {FLOAT, "FLOAT"},
    {INT, "INT"},
    {BININT, "BININT"},
    {BININT1, "BININT1"},
    {LONG, "LONG"},
    {BININT2, "BININT2"},
    {NONE, "NONE"},
    {PERSID, "PERSID"},
    {BINPERSID, "BINPERSID"},
    {REDUCE, "REDUCE"},
    {STRING, "STRING"},
    {BINSTRING, "BINSTRING"},
    {SHORT_BINSTRING, "SHORT_BINSTRING"},
    {UNICODE, "UNICODE"},
    {BINUNICODE, "BINUNICODE"},
    {APPEND, "APPEND"},
    {BUILD, "BUILD"},
    {GLOBAL, "GLOBAL"},
    {DICT, "DICT"},
    {EMPTY_DICT, "EMPTY_DICT"},
    {APPENDS, "APPENDS"},
    {GET, "GET"},
    {BINGET, "BINGET"},
    {INST, "INST"},
    {LONG_BINGET, "LONG_BINGET"},
    {LIST, "LIST"},
    {EMPTY_LIST, "EMPTY_LIST"},
    {OBJ, "OBJ"},
    {PUT, "PUT"},
    {BINPUT, "BINPUT"},
    {LONG_BINPUT, "LONG_BINPUT"},
    {SETITEM, "SETITEM"},
    {TUPLE, "TUPLE"},
    {EMPTY_TUPLE, "EMPTY_TUPLE"},
    {SETITEMS, "SETITEMS"},
    {BINFLOAT, "BINFLOAT"},
    {BINBYTES, "BINBYTES"},
    {SHORT_BINBYTES, "SHORT_BINBYTES"},
    {PROTO, "PROTO"},
    {NEWOBJ, "NEWOBJ"},
    {EXT1, "EXT1"},
    {EXT2, "EXT2"},
    {EXT4, "EXT4"},
    {TUPLE1, "TUPLE1"},
    {TUPLE2, "TUPLE2"},
    {TUPLE3, "TUPLE3"},
    {NEWTRUE, "NEWTRUE"},
    {NEWFALSE, "NEWFALSE"},
    {LONG1, "LONG1"},
    {LONG4, "LONG4"},
    {SHORT_BINUNICODE, "SHORT_BINUNICODE"},
    {BINUNICODE8, "BINUNICODE8"},
    {BINBYTES8, "BINBYTES8"},
    {EMPTY_SET, "EMPTY_SET"},
    {ADDITEMS, "ADDITEMS"},
    {FROZENSET, "FROZENSET"},
    {NEWOBJ_EX, "NEWOBJ_EX"},
    {STACK_GLOBAL, "STACK_GLOBAL"},
    {MEMOIZE, "MEMOIZE"},
    {FRAME, "FRAME"},
    {BYTEARRAY8, "BYTEARRAY8"},
    {NEXT_BUFFER, "NEXT_BUFFER"},
    {READONLY_BUFFER, "READONLY_BUFFER"},
};

} // namespace

const char* pickleOpcodeName(uint8_t opcode)
{
    for (const auto& [op, name] : kOpcodeNames)
        if (op == opcode)
            return name;
    return "";
}

const char* toString(PickleKind kind)
{
    switch (kind) {
    case PickleKind::None:
        return "None";
    case PickleKind::Bool:
        return "bool";
    case PickleKind::Int:
    case PickleKind::BigInt:
        return "int";
    case PickleKind::Float:
        return "float";
    case PickleKind::Str:
        return "str";
    case PickleKind::Bytes:
        return "bytes";
    case PickleKind::Tuple:
        return "tuple";
    case PickleKind::List:
        return "list";
    case PickleKind::Dict:
        return "dict";
    case PickleKind::Set:
        return "set";
    case PickleKind::FrozenSet:
        return "frozenset";
    }
    return "?";
}

// The reader: one pass over the opcodes, a stack of node ids, the marks (stack heights) and the
// memo. Errors set m_error and make every step return false.
class PickleReaderImpl
{
public:
    PickleReaderImpl(std::string_view input, const PickleLimits& limits, const LoadControl* control)
        : m_limits(limits), m_control(control), m_begin(reinterpret_cast<const unsigned char*>(input.data())),
          m_end(m_begin + input.size())
    {
        m_arena.m_input = input;
        m_limits.maxValues = std::min(m_limits.maxValues, kMaxIds);
        m_limits.maxChildren = std::min(m_limits.maxChildren, kMaxIds);
        m_limits.maxMemo = std::min(m_limits.maxMemo, kMaxIds);
        m_limits.maxDepth = std::min<uint32_t>(m_limits.maxDepth, std::numeric_limits<uint16_t>::max() - 1);
        // Reserved, not touched: room never used is address space, not memory. A real snapshot
        // makes about one value per 34 input bytes and one child id per 4 (generated 1 M entries:
        // 4.6 M values, 41 M child ids for 158 MB); reserving past that spares the copy a vector
        // makes when it outgrows its room (old and new buffers resident at once). Capped so that a
        // huge input does not ask for more address space than a machine may grant at once.
        m_arena.m_nodes.reserve(std::min({input.size() / 8 + 16, m_limits.maxValues, size_t(1) << 26}));
        m_arena.m_children.reserve(std::min({input.size() / 2 + 16, m_limits.maxChildren, size_t(1) << 28}));
        m_stack.reserve(256);
        std::fill(std::begin(m_smallInts), std::end(m_smallInts), kUnset);
    }

    PickleReadOutcome run();

private:
    bool fail(const unsigned char* at, std::string reason)
    {
        if (m_error.reason.empty())
            m_error = {int64_t(at - m_begin), std::move(reason)};
        return false;
    }
    std::string at(const unsigned char* op) const
    {
        return std::string(pickleOpcodeName(*op)) + " at byte " + decimal(int64_t(op - m_begin));
    }
    bool cut(const unsigned char* op, uint64_t needed)
    {
        return fail(op, at(op) + " needs " + std::to_string(needed) + " more bytes, " +
                            std::to_string(size_t(m_end - m_p)) + " are left: the file is cut short");
    }
    // The bytes of an argument: m_p advanced past them.
    bool take(const unsigned char* op, uint64_t n, const unsigned char** bytes)
    {
        if (n > uint64_t(m_end - m_p))
            return cut(op, n);
        *bytes = m_p;
        m_p += n;
        return true;
    }
    bool takeLine(const unsigned char* op, std::string_view* line)
    {
        const void* nl = std::memchr(m_p, '\n', size_t(m_end - m_p));
        if (!nl)
            return fail(op, at(op) + ": its text argument has no line end: the file is cut short");
        const auto* e = static_cast<const unsigned char*>(nl);
        *line = std::string_view(reinterpret_cast<const char*>(m_p), size_t(e - m_p));
        m_p = e + 1;
        return true;
    }

    size_t frameBase() const { return m_marks.empty() ? 0 : m_marks.back(); }
    bool needValues(const unsigned char* op, size_t n)
    {
        if (m_stack.size() - frameBase() >= n)
            return true;
        return fail(op, at(op) + " needs " + std::to_string(n) + " value(s) on the stack" +
                            (m_marks.empty() ? std::string() : " above the last MARK") + ", there are " +
                            std::to_string(m_stack.size() - frameBase()));
    }
    bool popMark(const unsigned char* op, size_t* base)
    {
        if (m_marks.empty())
            return fail(op, at(op) + " needs a MARK before it, there is none");
        *base = m_marks.back();
        m_marks.pop_back();
        return true;
    }

    bool newNode(const unsigned char* op, const PickleNode& node, uint32_t* id)
    {
        if (m_arena.m_nodes.size() >= m_limits.maxValues)
            return fail(op, at(op) + ": more than " + std::to_string(m_limits.maxValues) + " values");
        *id = uint32_t(m_arena.m_nodes.size());
        m_arena.m_nodes.push_back(node);
        return true;
    }
    bool pushNode(const unsigned char* op, const PickleNode& node)
    {
        uint32_t id;
        if (!newNode(op, node, &id))
            return false;
        m_stack.push_back(id);
        return true;
    }
    bool pushInt(const unsigned char* op, int64_t value)
    {
        // small non-negative ints are immutable in Python too: one node each
        if (value >= 0 && value < 256) {
            uint32_t& id = m_smallInts[value];
            if (id == kUnset) {
                PickleNode node;
                node.kind = PickleKind::Int;
                node.integer = value;
                if (!newNode(op, node, &id))
                    return false;
            }
            m_stack.push_back(id);
            return true;
        }
        PickleNode node;
        node.kind = PickleKind::Int;
        node.integer = value;
        return pushNode(op, node);
    }
    bool pushConstant(const unsigned char* op, uint32_t* slot, PickleKind kind, int64_t value)
    {
        if (*slot == kUnset) {
            PickleNode node;
            node.kind = kind;
            node.integer = value;
            if (!newNode(op, node, slot))
                return false;
        }
        m_stack.push_back(*slot);
        return true;
    }
    bool pushText(const unsigned char* op, PickleKind kind, uint64_t offset, uint64_t size, bool inArena)
    {
        if (size > std::numeric_limits<uint32_t>::max())
            return fail(op, at(op) + ": a value of " + std::to_string(size) + " bytes, more than 4 GiB");
        PickleNode node;
        node.kind = kind;
        node.flags = inArena ? PickleNode::kInArenaText : 0;
        node.size = uint32_t(size);
        node.offset = offset;
        return pushNode(op, node);
    }
    bool pushInputText(const unsigned char* op, PickleKind kind, const unsigned char* bytes, uint64_t size)
    {
        return pushText(op, kind, uint64_t(bytes - m_begin), size, false);
    }
    bool pushArenaText(const unsigned char* op, PickleKind kind, std::string_view text)
    {
        const uint64_t offset = m_arena.m_text.size();
        m_arena.m_text.append(text);
        return pushText(op, kind, offset, text.size(), true);
    }
    bool pushDecimal(const unsigned char* op, std::string_view text)
    {
        int64_t value = 0;
        bool big = false;
        std::string digits;
        if (!parseDecimalInt(text, &value, &big, &digits))
            return fail(op, at(op) + ": '" + shown(text) + "' is not an integer");
        if (!big)
            return pushInt(op, value);
        const uint64_t offset = m_arena.m_text.size();
        m_arena.m_text.append(digits);
        if (!pushText(op, PickleKind::BigInt, offset, digits.size(), true))
            return false;
        m_arena.m_nodes.back().flags = PickleNode::kInArenaText | PickleNode::kDecimalText;
        return true;
    }
    // LONG1 / LONG4: n bytes of little-endian two's complement.
    bool pushLong(const unsigned char* op, const unsigned char* bytes, uint64_t n)
    {
        if (n == 0)
            return pushInt(op, 0);
        const bool negative = (bytes[n - 1] & 0x80) != 0;
        // it fits int64 when every byte above the 8th repeats the sign
        bool fits = true;
        if (n > 8) {
            const unsigned char sign = negative ? 0xff : 0x00;
            for (uint64_t i = 8; i < n && fits; ++i)
                fits = bytes[i] == sign;
            fits = fits && ((bytes[7] & 0x80) != 0) == negative;
        }
        if (fits) {
            const int width = int(std::min<uint64_t>(n, 8));
            uint64_t v = readLittle(bytes, width);
            if (negative && width < 8)
                v |= ~uint64_t(0) << (8 * width);
            return pushInt(op, std::bit_cast<int64_t>(v));
        }
        return pushInputText(op, PickleKind::BigInt, bytes, n);
    }
    bool pushFloatText(const unsigned char* op, std::string_view text)
    {
        std::string_view t = text;
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
            t.remove_prefix(1);
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
            t.remove_suffix(1);
        if (!t.empty() && t.front() == '+')
            t.remove_prefix(1);
        double value = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
        if (t.empty() || end != t.data() + t.size() ||
            (ec != std::errc() && ec != std::errc::result_out_of_range))
            return fail(op, at(op) + ": '" + shown(text) + "' is not a float");
        PickleNode node;
        node.kind = PickleKind::Float;
        node.real = value;
        return pushNode(op, node);
    }
    // protocol 0's UNICODE: raw-unicode-escape (latin-1 bytes, \uXXXX and \UXXXXXXXX)
    bool pushRawUnicode(const unsigned char* op, std::string_view text)
    {
        if (allAscii(text) && text.find('\\') == std::string_view::npos)
            return pushInputText(op, PickleKind::Str, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
        std::string out;
        out.reserve(text.size() + text.size() / 2);
        for (size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c == '\\' && i + 1 < text.size() && (text[i + 1] == 'u' || text[i + 1] == 'U')) {
                const size_t digits = text[i + 1] == 'u' ? 4 : 8;
                uint32_t cp = 0;
                if (i + 2 + digits > text.size() ||
                    std::from_chars(text.data() + i + 2, text.data() + i + 2 + digits, cp, 16).ptr !=
                        text.data() + i + 2 + digits)
                    return fail(op, at(op) + ": a \\" + std::string(1, text[i + 1]) + " escape without " +
                                        std::to_string(digits) + " hex digits");
                if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                    return fail(op, at(op) + ": escape \\" + std::string(text.substr(i + 1, digits + 1)) +
                                        " is not a character (a surrogate or above U+10FFFF)");
                appendUtf8(out, cp);
                i += 1 + digits;
            } else {
                appendUtf8(out, c); // latin-1
            }
        }
        return pushArenaText(op, PickleKind::Str, out);
    }

    bool appendItems(const unsigned char* op, uint32_t container, const uint32_t* ids, size_t count);
    bool buildFromMark(const unsigned char* op, PickleKind kind);
    bool buildTuple(const unsigned char* op, size_t count);
    bool addToTop(const unsigned char* op, PickleKind expected, size_t count);
    bool memoGet(const unsigned char* op, uint64_t index);
    bool memoPut(const unsigned char* op, uint64_t index);
    bool refuseCode(const unsigned char* op);
    bool step();

    PickleLimits m_limits;
    const LoadControl* m_control;
    const unsigned char* m_begin;
    const unsigned char* m_end;
    const unsigned char* m_p = nullptr;
    PickleArena m_arena;
    std::vector<uint32_t> m_stack;
    std::vector<uint32_t> m_marks;
    std::vector<uint32_t> m_memo;                        // index -> node id, kUnset where none
    std::unordered_map<uint64_t, uint32_t> m_sparseMemo; // indexes far beyond the vector's end
    size_t m_memoCount = 0;                              // entries set (MEMOIZE's next index)
    uint32_t m_smallInts[256];
    uint32_t m_none = kUnset, m_true = kUnset, m_false = kUnset;
    bool m_stopped = false;
    PickleError m_error;
};

bool PickleReaderImpl::appendItems(const unsigned char* op, uint32_t container, const uint32_t* ids,
                                   size_t count)
{
    if (count == 0)
        return true;
    std::vector<PickleNode>& nodes = m_arena.m_nodes;
    std::vector<uint32_t>& children = m_arena.m_children;
    // the deepest of the new items, before the container's node is touched
    uint32_t depth = nodes[container].depth;
    for (size_t i = 0; i < count; ++i)
        depth = std::max<uint32_t>(depth, uint32_t(nodes[ids[i]].depth) + 1);
    if (depth > m_limits.maxDepth)
        return fail(op, at(op) + ": values nested deeper than " + std::to_string(m_limits.maxDepth));
    PickleNode& c = nodes[container];
    const size_t size = size_t(c.size) + count;
    if (size > m_limits.maxChildren)
        return fail(op,
                    at(op) + ": a container of more than " + std::to_string(m_limits.maxChildren) + " items");
    if (size > c.items.capacity) {
        const bool atEnd =
            c.items.capacity > 0 && size_t(c.items.first) + c.items.capacity == children.size();
        // a container whose ids end the array grows in place; any other moves to the end with
        // twice the room, so a list appended to between others is copied O(log n) times
        const size_t room = atEnd ? size - c.items.capacity
                                  : (c.size == 0 ? size : std::max(size, size_t(c.items.capacity) * 2));
        if (children.size() + room > m_limits.maxChildren)
            return fail(op,
                        at(op) + ": more than " + std::to_string(m_limits.maxChildren) + " container items");
        const size_t first = atEnd ? c.items.first : children.size();
        children.resize(children.size() + room);
        if (!atEnd && c.size > 0)
            std::copy_n(children.data() + c.items.first, c.size, children.data() + first);
        c.items.first = uint32_t(first);
        c.items.capacity = uint32_t(atEnd ? size : room);
    }
    std::copy_n(ids, count, children.data() + c.items.first + c.size);
    c.size = uint32_t(size);
    c.depth = uint16_t(depth);
    return true;
}

bool PickleReaderImpl::buildFromMark(const unsigned char* op, PickleKind kind)
{
    size_t base = 0;
    if (!popMark(op, &base))
        return false;
    const size_t count = m_stack.size() - base;
    if (kind == PickleKind::Dict && count % 2 != 0)
        return fail(op,
                    at(op) + ": an odd number of values (" + std::to_string(count) + ") for keys and values");
    PickleNode node;
    node.kind = kind;
    node.depth = 1;
    uint32_t id;
    if (!newNode(op, node, &id) || !appendItems(op, id, m_stack.data() + base, count))
        return false;
    m_stack.resize(base);
    m_stack.push_back(id);
    return true;
}

bool PickleReaderImpl::buildTuple(const unsigned char* op, size_t count)
{
    if (!needValues(op, count))
        return false;
    const size_t base = m_stack.size() - count;
    PickleNode node;
    node.kind = PickleKind::Tuple;
    node.depth = 1;
    uint32_t id;
    if (!newNode(op, node, &id) || !appendItems(op, id, m_stack.data() + base, count))
        return false;
    m_stack.resize(base);
    m_stack.push_back(id);
    return true;
}

// APPEND / SETITEM (count 1 / 2 values on top) and APPENDS / SETITEMS / ADDITEMS (count 0: the
// values above the last MARK) into the container under them.
bool PickleReaderImpl::addToTop(const unsigned char* op, PickleKind expected, size_t count)
{
    size_t base = 0;
    if (count == 0) {
        if (!popMark(op, &base))
            return false;
        if (base <= frameBase())
            return fail(op, at(op) + ": no " + toString(expected) + " under the MARK to add to");
        if (expected == PickleKind::Dict && (m_stack.size() - base) % 2 != 0)
            return fail(op, at(op) + ": an odd number of values (" + std::to_string(m_stack.size() - base) +
                                ") for keys and values");
    } else {
        if (!needValues(op, count + 1))
            return false;
        base = m_stack.size() - count;
    }
    const uint32_t container = m_stack[base - 1];
    const PickleKind kind = m_arena.kind(container);
    if (kind != expected)
        return fail(op, at(op) + " adds to a " + toString(kind) + ", not a " + toString(expected));
    if (!appendItems(op, container, m_stack.data() + base, m_stack.size() - base))
        return false;
    m_stack.resize(base);
    return true;
}

bool PickleReaderImpl::memoGet(const unsigned char* op, uint64_t index)
{
    uint32_t id = kUnset;
    if (index < m_memo.size()) {
        id = m_memo[index];
    } else if (auto it = m_sparseMemo.find(index); it != m_sparseMemo.end()) {
        id = it->second;
    }
    if (id == kUnset)
        return fail(op, at(op) + " fetches memo " + std::to_string(index) + ", which was never set");
    m_stack.push_back(id);
    return true;
}

bool PickleReaderImpl::memoPut(const unsigned char* op, uint64_t index)
{
    if (!needValues(op, 1))
        return false;
    const uint32_t id = m_stack.back();
    if (index < m_memo.size()) {
        m_memoCount += m_memo[index] == kUnset;
        m_memo[index] = id;
        return true;
    }
    if (m_memoCount >= m_limits.maxMemo)
        return fail(op, at(op) + ": more than " + std::to_string(m_limits.maxMemo) + " memo entries");
    // the memo grows by one index at a time in every pickle Python writes; an index far past its
    // end (a hostile LONG_BINPUT 4294967295), or a vector more holes than entries (LONG_BINPUTs
    // 1000 apart), is kept aside instead: the vector stays within twice the entries set
    if (index < m_memo.size() + 1024 && index < 2 * m_memoCount + 1024) {
        m_memo.resize(size_t(index) + 1, kUnset);
        m_memo[index] = id;
        ++m_memoCount;
        return true;
    }
    auto [it, inserted] = m_sparseMemo.try_emplace(index, id);
    if (!inserted)
        it->second = id;
    m_memoCount += inserted;
    return true;
}

bool PickleReaderImpl::refuseCode(const unsigned char* op)
{
    std::string what;
    std::string_view module, name;
    switch (*op) {
    case GLOBAL:
    case INST:
        // the module and name it would import, as text (read, never looked up)
        if (takeLine(op, &module) && takeLine(op, &name))
            what = " (" + shown(module) + "." + shown(name) + ")";
        m_error = {};
        break;
    case STACK_GLOBAL:
        if (m_stack.size() >= 2 && m_arena.isStr(m_stack[m_stack.size() - 2]) &&
            m_arena.isStr(m_stack.back()))
            what = " (" + shown(m_arena.text(m_stack[m_stack.size() - 2])) + "." +
                   shown(m_arena.text(m_stack.back())) + ")";
        break;
    default:
        break;
    }
    const bool names =
        *op == GLOBAL || *op == STACK_GLOBAL || *op == INST || *op == EXT1 || *op == EXT2 || *op == EXT4;
    return fail(op, "opcode " + std::string(pickleOpcodeName(*op)) + " (" + hex(*op) + ") at byte " +
                        decimal(int64_t(op - m_begin)) +
                        (names ? " names Python code" : " calls Python code") + what +
                        ": refused; a memory snapshot holds only data, and nothing in a file is run");
}

bool PickleReaderImpl::step()
{
    const unsigned char* op = m_p++;
    const unsigned char* b = nullptr;
    switch (*op) {
    case PROTO:
        if (!take(op, 1, &b))
            return false;
        if (*b > 5)
            return fail(op, "pickle protocol " + std::to_string(*b) + " (PROTO at byte " +
                                decimal(int64_t(op - m_begin)) + "): this reader knows protocols 0 to 5");
        return true;
    case FRAME: {
        if (!take(op, 8, &b))
            return false;
        const uint64_t length = readLittle(b, 8);
        if (length > uint64_t(m_end - m_p))
            return fail(op, at(op) + " announces " + std::to_string(length) + " bytes, " +
                                std::to_string(size_t(m_end - m_p)) + " are left: the file is cut short");
        return true;
    }
    case STOP:
        if (!needValues(op, 1))
            return false;
        m_arena.m_root = m_stack.back();
        m_stopped = true;
        return true;
    case MARK:
        if (m_marks.size() >= m_limits.maxDepth)
            return fail(op, at(op) + ": more than " + std::to_string(m_limits.maxDepth) + " MARKs open");
        m_marks.push_back(uint32_t(m_stack.size()));
        return true;
    case POP:
        if (m_stack.size() > frameBase()) {
            m_stack.pop_back();
            return true;
        }
        if (m_marks.empty())
            return needValues(op, 1);
        m_marks.pop_back(); // Python's POP drops an empty MARK
        return true;
    case POP_MARK: {
        size_t base = 0;
        if (!popMark(op, &base))
            return false;
        m_stack.resize(base);
        return true;
    }
    case DUP:
        if (!needValues(op, 1))
            return false;
        m_stack.push_back(m_stack.back());
        return true;

    case NONE:
        return pushConstant(op, &m_none, PickleKind::None, 0);
    case NEWTRUE:
        return pushConstant(op, &m_true, PickleKind::Bool, 1);
    case NEWFALSE:
        return pushConstant(op, &m_false, PickleKind::Bool, 0);
    case BININT1:
        return take(op, 1, &b) && pushInt(op, *b);
    case BININT2:
        return take(op, 2, &b) && pushInt(op, int64_t(readLittle(b, 2)));
    case BININT:
        return take(op, 4, &b) && pushInt(op, int64_t(int32_t(uint32_t(readLittle(b, 4)))));
    case LONG1:
        return take(op, 1, &b) && take(op, *b, &b) && pushLong(op, b, uint64_t(m_p - b));
    case LONG4: {
        if (!take(op, 4, &b))
            return false;
        const int32_t n = int32_t(uint32_t(readLittle(b, 4)));
        if (n < 0)
            return fail(op, at(op) + ": a negative length (" + std::to_string(n) + ")");
        return take(op, uint64_t(n), &b) && pushLong(op, b, uint64_t(n));
    }
    case INT: {
        std::string_view line;
        if (!takeLine(op, &line))
            return false;
        if (line == "00")
            return pushConstant(op, &m_false, PickleKind::Bool, 0);
        if (line == "01")
            return pushConstant(op, &m_true, PickleKind::Bool, 1);
        return pushDecimal(op, line);
    }
    case LONG: {
        std::string_view line;
        if (!takeLine(op, &line))
            return false;
        if (!line.empty() && line.back() == 'L')
            line.remove_suffix(1);
        return pushDecimal(op, line);
    }
    case BINFLOAT: {
        if (!take(op, 8, &b))
            return false;
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i)
            bits = (bits << 8) | b[i]; // big-endian
        PickleNode node;
        node.kind = PickleKind::Float;
        node.real = std::bit_cast<double>(bits);
        return pushNode(op, node);
    }
    case FLOAT: {
        std::string_view line;
        return takeLine(op, &line) && pushFloatText(op, line);
    }

    case SHORT_BINUNICODE:
    case BINUNICODE:
    case BINUNICODE8: {
        const int width = *op == SHORT_BINUNICODE ? 1 : *op == BINUNICODE ? 4 : 8;
        if (!take(op, uint64_t(width), &b))
            return false;
        const uint64_t n = readLittle(b, width);
        if (!take(op, n, &b))
            return false;
        if (!validUtf8(b, size_t(n)))
            return fail(op, at(op) + ": a str of " + std::to_string(n) + " bytes that is not valid UTF-8");
        return pushInputText(op, PickleKind::Str, b, n);
    }
    case UNICODE: {
        std::string_view line;
        return takeLine(op, &line) && pushRawUnicode(op, line);
    }
    case SHORT_BINSTRING:
    case BINSTRING: {
        uint64_t n = 0;
        if (*op == SHORT_BINSTRING) {
            if (!take(op, 1, &b))
                return false;
            n = *b;
        } else {
            if (!take(op, 4, &b))
                return false;
            const int32_t length = int32_t(uint32_t(readLittle(b, 4)));
            if (length < 0)
                return fail(op, at(op) + ": a negative length (" + std::to_string(length) + ")");
            n = uint64_t(length);
        }
        if (!take(op, n, &b))
            return false;
        // Python 3 reads a Python 2 str as ASCII; one that is not stays bytes (its encoding unknown)
        const std::string_view text(reinterpret_cast<const char*>(b), size_t(n));
        return pushInputText(op, allAscii(text) ? PickleKind::Str : PickleKind::Bytes, b, n);
    }
    case SHORT_BINBYTES:
    case BINBYTES:
    case BINBYTES8:
    case BYTEARRAY8: {
        const int width = *op == SHORT_BINBYTES ? 1 : *op == BINBYTES ? 4 : 8;
        if (!take(op, uint64_t(width), &b))
            return false;
        const uint64_t n = readLittle(b, width);
        return take(op, n, &b) && pushInputText(op, PickleKind::Bytes, b, n);
    }

    case EMPTY_LIST:
    case EMPTY_DICT:
    case EMPTY_TUPLE:
    case EMPTY_SET: {
        PickleNode node;
        node.kind = *op == EMPTY_LIST   ? PickleKind::List
                    : *op == EMPTY_DICT ? PickleKind::Dict
                    : *op == EMPTY_SET  ? PickleKind::Set
                                        : PickleKind::Tuple;
        node.depth = 1;
        return pushNode(op, node);
    }
    case LIST:
        return buildFromMark(op, PickleKind::List);
    case TUPLE:
        return buildFromMark(op, PickleKind::Tuple);
    case DICT:
        return buildFromMark(op, PickleKind::Dict);
    case FROZENSET:
        return buildFromMark(op, PickleKind::FrozenSet);
    case TUPLE1:
        return buildTuple(op, 1);
    case TUPLE2:
        return buildTuple(op, 2);
    case TUPLE3:
        return buildTuple(op, 3);
    case APPEND:
        return addToTop(op, PickleKind::List, 1);
    case APPENDS:
        return addToTop(op, PickleKind::List, 0);
    case SETITEM:
        return addToTop(op, PickleKind::Dict, 2);
    case SETITEMS:
        return addToTop(op, PickleKind::Dict, 0);
    case ADDITEMS:
        return addToTop(op, PickleKind::Set, 0);

    case BINGET:
        // the opcode of most of a snapshot (every key and frame after its first use): its fast path
        if (m_p < m_end && *m_p < m_memo.size() && m_memo[*m_p] != kUnset) {
            m_stack.push_back(m_memo[*m_p++]);
            return true;
        }
        return take(op, 1, &b) && memoGet(op, *b);
    case LONG_BINGET:
        if (m_end - m_p >= 4) {
            const uint64_t index = readLittle(m_p, 4);
            if (index < m_memo.size() && m_memo[index] != kUnset) {
                m_p += 4;
                m_stack.push_back(m_memo[index]);
                return true;
            }
        }
        return take(op, 4, &b) && memoGet(op, readLittle(b, 4));
    case GET:
    case PUT: {
        std::string_view line;
        if (!takeLine(op, &line))
            return false;
        int64_t index = 0;
        bool big = false;
        std::string digits;
        if (!parseDecimalInt(line, &index, &big, &digits) || big || index < 0)
            return fail(op, at(op) + ": '" + shown(line) + "' is not a memo index");
        return *op == GET ? memoGet(op, uint64_t(index)) : memoPut(op, uint64_t(index));
    }
    case BINPUT:
        return take(op, 1, &b) && memoPut(op, *b);
    case LONG_BINPUT:
        return take(op, 4, &b) && memoPut(op, readLittle(b, 4));
    case MEMOIZE:
        return memoPut(op, m_memoCount);

    case GLOBAL:
    case STACK_GLOBAL:
    case REDUCE:
    case BUILD:
    case INST:
    case OBJ:
    case NEWOBJ:
    case NEWOBJ_EX:
    case EXT1:
    case EXT2:
    case EXT4:
    case PERSID:
    case BINPERSID:
    case NEXT_BUFFER:
    case READONLY_BUFFER:
        return refuseCode(op);
    case STRING:
        return fail(op, at(op) + ": protocol 0's quoted str (opcode STRING, 0x53) is not read; a snapshot "
                                 "written by Python 3 has none");
    default:
        return fail(op, "byte " + hex(*op) + " at byte " + decimal(int64_t(op - m_begin)) +
                            " is not a pickle opcode: not a pickle, or a damaged one");
    }
}

PickleReadOutcome PickleReaderImpl::run()
{
    PickleReadOutcome outcome;
    m_p = m_begin;
    const unsigned char* nextControl = m_begin; // looked at first, then every kControlStride bytes
    while (m_p < m_end && !m_stopped) {
        if (m_p >= nextControl) {
            if (m_control) {
                if (m_control->cancel && m_control->cancel->load(std::memory_order_relaxed)) {
                    outcome.cancelled = true;
                    return outcome;
                }
                if (m_control->progress)
                    m_control->progress(qint64(m_p - m_begin), qint64(m_end - m_begin));
            }
            nextControl = m_p + std::min(kControlStride, size_t(m_end - m_p));
        }
        if (!step()) {
            outcome.error = std::move(m_error);
            return outcome;
        }
    }
    if (!m_stopped) {
        outcome.error = {int64_t(m_end - m_begin),
                         m_begin == m_end ? std::string("an empty file, not a pickle")
                                          : "the pickle ends at byte " + decimal(int64_t(m_end - m_begin)) +
                                                " without its STOP opcode: the file is cut short"};
        return outcome;
    }
    outcome.stopOffset = int64_t(m_p - m_begin);
    if (m_control && m_control->progress)
        m_control->progress(qint64(m_p - m_begin), qint64(m_end - m_begin));
    // the reader's own state goes before the arena is handed out
    // (the arena is not shrunk: it lives only until the snapshot is built from it, and the room
    // reserved beyond what it used was never touched, so it is not resident)
    m_stack = {};
    m_marks = {};
    m_memo = {};
    m_sparseMemo = {};
    outcome.arena = std::move(m_arena);
    return outcome;
}

PickleReadOutcome readPickle(std::string_view input, const PickleLimits& limits, const LoadControl* control)
{
    PickleReaderImpl reader(input, limits, control);
    return reader.run();
}

// ---- the arena ----

size_t PickleArena::heldBytes() const
{
    return m_nodes.capacity() * sizeof(PickleNode) + m_children.capacity() * sizeof(Id) + m_text.capacity();
}

std::optional<int64_t> PickleArena::asInt64(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind == PickleKind::Int || n.kind == PickleKind::Bool)
        return n.integer;
    return std::nullopt;
}

std::optional<uint64_t> PickleArena::asUint64(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind == PickleKind::Int || n.kind == PickleKind::Bool)
        return n.integer >= 0 ? std::optional<uint64_t>(uint64_t(n.integer)) : std::nullopt;
    if (n.kind != PickleKind::BigInt)
        return std::nullopt;
    const std::string_view bytes = (n.flags & PickleNode::kInArenaText)
                                       ? std::string_view(m_text).substr(n.offset, n.size)
                                       : m_input.substr(n.offset, n.size);
    if (n.flags & PickleNode::kDecimalText) {
        uint64_t value = 0;
        const auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), value);
        if (ec != std::errc() || end != bytes.data() + bytes.size())
            return std::nullopt;
        return value;
    }
    // little-endian two's complement: below 2^64 and not negative
    if (bytes.empty() || (static_cast<unsigned char>(bytes.back()) & 0x80))
        return std::nullopt;
    for (size_t i = 8; i < bytes.size(); ++i)
        if (bytes[i] != 0)
            return std::nullopt;
    return readLittle(reinterpret_cast<const unsigned char*>(bytes.data()),
                      int(std::min<size_t>(bytes.size(), 8)));
}

std::optional<double> PickleArena::asDouble(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind == PickleKind::Float)
        return n.real;
    if (n.kind == PickleKind::Int || n.kind == PickleKind::Bool)
        return double(n.integer);
    return std::nullopt;
}

std::string_view PickleArena::text(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind != PickleKind::Str && n.kind != PickleKind::Bytes)
        return {};
    return (n.flags & PickleNode::kInArenaText) ? std::string_view(m_text).substr(n.offset, n.size)
                                                : m_input.substr(n.offset, n.size);
}

std::string PickleArena::bigIntText(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind == PickleKind::Int)
        return std::to_string(n.integer);
    if (n.kind != PickleKind::BigInt)
        return {};
    if (n.flags & PickleNode::kDecimalText)
        return std::string(std::string_view(m_text).substr(n.offset, n.size));
    if (n.size > 256)
        return "<int of " + std::to_string(n.size) + " bytes>";
    const auto* p = reinterpret_cast<const unsigned char*>(m_input.data() + n.offset);
    std::vector<unsigned char> magnitude(p, p + n.size); // little-endian
    const bool negative = (magnitude.back() & 0x80) != 0;
    if (negative) { // two's complement: invert and add one
        unsigned carry = 1;
        for (unsigned char& byte : magnitude) {
            const unsigned v = unsigned(static_cast<unsigned char>(~byte)) + carry;
            byte = static_cast<unsigned char>(v);
            carry = v >> 8;
        }
    }
    std::string digits;
    // repeated division by 10 of the big-endian magnitude
    while (std::any_of(magnitude.begin(), magnitude.end(), [](unsigned char c) { return c != 0; })) {
        unsigned remainder = 0;
        for (size_t i = magnitude.size(); i-- > 0;) {
            const unsigned v = (remainder << 8) | magnitude[i];
            magnitude[i] = static_cast<unsigned char>(v / 10);
            remainder = v % 10;
        }
        digits += char('0' + remainder);
    }
    if (digits.empty())
        digits = "0";
    if (negative)
        digits += '-';
    std::reverse(digits.begin(), digits.end());
    return digits;
}

std::span<const PickleArena::Id> PickleArena::items(Id id) const
{
    const PickleNode& n = m_nodes[id];
    if (n.kind < PickleKind::Tuple || n.size == 0)
        return {};
    return std::span<const Id>(m_children.data() + n.items.first, n.size);
}

std::optional<PickleArena::Id> PickleArena::dictGet(Id dict, std::string_view key) const
{
    if (kind(dict) != PickleKind::Dict)
        return std::nullopt;
    const std::span<const Id> all = items(dict);
    for (size_t i = all.size(); i >= 2; i -= 2)
        if (isStr(all[i - 2]) && text(all[i - 2]) == key)
            return all[i - 1];
    return std::nullopt;
}

namespace {

void appendQuoted(std::string& out, std::string_view text, bool bytes)
{
    // Python's choice: single quotes, unless the text holds one and no double quote
    const char quote =
        text.find('\'') != std::string_view::npos && text.find('"') == std::string_view::npos ? '"' : '\'';
    if (bytes)
        out += 'b';
    out += quote;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == quote || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\x%02x", c);
            out += escape;
        } else {
            out += ch;
        }
    }
    out += quote;
}

} // namespace

std::string PickleArena::reprText(Id root, size_t maxChars, uint32_t maxDepth) const
{
    std::string out;
    struct Frame
    {
        Id id;
        size_t next;
    };
    std::vector<Frame> stack;
    const auto leaf = [&](Id id) {
        const PickleNode& n = m_nodes[id];
        switch (n.kind) {
        case PickleKind::None:
            out += "None";
            break;
        case PickleKind::Bool:
            out += n.integer ? "True" : "False";
            break;
        case PickleKind::Int:
        case PickleKind::BigInt:
            out += bigIntText(id);
            break;
        case PickleKind::Float: {
            if (n.real != n.real) {
                out += "nan";
            } else if (n.real == std::numeric_limits<double>::infinity()) {
                out += "inf";
            } else if (n.real == -std::numeric_limits<double>::infinity()) {
                out += "-inf";
            } else {
                char text[32];
                const auto r = std::to_chars(text, text + sizeof text, n.real);
                std::string_view written(text, size_t(r.ptr - text));
                out += written;
                if (written.find_first_of(".e") == std::string_view::npos)
                    out += ".0";
            }
            break;
        }
        case PickleKind::Str:
        case PickleKind::Bytes:
            appendQuoted(out, text(id).substr(0, maxChars), n.kind == PickleKind::Bytes);
            break;
        default:
            break;
        }
    };
    const auto open = [&](Id id) {
        switch (kind(id)) {
        case PickleKind::Tuple:
            return "(";
        case PickleKind::List:
            return "[";
        case PickleKind::FrozenSet:
            return items(id).empty() ? "frozenset(" : "frozenset({";
        case PickleKind::Set:
            return items(id).empty() ? "set(" : "{";
        default:
            return "{";
        }
    };
    const auto close = [&](Id id) {
        switch (kind(id)) {
        case PickleKind::Tuple:
            return items(id).size() == 1 ? ",)" : ")";
        case PickleKind::List:
            return "]";
        case PickleKind::FrozenSet:
            return items(id).empty() ? ")" : "})";
        case PickleKind::Set:
            return items(id).empty() ? ")" : "}";
        default:
            return "}";
        }
    };
    const auto visit = [&](Id id) {
        if (!isContainer(id)) {
            leaf(id);
        } else if (stack.size() >= maxDepth) {
            out += "...";
        } else {
            out += open(id);
            stack.push_back({id, 0});
        }
    };
    visit(root);
    while (!stack.empty() && out.size() <= maxChars) {
        Frame& top = stack.back();
        const std::span<const Id> all = items(top.id);
        if (top.next >= all.size()) {
            out += close(top.id);
            stack.pop_back();
            continue;
        }
        const size_t i = top.next++;
        if (i > 0)
            out += (kind(top.id) == PickleKind::Dict && i % 2 == 1) ? ": " : ", ";
        visit(all[i]);
    }
    if (out.size() > maxChars) {
        out.resize(maxChars);
        out += "...";
    }
    return out;
}

} // namespace gapscope
