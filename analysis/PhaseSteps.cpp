#include "analysis/PhaseSteps.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

namespace gapscope {
namespace {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void skipSpace(std::string_view text, size_t& i)
{
    while (i < text.size() && isSpace(text[i]))
        ++i;
}

// A JSON string starting at text[i] == '"': its raw contents (escapes left as written) and i
// past the closing quote. None when it is not closed.
std::optional<std::string_view> readString(std::string_view text, size_t& i)
{
    const size_t begin = ++i;
    for (; i < text.size(); ++i) {
        if (text[i] == '\\')
            ++i;
        else if (text[i] == '"')
            return text.substr(begin, i++ - begin);
    }
    return std::nullopt;
}

// Moves i past one value (string, number, literal, array or object); false on malformed text.
bool skipValue(std::string_view text, size_t& i)
{
    if (i >= text.size())
        return false;
    if (text[i] == '"')
        return readString(text, i).has_value();
    if (text[i] == '{' || text[i] == '[') {
        int depth = 0;
        for (; i < text.size(); ++i) {
            const char c = text[i];
            if (c == '"') {
                if (!readString(text, i))
                    return false;
                --i;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                ++i;
                return true;
            }
        }
        return false;
    }
    while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && !isSpace(text[i]))
        ++i;
    return true;
}

} // namespace

std::optional<int64_t> integerAttribute(std::string_view json, std::string_view key)
{
    size_t i = 0;
    skipSpace(json, i);
    if (i >= json.size() || json[i] != '{')
        return std::nullopt;
    ++i;
    while (true) {
        skipSpace(json, i);
        if (i >= json.size() || json[i] != '"')
            return std::nullopt; // '}' of an empty or finished object, or malformed
        const std::optional<std::string_view> name = readString(json, i);
        skipSpace(json, i);
        if (!name || i >= json.size() || json[i] != ':')
            return std::nullopt;
        ++i;
        skipSpace(json, i);
        const size_t valueBegin = i;
        if (!skipValue(json, i))
            return std::nullopt;
        if (*name == key) {
            const std::string_view token = json.substr(valueBegin, i - valueBegin);
            int64_t value = 0;
            const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
            if (error != std::errc() || end != token.data() + token.size())
                return std::nullopt; // a fraction, an exponent, a string: not a step number
            return value;
        }
        skipSpace(json, i);
        if (i >= json.size() || json[i] != ',')
            return std::nullopt;
        ++i;
    }
}

StepIndex::StepIndex(const std::vector<PhaseSpan>& spans)
{
    // (epoch, step) -> merged interval; a map keyed by the pair keeps equal steps of different
    // epochs apart
    std::map<std::pair<std::optional<int64_t>, int64_t>, TrainingStep> merged;
    for (const PhaseSpan& span : spans) {
        if (span.attributesJson.empty())
            continue;
        const std::optional<int64_t> step = integerAttribute(span.attributesJson, "step");
        if (!step)
            continue;
        const std::optional<int64_t> epoch = integerAttribute(span.attributesJson, "epoch");
        auto [it, added] =
            merged.try_emplace({epoch, *step}, TrainingStep{epoch, *step, span.startNs, span.endNs});
        if (!added) {
            it->second.startNs = std::min(it->second.startNs, span.startNs);
            it->second.endNs = std::max(it->second.endNs, span.endNs);
        }
    }
    m_steps.reserve(merged.size());
    for (auto& entry : merged)
        m_steps.push_back(entry.second);
    std::sort(m_steps.begin(), m_steps.end(), [](const TrainingStep& a, const TrainingStep& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.step < b.step;
    });
    // The epoch is named where the step number restarts with it (torchrun's reference example);
    // a step count that runs on across epochs names a step alone.
    for (size_t k = 1; k < m_steps.size() && !m_namesEpochs; ++k)
        m_namesEpochs = m_steps[k].epoch != m_steps[k - 1].epoch && m_steps[k].step <= m_steps[k - 1].step;
    if (m_steps.size() >= 2) {
        std::vector<int64_t> distances;
        distances.reserve(m_steps.size() - 1);
        for (size_t k = 1; k < m_steps.size(); ++k)
            distances.push_back(m_steps[k].startNs - m_steps[k - 1].startNs);
        std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
        m_typicalLengthNs = distances[distances.size() / 2];
    } else if (m_steps.size() == 1) {
        m_typicalLengthNs = m_steps.front().endNs - m_steps.front().startNs;
    }
}

std::optional<size_t> StepIndex::indexAt(int64_t timestampNs) const
{
    auto after = std::upper_bound(m_steps.begin(), m_steps.end(), timestampNs,
                                  [](int64_t ts, const TrainingStep& s) { return ts < s.startNs; });
    if (after == m_steps.begin())
        return std::nullopt;
    const size_t index = size_t(after - m_steps.begin()) - 1;
    const TrainingStep& step = m_steps[index];
    if (timestampNs > step.endNs && index + 1 == m_steps.size() &&
        timestampNs - step.endNs > m_typicalLengthNs)
        return std::nullopt;
    return index;
}

