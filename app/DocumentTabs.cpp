#include "app/DocumentTabs.h"

#include "app/DocumentTab.h"
#include "app/pages/DocumentPage.h"
#include "widgets/common/WelcomePage.h"

#include <QFileInfo>
#include <QTabBar>
#include <QTabWidget>

namespace gapscope {

DocumentTabs::DocumentTabs(TabFactory makeTab, QWidget* parent)
    : QStackedWidget(parent), m_makeTab(std::move(makeTab))
{
    m_welcome = new WelcomePage(this);
    addWidget(m_welcome);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("documentTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setTabsClosable(true);
    m_tabs->setMovable(true);
    m_tabs->setTabBarAutoHide(true); // one document looks as it did before tabs
    m_tabs->setElideMode(Qt::ElideMiddle);
    // Tab walks the panes, not into the tab bar (hidden with one document, it would keep the
    // focus); Ctrl+Tab switches documents
    m_tabs->setFocusPolicy(Qt::NoFocus);
    m_tabs->tabBar()->setFocusPolicy(Qt::NoFocus);
    connect(m_tabs, &QTabWidget::currentChanged, this, &DocumentTabs::onCurrentChanged);
    connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
        if (auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(index)))
            emit closeRequested(tab);
    });
    addWidget(m_tabs);
}

DocumentTab* DocumentTabs::add()
{
    DocumentTab* tab = m_makeTab(m_tabs);
    m_tabs->addTab(tab, tr("gapscope"));
    if (!m_current)
        onCurrentChanged(m_tabs->indexOf(tab));
    return tab;
}

QList<DocumentTab*> DocumentTabs::all() const
{
    QList<DocumentTab*> tabs;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(i)))
            tabs << tab;
    return tabs;
}

bool DocumentTabs::isWelcomeShown() const
{
    return currentWidget() == m_welcome;
}

void DocumentTabs::show(QWidget* page)
{
    if (page == m_welcome) {
        setCurrentWidget(m_welcome);
    } else {
        setCurrentWidget(m_tabs);
        m_current->setCurrentWidget(page);
    }
}

void DocumentTabs::remove(DocumentTab* tab)
{
    if (m_tabs->count() < 2 || m_tabs->indexOf(tab) < 0)
        return;
    if (m_loadTab == tab)
        m_loadTab = nullptr;
    m_tabs->removeTab(m_tabs->indexOf(tab));
}

void DocumentTabs::onCurrentChanged(int index)
{
    auto* tab = qobject_cast<DocumentTab*>(m_tabs->widget(index));
    if (!tab || tab == m_current)
        return;
    m_current = tab;
    emit currentTabChanged(tab);
}

bool DocumentTabs::shows(const DocumentTab* tab, const QStringList& paths)
{
    const auto canonical = [](const QString& path) {
        const QFileInfo info(path);
        return info.canonicalFilePath().isEmpty() ? info.absoluteFilePath() : info.canonicalFilePath();
    };
    QStringList wanted;
    for (const QString& path : paths)
        wanted << canonical(path);
    wanted.sort();
    // a page shows its inputs (a job: every rank's), or its path (a job: their folder)
    for (const DocumentPage* page : tab->pages()) {
        if (!page->hasDocument())
            continue;
        QStringList shown;
        for (const QString& path : page->reloadPaths())
            shown << canonical(path);
        shown.sort();
        if (shown == wanted || (wanted.size() == 1 && canonical(page->documentPath()) == wanted.front()))
            return true;
    }
    return false;
}

void DocumentTabs::chooseLoadTab(const QStringList& paths)
{
    const bool inFront = !m_current->hasDocument() || shows(m_current, paths);
    m_loadTab = inFront ? m_current : nullptr;
    // Results of the document shown now must not land after the new one starts loading in
    // its place.
    if (inFront)
        for (DocumentPage* page : m_current->pages())
            page->discardAnalysis();
}

std::optional<QString> DocumentTabs::updateTitle(DocumentTab* tab, const QString& samplePath)
{
    const QString& path = tab->state().displayPath;
    const int index = m_tabs->indexOf(tab);
    if (path.isEmpty()) {
        m_tabs->setTabText(index, tr("(empty)"));
        m_tabs->setTabToolTip(index, {});
        return std::nullopt;
    }
    // the bundled sample by the name it is shown under; any other document as the page in
    // front names it
    const DocumentPage* page = tab->documentPage();
    const QString name = page->documentPath() == samplePath ? path : page->documentTitle(path);
    m_tabs->setTabText(index, name.isEmpty() ? path : name);
    m_tabs->setTabToolTip(index, path);
    return name;
}

DocumentTab* DocumentTabs::takeLoadTab()
{
    DocumentTab* tab = m_loadTab ? m_loadTab.data() : add();
    m_loadTab = tab; // a reload of what it now shows stays in it
    m_tabs->setCurrentWidget(tab);
    return tab;
}

} // namespace gapscope
