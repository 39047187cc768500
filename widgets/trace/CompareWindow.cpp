#include "widgets/trace/CompareWindow.h"
#include "model/text/Text.h"

#include "model/jobs/LoadJob.h"
#include "model/store/Decimation.h"
#include "widgets/chart/ChartSupport.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

namespace gapscope {

namespace {

constexpr int kChartColumns = 1600; // min/max points per series, about a wide screen's pixels

QString partitionText(const TraceData& trace, const Partition& p)
{
    const SessionInfo& session = trace.sessions[p.sessionIndex];
    const QString id = session.id.isEmpty() ? QObject::tr("(no session id)") : session.id.left(13);
    return QObject::tr("%1 · rank %2 · %3").arg(id).arg(p.rank).arg(toString(session.status));
}

QString evidenceDeltaText(const EvidenceDelta& delta)
{
    const auto d = delta.delta();
    if (!d)
        return QObject::tr("%1 only on %2")
            .arg(qs(delta.key), delta.a ? QStringLiteral("A") : QStringLiteral("B"));
    QString value;
    if (delta.unit == EvidenceUnit::Bytes)
        value = signedBytesText(*d);
    else if (delta.unit == EvidenceUnit::BytesPerSecond)
        value = signedBytesText(*d) + QStringLiteral("/s");
    else
        value = (*d > 0 ? QStringLiteral("+") : QString()) + QString::number(*d, 'g', 4);
    return QStringLiteral("%1 %2").arg(qs(delta.key), value);
}

// The side's series on the shared axis: seconds from its origin, gap in GiB; min/max per column
// so a long run keeps its spikes.
struct Bounds
{
    double minX = INFINITY, maxX = -INFINITY, minY = INFINITY, maxY = -INFINITY;
    bool valid() const { return std::isfinite(minX) && std::isfinite(minY); }
};

QLineSeries* seriesOf(const ComparedSide& side, const QString& name, const QColor& color, Bounds* bounds)
{
    auto* series = new QLineSeries;
    series->setName(name);
    QPen pen(color);
    pen.setWidthF(1.6);
    series->setPen(pen);
    const AnalysisResult& result = *side.result;
    const EventStore& store = result.trace->store;
    const std::span<const int64_t> time(store.timestampNs);
    const std::span<const uint32_t> rows(result.usableRows);
    if (rows.empty())
        return series;
    const int64_t begin = time[rows.front()];
    const int64_t end = time[rows.back()];
    const auto kept = decimateMinMax(time, rows, RowSpan{0, rows.size()}, begin, end, kChartColumns,
                                     [&](uint32_t row) { return double(store.gapAt(row)); });
    QList<QPointF> points;
    points.reserve(qsizetype(kept.size()));
    for (uint32_t position : kept) {
        const uint32_t row = rows[position];
        const QPointF point(double(time[row] - side.originNs) / 1e9,
                            double(store.gapAt(row)) / double(1ull << 30));
        points.append(point);
        bounds->minX = std::min(bounds->minX, point.x());
        bounds->maxX = std::max(bounds->maxX, point.x());
        bounds->minY = std::min(bounds->minY, point.y());
        bounds->maxY = std::max(bounds->maxY, point.y());
    }
    series->replace(points);
    return series;
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

    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_chartView = new QChartView(chart, this);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(240);

    m_findings = new QTreeWidget(this);
    m_findings->setRootIsDecorated(false);
    m_findings->setHeaderLabels({tr("Finding"), tr("Change"), tr("Severity A → B"), tr("Confidence A → B"),
                                 tr("Evidence deltas (B − A)")});
    m_findings->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_findings->header()->setStretchLastSection(true);
    m_phases = new QTableWidget(0, 4, this);
    m_phases->setHorizontalHeaderLabels({tr("Phase"), tr("Peak gap A"), tr("Peak gap B"), tr("Delta")});
    m_phases->verticalHeader()->hide();
    m_phases->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_phases->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_phases->horizontalHeader()->setStretchLastSection(true);

    auto* tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_findings);
    tables->addWidget(m_phases);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chartView);
    split->addWidget(tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_openB, &QPushButton::clicked, this, [this] { chooseFile(Side::B); });
    connect(m_partitionA, &QComboBox::activated, this, [this] { analyse(Side::A); });
    connect(m_partitionB, &QComboBox::activated, this, [this] { analyse(Side::B); });
    connect(m_alignBox, &QComboBox::activated, this, [this] {
        const auto alignment = CompareAlignment::fromString(m_alignBox->currentData().toString());
        if (alignment)
            setAlignment(*alignment);
    });
    fillAlignments();
    resize(1100, 760);
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
    else if (m_comparison)
        m_status->setText(tr("%1 new, %2 gone, %3 changed, %4 unchanged · aligned at %5")
                              .arg(m_comparison->count(FindingChange::New))
                              .arg(m_comparison->count(FindingChange::Gone))
                              .arg(m_comparison->count(FindingChange::Changed))
                              .arg(m_comparison->count(FindingChange::Unchanged))
                              .arg(m_alignment.mode == CompareAlignment::Mode::Start
                                       ? tr("the start of each run")
                                       : tr("the first start of phase “%1”").arg(m_alignment.phaseLabel)));
    else if (!m_b.trace)
        m_status->setText(tr("Open a trace as B to compare."));
    else
        m_status->setText(tr("Analysing…"));
    showComparison();
    emit comparisonChanged();
}

