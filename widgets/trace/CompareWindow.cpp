#include "widgets/trace/CompareWindow.h"
#include "model/text/Text.h"

#include "model/items/FindingsModel.h"
#include "model/report/ReportContent.h"
#include "model/work/LoadJob.h"
#include "widgets/chart/ChartSupport.h"
#include "widgets/trace/GapChartView.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gapscope {

namespace {

QString partitionText(const TraceData& trace, const Partition& p)
{
    const SessionInfo& session = trace.sessions[p.sessionIndex];
    const QString id = session.id.isEmpty() ? QObject::tr("(no session id)") : session.id.left(13);
    return QObject::tr("%1 · rank %2 · %3").arg(id).arg(p.rank).arg(toString(session.status));
}

} // namespace

CompareWindow::CompareWindow(QWidget* parent) : QWidget(parent)
{
    setWindowTitle(tr("Compare Runs — gapscope"));
    for (Side side : {Side::A, Side::B}) {
        SideState& s = state(side);
        s.job = new AnalysisJob(this);
        connect(s.job, &AnalysisJob::finished, this,
                [this, side](quint64, std::shared_ptr<const AnalysisResult> result) {
                    onAnalysed(side, result, {});
                });
        connect(s.job, &AnalysisJob::failed, this,
                [this, side](quint64, const QString& error) { onAnalysed(side, nullptr, error); });
        // LoadJob drops the result of a superseded load: what arrives here is the side's last
        s.load = new LoadJob(this);
        connect(s.load, &LoadJob::loaded, this,
                [this, side](quint64, std::shared_ptr<const TraceData> trace) {
                    setTrace(side, std::move(trace));
                });
        connect(
            s.load, &LoadJob::budgetLoaded, this,
            [this, side](quint64, std::shared_ptr<const BudgetData> budget) {
                onLoadEnded(
                    side,
                    tr("%1: a memory-budget log; runs are compared from stormlog traces").arg(budget->path));
            });
        connect(s.load, &LoadJob::failed, this,
                [this, side](quint64, const QString& error) { onLoadEnded(side, error); });
        connect(s.load, &LoadJob::cancelled, this, [this, side] { onLoadEnded(side, {}); });
    }

    m_nameA = new QLabel(tr("A: (none)"), this);
    m_nameB = new QLabel(tr("B: (none)"), this);
    for (QLabel* label : {m_nameA, m_nameB})
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_partitionA = new QComboBox(this);
    m_partitionB = new QComboBox(this);
    m_partitionA->setToolTip(tr("Session and rank of A"));
    m_partitionB->setToolTip(tr("Session and rank of B"));
    m_openB = new QPushButton(tr("Open B…"), this);
    m_alignBox = new QComboBox(this);
    m_alignBox->setToolTip(tr("Where time zero lies for both runs"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_nameA);
    top->addWidget(m_partitionA);
    top->addSpacing(16);
    top->addWidget(m_nameB);
    top->addWidget(m_partitionB);
    top->addWidget(m_openB);
    top->addStretch(1);
    top->addWidget(new QLabel(tr("Align:"), this));
    top->addWidget(m_alignBox);

    // the main window's chart for each side; B's also draws B − A
    m_chartA = new GapChartView(this);
    m_chartB = new GapChartView(this);
    m_chartA->setObjectName(QStringLiteral("compareChartA"));
    m_chartB->setObjectName(QStringLiteral("compareChartB"));
    m_chartTitleA = new QLabel(this);
    m_chartTitleB = new QLabel(this);
    auto chartPane = [this](QLabel* title, GapChartView* chart) {
        auto* pane = new QWidget(this);
        auto* layout = new QVBoxLayout(pane);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        title->setTextFormat(Qt::RichText);
        layout->addWidget(title);
        layout->addWidget(chart, 1);
        chart->setMinimumHeight(180);
        return pane;
    };
    for (Side side : {Side::A, Side::B}) {
        GapChartView* chart = chartView(side);
        connect(chart, &GapChartView::visibleRangeChanged, this,
                [this, side](qint64 beginNs, qint64 endNs) { syncRange(side, beginNs, endNs); });
        connect(chart, &GapChartView::cursorRequested, this,
                [this, side](qint64 ns) { syncCursor(side, ns); });
    }

    m_findings = new QTreeWidget(this);
    m_findings->setRootIsDecorated(false);
    m_findings->setWordWrap(true);
    m_findings->setUniformRowHeights(false);
    m_findings->setHeaderLabels({tr("Finding"), tr("Change"), tr("Severity A → B"), tr("Confidence A → B"),
                                 tr("Evidence deltas (B − A)")});
    m_findings->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_findings->header()->setStretchLastSection(true);
    m_phasesNote = new QLabel(this);
    m_phasesNote->setWordWrap(true);
    m_phases = new QTableWidget(0, 4, this);
    m_phases->setHorizontalHeaderLabels({tr("Phase"), tr("Peak gap A"), tr("Peak gap B"), tr("B − A")});
    m_phases->verticalHeader()->hide();
    m_phases->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_phases->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_phases->horizontalHeader()->setStretchLastSection(true);
    auto* phasesPane = new QWidget(this);
    auto* phasesLayout = new QVBoxLayout(phasesPane);
    phasesLayout->setContentsMargins(0, 0, 0, 0);
    phasesLayout->addWidget(m_phasesNote);
    phasesLayout->addWidget(m_phases, 1);

    auto* tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_findings);
    tables->addWidget(phasesPane);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(chartPane(m_chartTitleA, m_chartA));
    split->addWidget(chartPane(m_chartTitleB, m_chartB));
    split->addWidget(tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    // a separate window: Esc, Ctrl+W and the platform's close key close it (each key once: two
    // shortcuts on one key would be ambiguous and neither would fire)
    QList<QKeySequence> closeKeys = QKeySequence::keyBindings(QKeySequence::Close);
    for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_Escape)}) {
        if (!closeKeys.contains(key))
            closeKeys << key;
    }
    for (const QKeySequence& key : closeKeys) {
        auto* shortcut = new QShortcut(key, this);
        shortcut->setContext(Qt::WindowShortcut);
        connect(shortcut, &QShortcut::activated, this, &QWidget::close);
    }

    connect(m_openB, &QPushButton::clicked, this, [this] { chooseFile(Side::B); });
    connect(m_partitionA, &QComboBox::activated, this, [this] { analyse(Side::A); });
    connect(m_partitionB, &QComboBox::activated, this, [this] { analyse(Side::B); });
    connect(m_alignBox, &QComboBox::activated, this, [this] {
        const auto alignment = CompareAlignment::fromString(m_alignBox->currentData().toString());
        if (alignment)
            setAlignment(*alignment);
    });
    fillAlignments();
    resize(1200, 900);
}

