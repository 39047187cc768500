#include "model/snapshot/SnapshotBuilder.h"

#include <algorithm>
#include <array>
#include <functional>
#include <set>
#include <unordered_map>

namespace gapscope {

namespace {

using Id = PickleArena::Id;
constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();

// ---- the keys of each dict of the schema ----

enum class TopKey
{
    Segments,
    DeviceTraces,
    AllocatorSettings,
    ExternalAnnotations,
    Other
};
TopKey topKey(std::string_view k)
{
    return k == "segments"               ? TopKey::Segments
           : k == "device_traces"        ? TopKey::DeviceTraces
           : k == "allocator_settings"   ? TopKey::AllocatorSettings
           : k == "external_annotations" ? TopKey::ExternalAnnotations
                                         : TopKey::Other;
}

enum class SegmentKey
{
    Device,
    Address,
    TotalSize,
    AllocatedSize,
    ActiveSize,
    RequestedSize,
    Stream,
    SegmentType,
    SegmentPoolId,
    IsExpandable,
    Frames,
    Blocks,
    Other
};
SegmentKey segmentKey(std::string_view k)
{
    static const std::pair<std::string_view, SegmentKey> names[] = {
        {"device", SegmentKey::Device},
        {"address", SegmentKey::Address},
        {"total_size", SegmentKey::TotalSize},
        {"allocated_size", SegmentKey::AllocatedSize},
        {"active_size", SegmentKey::ActiveSize},
        {"requested_size", SegmentKey::RequestedSize},
        {"stream", SegmentKey::Stream},
        {"segment_type", SegmentKey::SegmentType},
        {"segment_pool_id", SegmentKey::SegmentPoolId},
        {"is_expandable", SegmentKey::IsExpandable},
        {"frames", SegmentKey::Frames},
        {"blocks", SegmentKey::Blocks},
    };
    for (const auto& [name, key] : names)
        if (k == name)
            return key;
    return SegmentKey::Other;
}

enum class BlockKey
{
    Address,
    Size,
    RequestedSize,
    State,
    Frames,
    History,
    Other
};
BlockKey blockKey(std::string_view k)
{
    return k == "address"          ? BlockKey::Address
           : k == "size"           ? BlockKey::Size
           : k == "requested_size" ? BlockKey::RequestedSize
           : k == "state"          ? BlockKey::State
           : k == "frames"         ? BlockKey::Frames
           : k == "history"        ? BlockKey::History
                                   : BlockKey::Other;
}

enum class EntryKey
{
    Action,
    Addr,
    Size,
    Stream,
    TimeUs,
    Frames,
    DeviceFree,
    CompileContext,
    UserMetadata,
    Other
};
EntryKey entryKey(std::string_view k)
{
    static const std::pair<std::string_view, EntryKey> names[] = {
        {"action", EntryKey::Action},
        {"addr", EntryKey::Addr},
        {"size", EntryKey::Size},
        {"stream", EntryKey::Stream},
        {"time_us", EntryKey::TimeUs},
        {"frames", EntryKey::Frames},
        {"device_free", EntryKey::DeviceFree},
        {"compile_context", EntryKey::CompileContext},
        {"user_metadata", EntryKey::UserMetadata},
    };
    for (const auto& [name, key] : names)
        if (k == name)
            return key;
    return EntryKey::Other;
}

enum class FrameKey
{
    Name,
    Filename,
    Line,
    Other
};
FrameKey frameKey(std::string_view k)
{
    return k == "name"       ? FrameKey::Name
           : k == "filename" ? FrameKey::Filename
           : k == "line"     ? FrameKey::Line
                             : FrameKey::Other;
}

enum class AnnotationKey
{
    Stage,
    Name,
    Device,
    TimeUs,
    Other
};
AnnotationKey annotationKey(std::string_view k)
{
    return k == "stage"     ? AnnotationKey::Stage
           : k == "name"    ? AnnotationKey::Name
           : k == "device"  ? AnnotationKey::Device
           : k == "time_us" ? AnnotationKey::TimeUs
                            : AnnotationKey::Other;
}

// What a key node means, cached by node id: PyTorch's pickles fetch every key from the memo, so
// each distinct key is compared with the names once. Direct-mapped: a miss only costs a compare.
template <typename Field> class KeyCache
{
public:
    explicit KeyCache(Field (*byName)(std::string_view), Field other) : m_byName(byName), m_other(other) {}
    Field operator()(const PickleArena& arena, Id key)
    {
        Slot& slot = m_slots[key % m_slots.size()];
        if (slot.key != key) {
            slot.key = key;
            slot.field = arena.isStr(key) ? m_byName(arena.text(key)) : m_other;
        }
        return slot.field;
    }

private:
    struct Slot
    {
        uint32_t key = kUnset;
        Field field{};
    };
    Field (*m_byName)(std::string_view);
    Field m_other;
    std::array<Slot, 64> m_slots{};
};

struct TextHash
{
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

struct FrameHash
{
    size_t operator()(const SnapshotFrame& f) const
    {
        uint64_t h = (uint64_t(f.name) << 32) ^ f.filename;
        h ^= uint64_t(f.line) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        return size_t(h * 0xbf58476d1ce4e5b9ull);
    }
};

// Stacks by content: an open-addressing table of stack ids over SnapshotFrames' own arrays.
class StackTable
{
public:
    explicit StackTable(SnapshotFrames& frames) : m_frames(frames), m_slots(1024, kUnset), m_hashes(1, 0) {}

