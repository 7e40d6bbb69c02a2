#pragma once

#include "JsonText.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTabWidget;
class QTreeView;

namespace triage {

class JsonTreeModel;
class MessageBar;

/// Shows one JSON text (snapshot, payload, request, …) two ways: a lazy tree
/// (JsonTreeModel: key / value / type, branches built on expand) and the raw text exactly
/// as stored (QJsonDocument rewrites numbers, so the raw tab is the evidence). Big texts are
/// parsed off the GUI thread by the model. Invalid JSON shows the raw text, the parse error
/// with line / column / offset in an inline error bar, and marks the error position; SQL
/// NULL shows "NULL". The raw tab shows at most rawDisplayLimit() characters (laying out a
/// 10 MB line would stall the GUI thread) and says so; the tree always has everything.
class JsonView : public QWidget {
    Q_OBJECT
public:
    /// An empty view (tree tab with a blank placeholder).
    explicit JsonView(QWidget *parent = nullptr);

    /// Shows `text` (nullopt = SQL NULL) under the caption `title` ("result_snapshot").
    void setJsonText(const QString &title, const std::optional<QString> &text);
    /// Empties the view and shows `placeholder` in the tree tab.
    void clear(const QString &placeholder = {});

    /// The parse error shown in the error bar ("" when the text is valid JSON or NULL).
    QString errorText() const;
    /// True while a big text is being parsed.
    bool isParsing() const;
    /// Characters the raw tab shows at most (512 Ki).
    static constexpr qsizetype rawDisplayLimit() { return 512 * 1024; }
    /// Parts, for tests: the tree model, the tree, the raw text and the Tree/Raw tabs.
    JsonTreeModel *model() const { return m_model; }
    QTreeView *tree() const { return m_tree; }
    QPlainTextEdit *rawView() const { return m_raw; }
    QTabWidget *tabs() const { return m_tabs; }

signals:
    /// The current text has been parsed and the tree (or the error) is shown.
    void loaded();

private:
    void onParsed(const ParsedJson &result);
    void showPlaceholder(const QString &text);

    QLabel *m_title;
    QLabel *m_info;
    MessageBar *m_error;
    QTabWidget *m_tabs;
    QStackedWidget *m_treeStack;
    QTreeView *m_tree;
    QLabel *m_placeholder;
    QPlainTextEdit *m_raw;
    JsonTreeModel *m_model;
};

} // namespace triage
