#include "widgets/snapshot/SegmentMapExport.h"

#include "widgets/chart/ChartImage.h"

namespace gapscope {

std::unique_ptr<SegmentMapView> createExportSegmentMap(std::shared_ptr<const SnapshotData> data, QSize size,
                                                       SegmentOrder order)
{
    auto map = std::make_unique<SegmentMapView>();
    prepareForExport(map.get(), size);
    map->setFrameShape(QFrame::NoFrame); // the picture's edge is the report's frame
    map->setFitToSize(true);
    map->setOrder(order);
    map->setSnapshot(std::move(data));
    map->show(); // offscreen: the resize handling lays the columns out at the size
    layOutChart(map.get(), size);
    return map;
}

} // namespace gapscope
