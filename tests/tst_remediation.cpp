// Backend detection and the project's own finding texts (description with the finding's
// numbers, concrete remediation steps per backend).

#include "analysis/Remediation.h"
#include "analysis/Units.h"

#include <QtTest>

using namespace gapscope;

Q_DECLARE_METATYPE(gapscope::Backend)
Q_DECLARE_METATYPE(gapscope::Classification)

namespace {

Finding gapFinding(Classification classification)
{
    Finding finding;
    finding.classification = classification;
    finding.severity = Severity::Critical;
    switch (classification) {
    case Classification::TransientSpike:
        finding.evidence = {{"spike_count", 7, true, EvidenceUnit::Count},
                            {"max_gap_bytes", 11308576161.0, false, EvidenceUnit::Bytes},
                            {"max_zscore", 6.503, false, EvidenceUnit::ZScore},
                            {"mean_gap_bytes", 1835706638.4, false, EvidenceUnit::Bytes},
                            {"std_gap_bytes", 1456694045.7, false, EvidenceUnit::Bytes}};
        break;
    case Classification::PersistentDrift:
        finding.evidence = {{"slope_bytes_per_sec", 214641759.3, false, EvidenceUnit::BytesPerSecond},
                            {"r_squared", 0.9992, false, EvidenceUnit::Ratio},
                            {"p_value", 0.0, false, EvidenceUnit::Probability},
                            {"gap_start_bytes", 1560682765.0, false, EvidenceUnit::Bytes},
                            {"gap_end_bytes", 8095744630.0, false, EvidenceUnit::Bytes}};
        break;
    default:
        finding.evidence = {{"avg_fragmentation_ratio", 0.5238, false, EvidenceUnit::Ratio},
                            {"max_fragmentation_ratio", 0.6123, false, EvidenceUnit::Ratio},
                            {"avg_gap_bytes", 5368317239.3, false, EvidenceUnit::Bytes},
                            {"sample_count", 300, true, EvidenceUnit::Count}};
        break;
    }
    return finding;
}

// The numbers each description must quote, in the units a reader expects.
QStringList quotedNumbers(Classification classification)
{
    const auto bytes = [](double value) { return QString::fromStdString(formatBytes(value)); };
    switch (classification) {
    case Classification::TransientSpike:
        return {"7 transient spikes", bytes(11308576161.0), "6.50", bytes(1835706638.4), bytes(1456694045.7)};
    case Classification::PersistentDrift:
        return {QString::fromStdString(formatBytesPerSecond(214641759.3)),
                "0.9992",
                "p < 1e-6",
                bytes(1560682765.0),
                bytes(8095744630.0),
                bytes(214641759.3 * 3600)};
    default:
        return {"52.4%", "61.2%", "300 samples", bytes(5368317239.3)};
    }
}

} // namespace

class TestRemediation : public QObject
{
    Q_OBJECT

private slots:
    void backendDetection_data();
    void backendDetection();
    void backendNames();
    void gapTexts_data();
    void gapTexts();
    void stepsDifferPerBackend();
    void singleSpikeWording();
    void phaseIsNamed();
    void missingEvidenceStillDescribes();
    void budgetFindingsKeepTheirText();
    void applyTextFillsTheFinding();
    void jobTexts_data();
    void jobTexts();
};

void TestRemediation::backendDetection_data()
{
    QTest::addColumn<QString>("collector");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<Backend>("expected");
    QTest::newRow("cuda tracker") << "stormlog.cuda_tracker"
                                  << "" << Backend::PyTorch;
    QTest::newRow("cuda metadata") << "stormlog.cuda_tracker"
                                   << "cuda" << Backend::PyTorch;
    QTest::newRow("rocm") << "stormlog.rocm_tracker"
                          << "rocm" << Backend::PyTorch;
    QTest::newRow("mps") << "stormlog.mps_tracker"
                         << "" << Backend::PyTorch;
    QTest::newRow("tensorflow") << "stormlog.tensorflow.memory_tracker"
                                << "" << Backend::TensorFlow;
    QTest::newRow("tensorflow on cuda") << "stormlog.tensorflow.memory_tracker"
                                        << "cuda" << Backend::TensorFlow;
    QTest::newRow("jax") << "stormlog.jax.memory_tracker"
                         << "gpu" << Backend::Jax;
    QTest::newRow("cpu") << "stormlog.cpu_tracker"
                         << "" << Backend::Cpu;
    QTest::newRow("cpu metadata") << "stormlog.cpu_tracker"
                                  << "cpu" << Backend::Cpu;
    QTest::newRow("legacy cuda") << "legacy.unknown"
                                 << "cuda" << Backend::PyTorch;
    QTest::newRow("legacy tensorflow") << "legacy.csv"
                                       << "tensorflow" << Backend::TensorFlow;
    QTest::newRow("metadata only, padded") << ""
                                           << " JAX " << Backend::Jax;
    QTest::newRow("degraded cuda") << "stormlog.cuda_tracker_fallback"
                                   << "" << Backend::PyTorch;
    QTest::newRow("unknown") << "legacy.unknown"
                             << "" << Backend::Unknown;
    QTest::newRow("empty") << ""
                           << "" << Backend::Unknown;
}

