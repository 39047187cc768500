#pragma once
// The message a failed open leaves in the window (issue 17 item 5): what was opened, why it
// failed, which readers were tried, what the file looks like and which inputs are accepted.
// It stays until dismissed (its button or Esc) or until another file is opened, unlike a
// status-bar line, which is cut off and vanishes.

#include <QFrame>

class QLabel;
class QPushButton;

namespace gapscope {

struct LoadFailureExplanation;

class LoadFailureBanner : public QFrame
{
    Q_OBJECT
public:
    explicit LoadFailureBanner(QWidget* parent = nullptr);

    void showFailure(const LoadFailureExplanation& explanation);
    // The message as plain text, empty while hidden.
    QString text() const;
    QPushButton* dismissButton() const { return m_dismiss; }

public slots:
    void dismiss();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QLabel* m_label = nullptr;
    QPushButton* m_dismiss = nullptr;
    QString m_plainText;
};

} // namespace gapscope