    FrameStackId intern(std::span<const uint32_t> stack)
    {
        if (stack.empty())
            return 0;
        const uint64_t h = hash(stack);
        size_t i = size_t(h) & (m_slots.size() - 1);
        while (m_slots[i] != kUnset) {
            const FrameStackId s = m_slots[i];
            if (m_hashes[s] == h && std::ranges::equal(m_frames.stack(s), stack))
                return s;
            i = (i + 1) & (m_slots.size() - 1);
        }
        const auto id = FrameStackId(m_frames.stackCount());
        m_frames.stackFrames.insert(m_frames.stackFrames.end(), stack.begin(), stack.end());
        m_frames.stackStarts.push_back(uint32_t(m_frames.stackFrames.size()));
        m_hashes.push_back(h);
        m_slots[i] = id;
        if (++m_used * 2 > m_slots.size())
            grow();
        return id;
    }

private:
    static uint64_t hash(std::span<const uint32_t> stack)
    {
        uint64_t h = 0x9e3779b97f4a7c15ull ^ stack.size();
        for (const uint32_t f : stack) {
            h = (h ^ f) * 0xff51afd7ed558ccdull;
            h ^= h >> 32;
        }
        return h;
    }
    void grow()
    {
        std::vector<uint32_t> table(m_slots.size() * 2, kUnset);
        for (FrameStackId s = 1; s < m_hashes.size(); ++s) {
            size_t i = size_t(m_hashes[s]) & (table.size() - 1);
            while (table[i] != kUnset)
                i = (i + 1) & (table.size() - 1);
            table[i] = s;
        }
        m_slots = std::move(table);
    }

    SnapshotFrames& m_frames;
    std::vector<uint32_t> m_slots;
    std::vector<uint64_t> m_hashes; // by stack id
    size_t m_used = 0;
};

QString kindText(const PickleArena& arena, Id id)
{
    switch (arena.kind(id)) {
    case PickleKind::BigInt:
        // its digits only when short: spelling a long one out is quadratic, and this runs per record
        return arena.node(id).size <= 16 ? QStringLiteral("an int too large for 64 bits (%1)")
                                               .arg(QString::fromStdString(arena.bigIntText(id)))
                                         : QStringLiteral("an int too large for 64 bits");
    case PickleKind::Int:
        return QStringLiteral("an int");
    case PickleKind::None:
        return QStringLiteral("None");
    default:
        return QStringLiteral("a %1").arg(QLatin1StringView(toString(arena.kind(id))));
    }
}

class Builder
{
public:
    Builder(const PickleArena& arena, const QString& name, const std::atomic<bool>* cancel)
        : m_a(arena), m_cancel(cancel), m_nodeMap(arena.valueCount(), kUnset),
          m_data(std::make_shared<SnapshotData>()), m_stacks(m_data->frames)
    {
        m_data->path = name;
        intern({}); // string 0 is ""
    }

