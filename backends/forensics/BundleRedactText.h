#pragma once
// The redaction of one text of an incident bundle (DESIGN.md §7 "Redaction"), shared by the
// redactor's passes over keys, events and notes (BundleRedact.cpp): the rules' names, the JSON
// walk that cuts the values of matching members, the free-text rule, and the look-again pass for
// values redacted elsewhere in the same key. Internal to backends/forensics.

#include "Bundle.h"

#include "FreeTextSecrets.h"
#include "LiteralFinder.h"
#include "RawJson.h"

#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>
#include <optional>

namespace triage::redaction {

inline const QString kMarkerPrefix = QStringLiteral("[redacted sha256:");

/// A string value the rules redacted somewhere in a key: looked for again in that key's
/// other texts and its events' details (derived text, not JSON), DESIGN.md §7 "Redaction".
struct Secret {
    QString value, field, sha256;
};

inline QString markerText(const QString &sha) { return kMarkerPrefix + sha + QLatin1Char(']'); }
/// The text of the JSON string literal `literal` (quotes included, valid JSON): decoded by
/// QJsonDocument only when it holds an escape.
inline QString jsonStringValue(const QByteArray &literal)
{
    if (!literal.contains('\\'))
        return QString::fromUtf8(literal.constData() + 1, literal.size() - 2);
    return QJsonDocument::fromJson("[" + literal + "]").array().at(0).toString();
}
inline QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

/// The values redacted in one key and one finder for all of them (longest first at a place).
struct KeySecrets {
    QVector<Secret> list;
    QHash<QString, qsizetype> byValue;
    LiteralFinder finder; ///< its literal numbers are indexes into `list`

    static constexpr qsizetype kAnywhere = 8;

    void build()
    {
        QStringList values;
        values.reserve(list.size());
        for (const Secret &s : std::as_const(list))
            values << s.value;
        finder = LiteralFinder(values); // built here, before the pool's threads share it
    }
};

/// A path into the bundle ("keys[k:1].attempts[3].request"), built only when something is
/// redacted there (most texts hold nothing: building every path cost more than the search).
struct Where {
    const QString *key = nullptr;
    const char *section = nullptr;
    qsizetype index = -1;
    QString field;

    QString operator()() const
    {
        QString out = *key;
        if (section) {
            out += QLatin1Char('.') + QLatin1String(section);
            if (index >= 0)
                out += QStringLiteral("[%1]").arg(index);
        }
        if (!field.isEmpty())
            out += QLatin1Char('.') + field;
        return out;
    }
};

/// A place inside a text being walked ("keys[k:1].attempts[3].request.body.token"): the text's
/// own path (a Where or any callable giving it) and the members and indexes below it, rendered
/// only when something is redacted there (most texts and members hold nothing).
struct Path {
    const Path *parent = nullptr;
    QStringView member;   ///< ".member" after the parent's path (when index < 0)
    qsizetype index = -1; ///< "[index]" after the parent's path
    const void *root = nullptr;
    QString (*rootText)(const void *) = nullptr;

    /// The path of a text: `where()` (kept by address: it must outlive the Path).
    template <typename W>
    static Path of(const W &where)
    {
        Path p;
        p.root = &where;
        p.rootText = [](const void *w) { return QString((*static_cast<const W *>(w))()); };
        return p;
    }
    Path child(QStringView name) const
    {
        Path p;
        p.parent = this;
        p.member = name;
        return p;
    }
    Path element(qsizetype i) const
    {
        Path p;
        p.parent = this;
        p.index = i;
        return p;
    }
    QString text() const
    {
        if (!parent)
            return rootText(root);
        QString out = parent->text();
        if (index >= 0) {
            out += QLatin1Char('[') + QString::number(index) + QLatin1Char(']');
        } else {
            out += QLatin1Char('.');
            out += member;
        }
        return out;
    }
};

struct Redactor {
    QSet<QString> names; ///< lower case: the rules' fields and the always-redacted headers
    QVector<Redaction> *found = nullptr;
    KeySecrets *secrets = nullptr; ///< when set: every string value redacted (for substitute())

    /// Whether the member or column `name` is one of `names` once lower-cased (QString::toLower()).
    /// A short ASCII name (nearly all) is lowered in place and compared with each name: no
    /// allocation and no hashing, which cost a tenth of the redaction (triage-bundle-bench).
    bool matches(QStringView name) const
    {
        constexpr qsizetype kShort = 64;
        if (name.size() <= kShort) {
            char16_t lowered[kShort];
            bool ascii = true;
            for (qsizetype i = 0; i < name.size() && ascii; ++i) {
                const char16_t c = name[i].unicode();
                ascii = c < 0x80;
                lowered[i] = c >= u'A' && c <= u'Z' ? char16_t(c + 32) : c;
            }
            if (ascii) {
                const QStringView low(lowered, name.size());
                return std::any_of(nameList.cbegin(), nameList.cend(), [low](const QString &n) { return n == low; });
            }
        }
        return names.contains(name.toString().toLower());
    }
    QStringList nameList; ///< `names` as a list, for matches()' short path (set with `names`)

