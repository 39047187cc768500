#include "widgets/snapshot/SegmentMapExport.h"

#include "widgets/chart/ChartImage.h"

#include <algorithm>

namespace gapscope {

std::unique_ptr<SegmentMapView> createExportSegmentMap(std::shared_ptr<const SnapshotData> data, QSize size,
                                                       bool shrinkToContent, SegmentOrder order)
{
    auto map = std::make_unique<SegmentMapView>();
    prepareForExport(map.get(), size);
    map->setFrameShape(QFrame::NoFrame); // the picture's edge is the report's frame
    map->setFitToSize(true);
    map->setOrder(order);
    map->setSnapshot(std::move(data));
    map->show(); // offscreen: the resize handling lays the columns out at the size
    layOutChart(map.get(), size);
    if (shrinkToContent && map->drawnHeight() < size.height()) {
        size.setHeight(std::max(map->drawnHeight(), std::min(size.height(), 120)));
        layOutChart(map.get(), size); // everything fitted in one column: it still does
    }
    return map;
}

} // namespace gapscope
