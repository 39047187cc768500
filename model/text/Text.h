#pragma once
// The one home of small text helpers (Qt Core only): UTF-8 views to QString, English plurals,
// byte, share and time values as the GUI and the reports print them, and the escaping of
// untrusted text (phase names, hosts, session ids, paths: anything a trace carries) for
// HTML, Markdown and CSV, so a tooltip or a report is safe wherever it is shown or attached.

#include <QString>

#include <concepts>
#include <cstdint>
#include <string_view>

namespace gapscope {

// A UTF-8 string from the analysis layer (std::string, string_view, literals) as a QString.
QString qs(std::string_view utf8);

// Qt resolves "%n ...(s)" plurals only through a translation; without one, the English
// plural is written out here: "(s)" becomes "" for n == 1 and "s" otherwise.
QString englishPlural(QString text, qint64 n);

// IEC units through analysis/Units.h: "512 B", "1.50 KiB", "-2.00 MiB".
QString bytesText(double bytes);
// A byte count of an integer column: kNullInt (analysis/GapAnalysis.h: not recorded) reads
// "n/a". The template takes every integer type (qint64 is not int64_t on every platform).
QString bytesText(int64_t bytes);
template <std::integral Integer> QString bytesText(Integer bytes)
{
    return bytesText(int64_t(bytes));
}
// bytesText followed by "/s".
QString bytesPerSecondText(double bytesPerSecond);
// bytesText with a "+" before increases: "+12.00 MiB", "-3.00 MiB", "0 B".
QString signedBytesText(double bytes);

// A ratio in percent: 0.3125 -> "31.2 %" (decimals after the point as given).
QString percentText(double ratio, int decimals = 1);
// part of whole in percent, "—" when whole is not positive (nothing to be a share of).
QString shareText(double part, double whole);

// Seconds with millisecond decimals: 1.5 -> "1.500 s".
QString secondsText(double seconds);

// &, <, >, " and ' as entities (numeric for ', so XML parsers accept it too); control
// characters other than tab and line breaks, and the noncharacters U+FFFE and U+FFFF, are
// dropped (XML 1.0 allows none of them).
QString htmlEscape(const QString& text);

// Backslash before every Markdown metacharacter (\ ` * _ { } [ ] < > ( ) # + - . ! | ~ = &:
// an escaped & keeps "&lt;" from being decoded as an entity),
// line breaks and tabs become spaces so a value cannot start a new block or table row.
QString markdownEscape(const QString& text);

// One RFC 4180 field. A value that a spreadsheet would run as a formula (first character
// = + - @, tab or carriage return) gets a leading apostrophe; the field is quoted (inner
// quotes doubled) when it holds a comma, quote, line break or that apostrophe.
// Numbers the exporter itself writes do not go through this (a negative gap stays -12).
QString csvField(const QString& text);

} // namespace gapscope