void TestRemediation::backendDetection()
{
    QFETCH(QString, collector);
    QFETCH(QString, backend);
    QFETCH(Backend, expected);
    QVERIFY(backendFromTrace(collector.toStdString(), backend.toStdString()) == expected);
}

void TestRemediation::backendNames()
{
    QCOMPARE(toString(Backend::PyTorch), std::string_view("PyTorch"));
    QCOMPARE(toString(Backend::TensorFlow), std::string_view("TensorFlow"));
    QCOMPARE(toString(Backend::Jax), std::string_view("JAX"));
    QCOMPARE(toString(Backend::Cpu), std::string_view("CPU"));
    QCOMPARE(toString(Backend::Unknown), std::string_view("unknown"));
}

void TestRemediation::gapTexts_data()
{
    QTest::addColumn<Classification>("classification");
    QTest::addColumn<Backend>("backend");
    QTest::addColumn<QStringList>("keywords"); // concrete knobs the steps must name

    const auto spike = Classification::TransientSpike;
    const auto drift = Classification::PersistentDrift;
    const auto fragmentation = Classification::FragmentationLike;
    QTest::newRow("spike pytorch") << spike << Backend::PyTorch
                                   << QStringList{"NCCL", "cudnn.benchmark", "CUBLAS_WORKSPACE_CONFIG"};
    QTest::newRow("drift pytorch") << drift << Backend::PyTorch
                                   << QStringList{"graph_pool_handle", "_record_memory_history",
                                                  "mem_get_info"};
    QTest::newRow("fragmentation pytorch")
        << fragmentation << Backend::PyTorch
        << QStringList{"expandable_segments:True", "max_split_size_mb", "garbage_collection_threshold",
                       "torch.cuda.empty_cache()", "memory_snapshot"};
    QTest::newRow("spike tensorflow")
        << spike << Backend::TensorFlow << QStringList{"get_memory_info", "TF_CUDNN_USE_AUTOTUNE", "XLA"};
    QTest::newRow("drift tensorflow")
        << drift << Backend::TensorFlow
        << QStringList{"reduce_retracing", "clear_session", "cuda_malloc_async"};
    QTest::newRow("fragmentation tensorflow")
        << fragmentation << Backend::TensorFlow
        << QStringList{"TF_GPU_ALLOCATOR=cuda_malloc_async", "set_memory_growth", "get_memory_info", "XLA"};
    QTest::newRow("spike jax") << spike << Backend::Jax
                               << QStringList{"jax_log_compiles", "jax.live_arrays()",
                                              "XLA_PYTHON_CLIENT_MEM_FRACTION"};
    QTest::newRow("drift jax") << drift << Backend::Jax
                               << QStringList{"jax.clear_caches()", "jax.live_arrays()",
                                              "XLA_PYTHON_CLIENT_ALLOCATOR=platform"};
    QTest::newRow("fragmentation jax")
        << fragmentation << Backend::Jax
        << QStringList{"XLA_PYTHON_CLIENT_PREALLOCATE=false", "XLA_PYTHON_CLIENT_MEM_FRACTION",
                       "XLA_PYTHON_CLIENT_ALLOCATOR=platform"};
    QTest::newRow("spike cpu") << spike << Backend::Cpu
                               << QStringList{"smaps_rollup", "mmap_threshold", "MALLOC_ARENA_MAX"};
    QTest::newRow("drift cpu") << drift << Backend::Cpu
                               << QStringList{"MALLOC_ARENA_MAX", "jemalloc", "tcmalloc", "tracemalloc",
                                              "malloc_trim"};
    QTest::newRow("fragmentation cpu")
        << fragmentation << Backend::Cpu
        << QStringList{"MALLOC_ARENA_MAX", "mmap_threshold", "trim_threshold", "jemalloc"};
    QTest::newRow("spike unknown") << spike << Backend::Unknown << QStringList{"headroom"};
    QTest::newRow("drift unknown") << drift << Backend::Unknown << QStringList{"bisect"};
    QTest::newRow("fragmentation unknown") << fragmentation << Backend::Unknown << QStringList{"arena"};
}