CompareWindow::~CompareWindow() = default;

void CompareWindow::setThresholds(const GapThresholds& thresholds)
{
    m_thresholds = thresholds;
    analyse(Side::A);
    analyse(Side::B);
}

void CompareWindow::setAlignment(const CompareAlignment& alignment)
{
    m_alignment = alignment;
    const int index = m_alignBox->findData(alignment.toString());
    if (index >= 0)
        m_alignBox->setCurrentIndex(index);
    recompare();
}

void CompareWindow::setTrace(Side side, std::shared_ptr<const TraceData> trace,
                             std::optional<size_t> sessionIndex, std::optional<int64_t> rank)
{
    SideState& s = state(side);
    s.trace = std::move(trace);
    s.result.reset();
    s.error.clear();
    QLabel* name = side == Side::A ? m_nameA : m_nameB;
    const QString letter = side == Side::A ? QStringLiteral("A") : QStringLiteral("B");
    name->setText(
        s.trace ? QStringLiteral("<b>%1</b>: %2").arg(letter, htmlEscape(QFileInfo(s.trace->path).fileName()))
                : QStringLiteral("<b>%1</b>: (none)").arg(letter));
    name->setToolTip(s.trace ? s.trace->path : QString());
    fillPartitions(side, sessionIndex, rank);
    analyse(side);
}

