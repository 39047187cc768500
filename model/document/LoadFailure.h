#pragma once
// Why a file did not open, said so that a newcomer can act on it (issue 17 item 5): which
// readers were tried, what the file looks like, and which inputs gapscope accepts. The window
// shows it until dismissed; the loader's own one-line reason stays what the CLI prints.

#include <QString>

namespace gapscope {

struct LoadFailureExplanation
{
    QString path;
    QString title;     // "notes.txt could not be opened"
    QString reason;    // the loader's reason, without the path in front
    QString tried;     // which readers read it, and why each one said no
    QString looksLike; // "11 bytes of text, first line “hello world”", "an empty file", ...
    QString accepted;  // every input gapscope opens, by kind
};

// error is the load's message ("path: reason", as DocumentOutcome::failure() gives it).
LoadFailureExplanation explainLoadFailure(const QString& path, const QString& error);

// The stormlog trace forms and the memory-budget log forms gapscope reads, in one sentence.
QString acceptedInputsText();

} // namespace gapscope
