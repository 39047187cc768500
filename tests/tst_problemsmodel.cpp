#include "model/items/ProblemsModel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace gapscope;

class TestProblemsModel : public QObject
{
    Q_OBJECT
private slots:
    void rows_data()
    {
        QTest::addColumn<bool>("error");
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("line");
        QTest::addColumn<qint64>("arrayIndex");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("levelText");
        QTest::addColumn<QString>("fileText");
        QTest::addColumn<QString>("lineText");

        QTest::newRow("rejected line") << true << "/data/run/trace.jsonl" << qint64(17) << qint64(-1)
                                       << "device_used_bytes > device_total_bytes"
                                       << "Error"
                                       << "trace.jsonl"
                                       << "17";
        QTest::newRow("array element warning")
            << false << "events.json" << qint64(3) << qint64(2) << "unknown key ignored: foo"
            << "Warning"
            << "events.json"
            << "3 [index 2]";
    }

    void rows()
    {
        QFETCH(bool, error);
        QFETCH(QString, file);
        QFETCH(qint64, line);
        QFETCH(qint64, arrayIndex);
        QFETCH(QString, reason);
        QFETCH(QString, levelText);
        QFETCH(QString, fileText);
        QFETCH(QString, lineText);

        ProblemLog log;
        if (error)
            log.addError(file, line, reason, arrayIndex);
        else
            log.addWarning(file, line, reason, arrayIndex);

        ProblemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProblems(log);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ProblemsModel::LevelColumn).data().toString(), levelText);
        QCOMPARE(model.index(0, ProblemsModel::FileColumn).data().toString(), fileText);
        QCOMPARE(model.index(0, ProblemsModel::FileColumn).data(ProblemsModel::FilePathRole).toString(),
                 file);
        QCOMPARE(model.index(0, ProblemsModel::LineColumn).data().toString(), lineText);
        QCOMPARE(model.index(0, ProblemsModel::LineColumn).data(ProblemsModel::SortRole).toLongLong(), line);
        QCOMPARE(model.index(0, ProblemsModel::ReasonColumn).data().toString(), reason);
        QCOMPARE(model.index(0, 0).data(Qt::ToolTipRole).toString(), log.kept().front().toString());
        QCOMPARE(model.errorCount(), error ? 1 : 0);
        QCOMPARE(model.warningCount(), error ? 0 : 1);
    }

    void countsBeyondKept()
    {
        // The log keeps only kMaxKept problems in detail; the model still reports the full count.
        ProblemLog log;
        const qint64 total = qint64(ProblemLog::kMaxKept) + 5;
        for (qint64 i = 0; i < total; ++i)
            log.addError(QStringLiteral("bad.jsonl"), i + 1, QStringLiteral("not JSON"));
        ProblemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProblems(log);
        QCOMPARE(model.rowCount(), int(ProblemLog::kMaxKept));
        QCOMPARE(model.totalCount(), total);
        QCOMPARE(model.index(model.rowCount() - 1, ProblemsModel::LineColumn).data().toString(),
                 QString::number(ProblemLog::kMaxKept));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.totalCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestProblemsModel)
#include "tst_problemsmodel.moc"
