#pragma once
// Text helpers of the document pages (one copy for all of them): UTF-8 views to QString,
// English plurals without a translation, byte counts with "n/a" for missing values.
// To be folded into the shared text module when it lands.

#include "analysis/GapAnalysis.h"
#include "analysis/Units.h"

#include <QCoreApplication>
#include <QString>

#include <string_view>

namespace gapscope::pagetext {

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Qt resolves "%n ...(s)" plurals only through a translation; without one, English is
// written out here.
inline QString englishPlural(QString text, qint64 n)
{
    return text.replace(QStringLiteral("(s)"), n == 1 ? QString() : QStringLiteral("s"));
}

inline QString bytesText(int64_t bytes)
{
    if (bytes == kNullInt)
        return QCoreApplication::translate("MainWindow", "n/a");
    return qs(formatBytes(double(bytes)));
}

} // namespace gapscope::pagetext
