#include "model/trace/DiagnoseTimeline.h"

#include "model/read/JsonParserPool.h"

#include <cmath>
#include <optional>

namespace gapscope::detail {

namespace od = simdjson::ondemand;

void parseDiagnoseTimeline(const simdjson::padded_string& buffer, const QString& file, EventChunk& chunk)
{
    // One value of a series: integers as they are, floats (seconds, or bytes written as
    // floats by Python) rounded; anything else is reported.
    struct Series
    {
        std::vector<std::optional<double>> values;
        bool present = false;
    };
    Series timestamps, allocated, reserved;
    PooledJsonParser json;
    od::document doc;
    od::object root;
    simdjson::error_code error = json->iterate(buffer).get(doc);
    if (!error)
        error = doc.get_object().get(root);
    if (error) {
        chunk.problems.addError(file, 1, invalidJsonMessage(error));
        return;
    }
    for (auto fieldResult : root) {
        od::field field;
        std::string_view key;
        if (std::move(fieldResult).get(field) || field.unescaped_key().get(key)) {
            chunk.problems.addError(file, 1, QStringLiteral("invalid JSON in the timeline object"));
            return;
        }
        Series* series = key == "timestamps"  ? &timestamps
                         : key == "allocated" ? &allocated
                         : key == "reserved"  ? &reserved
                                              : nullptr;
        if (!series) {
            chunk.problems.addWarning(
                file, 1,
                QStringLiteral("unknown key '%1' ignored")
                    .arg(QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()))));
            continue;
        }
        od::array array;
        if (field.value().get_array().get(array)) {
            chunk.problems.addError(
                file, 1,
                QStringLiteral("'%1' is not an array")
                    .arg(QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()))));
            return;
        }
        series->present = true;
        for (auto elementResult : array) {
            od::value element;
            double number = 0;
            if (std::move(elementResult).get(element)) {
                chunk.problems.addError(file, 1, QStringLiteral("invalid JSON in the timeline arrays"));
                return;
            }
            od::number_type type;
            int64_t integer = 0;
            if (element.get_number_type().get(type) == simdjson::SUCCESS &&
                type != od::number_type::floating_point_number &&
                element.get_int64().get(integer) == simdjson::SUCCESS)
                series->values.emplace_back(static_cast<double>(integer));
            else if (element.get_double().get(number) == simdjson::SUCCESS && std::isfinite(number))
                series->values.emplace_back(number);
            else
                series->values.emplace_back(std::nullopt);
        }
    }
    if (!timestamps.present || !allocated.present) {
        chunk.problems.addError(file, 1,
                                QStringLiteral("a timeline needs 'timestamps' and 'allocated' arrays"));
        return;
    }
    size_t count = std::min(timestamps.values.size(), allocated.values.size());
    if (reserved.present)
        count = std::min(count, reserved.values.size());
    if (timestamps.values.size() != allocated.values.size() ||
        (reserved.present && reserved.values.size() != timestamps.values.size()))
        chunk.problems.addWarning(
            file, 1,
            QStringLiteral("timeline arrays differ in length; the first %1 entries are used").arg(count));

    EventSource source;
    source.collector = chunk.store.strings.intern("diagnose.timeline");
    const uint32_t sourceIndex = chunk.addSource(source);
    const uint32_t sampleName = chunk.store.strings.intern("sample");
    EventStore& store = chunk.store;
    for (size_t i = 0; i < count; ++i) {
        ++chunk.recordsRead;
        const auto index = static_cast<qint64>(i);
        const std::optional<double> seconds = timestamps.values[i];
        const std::optional<double> alloc = allocated.values[i];
        const std::optional<double> reserve = reserved.present ? reserved.values[i] : alloc;
        if (!seconds || !alloc || !reserve) {
            chunk.problems.addError(file, 1, QStringLiteral("timeline entry is not a number"), index);
            continue;
        }
        if (*seconds < 0 || *seconds > 9.2e9 || *alloc < 0 || *reserve < 0 || *alloc > 9.2e18 ||
            *reserve > 9.2e18) {
            chunk.problems.addError(file, 1, QStringLiteral("timeline entry out of range"), index);
            continue;
        }
        const int64_t allocatedBytes = std::llround(*alloc);
        store.timestampNs.push_back(std::llround(*seconds * 1e9));
        store.allocated.push_back(allocatedBytes);
        store.reserved.push_back(std::llround(*reserve));
        store.active.push_back(kNullInt);
        store.inactive.push_back(kNullInt);
        store.change.push_back(0);
        store.used.push_back(allocatedBytes); // as for legacy records: no device counter
        store.free.push_back(kNullInt);
        store.total.push_back(kNullInt);
        store.type.push_back(EventType::Sample);
        store.typeName.push_back(sampleName);
        store.source.push_back(sourceIndex);
        store.context.push_back(0);
        store.metadata.push_back(0);
    }
}

} // namespace gapscope::detail
