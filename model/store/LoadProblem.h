#pragma once
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <optional>
#include <vector>

namespace gapscope {

// One record that could not be used (Error: rejected) or was loaded with a remark
// (Warning: e.g. an unknown key ignored). line is 1-based; for a JSON array it is the
// line where the element starts and `index` is its array index (-1 otherwise).
struct LoadProblem
{
    enum class Level
    {
        Warning,
        Error
    };
    Level level = Level::Error;
    QString file;
    qint64 line = 0;
    qint64 index = -1;
    QString reason;

    // "file:line: reason" (with "[index N]" for array elements)
    QString toString() const;
    bool operator==(const LoadProblem&) const = default;
};

// Problems are counted in full, but only the first kMaxKept are kept in detail so a
// garbage file of millions of lines cannot exhaust memory.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
// The fuzz build keeps 1 024 (73 KB of problems): a fuzzed file of a few KB can hold thousands
// of bad lines, and the vector grown past 128 KB came from ASan's mmap-backed allocator, every
// page zeroed afresh on every execution. Past the limit problems are counted as they are at
// 10 000.
inline constexpr size_t kMaxKeptProblems = 1024;
#else
inline constexpr size_t kMaxKeptProblems = 10000;
#endif

class ProblemLog
{
public:
    static constexpr size_t kMaxKept = kMaxKeptProblems;

    void add(LoadProblem problem);
    void addError(const QString& file, qint64 line, const QString& reason, qint64 index = -1);
    void addWarning(const QString& file, qint64 line, const QString& reason, qint64 index = -1);
    void merge(const ProblemLog& other);
    // Adds delta to the line of every kept problem (a range parsed with its lines counted
    // from 1, placed in its file).
    void shiftLines(qint64 delta);
    // Adds delta to the array index of every kept problem that has one (a range of array
    // elements parsed with its indexes counted from 0).
    void shiftIndexes(qint64 delta);
    // A log as it was (model/cache/TraceCache reopens a trace): the problems kept and the
    // counts of all. nullopt when they cannot belong together (more kept than counted of a
    // level, more than kMaxKept).
    static std::optional<ProblemLog> restored(std::vector<LoadProblem> kept, qint64 errors, qint64 warnings);

    const std::vector<LoadProblem>& kept() const { return m_kept; }
    qint64 errorCount() const { return m_errors; }
    qint64 warningCount() const { return m_warnings; }
    bool empty() const { return m_errors == 0 && m_warnings == 0; }

private:
    std::vector<LoadProblem> m_kept;
    qint64 m_errors = 0;
    qint64 m_warnings = 0;
};

} // namespace gapscope
