// The detail of a finding writes its time, confidence and name as everything else does
// (issue 17 item 10): the relative time, the wall-clock time instead of raw nanoseconds,
// the confidence in percent, the name the table and the reports use.

#include "model/report/ReportContent.h"
#include "model/report/ReportWriters.h"
#include "tests/SyntheticAnalysis.h"
#include "widgets/trace/FindingDetailView.h"

#include <QRegularExpression>
#include <QTest>

using namespace gapscope;
using namespace gapscope::testing;

class TestFindingDetail : public QObject
{
    Q_OBJECT
private slots:
    void findingHeaderFormats()
    {
        const auto result = makeSyntheticAnalysis(hundredSamples());
        QVERIFY(!result->findings.empty());
        FindingDetailView view;
        view.showFinding(result, 0);
        const QString text = view.plainText();
        const Finding& f = result->findings[0];
        QVERIFY2(text.contains(classificationTitle(f.classification)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("confidence ") + confidenceText(f.confidence)),
                 qPrintable(text));
        QVERIFY2(text.contains(formatUtcTime(f.evidenceTimestampNs)), qPrintable(text));
        QVERIFY2(!text.contains(QString::number(f.evidenceTimestampNs)), qPrintable(text));
        QVERIFY2(!text.contains(QRegularExpression(QStringLiteral("confidence \\d\\.\\d{3}"))),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("at +")), qPrintable(text));
    }
};

QTEST_MAIN(TestFindingDetail)
#include "tst_findingdetail.moc"