void CompareWindow::openTrace(Side side, const QString& path)
{
    state(side).error.clear();
    m_status->setText(tr("Loading %1…").arg(path));
    state(side).load->start(path);
}

void CompareWindow::cancelLoad(Side side)
{
    state(side).load->cancel();
}

void CompareWindow::onLoadEnded(Side side, const QString& error)
{
    state(side).error = error;
    recompare();
}

void CompareWindow::waitForIdle()
{
    const auto busy = [this] {
        return m_a.load->isRunning() || m_b.load->isRunning() || m_a.job->isRunning() || m_b.job->isRunning();
    };
    for (int round = 0; round < 100 && busy(); ++round) {
        for (SideState* s : {&m_a, &m_b}) {
            s->load->waitForDone();
            s->job->waitForDone();
        }
        QCoreApplication::sendPostedEvents();
    }
}

void CompareWindow::fillPartitions(Side side, std::optional<size_t> sessionIndex, std::optional<int64_t> rank)
{
    QComboBox* box = partitionBox(side);
    box->clear();
    const auto& trace = state(side).trace;
    if (!trace)
        return;
    const std::optional<size_t> wantedSession = sessionIndex ? sessionIndex : trace->defaultSessionIndex();
    const Partition* wanted = wantedSession ? trace->partition(*wantedSession, rank) : nullptr;
    for (size_t i = 0; i < trace->partitions.size(); ++i) {
        const Partition& p = trace->partitions[i];
        box->addItem(partitionText(*trace, p), QVariant::fromValue(qulonglong(i)));
        if (wanted && p.sessionIndex == wanted->sessionIndex && p.rank == wanted->rank)
            box->setCurrentIndex(box->count() - 1);
    }
    box->setEnabled(box->count() > 1);
}

void CompareWindow::analyse(Side side)
{
    SideState& s = state(side);
    if (!s.trace)
        return;
    QComboBox* box = partitionBox(side);
    AnalysisRequest request;
    request.thresholds = m_thresholds;
    if (box->currentIndex() >= 0) {
        const Partition& p = s.trace->partitions[size_t(box->currentData().toULongLong())];
        request.sessionIndex = p.sessionIndex;
        request.rank = p.rank;
    }
    s.result.reset();
    s.job->start(s.trace, request);
}

void CompareWindow::onAnalysed(Side side, std::shared_ptr<const AnalysisResult> result, const QString& error)
{
    SideState& s = state(side);
    s.result = std::move(result);
    s.error = error;
    fillAlignments();
    recompare();
}

void CompareWindow::fillAlignments()
{
    const QString current = m_alignment.toString();
    m_alignBox->clear();
    m_alignBox->addItem(tr("Start of each run"), QStringLiteral("start"));
    if (m_a.result && m_b.result) {
        const auto labelsB = phaseLabelsOf(*m_b.result);
        for (const QString& label : phaseLabelsOf(*m_a.result)) {
            if (std::find(labelsB.begin(), labelsB.end(), label) != labelsB.end())
                m_alignBox->addItem(tr("Phase: %1").arg(label), QStringLiteral("phase:") + label);
        }
    }
    const int index = m_alignBox->findData(current);
    m_alignBox->setCurrentIndex(std::max(index, 0));
}

QString CompareWindow::statusText() const
{
    return m_status->text();
}