    SnapshotBuildOutcome run();

private:
    // ---- values ----
    SnapshotStringId intern(std::string_view text)
    {
        if (const auto it = m_stringIndex.find(text); it != m_stringIndex.end())
            return it->second;
        const SnapshotStringId id = m_data->strings.append(text);
        m_stringIndex.emplace(std::string(text), id);
        return id;
    }
    // the string of a str (or bytes) node, interned once per node
    SnapshotStringId stringOf(Id node)
    {
        uint32_t& mapped = m_nodeMap[node];
        if (mapped == kUnset)
            mapped = intern(m_a.text(node));
        return mapped;
    }
    bool isText(Id node) const
    {
        const PickleKind k = m_a.kind(node);
        return k == PickleKind::Str || k == PickleKind::Bytes;
    }
    // An int field: false, with the first bad field's reason in *bad, when it is no int64.
    bool intField(Id value, const char* key, int64_t* out, QString* bad)
    {
        if (const auto v = m_a.asInt64(value)) {
            *out = *v;
            return true;
        }
        if (bad->isEmpty())
            *bad = QStringLiteral("'%1' is %2, not an int").arg(QLatin1StringView(key), kindText(m_a, value));
        return false;
    }
    bool addressField(Id value, const char* key, uint64_t* out, QString* bad)
    {
        if (const auto v = m_a.asUint64(value)) {
            *out = *v;
            return true;
        }
        if (bad->isEmpty())
            *bad = QStringLiteral("'%1' is %2, not an address")
                       .arg(QLatin1StringView(key), kindText(m_a, value));
        return false;
    }
    bool sizeField(Id value, const char* key, int64_t* out, QString* bad)
    {
        if (!intField(value, key, out, bad))
            return false;
        if (*out >= 0)
            return true;
        if (bad->isEmpty())
            *bad = QStringLiteral("'%1' is negative (%2)").arg(QLatin1StringView(key)).arg(*out);
        return false;
    }
    bool textField(Id value, const char* key, SnapshotStringId* out, QString* bad)
    {
        if (isText(value)) {
            *out = stringOf(value);
            return true;
        }
        if (m_a.kind(value) == PickleKind::None) {
            *out = 0;
            return true;
        }
        if (bad->isEmpty())
            *bad = QStringLiteral("'%1' is %2, not a str").arg(QLatin1StringView(key), kindText(m_a, value));
        return false;
    }

    // A key this reader does not know: named once in ignoredKeys (at most kMaxIgnoredKeys names:
    // a hostile file may hold millions of distinct ones), each key node looked at once (while
    // fewer than 65 536 were: past that its name is compared).
    void ignoreKey(const char* where, Id key)
    {
        if (m_data->ignoredKeys.size() >= kMaxIgnoredKeys)
            return;
        if (m_ignoredKeyNodes.size() < 65536 && !m_ignoredKeyNodes.insert(key).second)
            return;
        const QString name = m_a.isStr(key)
                                 ? QString::fromUtf8(m_a.text(key).data(), qsizetype(m_a.text(key).size()))
                                 : QString::fromStdString(m_a.reprText(key, 60));
        const QString path = where[0] ? QStringLiteral("%1.%2").arg(QLatin1StringView(where), name) : name;
        if (!m_data->ignoredKeys.contains(path))
            m_data->ignoredKeys << path;
    }
    void problem(qint64 index, const QString& reason)
    {
        m_data->problems.addError(m_data->path, 0, reason, index);
    }