void TestRemediation::gapTexts()
{
    QFETCH(Classification, classification);
    QFETCH(Backend, backend);
    QFETCH(QStringList, keywords);
    const FindingText text = describeFinding(gapFinding(classification), backend);
    const QString description = QString::fromStdString(text.description);
    for (const QString& number : quotedNumbers(classification))
        QVERIFY2(description.contains(number), qPrintable(number + " missing in: " + description));
    QVERIFY2(text.remediation.size() >= 3 && text.remediation.size() <= 5, qPrintable(description));
    QString steps;
    for (const auto& step : text.remediation) {
        QVERIFY(step.size() > 40); // a step says what to do and why, not a keyword
        steps += QString::fromStdString(step) + '\n';
    }
    for (const QString& keyword : keywords)
        QVERIFY2(steps.contains(keyword), qPrintable(keyword + " missing in:\n" + steps));
}

void TestRemediation::stepsDifferPerBackend()
{
    for (const auto classification : {Classification::TransientSpike, Classification::PersistentDrift,
                                      Classification::FragmentationLike}) {
        const Finding finding = gapFinding(classification);
        const auto torch = describeFinding(finding, Backend::PyTorch);
        const auto tf = describeFinding(finding, Backend::TensorFlow);
        const auto jax = describeFinding(finding, Backend::Jax);
        const auto cpu = describeFinding(finding, Backend::Cpu);
        QVERIFY(torch.remediation != tf.remediation);
        QVERIFY(tf.remediation != jax.remediation);
        QVERIFY(jax.remediation != cpu.remediation);
        // The description names the allocator of the backend.
        QVERIFY(QString::fromStdString(torch.description).contains("caching allocator"));
        QVERIFY(QString::fromStdString(tf.description).contains("BFC allocator"));
        QVERIFY(QString::fromStdString(jax.description).contains("XLA"));
    }
}

void TestRemediation::singleSpikeWording()
{
    Finding finding = gapFinding(Classification::TransientSpike);
    finding.evidence[0].value = 1;
    const QString description =
        QString::fromStdString(describeFinding(finding, Backend::PyTorch).description);
    QVERIFY2(description.startsWith("1 transient spike in"), qPrintable(description));
}

void TestRemediation::phaseIsNamed()
{
    Finding finding = gapFinding(Classification::TransientSpike);
    PhaseAttribution unique;
    unique.phasePath = "train / step";
    unique.phasePaths = {"train / step"};
    finding.phase = unique;
    QVERIFY(QString::fromStdString(describeFinding(finding, Backend::PyTorch).description)
                .contains("during phase \"train / step\""));
    PhaseAttribution ambiguous;
    ambiguous.resolution = PhaseResolution::Ambiguous;
    ambiguous.phasePaths = {"evaluate", "train"};
    ambiguous.summary = PhaseSummary{"evaluate", "heuristic"};
    finding.phase = ambiguous;
    QVERIFY(QString::fromStdString(describeFinding(finding, Backend::PyTorch).description)
                .contains("most likely \"evaluate\""));
}

void TestRemediation::missingEvidenceStillDescribes()
{
    for (const auto classification :
         {Classification::TransientSpike, Classification::PersistentDrift, Classification::FragmentationLike,
          Classification::CollectiveMemory, Classification::FirstCause, Classification::RankDivergence}) {
        Finding finding;
        finding.classification = classification;
        const FindingText text = describeFinding(finding, Backend::Cpu);
        QVERIFY(!text.description.empty());
        QVERIFY(QString::fromStdString(text.description).indexOf(QRegularExpression("[0-9]")) < 0);
        QVERIFY(!text.remediation.empty());
    }
}

