#include "app/pages/PageRegistry.h"

#include "app/pages/BudgetPage.h"
#include "app/pages/FleetPage.h"
#include "app/pages/JobPage.h"
#include "app/pages/SnapshotPage.h"
#include "app/pages/TracePage.h"

namespace gapscope {

const std::vector<PageRegistration>& pageRegistry()
{
    static const std::vector<PageRegistration> pages{
        {"tracePage",
         [](const PageContext& context, QWidget* parent) -> DocumentPage* {
             return new TracePage(context.resetZoomAction, context.thresholds, parent);
         },
         [](const LoadedDocument& document) { return document.trace != nullptr; }, true},
        {"budgetPage",
         [](const PageContext& context, QWidget* parent) -> DocumentPage* {
             return new BudgetPage(context.resetZoomAction, context.thresholds, parent);
         },
         [](const LoadedDocument& document) { return document.budget != nullptr; }, true},
        {"jobPage",
         [](const PageContext& context, QWidget* parent) -> DocumentPage* {
             auto* page = new JobPage(context.resetZoomAction, parent);
             page->setThresholds(context.thresholds); // its rank table and export analyse every rank
             return page;
         },
         [](const LoadedDocument& document) { return document.job != nullptr; }, false},
        {"snapshotPage",
         [](const PageContext& context, QWidget* parent) -> DocumentPage* {
             return new SnapshotPage(context.resetZoomAction, parent);
         },
         [](const LoadedDocument& document) { return document.snapshot != nullptr; }, false},
        {"fleetPage",
         [](const PageContext& context, QWidget* parent) -> DocumentPage* {
             return new FleetPage(context.resetZoomAction, parent);
         },
         [](const LoadedDocument& document) { return document.fleet != nullptr; }, false},
    };
    return pages;
}

} // namespace gapscope