void CompareWindow::showComparison()
{
    showChart();
    m_findings->clear();
    m_phases->setRowCount(0);
    if (!m_comparison)
        return;
    const QPalette& palette = this->palette();
    for (const FindingComparison& f : m_comparison->findings) {
        auto* item = new QTreeWidgetItem(m_findings);
        item->setText(0, qs(toString(f.classification)));
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
        item->setText(4, deltas.join(QStringLiteral("; ")));
        item->setToolTip(4, deltas.join(QLatin1Char('\n')));
        const Finding& shown = f.b ? *f.b : *f.a;
        if (f.change != FindingChange::Unchanged)
            item->setForeground(1, f.change == FindingChange::Gone ? palette.color(QPalette::PlaceholderText)
                                                                   : severityTint(shown.severity, palette));
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

void CompareWindow::showChart()
{
    QChart* chart = m_chartView->chart();
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis); // gives the axis back to us: without the delete it leaks
        delete axis;
    }
    const ChartColors colors = chartColors(palette());
    chart->setBackgroundBrush(colors.background);
    chart->legend()->setLabelColor(colors.text);
    if (!m_comparison) {
        chart->setTitle(QString());
        return;
    }
    Bounds bounds;
    const QColor colorA = colors.gap;
    const QColor colorB = colors.dark ? QColor(0xff, 0xa0, 0x40) : QColor(0xe0, 0x6c, 0x00);
    QLineSeries* a = seriesOf(m_comparison->a, tr("A: %1").arg(QFileInfo(m_comparison->a.path).fileName()),
                              colorA, &bounds);
    QLineSeries* b = seriesOf(m_comparison->b, tr("B: %1").arg(QFileInfo(m_comparison->b.path).fileName()),
                              colorB, &bounds);
    auto* x = new QValueAxis;
    x->setTitleText(m_alignment.mode == CompareAlignment::Mode::Start
                        ? tr("seconds since start")
                        : tr("seconds since phase “%1”").arg(m_alignment.phaseLabel));
    auto* y = new QValueAxis;
    y->setTitleText(tr("gap (GiB)"));
    m_chartView->setToolTip(tr("gap = device used − allocator reserved"));
    for (QValueAxis* axis : {x, y}) {
        axis->setLabelsColor(colors.text);
        axis->setTitleBrush(colors.text);
        axis->setGridLineColor(colors.grid);
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QLineSeries* series : {a, b}) {
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    if (bounds.valid()) {
        x->setRange(bounds.minX, std::max(bounds.maxX, bounds.minX + 1e-9));
        // the gap can be negative (allocator reserved more than the device reports used)
        y->setRange(std::min(bounds.minY, 0.0), std::max(bounds.maxY, bounds.minY + 1e-9) * 1.05);
        x->applyNiceNumbers();
        y->applyNiceNumbers();
    }
    if (m_alignment.mode == CompareAlignment::Mode::Phase && bounds.valid()) {
        // where both runs enter the phase
        auto* zero = new QLineSeries;
        zero->setName(tr("phase start"));
        QPen pen(colors.text);
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.0);
        zero->setPen(pen);
        zero->append(0, y->min());
        zero->append(0, y->max());
        chart->addSeries(zero);
        zero->attachAxis(x);
        zero->attachAxis(y);
    }
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
