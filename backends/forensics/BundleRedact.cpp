// Redaction of an incident bundle (DESIGN.md §7 "Redaction"): secrets in request / response
// texts are replaced by a marker holding their SHA-256, byte-exact everywhere else.
#include "Bundle.h"

#include "RawJson.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <numeric>

namespace triage {

namespace {

const QString kMarkerPrefix = QStringLiteral("[redacted sha256:");

struct Redactor {
    QSet<QString> names; ///< lower case: the rules' fields and the always-redacted headers
    QVector<Redaction> *found = nullptr;

    bool matches(const QString &name) const { return names.contains(name.toLower()); }

    /// One replacement: the span `value` of `json` becomes the marker of its value.
    struct Cut {
        RawSpan span;
        QByteArray text;
    };

    /// The marker for the JSON value `literal` (a string's decoded UTF-8, else its JSON text),
    /// recorded at `where` under `field`; nullopt when it already is a marker.
    std::optional<QByteArray> marker(const QByteArray &literal, const QString &where, const QString &field) const
    {
        QByteArray bytes = literal;
        if (literal.startsWith('"')) {
            const QString text = QJsonDocument::fromJson("[" + literal + "]").array().at(0).toString();
            if (text.startsWith(kMarkerPrefix) && text.endsWith(QLatin1Char(']')))
                return std::nullopt;
            bytes = text.toUtf8();
        }
        const QString sha = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
        found->append({where, field, sha});
        return QJsonDocument(QJsonArray{kMarkerPrefix + sha + QLatin1Char(']')}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    }

    /// Collects the cuts inside the value at `span` (reached at `where`).
    void walk(const QByteArray &json, RawSpan span, const QString &where, bool headers, QVector<Cut> *cuts) const
    {
        const char kind = rawjson::kind(json, span);
        if (kind == '{') {
            for (const rawjson::RawMember &m : rawjson::objectMembers(json, span)) {
                const QString at = where + QLatin1Char('.') + m.name;
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
                const QString at = QStringLiteral("%1[%2]").arg(where).arg(i);
                // Headers as [name, value] pairs (a compensation's request).
                const QVector<RawSpan> pair = headers ? rawjson::arrayElements(json, items[i]) : QVector<RawSpan>();
                if (pair.size() == 2 && rawjson::kind(json, pair[0]) == '"') {
                    const QString name = QJsonDocument::fromJson("[" + pair[0].slice(json) + "]").array().at(0).toString();
                    if (matches(name)) {
                        if (const auto mark = marker(pair[1].slice(json), at + QStringLiteral("[1]"), name))
                            cuts->append({pair[1], *mark});
                        continue;
                    }
                }
                walk(json, items[i], at, false, cuts);
            }
        } else if (kind == '"') {
            // A string holding JSON (a request's "body"): redacted inside, re-encoded when changed.
            const QString text = QJsonDocument::fromJson("[" + span.slice(json) + "]").array().at(0).toString();
            const QString inner = redactText(text, where);
            if (inner != text)
                cuts->append({span, QJsonDocument(QJsonArray{inner}).toJson(QJsonDocument::Compact).mid(1).chopped(1)});
        }
    }

    /// `text` with its matching members' values replaced; `text` itself when it is not a JSON
    /// object or array (left whole) or nothing matches. Bytes outside the cuts are kept exactly.
    QString redactText(const QString &text, const QString &where) const
    {
        const QString trimmed = text.trimmed();
        if (!trimmed.startsWith(QLatin1Char('{')) && !trimmed.startsWith(QLatin1Char('[')))
            return text;
        const QByteArray json = text.toUtf8();
        QJsonParseError error;
        QJsonDocument::fromJson(json, &error);
        if (error.error != QJsonParseError::NoError)
            return text;
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

    void apply(QString *text, const QString &where) const
    {
        if (!text->isEmpty())
            *text = redactText(*text, where);
    }
    void apply(std::optional<QString> *text, const QString &where) const
    {
        if (*text)
            apply(&**text, where);
    }
};

} // namespace

void redactBundle(IncidentBundle *bundle, const RedactionRules &rules)
{
    bundle->redactionRules = rules;
    bundle->redactions.clear();
    if (!rules.enabled)
        return;
    Redactor r;
    r.found = &bundle->redactions;
    for (const QString &f : rules.fields)
        r.names.insert(f.toLower());
    for (const char *header : {"authorization", "cookie", "set-cookie"})
        r.names.insert(QString::fromLatin1(header));
    if (bundle->incident)
        for (qsizetype i = 0; i < bundle->incident->pins.size(); ++i)
            if (auto &e = bundle->incident->pins[i].event)
                r.apply(&e->detail, QStringLiteral("incident.pins[%1].event.detail").arg(i));
    for (qsizetype i = 0; i < bundle->events.size(); ++i)
        r.apply(&bundle->events[i].detail, QStringLiteral("events[%1].detail").arg(i));
    // The keys on the global pool's threads (the calling thread helping), each into its own
    // list; the lists are joined in key order, so the bundle is the same as redacted serially.
    QVector<QVector<Redaction>> perKey(bundle->keys.size());
    QList<qsizetype> order(bundle->keys.size());
    std::iota(order.begin(), order.end(), 0);
    KeyDetail *keys = bundle->keys.data(); // detached once here, never by the threads
    QVector<Redaction> *lists = perKey.data();
    QtConcurrent::blockingMap(order, [&r, keys, lists](qsizetype n) {
        Redactor kr = r;
        kr.found = &lists[n];
        KeyDetail &k = keys[n];
        const QString key = QStringLiteral("keys[%1]").arg(k.idemKey);
        if (k.record)
            kr.apply(&k.record->resultSnapshot, key + QStringLiteral(".record.result_snapshot"));
        for (qsizetype i = 0; i < k.attempts.size(); ++i) {
            const QString at = QStringLiteral("%1.attempts[%2].").arg(key).arg(i);
            kr.apply(&k.attempts[i].request, at + QStringLiteral("request"));
            kr.apply(&k.attempts[i].response, at + QStringLiteral("response"));
        }
        for (qsizetype i = 0; i < k.compensations.size(); ++i) {
            const QString at = QStringLiteral("%1.compensations[%2].").arg(key).arg(i);
            kr.apply(&k.compensations[i].request, at + QStringLiteral("request"));
            kr.apply(&k.compensations[i].response, at + QStringLiteral("response"));
        }
        for (qsizetype i = 0; i < k.compensationAttempts.size(); ++i)
            kr.apply(&k.compensationAttempts[i].responsePreview,
                     QStringLiteral("%1.compensation_attempts[%2].response_preview").arg(key).arg(i));
    });
    for (const QVector<Redaction> &list : std::as_const(perKey))
        bundle->redactions << list;
}

} // namespace triage
