#pragma once
// The cross-rank analyses in JSON, with upstream's field names and order (its dataclasses
// through asdict, its summary dict) and its numbers (floats as Python's repr writes them), so a
// report diffs cleanly against upstream's `collective_attribution` and `cross_rank_analysis`.
// Notes are in our words.

#include "model/job/JobAnalysis.h"

#include <QByteArray>

namespace gapscope {

class JsonWriter;

// The list upstream's report calls "collective_attribution".
void writeCollectiveAttributions(JsonWriter& json, const std::vector<CollectiveAttribution>& attributions);
// The object upstream's report calls "cross_rank_analysis". Beyond upstream only
// "missing_ranks_not_listed", when a world size names more missing ranks than are listed.
void writeCrossRankAnalysis(JsonWriter& json, const CrossRankAnalysis& analysis);
// Both as the keys of an object being written: "collective_attribution" always,
// "cross_rank_analysis" when the events hold more than one rank.
void writeJobAnalysisFields(JsonWriter& json, const JobAnalysisResult& result);
// {"collective_attribution": ..., "cross_rank_analysis": ...} and a line break.
QByteArray jobAnalysisJson(const JobAnalysisResult& result);

} // namespace gapscope