    /// False when no member of the JSON `text` can match: no rule's name (lower case) is in the
    /// lower-cased text and no escape (\u, \/) could hide one. Lets apply() skip parsing the
    /// many texts that hold no rule's name (DESIGN.md §7 "Redaction"). Always true when a name
    /// holds a character JSON may write escaped (then only parsing can tell).
    bool mayHoldName(const QString &text) const
    {
        if (!namesPlain || text.contains(QLatin1String("\\u")) || text.contains(QLatin1String("\\/")))
            return true;
        const QString lower = text.toLower(); // as matches() lowers a member's name
        for (const QString &name : names)
            if (lower.contains(name))
                return true;
        return false;
    }
    bool namesPlain = false; ///< set by redactBundle(): every name is printable ASCII without " \\ /
    FreeTextSecrets freeText; ///< set by redactBundle(): the free-text rule, compiled once for the export

    /// One replacement: the span `value` of `json` becomes the marker of its value.
    struct Cut {
        RawSpan span;
        QByteArray text;
    };

    /// The marker for the JSON value `literal` (a string's decoded UTF-8, else its JSON text),
    /// recorded at `where` under `field`; nullopt when it already is a marker.
    std::optional<QByteArray> marker(const QByteArray &literal, const Path &where, const QString &field) const
    {
        QByteArray bytes = literal;
        const bool isString = literal.startsWith('"');
        if (isString) {
            const QString text = jsonStringValue(literal);
            if (text.startsWith(kMarkerPrefix) && text.endsWith(QLatin1Char(']')))
                return std::nullopt;
            bytes = text.toUtf8();
        }
        const QString sha = sha256Hex(bytes);
        found->append({where.text(), field, sha});
        if (isString)
            remember(QString::fromUtf8(bytes), field, sha);
        return '"' + markerText(sha).toLatin1() + '"'; // plain ASCII: JSON escapes none of it
    }

    /// Collects the cuts inside the value at `span` (reached at `where`).
    void walk(const QByteArray &json, RawSpan span, const Path &where, bool headers, QVector<Cut> *cuts) const
    {
        const char kind = rawjson::kind(json, span);
        if (kind == '{') {
            for (const rawjson::RawMember &m : rawjson::objectMembers(json, span)) {
                const Path at = where.child(m.name);
                if (matches(m.name)) {
                    if (const auto mark = marker(m.value.slice(json), at, m.name))
                        cuts->append({m.value, *mark});
                } else {
                    walk(json, m.value, at, m.name.compare(QLatin1String("headers"), Qt::CaseInsensitive) == 0, cuts);
                }
            }
        } else if (kind == '[') {
            const QVector<RawSpan> items = rawjson::arrayElements(json, span);
            for (qsizetype i = 0; i < items.size(); ++i) {
                const Path at = where.element(i);
                // Headers as [name, value] pairs (a compensation's request).
                const QVector<RawSpan> pair = headers ? rawjson::arrayElements(json, items[i]) : QVector<RawSpan>();
                if (pair.size() == 2 && rawjson::kind(json, pair[0]) == '"') {
                    const QString name = jsonStringValue(pair[0].slice(json));
                    if (matches(name)) {
                        if (const auto mark = marker(pair[1].slice(json), at.element(1), name))
                            cuts->append({pair[1], *mark});
                        continue;
                    }
                }
                walk(json, items[i], at, false, cuts);
            }
        } else if (kind == '"') {
            // A string holding JSON (a request's "body"): redacted inside, re-encoded when changed.
            const QString text = jsonStringValue(span.slice(json));
            const QString inner = redactText(text, where);
            if (inner != text)
                cuts->append({span, QJsonDocument(QJsonArray{inner}).toJson(QJsonDocument::Compact).mid(1).chopped(1)});
        }
    }

    /// `text` with its matching members' values replaced; `text` itself when it is not a JSON
    /// object or array (left whole) or nothing matches. Bytes outside the cuts are kept exactly.
    QString redactText(const QString &text, const Path &where) const
    {
        const QString trimmed = text.trimmed();
        if (!trimmed.startsWith(QLatin1Char('{')) && !trimmed.startsWith(QLatin1Char('[')))
            return freeTextRedacted(text, [&where] { return where.text(); });
        const QByteArray json = text.toUtf8();
        QJsonParseError error;
        QJsonDocument::fromJson(json, &error);
        if (error.error != QJsonParseError::NoError)
            return freeTextRedacted(text, [&where] { return where.text(); }); // truncated or broken JSON
        const auto root = rawjson::root(json);
        if (!root)
            return text;
        QVector<Cut> cuts;
        walk(json, *root, where, false, &cuts);
        if (cuts.isEmpty())
            return text;
        std::sort(cuts.begin(), cuts.end(), [](const Cut &a, const Cut &b) { return a.span.begin > b.span.begin; });
        QByteArray out = json;
        for (const Cut &c : cuts)
            out.replace(c.span.begin, c.span.end - c.span.begin, c.text);
        return QString::fromUtf8(out);
    }

