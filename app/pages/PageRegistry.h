#pragma once
// The one list of document pages. Each tab (app/DocumentTab) builds one page of every entry, in
// this order, and hands a loaded document to the first page whose entry takes it; the shell
// names no page. Adding a page (a snapshot page, a fleet page) is one DocumentPage subclass and
// one entry in pageRegistry() (PageRegistry.cpp), plus the kind of document it takes in
// LoadedDocument when that is new.

#include "analysis/Thresholds.h"
#include "app/pages/LoadedDocument.h"

#include <vector>

class QAction;
class QWidget;

namespace gapscope {

class DocumentPage;

// What a page is built with.
struct PageContext
{
    QAction* resetZoomAction = nullptr; // the shell's (one shortcut per window)
    GapThresholds thresholds;
};

struct PageRegistration
{
    const char* objectName;
    DocumentPage* (*create)(const PageContext& context, QWidget* parent);
    // Whether this page opens the document (the other pages are told, DocumentPage::openBeside).
    bool (*takes)(const LoadedDocument& document);
    // The chart areas of the pages that share the room ask for the room of the largest of them
    // (DocumentPage::shareChartRoomWith), so the splitter sits still between their documents.
    bool sharesChartRoom;
};

// In the order of the tab's stack: the first is the page an empty tab shows.
const std::vector<PageRegistration>& pageRegistry();

} // namespace gapscope
