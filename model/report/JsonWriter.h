#pragma once
// A small streaming JSON writer whose numbers read like Python's json module writes them
// (floats in repr form, "1.0" not "1"), so our reports diff cleanly against upstream's.

#include <QByteArray>
#include <QString>
#include <QStringEncoder>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gapscope {

// Python repr() of a float: shortest round-trip digits, ".0" on integral values, exponent
// form outside 1e-4 <= |x| < 1e16; NaN/Infinity as Python's json writes them.
QByteArray pythonFloatRepr(double value);

class JsonWriter
{
public:
    explicit JsonWriter(int indent = 2) : m_indent(indent) { m_stack.reserve(8); }

    JsonWriter& beginObject();
    JsonWriter& endObject();
    JsonWriter& beginArray();
    JsonWriter& endArray();
    JsonWriter& key(std::string_view name);

    JsonWriter& value(std::string_view s);
    JsonWriter& value(const QString& s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(int64_t v);
    JsonWriter& value(int v) { return value(int64_t(v)); }
    JsonWriter& value(uint64_t v);
    JsonWriter& value(double v);
    JsonWriter& value(bool v);
    JsonWriter& null();
    // A number given as already-formatted text (e.g. an integral evidence count).
    JsonWriter& rawNumber(const QByteArray& text);

    template <typename T> JsonWriter& field(std::string_view name, const T& v) { return key(name).value(v); }
    JsonWriter& nullField(std::string_view name) { return key(name).null(); }
    // The value, or null when there is none: a field every report writes whether or not its
    // side, rank or phase has the value, so a reader finds the key either way.
    template <typename T> JsonWriter& optionalField(std::string_view name, const std::optional<T>& v)
    {
        return v ? field(name, *v) : nullField(name);
    }

    const QByteArray& data() const { return m_out; }
    QByteArray take();

private:
    void beforeValue();
    void newline();
    void writeString(std::string_view s);
    template <typename Integer> void appendNumber(Integer v)
    {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
        m_out.append(digits, qsizetype(end - digits));
    }

    struct Level
    {
        bool isObject = false;
        bool empty = true;
    };
    QByteArray m_out;
    std::vector<Level> m_stack;
    bool m_afterKey = false;
    int m_indent;
    QStringEncoder m_utf8{QStringEncoder::Utf8, QStringConverter::Flag::Stateless};
};

} // namespace gapscope
