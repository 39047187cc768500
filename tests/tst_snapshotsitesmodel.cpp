// The allocation sites table (model/items/SnapshotSitesModel, issue 34) over the real snapshot:
// checked by QAbstractItemModelTester, its texts, its sort keys and its tooltip.

#include "model/items/SnapshotSitesModel.h"
#include "tests/SnapshotFixtures.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace gapscope;

class TestSnapshotSitesModel : public QObject
{
    Q_OBJECT
private slots:
    void realSnapshot()
    {
        SnapshotSitesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), int(SnapshotSitesModel::ColumnCount));

        const auto data = test::loadSnapshotFixture(QStringLiteral("snapshot.pickle"));
        const auto sites =
            std::make_shared<const SnapshotSites>(buildSnapshotSites(*data, SiteGrouping::Stack));
        model.setSites(data, sites);
        QCOMPARE(model.rowCount(), 57); // expected.py
        QCOMPARE(model.headerData(SnapshotSitesModel::SiteColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Site"));
        const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.data(model.index(row, column), role);
        };
        // the file's last two components in the table, its path in the tooltip
        QCOMPARE(cell(0, SnapshotSitesModel::SiteColumn).toString(),
                 QStringLiteral("relu (nn/functional.py:1723)"));
        QCOMPARE(cell(0, SnapshotSitesModel::PeakColumn).toString(), QStringLiteral("143.00 MiB"));
        QCOMPARE(cell(0, SnapshotSitesModel::PeakColumn, SnapshotSitesModel::SortRole).toLongLong(),
                 qlonglong(149946368));
        QCOMPARE(cell(0, SnapshotSitesModel::AllocationsColumn).toString(), QStringLiteral("76"));
        QCOMPARE(cell(0, SnapshotSitesModel::TotalColumn, SnapshotSitesModel::SortRole).toLongLong(),
                 qlonglong(1723858944));
        QCOMPARE(cell(3, SnapshotSitesModel::PeakColumn, SnapshotSitesModel::SiteIndexRole).toInt(), 3);
        const QList<uint> stacks = cell(0, 0, SnapshotSitesModel::StacksRole).value<QList<uint>>();
        QCOMPARE(stacks, QList<uint>{sites->sites[0].frames});
        const QString tooltip = cell(0, SnapshotSitesModel::LargestColumn, Qt::ToolTipRole).toString();
        QVERIFY2(tooltip.contains(QStringLiteral("143.00 MiB live at the peak (15.1 % of 944.88 MiB)")),
                 qPrintable(tooltip));
        // the site's name first, and first among its frames (Python first, as the map's tooltip)
        QVERIFY2(tooltip.startsWith(sites->sites[0].name + QLatin1Char('\n')), qPrintable(tooltip));
        QVERIFY2(tooltip.contains(QStringLiteral("allocated at:\n  ") + sites->sites[0].name),
                 qPrintable(tooltip));
        QVERIFY2(!tooltip.contains(QStringLiteral("CUDACachingAllocator")), qPrintable(tooltip));
        QVERIFY(cell(0, SnapshotSitesModel::PeakColumn, Qt::TextAlignmentRole).toInt() & Qt::AlignRight);

        // sorted by the numbers, not by their text
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SnapshotSitesModel::SortRole);
        proxy.sort(SnapshotSitesModel::LargestColumn, Qt::DescendingOrder);
        qlonglong previous = std::numeric_limits<qlonglong>::max();
        for (int row = 0; row < proxy.rowCount(); ++row) {
            const qlonglong largest =
                proxy.data(proxy.index(row, SnapshotSitesModel::LargestColumn), SnapshotSitesModel::SortRole)
                    .toLongLong();
            QVERIFY(largest <= previous);
            previous = largest;
        }

        // by function: the header says so
        model.setSites(
            data, std::make_shared<const SnapshotSites>(buildSnapshotSites(*data, SiteGrouping::Function)));
        QCOMPARE(model.rowCount(), 17);
        QCOMPARE(model.headerData(SnapshotSitesModel::SiteColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Function"));
        QVERIFY(cell(0, 0, Qt::ToolTipRole).toString().contains(QStringLiteral(" stacks; the frames of")));

        model.setSites(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.siteAt(0));
    }
};

QTEST_GUILESS_MAIN(TestSnapshotSitesModel)
#include "tst_snapshotsitesmodel.moc"