    // ---- frames ----
    // The frame of a frame dict, once per node, then by content.
    std::optional<uint32_t> frameOf(Id node, QString* bad)
    {
        // the kind first: the node map also holds the stack ids of lists (a list given as a frame)
        if (m_a.kind(node) != PickleKind::Dict) {
            *bad = QStringLiteral("a frame is %1, not a dict").arg(kindText(m_a, node));
            return std::nullopt;
        }
        if (m_nodeMap[node] != kUnset)
            return m_nodeMap[node];
        SnapshotFrame frame;
        const std::span<const Id> items = m_a.items(node);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_frameKeys(m_a, items[i])) {
            case FrameKey::Name:
                if (!textField(value, "name", &frame.name, bad))
                    return std::nullopt;
                break;
            case FrameKey::Filename:
                if (!textField(value, "filename", &frame.filename, bad))
                    return std::nullopt;
                break;
            case FrameKey::Line:
                if (!intField(value, "line", &frame.line, bad))
                    return std::nullopt;
                break;
            case FrameKey::Other:
                ignoreKey("frames[]", items[i]);
                break;
            }
        }
        const auto [it, inserted] = m_frameIndex.try_emplace(frame, uint32_t(m_data->frames.frames.size()));
        if (inserted)
            m_data->frames.frames.push_back(frame);
        m_nodeMap[node] = it->second;
        return it->second;
    }
    // The stack of a frames list, once per node, then by content. None or a missing key: no frames.
    bool stackOf(Id node, FrameStackId* out, QString* bad)
    {
        const PickleKind k = m_a.kind(node);
        if (k == PickleKind::None) {
            *out = 0;
            return true;
        }
        if (k != PickleKind::List && k != PickleKind::Tuple) {
            if (bad->isEmpty())
                *bad = QStringLiteral("'frames' is %1, not a list").arg(kindText(m_a, node));
            return false;
        }
        if (m_nodeMap[node] != kUnset) {
            *out = m_nodeMap[node];
            return true;
        }
        m_scratch.clear();
        for (const Id item : m_a.items(node)) {
            QString why;
            if (const auto frame = frameOf(item, &why)) {
                m_scratch.push_back(*frame);
            } else {
                if (bad->isEmpty())
                    *bad = QStringLiteral("'frames': %1").arg(why);
                return false;
            }
        }
        *out = m_stacks.intern(m_scratch);
        m_nodeMap[node] = *out;
        return true;
    }

    void readSegments(Id list, const char* where);
    void readBlocks(Id list, size_t fileIndex, size_t keptIndex, SnapshotSegment& segment);
    bool readTraces(Id list);
    bool readTrace(Id list, SnapshotTrace& trace, size_t device);
    void readSettings(Id dict);
    static constexpr qsizetype kMaxIgnoredKeys = 256;
    static constexpr size_t kMaxSettings = 1024; // PyTorch 2.11 writes 9
    void readAnnotations(Id list);

