#include "JsonTreeModel.h"

#include "Log.h"
#include "WhenReady.h"
#include "RawJson.h"
#include "StatusTone.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtConcurrent>

namespace triage {

/// One tree item. Children are created lazily (materialize()); `value` shares the
/// document's data, so a node costs a few pointers however big its subtree is.
struct JsonTreeModel::Node {
    QString key;       ///< member name; empty for array elements (shown as "[row]"); "(value)" for a scalar root
    bool isIndex = false;
    int duplicate = 0;      ///< occurrence (1-based, document order) of a member name its object writes more than once; 0 = unique
    int duplicateCount = 0; ///< how many times its object writes the name
    bool materialized = false; ///< `children` holds every child of `value`
    QJsonValue value;
    Node *parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;
};

JsonTreeModel::JsonTreeModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>())
{
    qRegisterMetaType<triage::ParsedJson>();
}

JsonTreeModel::~JsonTreeModel() = default;

int JsonTreeModel::childTotal(const QJsonValue &v)
{
    if (v.isObject())
        return int(v.toObject().size());
    if (v.isArray())
        return int(v.toArray().size());
    return 0;
}

void JsonTreeModel::clear()
{
    ++m_generation;
    setParsing(false);
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_itemCount = 0;
    m_scalarRoot = false;
    m_parsed = ParsedJson{};
    endResetModel();
}

void JsonTreeModel::setValue(const QJsonValue &root)
{
    ++m_generation;
    setParsing(false);
    ParsedJson p;
    p.ok = true;
    p.root = root;
    beginResetModel();
    m_parsed = p;
    m_root = std::make_unique<Node>();
    m_itemCount = 0;
    m_scalarRoot = false;
    if (root.isObject() || root.isArray()) {
        m_root->value = root;
    } else if (!root.isUndefined()) {
        // A scalar document: one pre-made "(value)" row.
        m_scalarRoot = true;
        auto child = std::make_unique<Node>();
        child->parent = m_root.get();
        child->key = QStringLiteral("(value)");
        child->value = root;
        m_root->children.push_back(std::move(child));
        m_root->materialized = true;
        m_itemCount = 1;
    }
    endResetModel();
}

void JsonTreeModel::setJsonText(const std::optional<QString> &text)
{
    if (!text || text->size() <= m_asyncThreshold) {
        applyParsed(parseJsonTextForDisplay(text));
        return;
    }
    clear();
    const quint64 generation = m_generation;
    setParsing(true);
    logger("models")->debug("parsing {} characters of JSON off the GUI thread", text->size());
    whenReady(QtConcurrent::run([t = *text]() { return parseJsonTextForDisplay(t); }), this, [this, generation](const ParsedJson &p) {
        if (generation != m_generation)
            return; // a newer document (or clear()) replaced this one meanwhile
        applyParsed(p);
    });
}

void JsonTreeModel::applyParsed(const ParsedJson &parsed)
{
    if (parsed.ok)
        setValue(parsed.root);
    else
        clear();
    m_parsed = parsed;
    emit this->parsed(m_parsed);
}

void JsonTreeModel::setParsing(bool on)
{
    if (m_parsing == on)
        return;
    m_parsing = on;
    emit parsingChanged(on);
}

JsonTreeModel::Node *JsonTreeModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? static_cast<Node *>(index.internalPointer()) : m_root.get();
}

int JsonTreeModel::childCount(const Node *node) const
{
    return node->materialized ? int(node->children.size()) : childTotal(node->value);
}

void JsonTreeModel::materialize(Node *node) const
{
    if (node->materialized)
        return;
    node->materialized = true;
    const int n = childTotal(node->value);
    node->children.reserve(size_t(n));
    if (node->value.isObject()) {
        const QJsonObject o = node->value.toObject();
        int row = 0;
        for (auto it = o.constBegin(); it != o.constEnd(); ++it, ++row) {
            auto child = std::make_unique<Node>();
            child->parent = node;
            child->row = row;
            // A repeated member name arrives renamed (parseJsonTextForDisplay()): show the
            // name as written and flag every occurrence; renamed ones sort right after it.
            const QString key = it.key();
            const qsizetype marker = key.indexOf(QChar(rawjson::kDuplicateKeyMarker));
            child->key = marker < 0 ? key : key.left(marker);
            if (marker >= 0 && !node->children.empty() && node->children.back()->key == child->key) {
                Node *first = node->children.back().get();
                while (first->row > 0 && node->children[size_t(first->row - 1)]->key == child->key)
                    first = node->children[size_t(first->row - 1)].get();
                if (first->duplicate == 0)
                    first->duplicate = 1;
                child->duplicate = row - first->row + 1;
                for (int r = first->row; r < row; ++r)
                    node->children[size_t(r)]->duplicateCount = child->duplicate;
                child->duplicateCount = child->duplicate;
            }
            child->value = it.value();
            node->children.push_back(std::move(child));
        }
    } else {
        const QJsonArray a = node->value.toArray();
        for (int row = 0; row < n; ++row) {
            auto child = std::make_unique<Node>();
            child->parent = node;
            child->row = row;
            child->isIndex = true;
            child->value = a.at(row);
            node->children.push_back(std::move(child));
        }
    }
    m_itemCount += n;
}

