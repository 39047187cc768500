#pragma once
// The strip over the chart while the findings shown are those of a time window, with the
// button that returns to the analysis of the whole document. The shell has one and places it
// in the page shown, which supplies its text.

#include <QFrame>

class QLabel;

namespace gapscope {

class WindowBanner : public QFrame
{
    Q_OBJECT
public:
    explicit WindowBanner(QWidget* parent = nullptr);
    // Shows text; an empty text hides the banner.
    void setText(const QString& text);
    // The text shown, empty while hidden.
    QString text() const;

signals:
    void resetRequested();

private:
    QLabel* m_label = nullptr;
};

} // namespace gapscope
