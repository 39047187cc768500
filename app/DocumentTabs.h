#pragma once
// The middle of the window: the welcome page, or the open documents in tabs (DocumentTab, one
// per document; the tab bar shows from two on). It knows which tab is in front and where the
// load running goes (the tab in front when it is empty or shows the same files, else a new
// tab made once the document has loaded); the shell makes each tab (the factory wires its
// pages) and closes them.

#include <QPointer>
#include <QStackedWidget>

#include <functional>
#include <optional>

class QTabWidget;

namespace gapscope {

class DocumentPage;
class DocumentTab;
class WelcomePage;

class DocumentTabs : public QStackedWidget
{
    Q_OBJECT
public:
    using TabFactory = std::function<DocumentTab*(QWidget* parent)>;
    DocumentTabs(TabFactory makeTab, QWidget* parent);

    // A new tab from the factory, at the end (the first one comes to the front).
    DocumentTab* add();
    DocumentTab* current() const { return m_current; }
    QList<DocumentTab*> all() const;
    QTabWidget* tabWidget() const { return m_tabs; }
    WelcomePage* welcome() const { return m_welcome; }
    bool isWelcomeShown() const;
    // The welcome page, or page in the tab in front.
    void show(QWidget* page);
    // Removes tab (not the only one) from the tabs; the caller deletes it.
    void remove(DocumentTab* tab);

    // Where the document(s) at paths go when loaded: the tab in front when it is empty or shows
    // them (Reload; its pages drop an analysis still running), else a new one (null).
    void chooseLoadTab(const QStringList& paths);
    DocumentTab* loadTab() const { return m_loadTab; }
    // A load finished: the tab chosen (made now when new) is brought to the front.
    DocumentTab* takeLoadTab();
    // Whether tab shows the files at paths (a job's inputs, or the one document).
    static bool shows(const DocumentTab* tab, const QStringList& paths);
    // The tab's text and tooltip for what it shows; the name for the window's title, none
    // while the tab is empty. Named by what the document is (model/document/OpenPlan
    // documentName): a job by its id, a run by the folder above its sink and its rank, not
    // "telemetry_sink"; the bundled sample (at samplePath) by the name it is shown with.
    std::optional<QString> updateTitle(DocumentTab* tab, const QString& samplePath);

signals:
    void currentTabChanged(gapscope::DocumentTab* tab);
    // The tab bar's close button.
    void closeRequested(gapscope::DocumentTab* tab);

private:
    void onCurrentChanged(int index);

    TabFactory m_makeTab;
    WelcomePage* m_welcome = nullptr;
    QTabWidget* m_tabs = nullptr;
    DocumentTab* m_current = nullptr;
    QPointer<DocumentTab> m_loadTab; // null: a new tab
};

} // namespace gapscope
