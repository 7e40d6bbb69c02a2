#include "RawJson.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

namespace triage::rawjson {

namespace {

bool isWs(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

qsizetype skipWs(const QByteArray &j, qsizetype p)
{
    while (p < j.size() && isWs(j.at(p)))
        ++p;
    return p;
}

/// `p` at the opening quote; returns the index after the closing quote, or -1.
qsizetype skipString(const QByteArray &j, qsizetype p)
{
    if (p >= j.size() || j.at(p) != '"')
        return -1;
    for (++p; p < j.size(); ++p) {
        const char c = j.at(p);
        if (c == '\\')
            ++p;
        else if (c == '"')
            return p + 1;
    }
    return -1;
}

qsizetype skipValue(const QByteArray &j, qsizetype p, int depth = 0);

/// Skips '{…}' or '[…]' at `p`.
qsizetype skipContainer(const QByteArray &j, qsizetype p, int depth)
{
    if (depth > 512)
        return -1;
    const bool object = j.at(p) == '{';
    const char close = object ? '}' : ']';
    p = skipWs(j, p + 1);
    if (p < j.size() && j.at(p) == close)
        return p + 1;
    while (p < j.size()) {
        if (object) {
            p = skipString(j, p);
            if (p < 0)
                return -1;
            p = skipWs(j, p);
            if (p >= j.size() || j.at(p) != ':')
                return -1;
            p = skipWs(j, p + 1);
        }
        p = skipValue(j, p, depth + 1);
        if (p < 0)
            return -1;
        p = skipWs(j, p);
        if (p >= j.size())
            return -1;
        if (j.at(p) == close)
            return p + 1;
        if (j.at(p) != ',')
            return -1;
        p = skipWs(j, p + 1);
    }
    return -1;
}

qsizetype skipValue(const QByteArray &j, qsizetype p, int depth)
{
    if (p >= j.size())
        return -1;
    const char c = j.at(p);
    if (c == '"')
        return skipString(j, p);
    if (c == '{' || c == '[')
        return skipContainer(j, p, depth);
    const qsizetype start = p;
    while (p < j.size() && !isWs(j.at(p)) && j.at(p) != ',' && j.at(p) != ']' && j.at(p) != '}')
        ++p;
    return p > start ? p : -1;
}

/// Decodes a JSON string literal (with quotes) through the parser: keys are short.
QString decodeString(const QByteArray &literal)
{
    const QJsonDocument d = QJsonDocument::fromJson(QByteArray("[") + literal + ']');
    return d.isArray() && !d.array().isEmpty() ? d.array().at(0).toString() : QString();
}

} // namespace

QVector<RawMember> objectMembers(const QByteArray &j, RawSpan obj)
{
    QVector<RawMember> out;
    if (obj.begin >= j.size() || j.at(obj.begin) != '{')
        return out;
    qsizetype p = skipWs(j, obj.begin + 1);
    if (p < j.size() && j.at(p) == '}')
        return out;
    while (p < obj.end) {
        const qsizetype keyEnd = skipString(j, p);
        if (keyEnd < 0)
            return out;
        const QByteArray literal = j.mid(p, keyEnd - p);
        const RawSpan name{p, keyEnd};
        p = skipWs(j, keyEnd);
        if (p >= j.size() || j.at(p) != ':')
            return out;
        p = skipWs(j, p + 1);
        const qsizetype valueEnd = skipValue(j, p);
        if (valueEnd < 0)
            return out;
        const bool plain = !literal.contains('\\');
        out.append({plain ? QString::fromUtf8(literal.mid(1, literal.size() - 2)) : decodeString(literal), name,
                    RawSpan{p, valueEnd}});
        p = skipWs(j, valueEnd);
        if (p >= j.size() || j.at(p) != ',')
            return out;
        p = skipWs(j, p + 1);
    }
    return out;
}

namespace {

/// The value span for `key` in the object at `obj` (its first occurrence), or nullopt.
std::optional<RawSpan> member(const QByteArray &j, RawSpan obj, const QString &key)
{
    for (const RawMember &m : objectMembers(j, obj))
        if (m.name == key)
            return m.value;
    return std::nullopt;
}

/// Walks the value at `p`, collecting repeated member names (and, with `renames`, the
/// key literal spans to rewrite: [begin, end) → replacement). Returns the end or -1.
qsizetype walkDuplicates(const QByteArray &j, qsizetype p, const QString &path, int depth, QVector<DuplicateKey> *found,
                         int max, QVector<std::pair<RawSpan, QByteArray>> *renames)
{
    if (p >= j.size() || depth > 512)
        return -1;
    const char c = j.at(p);
    if (c != '{' && c != '[')
        return skipValue(j, p);
    const bool object = c == '{';
    const char close = object ? '}' : ']';
    p = skipWs(j, p + 1);
    if (p < j.size() && j.at(p) == close)
        return p + 1;
    QHash<QString, int> seen;
    QStringList order;
    int index = 0;
    while (p < j.size()) {
        QString childPath;
        if (object) {
            const qsizetype keyEnd = skipString(j, p);
            if (keyEnd < 0)
                return -1;
            const QByteArray literal = j.mid(p, keyEnd - p);
            const QString key = literal.contains('\\') ? decodeString(literal) : QString::fromUtf8(literal.mid(1, literal.size() - 2));
            const int n = ++seen[key];
            if (n == 1)
                order << key;
            if (n > 1 && renames) {
                QString renamed = key + QChar(kDuplicateKeyMarker) + QString::number(n).rightJustified(4, QLatin1Char('0'));
                QJsonArray a{renamed};
                QByteArray lit = QJsonDocument(a).toJson(QJsonDocument::Compact);
                renames->append({RawSpan{p, keyEnd}, lit.mid(1, lit.size() - 2)});
            }
            static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
            childPath = plain.match(key).hasMatch() ? path + QLatin1Char('.') + key
                                                    : path + QStringLiteral("[\"%1\"]").arg(key);
            p = skipWs(j, keyEnd);
            if (p >= j.size() || j.at(p) != ':')
                return -1;
            p = skipWs(j, p + 1);
        } else {
            childPath = path + QStringLiteral("[%1]").arg(index++);
        }
        p = walkDuplicates(j, p, childPath, depth + 1, found, max, renames);
        if (p < 0)
            return -1;
        p = skipWs(j, p);
        if (p >= j.size())
            return -1;
        if (j.at(p) == close)
            break;
        if (j.at(p) != ',')
            return -1;
        p = skipWs(j, p + 1);
    }
    if (p >= j.size())
        return -1;
    if (found)
        for (const QString &key : std::as_const(order))
            if (seen.value(key) > 1 && found->size() < max)
                found->append(DuplicateKey{path, key, seen.value(key)});
    return p + 1;
}

} // namespace

QVector<DuplicateKey> duplicateKeys(const QByteArray &json, int max)
{
    QVector<DuplicateKey> found;
    const qsizetype b = skipWs(json, 0);
    if (walkDuplicates(json, b, QStringLiteral("$"), 0, &found, max, nullptr) < 0)
        return {};
    return found;
}

QByteArray renameDuplicateKeys(const QByteArray &json)
{
    QVector<std::pair<RawSpan, QByteArray>> renames;
    const qsizetype b = skipWs(json, 0);
    if (walkDuplicates(json, b, QStringLiteral("$"), 0, nullptr, 0, &renames) < 0 || renames.isEmpty())
        return json;
    QByteArray out;
    out.reserve(json.size() + renames.size() * 8);
    qsizetype at = 0;
    for (const auto &[span, literal] : renames) {
        out += QByteArrayView(json).sliced(at, span.begin - at);
        out += literal;
        at = span.end;
    }
    out += QByteArrayView(json).sliced(at);
    return out;
}

std::optional<RawSpan> root(const QByteArray &json)
{
    const qsizetype b = skipWs(json, 0);
    const qsizetype e = skipValue(json, b);
    if (e < 0 || skipWs(json, e) != json.size())
        return std::nullopt;
    return RawSpan{b, e};
}

std::optional<RawSpan> find(const QByteArray &json, const QStringList &path)
{
    auto span = root(json);
    for (const QString &key : path) {
        if (!span)
            return std::nullopt;
        span = member(json, *span, key);
    }
    return span;
}

QVector<RawSpan> arrayElements(const QByteArray &j, RawSpan array)
{
    QVector<RawSpan> out;
    if (array.begin >= j.size() || j.at(array.begin) != '[')
        return out;
    qsizetype p = skipWs(j, array.begin + 1);
    if (p < j.size() && j.at(p) == ']')
        return out;
    while (p < array.end) {
        const qsizetype e = skipValue(j, p);
        if (e < 0)
            return {};
        out.append(RawSpan{p, e});
        p = skipWs(j, e);
        if (p >= j.size())
            return {};
        if (j.at(p) == ']')
            return out;
        if (j.at(p) != ',')
            return {};
        p = skipWs(j, p + 1);
    }
    return {};
}

char kind(const QByteArray &json, RawSpan span)
{
    return span.begin < json.size() ? json.at(span.begin) : '\0';
}

QStringList lossyNumbers(const QByteArray &j, int max)
{
    QStringList out;
    qsizetype p = 0;
    while (p < j.size() && out.size() < max) {
        const char c = j.at(p);
        if (c == '"') {
            const qsizetype e = skipString(j, p);
            if (e < 0)
                break;
            p = e;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9')) {
            ++p;
            continue;
        }
        const qsizetype start = p;
        while (p < j.size() && (j.at(p) == '-' || j.at(p) == '+' || j.at(p) == '.' || j.at(p) == 'e' || j.at(p) == 'E'
                                || (j.at(p) >= '0' && j.at(p) <= '9')))
            ++p;
        const QByteArray token = j.mid(start, p - start);
        const bool integral = !token.contains('.') && !token.contains('e') && !token.contains('E');
        if (integral) {
            QByteArray digits = token.startsWith('-') ? token.mid(1) : token;
            while (digits.size() > 1 && digits.startsWith('0'))
                digits.remove(0, 1);
            static const QByteArray limit("9007199254740992"); // 2^53
            if (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit))
                out.append(QStringLiteral("%1 (integer beyond 2^53: rounded by double-based parsers, e.g. to %2)")
                               .arg(QString::fromLatin1(token),
                                    QString::fromLatin1(QByteArray::number(token.toDouble(), 'f', 0))));
            continue;
        }
        bool ok = false;
        const double d = token.toDouble(&ok);
        if (!ok)
            continue;
        const QByteArray shortest = QByteArray::number(d, 'g', QLocale::FloatingPointShortest);
        if (shortest != token)
            out.append(QStringLiteral("%1 (re-written as %2 by a JSON parser)").arg(QString::fromLatin1(token), QString::fromLatin1(shortest)));
    }
    return out;
}

} // namespace triage::rawjson