    /// `text` with the free-text rule applied (FreeTextSecrets.h): each value found becomes
    /// its marker, listed at `where()` (built only when one is found) under the name as written,
    /// and remembered for substitute(). `text` itself when nothing is found.
    template <typename W>
    QString freeTextRedacted(const QString &text, const W &where) const
    {
        const QVector<FreeTextSecrets::Hit> hits = freeText.find(text);
        if (hits.isEmpty())
            return text;
        const QString path = where();
        QString out = text;
        QStringList shas;
        for (const FreeTextSecrets::Hit &h : hits) {
            const QString value = text.mid(h.start, h.length);
            const QString sha = sha256Hex(value.toUtf8());
            found->append({path, h.name, sha});
            remember(value, h.name, sha);
            shas << sha;
        }
        for (qsizetype i = hits.size() - 1; i >= 0; --i)
            out.replace(hits[i].start, hits[i].length, markerText(shas[i]));
        return out;
    }

    void remember(const QString &value, const QString &field, const QString &sha) const
    {
        if (!secrets || value.isEmpty() || secrets->byValue.contains(value))
            return;
        secrets->byValue.insert(value, secrets->list.size());
        secrets->list.append({value, field, sha});
    }

    /// A stored column: its whole value redacted when the column's name matches the rules (a
    /// ticket's "title" under --redact-field title), else the JSON inside it.
    /// `where()` gives the text's path (Where, or a callable), built only when needed.
    template <typename W>
    void apply(QString *text, const W &where, const QString &column = QString()) const
    {
        if (text->isEmpty())
            return;
        if (!column.isEmpty() && matches(column)) {
            if (text->startsWith(kMarkerPrefix) && text->endsWith(QLatin1Char(']')))
                return;
            const QString sha = sha256Hex(text->toUtf8());
            found->append({where(), column, sha});
            remember(*text, column, sha);
            *text = markerText(sha);
            return;
        }
        // Not a JSON object or array: free text, only the free-text rule (the path built only
        // when it finds a value).
        qsizetype i = 0;
        while (i < text->size() && text->at(i).isSpace())
            ++i;
        if (i == text->size() || (text->at(i) != QLatin1Char('{') && text->at(i) != QLatin1Char('['))) {
            *text = freeTextRedacted(*text, where);
            return;
        }
        if (!mayHoldName(*text))
            return; // no member can match: nothing to parse (checked before the path is built)
        *text = redactText(*text, Path::of(where));
    }
    template <typename W>
    void apply(std::optional<QString> *text, const W &where, const QString &column = QString()) const
    {
        if (*text)
            apply(&**text, where, column);
    }

    /// Derived or unparsed text (a timeline summary, an event's detail, text that is not JSON):
    /// every occurrence of a value redacted elsewhere in the same key (`found_`, with its
    /// finder) becomes its marker, listed once per text and value. A value shorter than
    /// kAnywhere characters only where it is not part of a longer word ("t-12" is not cut out
    /// of "t-123"); occurrences inside a marker are left alone.
    template <typename W>
    void substitute(QString *text, const W &where, const KeySecrets &found_) const;
    template <typename W>
    void substitute(std::optional<QString> *text, const W &where, const KeySecrets &s) const
    {
        if (*text)
            substitute(&**text, where, s);
    }
};

template <typename W>
void Redactor::substitute(QString *text, const W &where, const KeySecrets &found_) const
{
    if (text->isEmpty() || found_.list.isEmpty())
        return;
    struct Hit {
        qsizetype pos, length, secret;
    };
    QVector<Hit> hits;
    const auto wordChar = [text](qsizetype i) {
        if (i < 0 || i >= text->size())
            return false;
        const QChar c = text->at(i);
        return c.isLetterOrNumber() || c == QLatin1Char('_');
    };
    for (qsizetype from = 0; from < text->size();) {
        const LiteralFinder::Match m = found_.finder.find(*text, from);
        if (m.pos < 0)
            break;
        const qsizetype pos = m.pos, length = m.length;
        const bool inWord = length < KeySecrets::kAnywhere && (wordChar(pos - 1) || wordChar(pos + length));
        const qsizetype mark = inWord ? -1 : text->lastIndexOf(kMarkerPrefix, pos);
        const bool inMarker = mark >= 0 && text->indexOf(QLatin1Char(']'), mark) >= pos;
        if (inWord || inMarker) {
            from = pos + 1; // a shorter or later value may still start here or after
            continue;
        }
        hits.append({pos, length, m.index});
        from = pos + length;
    }
    if (hits.isEmpty())
        return;
    QVector<bool> listed(found_.list.size(), false);
    const QString path = where();
    for (const Hit &h : std::as_const(hits))
        if (!listed[h.secret]) {
            listed[h.secret] = true;
            const Secret &s = found_.list[h.secret];
            found->append({path, s.field, s.sha256});
        }
    for (qsizetype i = hits.size() - 1; i >= 0; --i)
        text->replace(hits[i].pos, hits[i].length, markerText(found_.list[hits[i].secret].sha256));
}

} // namespace triage::redaction
