// End-to-end: what the real binary does with --output when the path is an input, a device or
// a FIFO, when the disk fills up, and when several processes write the same new file at once.
#include "tests/GapscopeProcess.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

QString fixture(const QString& relative)
{
    return QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fixtures/stormlog/") + relative;
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

// Every entry under dir (symlinks not followed) with the hash of what it holds: a test
// compares it before and after a refused run to see that nothing was touched or left.
QMap<QString, QByteArray> snapshot(const QString& dir)
{
    QMap<QString, QByteArray> entries;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        struct stat info
        {
        };
        if (lstat(QFile::encodeName(path).constData(), &info) != 0)
            continue;
        QByteArray what = QByteArray::number(info.st_mode, 8);
        if (S_ISREG(info.st_mode))
            what += ' ' + QCryptographicHash::hash(readFile(path), QCryptographicHash::Sha256).toHex();
        else if (S_ISLNK(info.st_mode))
            what += ' ' + QFile::encodeName(QFile::symLinkTarget(path));
        entries.insert(QDir(dir).relativeFilePath(path), what);
    }
    return entries;
}

QString errorLines(const QByteArray& err)
{
    return QString::fromUtf8(err).split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QLatin1Char('\n'));
}

} // namespace

class TestCliOutput : public QObject
{
    Q_OBJECT

    // A folder with two traces (a.jsonl, b.jsonl), a sink folder (sink/), a symbolic link and
    // a hard link to a.jsonl and a subfolder; @NAME in args stands for dir/NAME.
    struct Inputs
    {
        QTemporaryDir dir;
        QString path(const QString& name) const { return dir.filePath(name); }
        bool create()
        {
            const QString sink = path(QStringLiteral("sink"));
            bool ok =
                dir.isValid() &&
                QFile::copy(fixture(QStringLiteral("parity/drift.jsonl")), path(QStringLiteral("a.jsonl"))) &&
                QFile::copy(fixture(QStringLiteral("parity/spikes.jsonl")),
                            path(QStringLiteral("b.jsonl"))) &&
                QDir().mkpath(sink) && QDir().mkpath(path(QStringLiteral("sub")));
            for (const QString& name : QDir(fixture(QStringLiteral("real/cpu_sink"))).entryList(QDir::Files))
                ok = ok && QFile::copy(fixture(QStringLiteral("real/cpu_sink/")) + name,
                                       sink + QLatin1Char('/') + name);
            ok = ok && QFile::link(QStringLiteral("a.jsonl"), path(QStringLiteral("link.json")));
            ok = ok && ::link(QFile::encodeName(path(QStringLiteral("a.jsonl"))).constData(),
                              QFile::encodeName(path(QStringLiteral("hard.json"))).constData()) == 0;
            return ok;
        }
        QStringList expand(const QStringList& args) const
        {
            QStringList expanded;
            for (const QString& arg : args)
                expanded << (arg.startsWith(QLatin1Char('@')) ? path(arg.mid(1)) : arg);
            return expanded;
        }
    };