void CompareWindow::recompare()
{
    m_comparison.reset();
    m_error.clear();
    QStringList problems;
    for (auto [s, letter] : {std::pair{&m_a, "A"}, std::pair{&m_b, "B"}}) {
        if (!s->error.isEmpty())
            problems << QStringLiteral("%1: %2").arg(QLatin1String(letter), s->error);
    }
    if (problems.isEmpty() && m_a.result && m_b.result) {
        QString error;
        m_comparison = compareAnalyses(m_a.result, m_b.result, m_alignment, &error);
        if (!m_comparison)
            problems << error;
    }
    if (!problems.isEmpty())
        m_status->setText(problems.join(QLatin1Char('\n')));
    else if (m_comparison) {
        QString text = tr("%1 · aligned at %2")
                           .arg(comparisonCountsText(*m_comparison).chopped(1),
                                m_alignment.mode == CompareAlignment::Mode::Start
                                    ? tr("the start of each run")
                                    : tr("the first start of phase “%1”").arg(m_alignment.phaseLabel));
        // what the counts cannot say: a side blind to the gap, findings only below the gate
        for (const ComparisonCaution& caution : m_comparison->cautions)
            text += QLatin1Char('\n') + caution.text;
        m_status->setText(text);
    } else if (!m_b.trace)
        m_status->setText(tr("Open a trace as B to compare."));
    else
        m_status->setText(tr("Analysing…"));
    showComparison();
    emit comparisonChanged();
}

void CompareWindow::showComparison()
{
    showCharts();
    m_findings->clear();
    m_phases->setRowCount(0);
    m_phases->setVisible(m_comparison && !m_comparison->phases.empty());
    if (!m_comparison) {
        m_phasesNote->clear();
        return;
    }
    m_phasesNote->setText(
        m_comparison->phases.empty()
            ? tr("Neither run records phases (phase_enter / phase_exit events), so there are no "
                 "per-phase peaks to compare.")
            : tr("The largest gap inside each phase on A and on B, and B − A (— where a run has no "
                 "usable sample in that phase, or not the phase)."));
    const QPalette& palette = this->palette();
    for (const FindingComparison& f : m_comparison->findings) {
        auto* item = new QTreeWidgetItem(m_findings);
        item->setText(0, classificationTitle(f.classification));
        item->setData(0, Qt::UserRole, qs(toString(f.classification)));
        item->setToolTip(0, qs(toString(f.classification)));
        item->setText(1, toString(f.change));
        auto severity = [](const std::optional<Finding>& x) {
            return x ? qs(toString(x->severity)) : QStringLiteral("—");
        };
        auto confidence = [](const std::optional<Finding>& x) {
            return x ? gapscope::confidenceText(x->confidence) : QStringLiteral("—");
        };
        item->setText(2, QStringLiteral("%1 → %2").arg(severity(f.a), severity(f.b)));
        QString confidenceText = QStringLiteral("%1 → %2").arg(confidence(f.a), confidence(f.b));
        if (const auto d = f.confidenceDelta(); d && *d != 0)
            confidenceText +=
                QStringLiteral(" (%1%2)").arg(*d > 0 ? QStringLiteral("+") : QString(), percentText(*d));
        item->setText(3, confidenceText);
        QStringList deltas;
        for (const EvidenceDelta& delta : f.evidence) {
            if (!delta.delta() || *delta.delta() != 0)
                deltas << evidenceDeltaText(delta);
        }
        // one delta a line, wrapped: nothing is cut off
        item->setText(4, deltas.join(QLatin1Char('\n')));
        item->setToolTip(4, deltas.join(QLatin1Char('\n')));
        const Finding& shown = f.b ? *f.b : *f.a;
        const bool muted = f.change == FindingChange::Gone || f.change == FindingChange::NotComparable;
        if (f.change != FindingChange::Unchanged)
            item->setForeground(1, muted ? palette.color(QPalette::PlaceholderText)
                                         : severityTint(shown.severity, palette));
        if (f.change == FindingChange::NotComparable)
            item->setToolTip(1, tr("Only %1 can observe the gap: its absence on the other side says nothing")
                                    .arg(f.a ? QStringLiteral("A") : QStringLiteral("B")));
        QFont bold = item->font(1);
        bold.setBold(f.change != FindingChange::Unchanged);
        item->setFont(1, bold);
    }
    for (const PhasePeakDelta& phase : m_comparison->phases) {
        const int row = m_phases->rowCount();
        m_phases->insertRow(row);
        auto cell = [&](int column, const QString& text, bool right) {
            auto* item = new QTableWidgetItem(text);
            if (right)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_phases->setItem(row, column, item);
        };
        cell(0, phase.label, false);
        cell(1, phase.peakGapA ? bytesText(double(*phase.peakGapA)) : QStringLiteral("—"), true);
        cell(2, phase.peakGapB ? bytesText(double(*phase.peakGapB)) : QStringLiteral("—"), true);
        cell(3, phase.delta() ? signedBytesText(double(*phase.delta())) : QStringLiteral("—"), true);
    }
}

