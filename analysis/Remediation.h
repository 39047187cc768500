#pragma once
// The project's own description and remediation text for each classification, worded for
// the trace's backend. Users may override it (see TextCatalog).

#include "analysis/Finding.h"

#include <string>
#include <vector>

namespace gapscope {

enum class Backend
{
    PyTorch,
    TensorFlow,
    Jax,
    Cpu,
    Unknown
};

// From a collector name ("stormlog.cuda_tracker") and/or metadata.backend ("cuda").
Backend backendFromTrace(std::string_view collector, std::string_view metadataBackend);
std::string_view toString(Backend backend);

struct FindingText
{
    std::string description;
    std::vector<std::string> remediation;
};

// Description (with the finding's own numbers filled in) and remediation steps.
FindingText describeFinding(const Finding& finding, Backend backend);

// Fills finding.description and finding.remediation.
void applyText(Finding& finding, Backend backend);

} // namespace gapscope
