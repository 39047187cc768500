#include "model/items/SessionsModel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace gapscope;

namespace {

SessionInfo makeSession(const QString& id, SessionStatus status, const QString& host,
                        std::vector<int64_t> ranks, qint64 events, qint64 endedNs)
{
    SessionInfo s;
    s.id = id;
    s.status = status;
    s.host = host;
    s.ranks = std::move(ranks);
    s.eventCount = events;
    s.startedNs = endedNs - 1000;
    s.endedNs = endedNs;
    return s;
}

} // namespace

class TestSessionsModel : public QObject
{
    Q_OBJECT
private slots:
    void ranksText_data()
    {
        QTest::addColumn<QList<qlonglong>>("ranks");
        QTest::addColumn<QString>("expected");
        QTest::newRow("none") << QList<qlonglong>{} << QString();
        QTest::newRow("one") << QList<qlonglong>{0} << "0";
        QTest::newRow("run") << QList<qlonglong>{0, 1, 2, 3} << QString::fromUtf8("0–3");
        QTest::newRow("runs and gaps") << QList<qlonglong>{0, 1, 4, 6, 7} << QString::fromUtf8("0–1, 4, 6–7");
    }

    void ranksText()
    {
        QFETCH(QList<qlonglong>, ranks);
        QFETCH(QString, expected);
        std::vector<int64_t> v(ranks.begin(), ranks.end());
        QCOMPARE(SessionsModel::ranksText(v), expected);
    }

    void sessions()
    {
        auto trace = std::make_shared<TraceData>();
        trace->sessions.push_back(makeSession("old", SessionStatus::Completed, "node-1", {0}, 100, 1000));
        trace->sessions.push_back(
            makeSession("new", SessionStatus::Interrupted, "node-2", {0, 1}, 2500, 5000));
        trace->sessions.push_back(makeSession("", SessionStatus::Unknown, "", {}, 7, 9000));
        const auto def = trace->defaultSessionIndex();
        QVERIFY(def.has_value());

        SessionsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(trace);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), int(SessionsModel::ColumnCount));
        for (int row = 0; row < 3; ++row) {
            const SessionInfo& s = trace->sessions[size_t(row)];
            const auto at = [&](int column) { return model.index(row, column); };
            const bool isDefault = size_t(row) == *def;
            QCOMPARE(at(0).data(SessionsModel::IsDefaultRole).toBool(), isDefault);
            QCOMPARE(at(0).data(SessionsModel::SessionIndexRole).toInt(), row);
            QCOMPARE(
                at(SessionsModel::SessionColumn).data().toString().endsWith(QStringLiteral(" (default)")),
                isDefault);
            QVERIFY(at(SessionsModel::SessionColumn)
                        .data()
                        .toString()
                        .startsWith(SessionsModel::sessionTitle(s)));
            QCOMPARE(at(SessionsModel::StatusColumn).data().toString(), toString(s.status));
            QCOMPARE(at(SessionsModel::HostColumn).data().toString(), s.host);
            QCOMPARE(at(SessionsModel::RanksColumn).data().toString(), SessionsModel::ranksText(s.ranks));
            QCOMPARE(at(SessionsModel::EventsColumn).data(SessionsModel::SortRole).toLongLong(),
                     s.eventCount);
            QCOMPARE(at(SessionsModel::RanksColumn).data(SessionsModel::RanksRole).toList().size(),
                     qsizetype(s.ranks.size()));
        }
        QCOMPARE(SessionsModel::sessionTitle(trace->sessions[2]), QStringLiteral("(no session id)"));
        // the completed session is the upstream default
        QCOMPARE(*def, size_t(0));

        model.setTrace(nullptr);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.session(0) == nullptr);
    }

    void headers()
    {
        SessionsModel model;
        QStringList headers;
        for (int c = 0; c < model.columnCount(); ++c)
            headers << model.headerData(c, Qt::Horizontal).toString();
        QCOMPARE(headers, (QStringList{"Session", "Status", "Host", "Ranks", "Events"}));
    }
};

QTEST_GUILESS_MAIN(TestSessionsModel)
#include "tst_sessionsmodel.moc"