    const PickleArena& m_a;
    const std::atomic<bool>* m_cancel;
    std::vector<uint32_t>
        m_nodeMap; // node -> string id (str), frame index (frame dict), stack id (frames list)
    std::shared_ptr<SnapshotData> m_data;
    StackTable m_stacks;
    std::unordered_map<std::string, SnapshotStringId, TextHash, std::equal_to<>> m_stringIndex;
    std::unordered_map<SnapshotFrame, uint32_t, FrameHash> m_frameIndex;
    std::set<Id> m_ignoredKeyNodes;
    std::vector<uint32_t> m_scratch;
    KeyCache<TopKey> m_topKeys{topKey, TopKey::Other};
    KeyCache<SegmentKey> m_segmentKeys{segmentKey, SegmentKey::Other};
    KeyCache<BlockKey> m_blockKeys{blockKey, BlockKey::Other};
    KeyCache<EntryKey> m_entryKeys{entryKey, EntryKey::Other};
    KeyCache<FrameKey> m_frameKeys{frameKey, FrameKey::Other};
    KeyCache<AnnotationKey> m_annotationKeys{annotationKey, AnnotationKey::Other};
    KeyCache<TraceAction> m_actions{traceActionFromName, TraceAction::Unknown};
};

void Builder::readSegments(Id list, const char* where)
{
    if (m_a.kind(list) != PickleKind::List && m_a.kind(list) != PickleKind::Tuple) {
        problem(-1, QStringLiteral("'%1' is %2, not a list: no segments read")
                        .arg(QLatin1StringView(where), kindText(m_a, list)));
        return;
    }
    const std::span<const Id> segments = m_a.items(list);
    m_data->segments.reserve(segments.size());
    for (size_t index = 0; index < segments.size(); ++index) {
        const Id node = segments[index];
        const auto reject = [&](const QString& why) {
            problem(qint64(index), QStringLiteral("%1[%2]: %3, segment left out")
                                       .arg(QLatin1StringView(where))
                                       .arg(index)
                                       .arg(why));
        };
        if (m_a.kind(node) != PickleKind::Dict) {
            reject(QStringLiteral("%1, not a dict").arg(kindText(m_a, node)));
            continue;
        }
        SnapshotSegment segment;
        bool address = false, total = false;
        std::optional<Id> blocks;
        QString bad;
        const std::span<const Id> items = m_a.items(node);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_segmentKeys(m_a, items[i])) {
            case SegmentKey::Device:
                intField(value, "device", &segment.device, &bad);
                break;
            case SegmentKey::Address:
                address = addressField(value, "address", &segment.address, &bad);
                break;
            case SegmentKey::TotalSize:
                total = sizeField(value, "total_size", &segment.totalSize, &bad);
                break;
            case SegmentKey::AllocatedSize:
                sizeField(value, "allocated_size", &segment.allocatedSize, &bad);
                break;
            case SegmentKey::ActiveSize:
                sizeField(value, "active_size", &segment.activeSize, &bad);
                break;
            case SegmentKey::RequestedSize:
                sizeField(value, "requested_size", &segment.requestedSize, &bad);
                break;
            case SegmentKey::Stream:
                intField(value, "stream", &segment.stream, &bad);
                break;
            case SegmentKey::SegmentType:
                if (textField(value, "segment_type", &segment.typeName, &bad)) {
                    const std::string_view type = m_data->strings.view(segment.typeName);
                    segment.type = type == "large"   ? SegmentType::Large
                                   : type == "small" ? SegmentType::Small
                                                     : SegmentType::Unknown;
                }
                break;
            case SegmentKey::SegmentPoolId: {
                const std::span<const Id> pool = m_a.items(value);
                const auto first = pool.size() == 2 ? m_a.asInt64(pool[0]) : std::nullopt;
                const auto second = pool.size() == 2 ? m_a.asInt64(pool[1]) : std::nullopt;
                if (first && second)
                    segment.pool = {*first, *second};
                else if (bad.isEmpty())
                    bad = QStringLiteral("'segment_pool_id' is %1, not a pair of ints")
                              .arg(kindText(m_a, value));
                break;
            }
            case SegmentKey::IsExpandable: {
                const auto v = m_a.asInt64(value);
                if (v)
                    segment.isExpandable = *v != 0;
                else if (bad.isEmpty())
                    bad = QStringLiteral("'is_expandable' is %1, not a bool").arg(kindText(m_a, value));
                break;
            }
            case SegmentKey::Frames:
                stackOf(value, &segment.frames, &bad);
                break;
            case SegmentKey::Blocks:
                blocks = value;
                break;
            case SegmentKey::Other:
                ignoreKey("segments[]", items[i]);
                break;
            }
        }
        if (!bad.isEmpty() || !address || !total) {
            reject(!bad.isEmpty() ? bad
                                  : QStringLiteral("no '%1'").arg(!address ? QStringLiteral("address")
                                                                           : QStringLiteral("total_size")));
            continue;
        }
        segment.firstBlock = uint32_t(m_data->blocks.size());
        if (blocks)
            readBlocks(*blocks, index, m_data->segments.size(), segment);
        segment.blockCount = uint32_t(m_data->blocks.size() - segment.firstBlock);
        m_data->segments.push_back(segment);
    }
}

