#include "model/items/ProblemsModel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace gapscope;

namespace {

QString cell(const QAbstractItemModel& model, int row, int column, const QModelIndex& parent = {})
{
    return model.index(row, column, parent).data().toString();
}

} // namespace

class TestProblemsModel : public QObject
{
    Q_OBJECT
private slots:
    // A reason that occurred once is one row without children, showing the record itself.
    void singleRecord_data()
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

    void singleRecord()
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
        QCOMPARE(model.rowCount(model.index(0, 0)), 0);
        QCOMPARE(cell(model, 0, ProblemsModel::LevelColumn), levelText);
        QCOMPARE(cell(model, 0, ProblemsModel::ReasonColumn), reason);
        QCOMPARE(cell(model, 0, ProblemsModel::CountColumn), QStringLiteral("1"));
        QCOMPARE(cell(model, 0, ProblemsModel::FileColumn), fileText);
        QCOMPARE(model.index(0, ProblemsModel::FileColumn).data(ProblemsModel::FilePathRole).toString(),
                 file);
        QCOMPARE(cell(model, 0, ProblemsModel::LineColumn), lineText);
        QCOMPARE(model.index(0, ProblemsModel::LineColumn).data(ProblemsModel::SortRole).toLongLong(), line);
        QCOMPARE(model.index(0, 0).data(Qt::ToolTipRole).toString(), log.kept().front().toString());
        QVERIFY(model.problem(model.index(0, 0)));
        QCOMPARE(model.problem(model.index(0, 0))->line, line);
        QCOMPARE(model.errorCount(), error ? 1 : 0);
        QCOMPARE(model.warningCount(), error ? 0 : 1);
    }

    // 302 identical errors are one row with a count that expands to the 302 lines; other
    // reasons keep the order in which they first occurred, and the level is part of the key.
    void groupsByReason()
    {
        ProblemLog log;
        const QString file = QStringLiteral("/runs/bad.jsonl");
        const QString notJson = QStringLiteral("line is not a JSON object");
        log.addWarning(file, 1, QStringLiteral("unknown key ignored: foo"));
        for (qint64 i = 0; i < 302; ++i)
            log.addError(file, 2 * i + 2, notJson);
        log.addError(QStringLiteral("/runs/other.jsonl"), 9, notJson);
        log.addError(file, 700, QStringLiteral("negative allocator_allocated_bytes"));
        log.addWarning(file, 701, notJson); // same text, another level: its own group

        ProblemsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setProblems(log);
        QCOMPARE(model.groupCount(), 4);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(cell(model, 0, ProblemsModel::ReasonColumn), QStringLiteral("unknown key ignored: foo"));
        QCOMPARE(cell(model, 1, ProblemsModel::ReasonColumn), notJson);
        QCOMPARE(cell(model, 1, ProblemsModel::LevelColumn), QStringLiteral("Error"));
        QCOMPARE(cell(model, 1, ProblemsModel::CountColumn), QStringLiteral("303"));
        QCOMPARE(model.index(1, ProblemsModel::CountColumn).data(ProblemsModel::CountRole).toLongLong(), 303);
        QCOMPARE(cell(model, 1, ProblemsModel::FileColumn), QStringLiteral("2 files"));
        QCOMPARE(cell(model, 1, ProblemsModel::LineColumn), QStringLiteral("2, 4, 6, 8, 10, …"));
        QVERIFY(!model.problem(model.index(1, 0)));
        QVERIFY(
            model.index(1, 0).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("303 records: ")));
        QCOMPARE(cell(model, 2, ProblemsModel::ReasonColumn),
                 QStringLiteral("negative allocator_allocated_bytes"));
        QCOMPARE(cell(model, 3, ProblemsModel::LevelColumn), QStringLiteral("Warning"));
        QCOMPARE(cell(model, 3, ProblemsModel::ReasonColumn), notJson);

        // expanded: one child per record, in file order, file and line only
        const QModelIndex group = model.index(1, 0);
        QCOMPARE(model.rowCount(group), 303);
        QCOMPARE(cell(model, 0, ProblemsModel::LineColumn, group), QStringLiteral("2"));
        QCOMPARE(cell(model, 301, ProblemsModel::LineColumn, group), QStringLiteral("604"));
        QCOMPARE(cell(model, 302, ProblemsModel::FileColumn, group), QStringLiteral("other.jsonl"));
        QCOMPARE(cell(model, 302, ProblemsModel::ReasonColumn, group), QString());
        QCOMPARE(model.parent(model.index(5, 2, group)), group);
        const LoadProblem* record = model.problem(model.index(5, 0, group));
        QVERIFY(record);
        QCOMPARE(record->line, qint64(12));
        QCOMPARE(model.problems().size(), size_t(306));
    }

    // The panel's filter keeps a group whose reason matches with all its records.
    void filterKeepsGroupsWhole()
    {
        ProblemLog log;
        for (qint64 i = 0; i < 5; ++i)
            log.addError(QStringLiteral("a.jsonl"), i + 1, QStringLiteral("not JSON"));
        log.addError(QStringLiteral("a.jsonl"), 9, QStringLiteral("negative counter"));
        ProblemsModel model;
        model.setProblems(log);
        QSortFilterProxyModel filter;
        filter.setSourceModel(&model);
        filter.setFilterKeyColumn(-1);
        filter.setRecursiveFilteringEnabled(true);
        filter.setAutoAcceptChildRows(true);
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setFilterFixedString(QStringLiteral("JSON"));
        QCOMPARE(filter.rowCount(), 1);
        QCOMPARE(filter.rowCount(filter.index(0, 0)), 5);
        filter.setFilterFixedString(QStringLiteral("counter"));
        QCOMPARE(filter.rowCount(), 1);
        QCOMPARE(cell(filter, 0, ProblemsModel::LineColumn), QStringLiteral("9"));
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
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowCount(model.index(0, 0)), int(ProblemLog::kMaxKept));
        QCOMPARE(model.totalCount(), total);
        QCOMPARE(cell(model, int(ProblemLog::kMaxKept) - 1, ProblemsModel::LineColumn, model.index(0, 0)),
                 QString::number(ProblemLog::kMaxKept));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.totalCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestProblemsModel)
#include "tst_problemsmodel.moc"
