#pragma once
// What the shell asks before it opens something (the File menu, the welcome page): the files
// or the sink folder to open, nvidia-smi's log with the zone of its timestamps, and the bundled
// sample as a file (the loaders take a path).

#include "model/devicelog/DeviceLogAttach.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QTemporaryDir;
class QWidget;

namespace gapscope {

// File > Open...: several files selected are the ranks of one job; none when cancelled.
QStringList askForDocuments(QWidget* parent, const QString& folder);
// File > Open Sink Directory...; empty when cancelled.
QString askForSinkFolder(QWidget* parent, const QString& folder);
// File > Attach Device Log...: the log, then the zone of the machine that wrote it (nvidia-smi
// writes local time without an offset); none when either is cancelled.
std::optional<DeviceLogRequest> askForDeviceLog(QWidget* parent);
// File > Attach Snapshot...: a PyTorch memory snapshot pickle; empty when cancelled.
QString askForSnapshot(QWidget* parent, const QString& folder);

// The bundled sample, copied out of the resources once per window (again when its copy has
// gone).
class BundledSample
{
public:
    BundledSample();
    ~BundledSample();
    // The copy's path; empty with *error when it cannot be written.
    QString extract(QString* error);
    // The copy's path, empty before extract().
    const QString& path() const { return m_path; }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
};

} // namespace gapscope