void Builder::readBlocks(Id list, size_t fileIndex, size_t keptIndex, SnapshotSegment& segment)
{
    const size_t written = fileIndex; // messages name the segment by its place in the file
    if (m_a.kind(list) != PickleKind::List && m_a.kind(list) != PickleKind::Tuple) {
        problem(qint64(written), QStringLiteral("segments[%1]: 'blocks' is %2, not a list: no blocks read")
                                     .arg(written)
                                     .arg(kindText(m_a, list)));
        return;
    }
    uint64_t next = segment.address; // before 2.1 blocks had no address: they follow each other
    const std::span<const Id> blocks = m_a.items(list);
    for (size_t index = 0; index < blocks.size(); ++index) {
        const Id node = blocks[index];
        const auto reject = [&](const QString& why) {
            problem(qint64(index), QStringLiteral("segments[%1].blocks[%2]: %3, block left out")
                                       .arg(written)
                                       .arg(index)
                                       .arg(why));
        };
        if (m_a.kind(node) != PickleKind::Dict) {
            reject(QStringLiteral("%1, not a dict").arg(kindText(m_a, node)));
            continue;
        }
        SnapshotBlock block;
        block.segment = uint32_t(keptIndex);
        bool address = false, size = false, state = false, requested = false;
        std::optional<Id> history;
        QString bad;
        const std::span<const Id> items = m_a.items(node);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_blockKeys(m_a, items[i])) {
            case BlockKey::Address:
                address = addressField(value, "address", &block.address, &bad);
                break;
            case BlockKey::Size:
                size = sizeField(value, "size", &block.size, &bad);
                break;
            case BlockKey::RequestedSize:
                requested = sizeField(value, "requested_size", &block.requestedSize, &bad);
                break;
            case BlockKey::State:
                if (textField(value, "state", &block.stateName, &bad)) {
                    state = true;
                    const std::string_view text = m_data->strings.view(block.stateName);
                    block.state = text == "active_allocated"      ? BlockState::ActiveAllocated
                                  : text == "active_pending_free" ? BlockState::ActivePendingFree
                                  : text == "inactive"            ? BlockState::Inactive
                                                                  : BlockState::Unknown;
                }
                break;
            case BlockKey::Frames:
                stackOf(value, &block.frames, &bad);
                break;
            case BlockKey::History:
                history = value;
                break;
            case BlockKey::Other:
                ignoreKey("segments[].blocks[]", items[i]);
                break;
            }
        }
        // the layout before 2.1: history = [{'addr', 'real_size', 'frames'}, ...], newest first
        if (history && bad.isEmpty()) {
            const std::span<const Id> entries = m_a.items(*history);
            if (!entries.empty() && m_a.kind(entries[0]) == PickleKind::Dict) {
                const Id latest = entries[0];
                if (const auto addr = m_a.dictGet(latest, "addr"); addr && !address)
                    address = addressField(*addr, "addr", &block.address, &bad);
                if (const auto real = m_a.dictGet(latest, "real_size"); real && !requested)
                    requested = sizeField(*real, "real_size", &block.requestedSize, &bad);
                if (const auto frames = m_a.dictGet(latest, "frames"); frames && block.frames == 0)
                    stackOf(*frames, &block.frames, &bad);
            } else if (m_a.kind(*history) != PickleKind::List && bad.isEmpty()) {
                bad = QStringLiteral("'history' is %1, not a list").arg(kindText(m_a, *history));
            }
        }
        if (!bad.isEmpty() || !size || !state) {
            reject(!bad.isEmpty()
                       ? bad
                       : QStringLiteral("no '%1'").arg(QLatin1StringView(!size ? "size" : "state")));
            continue;
        }
        if (!address)
            block.address = next;
        if (!requested)
            block.requestedSize = block.size;
        next = block.address + uint64_t(block.size);
        m_data->blocks.push_back(block);
    }
}

bool Builder::readTraces(Id list)
{
    if (m_a.kind(list) != PickleKind::List && m_a.kind(list) != PickleKind::Tuple) {
        problem(-1,
                QStringLiteral("'device_traces' is %1, not a list: no trace read").arg(kindText(m_a, list)));
        return true;
    }
    const std::span<const Id> devices = m_a.items(list);
    m_data->traces.resize(devices.size());
    for (size_t device = 0; device < devices.size(); ++device) {
        SnapshotTrace& trace = m_data->traces[device];
        trace.device = int64_t(device);
        if (!readTrace(devices[device], trace, device))
            return false;
    }
    return true;
}

