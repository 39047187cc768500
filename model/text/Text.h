#pragma once
// The one home of small text helpers (Qt Core only): UTF-8 views to QString, English plurals,
// byte, share and time values as the GUI and the reports print them, and the escaping of
// untrusted text (phase names, hosts, session ids, paths: anything a trace carries) for
// HTML, Markdown and CSV, so a tooltip or a report is safe wherever it is shown or attached.

#include <QString>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace gapscope {

// A UTF-8 string from the analysis layer (std::string, string_view, literals) as a QString.
QString qs(std::string_view utf8);

// pattern (UTF-8) with %1 .. %9 replaced by numbers[0] .. numbers[8] in decimal, as
// QString::arg writes them, made in one allocation: a file with many bad rows has its problem
// messages made by the thousand, and QString::arg goes through the locale and makes a new string
// per argument. A % not followed by the digit of a given number stays as it is.
QString withNumbers(std::string_view pattern, std::initializer_list<qint64> numbers);
// The same with UTF-8 texts for %1 .. %9 (a key, a reason): one allocation where
// QStringLiteral(...).arg(qs(text)) made two.
QString withTexts(std::string_view pattern, std::initializer_list<std::string_view> texts);
// n in decimal appended to out, without the QString QString::number makes.
void appendDecimal(QString& out, qint64 n);

// Qt resolves "%n ...(s)" plurals only through a translation; without one, the English
// plural is written out here: "(s)" becomes "" for n == 1 and "s" otherwise.
QString englishPlural(QString text, qint64 n);

// A count as the reports and summaries write it: "1,234" (C locale, grouped). The template
// takes every integer type; counts are never negative.
QString countText(uint64_t n);
template <std::integral Integer> QString countText(Integer n)
{
    return countText(uint64_t(n));
}

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

// The one way a time is written (chart ticks and tooltips, tables, the detail, the status
// bar, reports): "0.250 s", "2 min 30.500 s", "8 h 15 min 50 s", "-1.5 s". resolutionNs is
// the finest difference the reader needs: the value is rounded to the largest power of ten
// (1 ns .. 1 s) dividing it, and the seconds get as many decimals as that power needs (a
// resolution of 250 ms gives two). Hours and minutes from one minute on; zero parts of a
// longer time are left out ("1 h 5 min", "1 h 0.5 s").
QString durationText(int64_t ns, int64_t resolutionNs);
// durationText of a time since an origin, signed: "+12.500 s", "-0.250 s", "+8 h 15 min 50 s".
QString relativeTimeText(int64_t relativeNs, int64_t resolutionNs);
// The resolution a span of time is read at: the power of ten (1 ns .. 1 s) at or below
// spanNs / steps; steps is how many distinct times the reader tells apart (the pixels of a
// plot, or 10 000 for a table). A 30 s trace reads to the millisecond, an 8 h one to the second,
// one instant (no span) to the millisecond.
int64_t timeResolutionNs(int64_t spanNs, int64_t steps = 10'000);
inline constexpr int64_t kMillisecondNs = 1'000'000;

// A finding's confidence (0..1) wherever a person reads it: "99.9 %" (percentText, one decimal).
QString confidenceText(double confidence);

// &, <, >, " and ' as entities (numeric for ', so XML parsers accept it too); control
// characters other than tab and line breaks, and the noncharacters U+FFFE and U+FFFF, are
// dropped (XML 1.0 allows none of them); bidirectional controls are written out as
// "[U+202E]" (shownText), here and in markdownEscape and csvField.
QString htmlEscape(const QString& text);
// htmlEscape(text) appended to out.
void appendHtmlEscaped(QString& out, QStringView text);

// Text as one line of Markdown that shows exactly as given and reads as plain text: a word that
// names code (snake_case, a call, a key=value setting, a --option, a path, a dotted name such
// as torch.cuda or manifest.json) becomes a code span; elsewhere only what Markdown would
// read is escaped (\ ` * [ ] < > | ~ anywhere, _ at a word's edge, & where it starts an
// entity, and # - + = "1." at the start, where they would begin a block). Line breaks and
// tabs become spaces so a value cannot start a new block or table row; bidirectional controls
// are written out as "[U+202E]".
QString markdownEscape(const QString& text);
// markdownEscape(text) appended to out.
void appendMarkdownEscaped(QString& out, QStringView text);

// The most characters of one untrusted name (a phase, a cache, a host, a session id) that a
// view lays out or a row-oriented export (CSV) writes: a 1 MB phase name froze the window's
// rich-text layout for minutes and made a CSV export fifty times its input, one copy per row.
// Prose that quotes names (a finding's description, its steps) gets kShownProseChars. JSON
// reports keep the full text.
inline constexpr qsizetype kShownTextChars = 256;
inline constexpr qsizetype kShownProseChars = 2048;
// Untrusted text as a person is shown it: every bidirectional control (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069) written out as "[U+202E]", so that it cannot reorder
// what follows it (a "report\u202Etxt.exe" spoof), and a text longer than maxChars cut there
// (never inside a surrogate pair) with " … (N more characters)".
QString shownText(QStringView text, qsizetype maxChars = kShownTextChars);
// Whether c is one of those bidirectional controls.
bool isBidiControl(char32_t c);

// One RFC 4180 field. A value that a spreadsheet would run as a formula (first character
// = + - @, tab or carriage return) gets a leading apostrophe; the field is quoted (inner
// quotes doubled) when it holds a comma, quote, line break or that apostrophe.
// Numbers the exporter itself writes do not go through this (a negative gap stays -12).
QString csvField(const QString& text);

} // namespace gapscope