void TestRemediation::budgetFindingsKeepTheirText()
{
    Finding finding;
    finding.classification = Classification::AllocatorRetention;
    finding.description = "The allocator kept 2.00 GiB after the caches were dropped.";
    finding.remediation = {"Lower the retention limit.", "Trim after each phase."};
    const FindingText text = describeFinding(finding, Backend::PyTorch);
    QCOMPARE(text.description, finding.description);
    QCOMPARE(text.remediation, finding.remediation);
    Finding applied = finding;
    applyText(applied, Backend::Jax);
    QCOMPARE(applied.description, finding.description);
    QCOMPARE(applied.remediation, finding.remediation);
}

void TestRemediation::applyTextFillsTheFinding()
{
    Finding finding = gapFinding(Classification::PersistentDrift);
    applyText(finding, Backend::TensorFlow);
    const FindingText expected =
        describeFinding(gapFinding(Classification::PersistentDrift), Backend::TensorFlow);
    QCOMPARE(finding.description, expected.description);
    QCOMPARE(finding.remediation, expected.remediation);
}

void TestRemediation::jobTexts_data()
{
    QTest::addColumn<Backend>("backend");
    QTest::addColumn<QString>("headroom"); // how the backend leaves room for NCCL's memory
    QTest::newRow("pytorch") << Backend::PyTorch << "set_per_process_memory_fraction";
    QTest::newRow("tensorflow") << Backend::TensorFlow << "memory_limit";
    QTest::newRow("jax") << Backend::Jax << "XLA_PYTHON_CLIENT_MEM_FRACTION";
    QTest::newRow("unknown") << Backend::Unknown << "headroom";
}

void TestRemediation::jobTexts()
{
    QFETCH(Backend, backend);
    QFETCH(QString, headroom);
    Finding collective;
    collective.classification = Classification::CollectiveMemory;
    collective.rank = 2;
    collective.confidence = 0.925;
    collective.evidence = {{"collective_class", 0, false, EvidenceUnit::Count, "collective_confident"},
                           {"marker_hits", 3, true, EvidenceUnit::Count},
                           {"synchronized_ranks", 3, true, EvidenceUnit::Count},
                           {"expected_world_size", 4, true, EvidenceUnit::Count},
                           {"peak_gap_bytes", 1610612736, true, EvidenceUnit::Bytes},
                           {"peak_gap_ratio", 0.0188, false, EvidenceUnit::Ratio},
                           {"interval_duration_ns", 240'000'000, true, EvidenceUnit::Nanoseconds}};
    const FindingText c = describeFinding(collective, backend);
    const QString description = QString::fromStdString(c.description);
    for (const QString& quoted :
         {QStringLiteral("Rank 2"), QStringLiteral("1.50 GiB"), QStringLiteral("1.9%"),
          QStringLiteral("240 ms"), QStringLiteral("3 collective markers"), QStringLiteral("3 of 4 ranks"),
          QStringLiteral("collective_confident"), QStringLiteral("0.925")})
        QVERIFY2(description.contains(quoted), qPrintable(description + " lacks " + quoted));
    QString steps;
    for (const std::string& step : c.remediation)
        steps += QString::fromStdString(step) + '\n';
    for (const QString& word : {QStringLiteral("NCCL_BUFFSIZE"), QStringLiteral("NCCL_MAX_NCHANNELS"),
                                QStringLiteral("process group"), QStringLiteral("initialise"), headroom})
        QVERIFY2(steps.contains(word), qPrintable(word));

    Finding firstCause;
    firstCause.classification = Classification::FirstCause;
    firstCause.rank = 3;
    firstCause.evidence = {{"first_cause_confidence", 0, false, EvidenceUnit::Count, "high"},
                           {"device_used_delta_bytes", 5159400000, true, EvidenceUnit::Bytes},
                           {"spike_window_samples", 6, true, EvidenceUnit::Count},
                           {"lead_over_cluster_onset_ns", 300'000'000, true, EvidenceUnit::Nanoseconds},
                           {"supporting_ranks_at_or_before_onset", 4, true, EvidenceUnit::Count}};
    const FindingText f = describeFinding(firstCause, backend);
    const QString why = QString::fromStdString(f.description);
    for (const QString& quoted :
         {QStringLiteral("Rank 3"), QStringLiteral("4.81 GiB"), QStringLiteral("6 samples"),
          QStringLiteral("300 ms before"), QStringLiteral("4 ranks"), QStringLiteral("high")})
        QVERIFY2(why.contains(quoted), qPrintable(why + " lacks " + quoted));
    QVERIFY(QString::fromStdString(f.remediation.front()).contains(QStringLiteral("data loader")));
}

QTEST_GUILESS_MAIN(TestRemediation)
#include "tst_remediation.moc"