const TrainingStep* StepIndex::stepAt(int64_t timestampNs) const
{
    const std::optional<size_t> index = indexAt(timestampNs);
    return index ? &m_steps[*index] : nullptr;
}

size_t StepIndex::stepsBetween(int64_t startNs, int64_t endNs) const
{
    if (endNs < startNs)
        return 0;
    const auto byStart = [](const TrainingStep& s, int64_t ts) { return s.startNs < ts; };
    const auto first = std::lower_bound(m_steps.begin(), m_steps.end(), startNs, byStart);
    const auto last = std::upper_bound(m_steps.begin(), m_steps.end(), endNs,
                                       [](int64_t ts, const TrainingStep& s) { return ts < s.startNs; });
    return last > first ? size_t(last - first) : 0;
}

StepRef StepIndex::refOf(const TrainingStep& step) const
{
    return StepRef{m_namesEpochs ? step.epoch : std::nullopt, step.step};
}

std::optional<StepRef> StepIndex::refAt(int64_t timestampNs) const
{
    if (const TrainingStep* step = stepAt(timestampNs))
        return refOf(*step);
    return std::nullopt;
}

std::string stepLabel(const StepRef& step)
{
    std::string text;
    if (step.epoch)
        text = "epoch " + std::to_string(*step.epoch) + ", ";
    return text + "step " + std::to_string(step.step);
}

std::string stepRangeLabel(const StepRef& first, const StepRef& last)
{
    if (first == last)
        return stepLabel(first);
    if (first.epoch != last.epoch)
        return "from " + stepLabel(first) + " to " + stepLabel(last);
    std::string text;
    if (first.epoch)
        text = "epoch " + std::to_string(*first.epoch) + ", ";
    return text + "steps " + std::to_string(first.step) + "-" + std::to_string(last.step);
}

std::optional<std::pair<size_t, size_t>> StepIndex::indicesUnder(int64_t startNs, int64_t endNs) const
{
    std::optional<size_t> first = indexAt(startNs);
    std::optional<size_t> last = indexAt(endNs);
    // the first step to begin at or after the start, and the last to begin by the end
    const size_t beginning =
        size_t(std::lower_bound(m_steps.begin(), m_steps.end(), startNs,
                                [](const TrainingStep& s, int64_t ts) { return s.startNs < ts; }) -
               m_steps.begin());
    const size_t begun =
        size_t(std::upper_bound(m_steps.begin(), m_steps.end(), endNs,
                                [](int64_t ts, const TrainingStep& s) { return ts < s.startNs; }) -
               m_steps.begin());
    if (!first && !last && (beginning >= begun || endNs < startNs))
        return std::nullopt; // no step under the range: it lies before, after or between them
    if (!first)
        first = beginning;
    if (!last)
        last = begun - 1; // the range runs past the last step's end
    return std::pair{*first, *last};
}

std::optional<std::pair<size_t, size_t>> StepIndex::indicesWithin(int64_t startNs, int64_t endNs) const
{
    if (endNs < startNs)
        return std::nullopt;
    // the first step to begin after startNs, or the one before it when it holds startNs
    size_t first = size_t(std::upper_bound(m_steps.begin(), m_steps.end(), startNs,
                                           [](int64_t ts, const TrainingStep& s) { return ts < s.startNs; }) -
                          m_steps.begin());
    if (first > 0 && m_steps[first - 1].endNs >= startNs)
        --first;
    const size_t begun =
        size_t(std::upper_bound(m_steps.begin(), m_steps.end(), endNs,
                                [](int64_t ts, const TrainingStep& s) { return ts < s.startNs; }) -
               m_steps.begin());
    if (first >= begun)
        return std::nullopt;
    return std::pair{first, begun - 1};
}

std::string StepIndex::rangeLabelWithin(int64_t startNs, int64_t endNs) const
{
    const std::optional<std::pair<size_t, size_t>> within = indicesWithin(startNs, endNs);
    return within ? rangeLabel(m_steps[within->first], m_steps[within->second]) : std::string();
}

std::string StepIndex::label(const TrainingStep& step) const
{
    return stepLabel(refOf(step));
}

std::string StepIndex::rangeLabel(const TrainingStep& first, const TrainingStep& last) const
{
    return stepRangeLabel(refOf(first), refOf(last));
}

std::string StepIndex::rangeLabelAt(int64_t startNs, int64_t endNs) const
{
    const std::optional<std::pair<size_t, size_t>> under = indicesUnder(startNs, endNs);
    if (!under)
        return {};
    return rangeLabel(m_steps[under->first], m_steps[under->second]);
}

} // namespace gapscope