void CompareWindow::showCharts()
{
    const QString fileA = m_a.trace ? htmlEscape(QFileInfo(m_a.trace->path).fileName()) : QString();
    const QString fileB = m_b.trace ? htmlEscape(QFileInfo(m_b.trace->path).fileName()) : QString();
    // each side's notices under its name: a blind side says so where its chart is
    // (a circled i has no glyph in common fonts: information is said in a word)
    auto notices = [this](const SideState& s) {
        QString text;
        if (s.result) {
            for (const Notice& notice : s.result->notices)
                text += QStringLiteral("<br>%1 %2")
                            .arg(notice.severity == NoticeSeverity::Info ? tr("Info:") : QStringLiteral("⚠"),
                                 htmlEscape(qs(notice.title)));
        }
        return text;
    };
    m_chartTitleA->setText(QStringLiteral("<b>A</b>: %1").arg(fileA) + notices(m_a));
    m_chartTitleB->setText(
        tr("<b>B</b>: %1, with B − A (B's gap minus A's at the same aligned time)").arg(fileB) +
        notices(m_b));
    for (Side side : {Side::A, Side::B}) {
        const std::shared_ptr<const AnalysisResult> result =
            m_comparison ? (side == Side::A ? m_comparison->a.result : m_comparison->b.result) : nullptr;
        // a new alignment keeps the analyses: the zoom stays
        if (chartView(side)->analysis() != result)
            chartView(side)->setAnalysis(result);
    }
    if (!m_comparison) {
        m_chartB->setComparisonLine(QString(), {}, {});
        return;
    }
    std::vector<int64_t> times;
    std::vector<double> values;
    for (const AlignedGapPoint& point : m_comparison->gapDifference()) {
        times.push_back(point.offsetNs + m_comparison->b.originNs);
        values.push_back(double(point.gapBytes));
    }
    m_chartB->setComparisonLine(tr("B − A"), std::move(times), std::move(values));
    // B shows the aligned range A shows
    syncRange(Side::A, m_chartA->visibleBeginNs(), m_chartA->visibleEndNs());
}

qint64 CompareWindow::otherSideTime(Side from, qint64 ns) const
{
    if (!m_comparison)
        return ns;
    const ComparedSide& source = from == Side::A ? m_comparison->a : m_comparison->b;
    const ComparedSide& target = from == Side::A ? m_comparison->b : m_comparison->a;
    return ns - source.originNs + target.originNs;
}

void CompareWindow::syncRange(Side from, qint64 beginNs, qint64 endNs)
{
    if (m_syncing || !m_comparison)
        return;
    m_syncing = true;
    chartView(from == Side::A ? Side::B : Side::A)
        ->setVisibleRange(otherSideTime(from, beginNs), otherSideTime(from, endNs));
    m_syncing = false;
}

void CompareWindow::syncCursor(Side from, qint64 ns)
{
    chartView(from)->setCursorTime(ns);
    if (m_comparison)
        chartView(from == Side::A ? Side::B : Side::A)->setCursorTime(otherSideTime(from, ns));
}

void CompareWindow::chooseFile(Side side)
{
    const QString path =
        QFileDialog::getOpenFileName(this, side == Side::A ? tr("Open Trace A") : tr("Open Trace B"),
                                     QString(), tr("Traces (*.jsonl *.json *.csv *.ndjson);;All files (*)"));
    if (!path.isEmpty())
        openTrace(side, path);
}

} // namespace gapscope
