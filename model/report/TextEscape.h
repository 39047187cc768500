#pragma once
// Escaping of untrusted text (phase names, hosts, session ids, paths: anything a trace
// carries) for each export format, so a report is safe to open wherever it is attached.

#include <QString>

namespace gapscope {

// &, <, >, " and ' as entities (numeric for ', so XML parsers accept it too); control
// characters other than tab and newline are dropped.
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
