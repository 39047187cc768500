#pragma once
// The segment map of a PyTorch memory snapshot built for export (the snapshot reports,
// `gapscope export --format png|svg`, "Save Chart As..."), as widgets/export/ChartExport builds
// the gap chart: off screen, in the light palette, laid out at the size asked for, and with every
// segment inside that size (SegmentMapView::setFitToSize): a picture has nothing to scroll to.

#include "widgets/snapshot/SegmentMapView.h"

#include <QSize>

#include <memory>

namespace gapscope {

// shrinkToContent: a map that needs less than size's height is laid out only as high as it
// needs (120 px at the least), as a report's picture; its size() is the picture's. Else (PNG, SVG)
// it is exactly size.
std::unique_ptr<SegmentMapView> createExportSegmentMap(std::shared_ptr<const SnapshotData> data, QSize size,
                                                       bool shrinkToContent = false,
                                                       SegmentOrder order = SegmentOrder::Address);

} // namespace gapscope
