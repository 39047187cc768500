// Analysis > Thresholds: edits take effect on Apply or OK (once, however many keystrokes),
// Cancel drops them, Restore Defaults only fills the fields; every field says what it means
// and the range GapThresholds::range allows.
#include "tests/OwnSettings.h"
#include "widgets/common/ThresholdsDialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace gapscope;

Q_DECLARE_METATYPE(gapscope::GapThresholds)

namespace {

QPushButton* button(ThresholdsDialog& dialog, QDialogButtonBox::StandardButton which)
{
    auto* box = dialog.findChild<QDialogButtonBox*>();
    return box ? box->button(which) : nullptr;
}

// Types into a spin box as a user does: select all, then one key at a time.
void typeInto(QDoubleSpinBox* spin, const QString& text)
{
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
}

} // namespace

class TestThresholdsDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qRegisterMetaType<GapThresholds>();
        test::useOwnSettings(QStringLiteral("tst_thresholdsdialog"));
    }

    void cleanupTestCase() { test::removeOwnSettings(); }

    void init() { QSettings().clear(); }

    void fieldsExplainThemselves_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("meaning"); // a phrase of the tooltip
        QTest::addColumn<QString>("allowed");
        for (std::string_view name : GapThresholds::names()) {
            const auto range = GapThresholds::range(name);
            const QString key = QString::fromLatin1(name.data(), qsizetype(name.size()));
            const QString meaning = name == "gap_ratio_threshold"
                                        ? QStringLiteral("share of the device total")
                                    : name == "gap_spike_zscore"    ? QStringLiteral("standard deviations")
                                    : name == "gap_drift_r_squared" ? QStringLiteral("straight line")
                                                                    : QStringLiteral("not allocated");
            QTest::newRow(qPrintable(key))
                << key << meaning
                << QStringLiteral("Allowed: %1 to %2").arg(range->minimum).arg(range->maximum);
        }
    }

    void fieldsExplainThemselves()
    {
        QFETCH(QString, name);
        QFETCH(QString, meaning);
        QFETCH(QString, allowed);
        ThresholdsDialog dialog;
        QDoubleSpinBox* spin = dialog.spinBox(name.toStdString());
        QVERIFY(spin);
        const auto range = GapThresholds::range(name.toStdString());
        QVERIFY(range);
        QCOMPARE(spin->minimum(), range->minimum);
        QCOMPARE(spin->maximum(), range->maximum);
        const QString tip = spin->toolTip();
        QVERIFY2(tip.contains(meaning), qPrintable(tip));
        QVERIFY2(tip.contains(allowed), qPrintable(tip));
        QVERIFY2(
            tip.contains(QStringLiteral("default %1").arg(GapThresholds{}.get(name.toStdString()).value())),
            qPrintable(tip));
        QVERIFY(tip.contains(name)); // the name --set takes
        // the label says the same when hovered
        bool labelled = false;
        for (const QLabel* label : dialog.findChildren<QLabel*>())
            labelled = labelled || (label->buddy() == spin && label->toolTip() == tip);
        QVERIFY(labelled);
    }

    void typingAppliesOnceOnApply()
    {
        ThresholdsDialog dialog;
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QSignalSpy changed(&dialog, &ThresholdsDialog::thresholdsChanged);
        QDoubleSpinBox* fragmentation = dialog.spinBox("gap_fragmentation_ratio");
        QVERIFY(!dialog.applyButton()->isEnabled());
        typeInto(fragmentation, QStringLiteral("0.35"));
        QCOMPARE(fragmentation->value(), 0.35);
        QCOMPARE(changed.count(), 0); // "0", "0.", "0.3", "0.35": no analysis yet
        QCOMPARE(dialog.thresholds().fragmentation, GapThresholds{}.fragmentation);
        QVERIFY(dialog.applyButton()->isEnabled());
        QTest::mouseClick(dialog.applyButton(), Qt::LeftButton);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.front().front().value<GapThresholds>().fragmentation, 0.35);
        QCOMPARE(dialog.thresholds().fragmentation, 0.35);
        QVERIFY(!dialog.applyButton()->isEnabled());
        QVERIFY(dialog.isVisible()); // Apply keeps the dialog open
        QSettings settings;
        QCOMPARE(ThresholdsDialog::loadThresholds(settings).fragmentation, 0.35);
    }

    void enterIsOk()
    {
        ThresholdsDialog dialog;
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QSignalSpy changed(&dialog, &ThresholdsDialog::thresholdsChanged);
        QDoubleSpinBox* z = dialog.spinBox("gap_spike_zscore");
        typeInto(z, QStringLiteral("3.5"));
        QTest::keyClick(z, Qt::Key_Return);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(dialog.thresholds().spikeZScore, 3.5);
        QVERIFY(!dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }

    void cancelDropsEdits()
    {
        ThresholdsDialog dialog;
        dialog.show();
        QSignalSpy changed(&dialog, &ThresholdsDialog::thresholdsChanged);
        QDoubleSpinBox* r2 = dialog.spinBox("gap_drift_r_squared");
        r2->setValue(0.9);
        QTest::mouseClick(button(dialog, QDialogButtonBox::Cancel), Qt::LeftButton);
        QCOMPARE(changed.count(), 0);
        QVERIFY(!dialog.isVisible());
        QCOMPARE(r2->value(), GapThresholds{}.driftRSquared); // reopened, it shows what is in effect
        QCOMPARE(dialog.editedThresholds(), GapThresholds{});
    }

    void restoreDefaultsFillsTheFields()
    {
        GapThresholds tuned;
        tuned.gapRatio = 0.2;
        tuned.spikeZScore = 4;
        ThresholdsDialog dialog;
        dialog.setThresholds(tuned);
        dialog.show();
        QSignalSpy changed(&dialog, &ThresholdsDialog::thresholdsChanged);
        QTest::mouseClick(button(dialog, QDialogButtonBox::RestoreDefaults), Qt::LeftButton);
        QCOMPARE(dialog.editedThresholds(), GapThresholds{});
        QCOMPARE(dialog.thresholds(), tuned);
        QCOMPARE(changed.count(), 0);
        QTest::mouseClick(button(dialog, QDialogButtonBox::Ok), Qt::LeftButton);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(dialog.thresholds(), GapThresholds{});
    }

    void wordingMatchesBehaviour()
    {
        ThresholdsDialog dialog;
        QStringList texts;
        for (const QLabel* label : dialog.findChildren<QLabel*>())
            texts << label->text();
        const QString all = texts.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("when you press Apply or OK")), qPrintable(all));
        QVERIFY(!all.contains(QStringLiteral("at once")));
    }
};

QTEST_MAIN(TestThresholdsDialog)
#include "tst_thresholdsdialog.moc"