    // the report analyze prints for a trace (its path is part of it)
    static QByteArray analyzeJson(const QString& path = fixture(QStringLiteral("parity/drift.jsonl")))
    {
        const GapscopeRun r = runGapscope(
            {QStringLiteral("analyze"), path, QStringLiteral("--format"), QStringLiteral("json")});
        return r.exitCode == 0 ? r.out : QByteArray();
    }

private slots:
    void outputIsAnInput_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString json = QStringLiteral("json");
        const QString format = QStringLiteral("--format");
        const QString output = QStringLiteral("--output");
        const QString force = QStringLiteral("--force");
        QTest::newRow("analyze: output is the input")
            << QStringList{QStringLiteral("analyze"), QStringLiteral("@a.jsonl"), format, json, output,
                           QStringLiteral("@a.jsonl")};
        QTest::newRow("analyze: the same path spelt with ..") << QStringList{
            QStringLiteral("analyze"), QStringLiteral("@a.jsonl"), output, QStringLiteral("@sub/../a.jsonl")};
        QTest::newRow("analyze: a symbolic link to the input") << QStringList{
            QStringLiteral("analyze"), QStringLiteral("@a.jsonl"), output, QStringLiteral("@link.json")};
        QTest::newRow("analyze: input through a symbolic link, output the file") << QStringList{
            QStringLiteral("analyze"), QStringLiteral("@link.json"), output, QStringLiteral("@a.jsonl")};
        QTest::newRow("analyze: a hard link to the input") << QStringList{
            QStringLiteral("analyze"), QStringLiteral("@a.jsonl"), output, QStringLiteral("@hard.json")};
        QTest::newRow("analyze: a segment of the input sink")
            << QStringList{QStringLiteral("analyze"), QStringLiteral("@sink"), output,
                           QStringLiteral("@sink/segment-000001.jsonl")};
        QTest::newRow("analyze: a new file inside the input sink") << QStringList{
            QStringLiteral("analyze"), QStringLiteral("@sink"), output, QStringLiteral("@sink/report.json")};
        QTest::newRow("compare: output is A")
            << QStringList{QStringLiteral("compare"), QStringLiteral("@a.jsonl"), QStringLiteral("@b.jsonl"),
                           output, QStringLiteral("@a.jsonl")};
        QTest::newRow("compare: output is B")
            << QStringList{QStringLiteral("compare"), QStringLiteral("@a.jsonl"), QStringLiteral("@b.jsonl"),
                           output, QStringLiteral("@b.jsonl")};
        QTest::newRow("export --force: output is the input") << QStringList{QStringLiteral("export"),
                                                                            QStringLiteral("@a.jsonl"),
                                                                            format,
                                                                            json,
                                                                            output,
                                                                            QStringLiteral("@a.jsonl"),
                                                                            force};
        QTest::newRow("export --force: a hard link to the input") << QStringList{QStringLiteral("export"),
                                                                                 QStringLiteral("@a.jsonl"),
                                                                                 format,
                                                                                 json,
                                                                                 output,
                                                                                 QStringLiteral("@hard.json"),
                                                                                 force};
        QTest::newRow("export --force: the sink manifest")
            << QStringList{QStringLiteral("export"),
                           QStringLiteral("@sink"),
                           format,
                           json,
                           output,
                           QStringLiteral("@sink/manifest.json"),
                           force};
    }

    void outputIsAnInput()
    {
        QFETCH(QStringList, args);
        Inputs inputs;
        QVERIFY(inputs.create());
        const auto before = snapshot(inputs.dir.path());
        const GapscopeRun r = runGapscope(inputs.expand(args));
        QCOMPARE(r.exitCode, 2);
        const QString err = errorLines(r.err);
        QVERIFY2(err.contains(QLatin1String("is an input")), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 0);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(snapshot(inputs.dir.path()), before);
    }

    void outputBesideTheInputIsWritten()
    {
        // a file next to the input, and a new file beside a sink folder, are fine
        Inputs inputs;
        QVERIFY(inputs.create());
        const GapscopeRun r = runGapscope(inputs.expand(
            {QStringLiteral("analyze"), QStringLiteral("@a.jsonl"), QStringLiteral("--format"),
             QStringLiteral("json"), QStringLiteral("--output"), QStringLiteral("@a.report.json")}));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(readFile(inputs.path(QStringLiteral("a.report.json"))),
                 analyzeJson(inputs.path(QStringLiteral("a.jsonl"))));
        const GapscopeRun sink =
            runGapscope(inputs.expand({QStringLiteral("analyze"), QStringLiteral("@sink"),
                                       QStringLiteral("--output"), QStringLiteral("@sink.report.txt")}));
        QCOMPARE(sink.exitCode, 0);
        QVERIFY(!readFile(inputs.path(QStringLiteral("sink.report.txt"))).isEmpty());
    }

    void nonRegularTargetIsRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("args");
        const QString drift = fixture(QStringLiteral("parity/drift.jsonl"));
        const QString spikes = fixture(QStringLiteral("parity/spikes.jsonl"));
        for (const QString& kind : {QStringLiteral("fifo"), QStringLiteral("char device")}) {
            QTest::addRow("analyze, %s", qPrintable(kind))
                << kind << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--output")};
            QTest::addRow("export --force, %s", qPrintable(kind))
                << kind << QStringList{QStringLiteral("export"),   drift,
                                       QStringLiteral("--format"), QStringLiteral("json"),
                                       QStringLiteral("--force"),  QStringLiteral("--output")};
            QTest::addRow("export, %s", qPrintable(kind))
                << kind
                << QStringList{QStringLiteral("export"), drift, QStringLiteral("--format"),
                               QStringLiteral("json"), QStringLiteral("--output")};
            QTest::addRow("compare, %s", qPrintable(kind))
                << kind << QStringList{QStringLiteral("compare"), drift, spikes, QStringLiteral("--output")};
        }
        QTest::addRow("analyze, folder")
            << QStringLiteral("folder")
            << QStringList{QStringLiteral("analyze"), drift, QStringLiteral("--output")};
    }

    void nonRegularTargetIsRefused()
    {
        // Never the real /dev/null: a binary that replaced it would break the machine. A device
        // node of our own (root only; else a FIFO is the non-regular file) shows the same.
        QFETCH(QString, kind);
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const QString target = dir.filePath(QStringLiteral("target"));
        const QByteArray name = QFile::encodeName(target);
        if (kind == QLatin1String("fifo")) {
            QCOMPARE(mkfifo(name.constData(), 0600), 0);
        } else if (kind == QLatin1String("folder")) {
            QVERIFY(QDir().mkpath(target));
        } else if (mknod(name.constData(), S_IFCHR | 0600, makedev(1, 3)) != 0) {
            QSKIP("creating a device node needs root; the FIFO rows cover non-regular targets");
        }
        const auto before = snapshot(dir.path());
        const GapscopeRun r = runGapscope(args << target);
        QCOMPARE(r.exitCode, 2);
        const QString err = errorLines(r.err);
        QVERIFY2(err.contains(QLatin1String("not a regular file")) && err.contains(target), qPrintable(err));
        QCOMPARE(err.count(QLatin1Char('\n')), 0);
        QCOMPARE(snapshot(dir.path()), before);
    }

    void dashIsStandardOutput()
    {
        const QByteArray expected = analyzeJson();
        QVERIFY(!expected.isEmpty());
        const QString drift = fixture(QStringLiteral("parity/drift.jsonl"));
        const bool dashFileBefore = QFile::exists(QStringLiteral("-")); // in the working folder
        const GapscopeRun analyzed =
            runGapscope({QStringLiteral("analyze"), drift, QStringLiteral("--format"), QStringLiteral("json"),
                         QStringLiteral("--output"), QStringLiteral("-")});
        QCOMPARE(analyzed.exitCode, 0);
        QCOMPARE(analyzed.out, expected);
        const GapscopeRun exported =
            runGapscope({QStringLiteral("export"), drift, QStringLiteral("--format"), QStringLiteral("json"),
                         QStringLiteral("--output"), QStringLiteral("-")});
        QCOMPARE(exported.exitCode, 0);
        QCOMPARE(exported.out, expected);
        QCOMPARE(QFile::exists(QStringLiteral("-")), dashFileBefore);
    }

    void fullDiskKeepsTheOldFile_data()
    {
        QTest::addColumn<bool>("existing");
        QTest::addColumn<QString>("trap"); // what the shell does with SIGXFSZ
        for (const QString& trap : {QStringLiteral("-"), QStringLiteral("''")}) {
            const char* signal = trap == QLatin1String("-") ? "SIGXFSZ default" : "SIGXFSZ ignored";
            QTest::addRow("new file, %s", signal) << false << trap;
            QTest::addRow("--force over a good file, %s", signal) << true << trap;
        }
    }

    void fullDiskKeepsTheOldFile()
    {
        // A file size limit of 8 or 16 KiB (the HTML report is ~200 KiB) makes a write fail
        // with EFBIG as a full disk fails with ENOSPC: no root needed. With SIGXFSZ at its
        // default, as a shell leaves it, the binary must not die of it either.
        QFETCH(bool, existing);
        QFETCH(QString, trap);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("report.html"));
        if (existing)
            QVERIFY(writeFile(file, "keep me"));
        const auto before = snapshot(dir.path());
        QStringList args{QStringLiteral("export"),   fixture(QStringLiteral("parity/drift.jsonl")),
                         QStringLiteral("--format"), QStringLiteral("html"),
                         QStringLiteral("--output"), file};
        if (existing)
            args << QStringLiteral("--force");
        const GapscopeRun r = runGapscope(
            args, {},
            {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
             QStringLiteral("trap %1 XFSZ; ulimit -f 16 && exec \"$@\"").arg(trap), QStringLiteral("sh")});
        QCOMPARE(r.exitCode, 1);
        const QString err = errorLines(r.err);
        QVERIFY2(err.contains(file) && err.contains(QString::fromLocal8Bit(strerror(EFBIG))),
                 qPrintable(err));
        QCOMPARE(snapshot(dir.path()), before);
    }

    void fullTmpfsKeepsTheOldFile()
    {
        // The real thing: a 64 KiB tmpfs. Mounting needs root; elsewhere the file size limit
        // above stands in for it.
        if (geteuid() != 0)
            QSKIP("mounting a 64 KiB tmpfs needs root; fullDiskKeepsTheOldFile covers the failing write");
        QTemporaryDir mountPoint;
        QVERIFY(mountPoint.isValid());
        if (QProcess::execute(QStringLiteral("mount"),
                              {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                               QStringLiteral("size=64k"), QStringLiteral("tmpfs"), mountPoint.path()}) != 0)
            QSKIP("could not mount a tmpfs here (a container without CAP_SYS_ADMIN?)");
        const auto unmount = std::shared_ptr<void>(
            nullptr, [&](void*) { QProcess::execute(QStringLiteral("umount"), {mountPoint.path()}); });
        const QString file = mountPoint.filePath(QStringLiteral("report.html"));
        QVERIFY(writeFile(file, "keep me"));
        const GapscopeRun r =
            runGapscope({QStringLiteral("export"), fixture(QStringLiteral("parity/drift.jsonl")),
                         QStringLiteral("--format"), QStringLiteral("html"), QStringLiteral("--output"), file,
                         QStringLiteral("--force")});
        QCOMPARE(r.exitCode, 1);
        const QString err = errorLines(r.err);
        QVERIFY2(err.contains(QString::fromLocal8Bit(strerror(ENOSPC))), qPrintable(err));
        QCOMPARE(readFile(file), QByteArray("keep me"));
        QCOMPARE(QDir(mountPoint.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("report.html")});
    }

    void concurrentExportsWithoutForce()
    {
        // Exactly one process creates the file; every other one says "exists" with the one
        // exit code the README gives for it (2), and the file is one whole report. HTML: its
        // chart takes long enough to draw that all of them start before the first one writes.
        constexpr int kProcesses = 20;
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("report.html"));
        const QStringList args{QStringLiteral("export"), fixture(QStringLiteral("parity/drift.jsonl")),
                               QStringLiteral("--format"), QStringLiteral("html"),
                               QStringLiteral("--output")};
        const QString alone = dir.filePath(QStringLiteral("alone.html"));
        QCOMPARE(runGapscope(args + QStringList{alone}).exitCode, 0);
        const QByteArray expected = readFile(alone);
        QVERIFY(QFile::remove(alone));
        std::vector<std::unique_ptr<QProcess>> processes;
        for (int i = 0; i < kProcesses; ++i) {
            auto process = std::make_unique<QProcess>();
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("QT_QPA_PLATFORM"));
            env.remove(QStringLiteral("DISPLAY"));
            process->setProcessEnvironment(env);
            process->start(QStringLiteral(GAPSCOPE_BINARY), args + QStringList{file});
            processes.push_back(std::move(process));
        }
        QMap<int, int> exitCodes;
        for (auto& process : processes) {
            QVERIFY(process->waitForFinished(120000));
            QCOMPARE(process->exitStatus(), QProcess::NormalExit);
            ++exitCodes[process->exitCode()];
            if (process->exitCode() != 0) {
                const QString err = errorLines(process->readAllStandardError());
                QVERIFY2(err.contains(QLatin1String("exists (use --force")), qPrintable(err));
            }
        }
        const QMap<int, int> wanted{{0, 1}, {2, kProcesses - 1}};
        QCOMPARE(exitCodes, wanted);
        QCOMPARE(readFile(file), expected);
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("report.html")});
    }
};

QTEST_GUILESS_MAIN(TestCliOutput)
#include "tst_cli_output.moc"
