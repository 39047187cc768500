#include "app/OpenDialogs.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTimeZone>

namespace gapscope {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("MainWindow", text);
}

} // namespace

QStringList askForDocuments(QWidget* parent, const QString& folder)
{
    return QFileDialog::getOpenFileNames(
        parent, tr("Open Trace or Budget Log"), folder,
        tr("Stormlog traces and memory-budget logs (*.jsonl *.ndjson *.json *.csv *.log *.text *.txt);;"
           "All files (*)"));
}

QString askForSinkFolder(QWidget* parent, const QString& folder)
{
    return QFileDialog::getExistingDirectory(parent, tr("Open Sink Directory"), folder);
}

std::optional<DeviceLogRequest> askForDeviceLog(QWidget* parent)
{
    const QString path =
        QFileDialog::getOpenFileName(parent, tr("Attach Device Log"), QString(),
                                     tr("nvidia-smi CSV logs (*.csv *.log *.txt);;All files (*)"));
    if (path.isEmpty())
        return std::nullopt;
    // nvidia-smi writes local time without an offset: the zone of the machine it ran on
    bool ok = false;
    const QString zone = QInputDialog::getText(
        parent, tr("Device Log Time Zone"),
        tr("nvidia-smi writes local time without an offset.\nThe time zone of the machine that wrote the log "
           "(an IANA name, UTC, or an offset such as +02:00):"),
        QLineEdit::Normal, QString::fromUtf8(QTimeZone::systemTimeZoneId()), &ok);
    if (!ok)
        return std::nullopt;
    return DeviceLogRequest{path, zone};
}

QString askForSnapshot(QWidget* parent, const QString& folder)
{
    return QFileDialog::getOpenFileName(
        parent, tr("Attach Snapshot"), folder,
        tr("PyTorch memory snapshots (*.pickle *.pickle.gz *.pkl);;All files (*)"));
}

BundledSample::BundledSample() = default;
BundledSample::~BundledSample() = default;

QString BundledSample::extract(QString* error)
{
    if (!m_path.isEmpty() && QFileInfo::exists(m_path))
        return m_path;
    m_dir = std::make_unique<QTemporaryDir>();
    const QString target = m_dir->filePath(QStringLiteral("phasespike-sample.jsonl"));
    QFile resource(QStringLiteral(":/gapscope/sample.jsonl"));
    QFile out(target);
    if (!m_dir->isValid() || !resource.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly) ||
        out.write(resource.readAll()) != resource.size()) {
        *error = tr("Could not extract the bundled sample: %1").arg(out.errorString());
        return {};
    }
    out.close();
    m_path = target;
    return m_path;
}

} // namespace gapscope
