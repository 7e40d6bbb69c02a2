#include "JsonView.h"

#include "CellDelegate.h"
#include "JsonTreeModel.h"
#include "Log.h"
#include "MessageBar.h"
#include "Theme.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBlock>
#include <QTreeView>
#include <QVBoxLayout>

namespace triage {

namespace {

QString sizeText(qint64 characters)
{
    if (characters < 10 * 1024)
        return QStringLiteral("%1 characters").arg(characters);
    if (characters < 10 * 1024 * 1024)
        return QStringLiteral("%1 K characters").arg(characters / 1024);
    return QStringLiteral("%1 M characters").arg(characters / (1024 * 1024));
}

} // namespace

JsonView::JsonView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_info(new QLabel(this)), m_error(new MessageBar(this)),
      m_tabs(new QTabWidget(this)), m_treeStack(new QStackedWidget(this)), m_tree(new QTreeView(this)),
      m_placeholder(new QLabel(this)), m_raw(new QPlainTextEdit(this)), m_model(new JsonTreeModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto *caption = new QHBoxLayout;
    caption->setContentsMargins(2, 0, 2, 0);
    m_title->setObjectName(QStringLiteral("jsonTitle"));
    m_title->setStyleSheet(QStringLiteral("font-weight: bold;"));
    m_info->setObjectName(QStringLiteral("jsonInfo"));
    m_info->setStyleSheet(QStringLiteral("color: %1;").arg(theme::mutedText().name()));
    caption->addWidget(m_title);
    caption->addStretch(1);
    caption->addWidget(m_info);
    layout->addLayout(caption);
    m_error->setObjectName(QStringLiteral("jsonError"));
    layout->addWidget(m_error);

    m_tree->setModel(m_model);
    m_tree->setItemDelegate(new CellDelegate(m_tree));
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::KeyColumn, QHeaderView::Interactive);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::ValueColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::TypeColumn, QHeaderView::Fixed);
    m_tree->header()->resizeSection(JsonTreeModel::KeyColumn, 170);
    m_tree->header()->resizeSection(JsonTreeModel::TypeColumn, 64);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("color: %1; font-style: italic;").arg(theme::mutedText().name()));
    m_treeStack->addWidget(m_tree);
    m_treeStack->addWidget(m_placeholder);

    m_raw->setReadOnly(true);
    m_raw->setFont(theme::monospaceFont(-0.5));
    m_raw->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_raw->setObjectName(QStringLiteral("jsonRaw"));

    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_treeStack, QStringLiteral("Tree"));
    m_tabs->addTab(m_raw, QStringLiteral("Raw"));
    layout->addWidget(m_tabs, 1);

    connect(m_model, &JsonTreeModel::parsed, this, &JsonView::onParsed);
    connect(m_model, &JsonTreeModel::parsingChanged, this, [this](bool parsing) {
        if (parsing)
            showPlaceholder(QStringLiteral("Parsing %1 …").arg(m_info->text()));
    });
    clear();
}

void JsonView::clear(const QString &placeholder)
{
    m_title->clear();
    m_info->clear();
    m_error->clearMessage();
    m_model->clear();
    m_raw->clear();
    showPlaceholder(placeholder);
}

void JsonView::showPlaceholder(const QString &text)
{
    m_placeholder->setText(text);
    m_treeStack->setCurrentWidget(m_placeholder);
}

void JsonView::setJsonText(const QString &title, const std::optional<QString> &text)
{
    m_title->setText(title);
    m_error->clearMessage();
    m_raw->setExtraSelections({});
    if (!text) {
        m_info->setText(QStringLiteral("NULL"));
        m_raw->setPlainText(QStringLiteral("NULL"));
        m_model->clear();
        m_tabs->setCurrentIndex(0);
        showPlaceholder(QStringLiteral("NULL: the column holds no value"));
        emit loaded();
        return;
    }
    m_info->setText(sizeText(text->size()));
    if (text->size() > rawDisplayLimit()) {
        m_raw->setPlainText(text->left(rawDisplayLimit()));
        m_info->setText(QStringLiteral("%1 (raw tab: the first %2)").arg(sizeText(text->size()), sizeText(rawDisplayLimit())));
    } else {
        m_raw->setPlainText(*text);
    }
    m_model->setJsonText(text); // emits parsed() now (small) or later (big)
}

void JsonView::onParsed(const ParsedJson &result)
{
    if (result.ok) {
        if (!result.duplicateKeys.isEmpty())
            m_error->showMessage(MessageBar::Level::Warning,
                                 QStringLiteral("Duplicate keys (%1): every occurrence is shown and flagged; a JSON parser "
                                                "keeps only the last.")
                                     .arg(result.duplicateKeys.join(QStringLiteral("; "))));
        m_treeStack->setCurrentWidget(m_tree);
        m_tabs->setCurrentIndex(0);
        // Open the first level of small documents; big ones stay folded (lazy).
        if (m_model->rowCount() <= 40) {
            for (int r = 0; r < m_model->rowCount(); ++r) {
                const QModelIndex i = m_model->index(r, 0);
                const int children = i.data(JsonTreeModel::ChildCountRole).toInt();
                if (children > 0 && children <= 20)
                    m_tree->expand(i);
            }
        }
        emit loaded();
        return;
    }
    if (result.isNull) {
        emit loaded();
        return;
    }
    // Invalid JSON: the raw text as stored, the error, and the error position marked.
    m_error->showMessage(MessageBar::Level::Error, QStringLiteral("Not valid JSON: %1. The raw text is shown as stored.").arg(result.error));
    showPlaceholder(QStringLiteral("No tree: the text is not valid JSON (see Raw)"));
    m_tabs->setCurrentWidget(m_raw);
    if (result.errorOffset >= 0) {
        QTextCursor cursor(m_raw->document());
        const int end = int(m_raw->document()->characterCount()) - 1;
        const int at = qBound(0, result.errorOffset, qMax(0, end));
        cursor.setPosition(qMax(0, at - 1));
        cursor.setPosition(qMin(end, at + 1), QTextCursor::KeepAnchor);
        QTextEdit::ExtraSelection mark;
        mark.cursor = cursor;
        mark.format.setBackground(theme::toneColors(Tone::Danger).border);
        m_raw->setExtraSelections({mark});
        QTextCursor caret(m_raw->document());
        caret.setPosition(at);
        m_raw->setTextCursor(caret);
        m_raw->ensureCursorVisible();
    }
    logger("views")->debug("{}: not valid JSON: {}", m_title->text(), result.error);
    emit loaded();
}

QString JsonView::errorText() const
{
    return m_error->text();
}

bool JsonView::isParsing() const
{
    return m_model->isParsing();
}

} // namespace triage
