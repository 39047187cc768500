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

// What a file gapscope does not read (yet) is, and what to do with it: an nvidia-smi
// device-usage log, a PyTorch memory snapshot pickle, a gzip file, a CSV of other columns.
// Empty for anything that may be a stormlog trace or a memory-budget log (their readers say
// what is wrong with it). The one place such files are recognised: loadDocument refuses them
// with this text, a job folder leaves them out with it, and explainLoadFailure shows it.
QString recognizeForeignInput(const QString& path);

// error is the load's message ("path: reason", as DocumentOutcome::failure() gives it).
LoadFailureExplanation explainLoadFailure(const QString& path, const QString& error);

// The stormlog trace forms and the memory-budget log forms gapscope reads, in one sentence.
QString acceptedInputsText();

} // namespace gapscope