QModelIndex JsonTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0 || (parent.isValid() && parent.column() != 0))
        return {};
    Node *p = nodeOf(parent);
    if (row >= childCount(p))
        return {};
    materialize(p); // the branch is being shown: make its items now
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex JsonTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Node *n = nodeOf(child);
    Node *p = n->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row, 0, p);
}

int JsonTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return childCount(nodeOf(parent));
}

int JsonTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool JsonTreeModel::hasChildren(const QModelIndex &parent) const
{
    return rowCount(parent) > 0;
}

QString JsonTreeModel::typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Object: return QStringLiteral("object");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Double: return QStringLiteral("number");
    case QJsonValue::Bool: return QStringLiteral("bool");
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("undefined");
}

namespace {

QString compactJson(const QJsonValue &v)
{
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    // A scalar: serialise inside an array and strip the brackets (Qt's own number format).
    QString s = QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
    return s.mid(1, s.size() - 2);
}

QString countText(int n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

QString JsonTreeModel::valueText(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Object: return QLatin1Char('{') + countText(int(v.toObject().size()), "key", "keys") + QLatin1Char('}');
    case QJsonValue::Array: return QLatin1Char('[') + countText(int(v.toArray().size()), "item", "items") + QLatin1Char(']');
    case QJsonValue::String: {
        QString s = v.toString();
        s.replace(QLatin1Char('\n'), QChar(0x23CE)); // ⏎: one line per row
        return s;
    }
    default: return compactJson(v);
    }
}

QVariant JsonTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *n = nodeOf(index);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case KeyColumn:
            if (n->isIndex)
                return QStringLiteral("[%1]").arg(n->row);
            return n->duplicate ? QStringLiteral("%1 (%2 of %3)").arg(n->key).arg(n->duplicate).arg(n->duplicateCount)
                                : n->key;
        case ValueColumn: return valueText(n->value);
        case TypeColumn: return typeName(n->value);
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == ValueColumn && n->value.isString())
            return n->value.toString().left(4000);
        if (index.column() == KeyColumn && n->duplicate)
            return QStringLiteral("%1\nThis object writes \"%2\" %3 times; this is occurrence %4 in document order. "
                                  "A JSON parser keeps only the last one.")
                .arg(data(index, PathRole).toString(), n->key)
                .arg(n->duplicateCount)
                .arg(n->duplicate);
        if (index.column() == KeyColumn)
            return data(index, PathRole);
        return {};
    case roles::Tone:
        if (index.column() == KeyColumn && n->duplicate)
            return int(Tone::Warning);
        return {};
    case DuplicateRole:
        return n->duplicate ? QStringLiteral("%1 of %2").arg(n->duplicate).arg(n->duplicateCount) : QString();
    case roles::Monospace: return index.column() != TypeColumn;
    case roles::IsNull: return index.column() == ValueColumn && n->value.isNull();
    case roles::FullText:
        if (index.column() == ValueColumn)
            return n->value.isString() ? n->value.toString() : compactJson(n->value);
        return data(index, Qt::DisplayRole);
    case JsonRole: return compactJson(n->value);
    case TypeRole: return typeName(n->value);
    case ChildCountRole: return childTotal(n->value);
    case PathRole: {
        QStringList parts;
        for (const Node *p = n; p && p != m_root.get(); p = p->parent) {
            if (p->isIndex) {
                parts.prepend(QStringLiteral("[%1]").arg(p->row));
            } else if (m_scalarRoot) {
                continue; // the synthetic row of a scalar document
            } else {
                static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
                if (plain.match(p->key).hasMatch())
                    parts.prepend(QLatin1Char('.') + p->key);
                else
                    parts.prepend(QStringLiteral("[\"%1\"]").arg(QString(p->key).replace(QLatin1Char('"'), QStringLiteral("\\\""))));
            }
        }
        return QLatin1Char('$') + parts.join(QString());
    }
    default: return {};
    }
}

QVariant JsonTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case KeyColumn: return QStringLiteral("Key");
    case ValueColumn: return QStringLiteral("Value");
    case TypeColumn: return QStringLiteral("Type");
    }
    return {};
}

} // namespace triage