bool Builder::readTrace(Id list, SnapshotTrace& trace, size_t device)
{
    if (m_a.kind(list) == PickleKind::None)
        return true;
    if (m_a.kind(list) != PickleKind::List && m_a.kind(list) != PickleKind::Tuple) {
        problem(qint64(device), QStringLiteral("device_traces[%1] is %2, not a list: its trace is not read")
                                    .arg(device)
                                    .arg(kindText(m_a, list)));
        return true;
    }
    const std::span<const Id> entries = m_a.items(list);
    const size_t n = entries.size();
    trace.actions.reserve(n);
    trace.addresses.reserve(n);
    trace.sizes.reserve(n);
    trace.streams.reserve(n);
    trace.timesUs.reserve(n);
    trace.frameStacks.reserve(n);
    trace.compileContexts.reserve(n);
    trace.userMetadata.reserve(n);
    for (size_t index = 0; index < n; ++index) {
        if ((index & 0xffff) == 0 && m_cancel && m_cancel->load(std::memory_order_relaxed))
            return false;
        const Id node = entries[index];
        if (m_a.kind(node) != PickleKind::Dict) {
            problem(qint64(index), QStringLiteral("device_traces[%1][%2]: %3, not a dict, entry left out")
                                       .arg(device)
                                       .arg(index)
                                       .arg(kindText(m_a, node)));
            continue;
        }
        TraceAction action = TraceAction::Unknown;
        bool haveAction = false;
        SnapshotStringId actionName = 0;
        uint64_t address = 0;
        int64_t size = 0, stream = 0, time = SnapshotTrace::kNoTime;
        std::optional<int64_t> deviceFree;
        FrameStackId frames = 0;
        SnapshotStringId compileContext = 0, userMetadata = 0;
        QString bad;
        const std::span<const Id> items = m_a.items(node);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_entryKeys(m_a, items[i])) {
            case EntryKey::Action:
                if (m_a.isStr(value)) {
                    action = m_actions(m_a, value);
                    haveAction = true;
                    if (action == TraceAction::Unknown)
                        actionName = stringOf(value);
                } else if (bad.isEmpty()) {
                    bad = QStringLiteral("'action' is %1, not a str").arg(kindText(m_a, value));
                }
                break;
            case EntryKey::Addr:
                addressField(value, "addr", &address, &bad);
                break;
            case EntryKey::Size:
                sizeField(value, "size", &size, &bad);
                break;
            case EntryKey::Stream:
                intField(value, "stream", &stream, &bad);
                break;
            case EntryKey::TimeUs:
                intField(value, "time_us", &time, &bad);
                break;
            case EntryKey::Frames:
                stackOf(value, &frames, &bad);
                break;
            case EntryKey::DeviceFree: {
                int64_t free = 0;
                if (intField(value, "device_free", &free, &bad))
                    deviceFree = free;
                break;
            }
            case EntryKey::CompileContext:
                textField(value, "compile_context", &compileContext, &bad);
                break;
            case EntryKey::UserMetadata:
                textField(value, "user_metadata", &userMetadata, &bad);
                break;
            case EntryKey::Other:
                ignoreKey("device_traces[][]", items[i]);
                break;
            }
        }
        if (!bad.isEmpty() || !haveAction) {
            problem(qint64(index), QStringLiteral("device_traces[%1][%2]: %3, entry left out")
                                       .arg(device)
                                       .arg(index)
                                       .arg(bad.isEmpty() ? QStringLiteral("no 'action'") : bad));
            continue;
        }
        const auto row = uint32_t(trace.actions.size());
        trace.actions.push_back(action);
        trace.addresses.push_back(address);
        trace.sizes.push_back(size);
        trace.streams.push_back(stream);
        trace.timesUs.push_back(time);
        trace.frameStacks.push_back(frames);
        trace.compileContexts.push_back(compileContext);
        trace.userMetadata.push_back(userMetadata);
        if (deviceFree)
            trace.deviceFree.emplace_back(row, *deviceFree);
        if (action == TraceAction::Unknown)
            trace.unknownActions.emplace_back(row, actionName);
    }
    if (trace.actions.size() < n) { // entries left out: give back their room
        trace.actions.shrink_to_fit();
        trace.addresses.shrink_to_fit();
        trace.sizes.shrink_to_fit();
        trace.streams.shrink_to_fit();
        trace.timesUs.shrink_to_fit();
        trace.frameStacks.shrink_to_fit();
        trace.compileContexts.shrink_to_fit();
        trace.userMetadata.shrink_to_fit();
    }
    return true;
}

void Builder::readSettings(Id dict)
{
    if (m_a.kind(dict) != PickleKind::Dict) {
        problem(-1,
                QStringLiteral("'allocator_settings' is %1, not a dict: not read").arg(kindText(m_a, dict)));
        return;
    }
    const std::span<const Id> items = m_a.items(dict);
    if (items.size() / 2 > kMaxSettings)
        problem(-1, QStringLiteral("allocator_settings: %1 settings, the first %2 read")
                        .arg(items.size() / 2)
                        .arg(kMaxSettings));
    for (size_t i = 0; i + 1 < std::min(items.size(), 2 * kMaxSettings); i += 2) {
        const auto text = [&](Id id) {
            return m_a.isStr(id) ? QString::fromUtf8(m_a.text(id).data(), qsizetype(m_a.text(id).size()))
                                 : QString::fromStdString(m_a.reprText(id, 4096));
        };
        m_data->allocatorSettings.push_back({text(items[i]), text(items[i + 1])});
    }
}

