#include "model/store/LoadProblem.h"

#include "model/text/Text.h"

namespace gapscope {

QString LoadProblem::toString() const
{
    // Built in one string: a load that finds no valid record names its first problem, and a
    // fuzzed input is such a load more often than not.
    QString text;
    text.reserve(file.size() + reason.size() + 48);
    text += file;
    if (line > 0) {
        text += u':';
        appendDecimal(text, line);
    }
    if (index >= 0) {
        text += QLatin1StringView(" [index ");
        appendDecimal(text, index);
        text += u']';
    }
    text += QLatin1StringView(": ");
    if (level == Level::Warning)
        text += QLatin1StringView("warning: ");
    text += reason;
    return text;
}

void ProblemLog::add(LoadProblem problem)
{
    if (problem.level == LoadProblem::Level::Error)
        ++m_errors;
    else
        ++m_warnings;
    if (m_kept.size() < kMaxKept) {
        if (m_kept.capacity() == 0)
            m_kept.reserve(16); // once, not at 1, 2, 4 and 8 problems (a fuzzed file has several)
        m_kept.push_back(std::move(problem));
    }
}

void ProblemLog::addError(const QString& file, qint64 line, const QString& reason, qint64 index)
{
    add(LoadProblem{LoadProblem::Level::Error, file, line, index, reason});
}

void ProblemLog::addWarning(const QString& file, qint64 line, const QString& reason, qint64 index)
{
    add(LoadProblem{LoadProblem::Level::Warning, file, line, index, reason});
}

void ProblemLog::merge(const ProblemLog& other)
{
    m_errors += other.m_errors;
    m_warnings += other.m_warnings;
    for (const LoadProblem& problem : other.m_kept) {
        if (m_kept.size() >= kMaxKept)
            break;
        m_kept.push_back(problem);
    }
}

void ProblemLog::shiftLines(qint64 delta)
{
    for (LoadProblem& problem : m_kept)
        problem.line += delta;
}

void ProblemLog::shiftIndexes(qint64 delta)
{
    for (LoadProblem& problem : m_kept) {
        if (problem.index >= 0)
            problem.index += delta;
    }
}

std::optional<ProblemLog> ProblemLog::restored(std::vector<LoadProblem> kept, qint64 errors, qint64 warnings)
{
    qint64 keptErrors = 0;
    for (const LoadProblem& problem : kept)
        keptErrors += problem.level == LoadProblem::Level::Error ? 1 : 0;
    const auto keptWarnings = qint64(kept.size()) - keptErrors;
    if (kept.size() > kMaxKept || errors < keptErrors || warnings < keptWarnings)
        return std::nullopt;
    ProblemLog log;
    log.m_kept = std::move(kept);
    log.m_errors = errors;
    log.m_warnings = warnings;
    return log;
}

} // namespace gapscope
