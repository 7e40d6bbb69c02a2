#pragma once

#include "JsonText.h"
#include "ModelRoles.h"

#include <QAbstractItemModel>
#include <QJsonValue>

#include <memory>
#include <optional>
#include <vector>

namespace triage {

/// A JSON document (a snapshot, payload, request, …) as a lazy tree: key / value / type.
///
/// The document is a QJsonValue (implicitly shared, cheap to copy); tree items are created
/// only when a branch is opened ("lazy rowCount"): rowCount() answers from the JSON value
/// itself, and the child items of a container are made on the first index() into it,
/// which a view does only for expanded branches. A collapsed 100,000-element array costs
/// one item. No rows are ever inserted after a load, so views and proxies see plain resets.
/// (Not canFetchMore()/fetchMore(): QTreeView fetches a branch once, on expand, so batches
/// past the first would never be shown.)
///
/// setJsonText() parses the text with triage::parseJsonText(): inline for small texts,
/// on a QtConcurrent thread above asyncThreshold() characters (DESIGN.md §3); the result
/// is applied on the GUI thread, and a generation counter drops a parse that finishes
/// after a newer setJsonText()/setValue()/clear(). parsed() reports the outcome (the
/// parse error with line, column and offset for invalid text). Numbers are shown as
/// QJsonValue parsed them (docs/QT-PITFALLS.md: big integers lose digits); keep the raw text for
/// exactness. Objects list their members in QJsonObject order (sorted by key); a member
/// name written more than once shows every occurrence (parseJsonTextForDisplay()), keyed
/// "status (2 of 2)", flagged (DuplicateRole, roles::Tone Warning) and listed in
/// parseResult().duplicateKeys.
class JsonTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, TypeColumn, ColumnCount };
    enum Role {
        PathRole = roles::FirstModelRole, ///< QString JSONPath of the item, e.g. "$.items[3].id"
        JsonRole,                         ///< QString compact JSON of the item's value (subtree)
        TypeRole,                         ///< QString "object", "array", "string", "number", "bool", "null"
        ChildCountRole,                   ///< int members / elements of a container (fetched or not), 0 for scalars
        /// QString "2 of 3" for a member whose name its object writes more than once (every
        /// occurrence is a row, in document order, its key cell a Warning badge); "" otherwise.
        DuplicateRole,
    };

    /// An empty model; fill it with setJsonText() or setValue().
    explicit JsonTreeModel(QObject *parent = nullptr);
    ~JsonTreeModel() override;

    /// Shows `root` (object, array or scalar; a scalar becomes one row keyed "(value)").
    void setValue(const QJsonValue &root);
    /// Parses `text` (nullopt = SQL NULL: an empty tree and parse error "NULL") and shows it.
    /// Inline below asyncThreshold() characters, otherwise on a worker thread (isParsing()
    /// is true meanwhile). parsed() is emitted in both cases, after the rows are in place.
    void setJsonText(const std::optional<QString> &text);
    /// Empties the model.
    void clear();

    /// The last parse outcome (ok, error, line/column/offset, size, isNull). After
    /// setValue() it reports ok.
    const ParsedJson &parseResult() const { return m_parsed; }
    /// True while a big text is parsed off the GUI thread (see parsingChanged()).
    bool isParsing() const { return m_parsing; }

    /// Texts longer than this (characters) are parsed off the GUI thread. Default 64 Ki.
    void setAsyncThreshold(qint64 characters) { m_asyncThreshold = characters; }
    /// The current off-thread threshold (characters).
    qint64 asyncThreshold() const { return m_asyncThreshold; }
    /// How many tree items exist (the memory the tree costs); grows as branches are opened.
    qint64 itemCount() const { return m_itemCount; }

    /// Read-only QAbstractItemModel interface. index() makes the items of `parent`'s branch on first use.
    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// Display text of a scalar or a container summary ("{3 keys}", "[12 items]").
    static QString valueText(const QJsonValue &v);
    /// "object", "array", "string", "number", "bool", "null".
    static QString typeName(const QJsonValue &v);

signals:
    /// A setJsonText() finished (inline or off-thread) and its rows are in place.
    void parsed(const triage::ParsedJson &result);
    /// Off-thread parsing started (true) or ended (false).
    void parsingChanged(bool parsing);

private:
    struct Node;
    Node *nodeOf(const QModelIndex &index) const;
    static int childTotal(const QJsonValue &v);
    int childCount(const Node *node) const;
    void materialize(Node *node) const;
    void applyParsed(const ParsedJson &parsed);
    void setParsing(bool on);

    std::unique_ptr<Node> m_root;
    ParsedJson m_parsed;
    quint64 m_generation = 0;
    qint64 m_asyncThreshold = 64 * 1024;
    mutable qint64 m_itemCount = 0;
    bool m_parsing = false;
    bool m_scalarRoot = false; ///< the document is a scalar shown as one "(value)" row
};

} // namespace triage

Q_DECLARE_METATYPE(triage::ParsedJson)