void Builder::readAnnotations(Id list)
{
    if (m_a.kind(list) != PickleKind::List && m_a.kind(list) != PickleKind::Tuple) {
        problem(
            -1,
            QStringLiteral("'external_annotations' is %1, not a list: not read").arg(kindText(m_a, list)));
        return;
    }
    const std::span<const Id> annotations = m_a.items(list);
    for (size_t index = 0; index < annotations.size(); ++index) {
        const Id node = annotations[index];
        if (m_a.kind(node) != PickleKind::Dict) {
            problem(qint64(index), QStringLiteral("external_annotations[%1]: %2, not a dict, left out")
                                       .arg(index)
                                       .arg(kindText(m_a, node)));
            continue;
        }
        SnapshotAnnotation annotation;
        QString bad;
        const std::span<const Id> items = m_a.items(node);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_annotationKeys(m_a, items[i])) {
            case AnnotationKey::Stage:
                textField(value, "stage", &annotation.stage, &bad);
                break;
            case AnnotationKey::Name:
                textField(value, "name", &annotation.name, &bad);
                break;
            case AnnotationKey::Device:
                intField(value, "device", &annotation.device, &bad);
                break;
            case AnnotationKey::TimeUs:
                intField(value, "time_us", &annotation.timeUs, &bad);
                break;
            case AnnotationKey::Other:
                ignoreKey("external_annotations[]", items[i]);
                break;
            }
        }
        if (!bad.isEmpty()) {
            problem(qint64(index),
                    QStringLiteral("external_annotations[%1]: %2, left out").arg(index).arg(bad));
            continue;
        }
        m_data->annotations.push_back(annotation);
    }
}

SnapshotBuildOutcome Builder::run()
{
    SnapshotBuildOutcome outcome;
    const Id root = m_a.root();
    const std::span<const Id> rootItems = m_a.items(root);
    if (m_a.kind(root) == PickleKind::List && !rootItems.empty() &&
        m_a.kind(rootItems[0]) == PickleKind::Dict && m_a.dictGet(rootItems[0], "total_size")) {
        // PyTorch 1.13's torch.cuda.memory_snapshot(): the segments alone
        readSegments(root, "segments");
    } else if (m_a.kind(root) == PickleKind::Dict) {
        if (!m_a.dictGet(root, "segments") && !m_a.dictGet(root, "device_traces")) {
            QStringList keys;
            const std::span<const Id> items = m_a.items(root);
            for (size_t i = 0; i + 1 < items.size() && keys.size() < 8; i += 2)
                keys << QString::fromStdString(m_a.reprText(items[i], 40));
            outcome.fatalError =
                QStringLiteral(
                    "a pickled dict without 'segments' or 'device_traces' (keys: %1): not a PyTorch "
                    "memory snapshot")
                    .arg(keys.isEmpty() ? QStringLiteral("none") : keys.join(QStringLiteral(", ")));
            return outcome;
        }
        const std::span<const Id> items = m_a.items(root);
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const Id value = items[i + 1];
            switch (m_topKeys(m_a, items[i])) {
            case TopKey::Segments:
                readSegments(value, "segments");
                break;
            case TopKey::DeviceTraces:
                if (!readTraces(value)) {
                    outcome.cancelled = true;
                    return outcome;
                }
                break;
            case TopKey::AllocatorSettings:
                readSettings(value);
                break;
            case TopKey::ExternalAnnotations:
                readAnnotations(value);
                break;
            case TopKey::Other:
                ignoreKey("", items[i]);
                break;
            }
        }
    } else {
        outcome.fatalError =
            QStringLiteral("a pickle of %1, not of a snapshot's dict (nor of a list of segments): "
                           "not a PyTorch memory snapshot")
                .arg(kindText(m_a, root));
        return outcome;
    }
    m_data->strings.shrink();
    m_data->frames.frames.shrink_to_fit();
    m_data->frames.stackFrames.shrink_to_fit();
    m_data->frames.stackStarts.shrink_to_fit();
    m_data->segments.shrink_to_fit();
    m_data->blocks.shrink_to_fit();
    outcome.data = std::move(m_data);
    return outcome;
}

} // namespace

SnapshotBuildOutcome buildSnapshot(const PickleArena& arena, const QString& name,
                                   const std::atomic<bool>* cancel)
{
    Builder builder(arena, name, cancel);
    return builder.run();
}

} // namespace gapscope
