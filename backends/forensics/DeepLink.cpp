// Deep links (DESIGN.md §7 "Links"): printing and parsing, no database.
#include "DeepLink.h"

#include "TextEscape.h"

#include <QByteArray>
#include <QSet>
#include <QStringList>
#include <QUrl>

namespace triage {

namespace {

const QString kScheme = QStringLiteral("triage://");
const QString kExpected = QStringLiteral("expected triage://key/<key> or triage://window?from=…&to=…");

/// One value as one URL component: UTF-8, everything but the unreserved characters encoded.
QString encode(const QString &value)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(value));
}

QString encodeList(const QStringList &values)
{
    QStringList out;
    for (const QString &v : values)
        out << encode(v);
    return out.join(QLatin1Char(','));
}

/// Decodes one component: every '%' must start two hex digits and the bytes must be UTF-8.
std::optional<QString> decode(const QString &component)
{
    for (qsizetype i = 0; i < component.size(); ++i) {
        if (component.at(i) != QLatin1Char('%'))
            continue;
        if (i + 2 >= component.size() || !isxdigit(component.at(i + 1).toLatin1()) || !isxdigit(component.at(i + 2).toLatin1()))
            return std::nullopt;
        i += 2;
    }
    const QByteArray bytes = QByteArray::fromPercentEncoding(component.toUtf8());
    if (!isValidUtf8(bytes))
        return std::nullopt;
    return QString::fromUtf8(bytes);
}

std::optional<DeepLink> fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return std::nullopt;
}

} // namespace

QString keyLink(const QString &key)
{
    return kScheme + QStringLiteral("key/") + encode(key);
}

QString windowLink(const WindowQuery &query, const std::optional<std::pair<EventKind, QString>> &event)
{
    QString out = kScheme + QStringLiteral("window?from=") + encode(formatUtcMicros(query.from)) + QStringLiteral("&to=")
        + encode(formatUtcMicros(query.to));
    auto add = [&out](const char *name, const QString &encoded) {
        if (!encoded.isEmpty())
            out += QLatin1Char('&') + QLatin1String(name) + QLatin1Char('=') + encoded;
    };
    add("biz_type", encode(query.bizType));
    add("tenant", encode(query.tenant));
    add("key", encode(query.keySubstring));
    add("task", encode(query.taskId));
    QStringList stores, kinds;
    for (EventStore s : query.stores)
        stores << eventStoreName(s);
    for (EventKind k : query.kinds)
        kinds << eventKindName(k);
    add("stores", encodeList(stores));
    add("kinds", encodeList(kinds));
    add("statuses", encodeList(query.statuses));
    if (event)
        add("event", encode(eventKindName(event->first)) + QLatin1Char(':') + encode(event->second));
    return out;
}

QString printDeepLink(const DeepLink &link)
{
    return link.kind == DeepLink::Kind::Key ? keyLink(link.key) : windowLink(link.query, link.event);
}

std::optional<DeepLink> parseDeepLink(const QString &input, QString *error)
{
    const QString text = input.trimmed();
    if (!text.startsWith(kScheme, Qt::CaseInsensitive))
        return fail(error, QStringLiteral("not a triage link: \"%1\" (%2)").arg(escapeControlChars(text), kExpected));
    const QString rest = text.mid(kScheme.size());
    const qsizetype kindEnd = std::min(rest.indexOf(QLatin1Char('/')) < 0 ? rest.size() : rest.indexOf(QLatin1Char('/')),
                                       rest.indexOf(QLatin1Char('?')) < 0 ? rest.size() : rest.indexOf(QLatin1Char('?')));
    const QString kind = rest.left(kindEnd).toLower();
    const QString after = rest.mid(kindEnd);
    DeepLink link;
    if (kind == QLatin1String("key")) {
        link.kind = DeepLink::Kind::Key;
        if (after.contains(QLatin1Char('?')) || after.contains(QLatin1Char('#')))
            return fail(error, QStringLiteral("a key link takes no query or fragment (encode ? as %3F and # as %23)"));
        if (after.size() <= 1)
            return fail(error, QStringLiteral("the key link names no key"));
        const auto key = decode(after.mid(1));
        if (!key)
            return fail(error, QStringLiteral("key: not percent-encoded UTF-8"));
        link.key = *key;
        return link;
    }
    if (kind != QLatin1String("window"))
        return fail(error, QStringLiteral("unknown triage link kind \"%1\" (%2)").arg(escapeControlChars(rest.left(kindEnd)), kExpected));
    link.kind = DeepLink::Kind::Window;
    if (after.contains(QLatin1Char('#')))
        return fail(error, QStringLiteral("the link has a fragment (encode # as %23)"));
    if (!after.startsWith(QLatin1Char('?')) && !after.startsWith(QStringLiteral("/?")) && !after.isEmpty() && after != QLatin1String("/"))
        return fail(error, QStringLiteral("the window link has a path (expected triage://window?from=…&to=…)"));
    const QString query = after.mid(after.indexOf(QLatin1Char('?')) + 1);
    static const QStringList known{QStringLiteral("from"),   QStringLiteral("to"),    QStringLiteral("biz_type"),
                                   QStringLiteral("tenant"), QStringLiteral("key"),   QStringLiteral("task"),
                                   QStringLiteral("stores"),
                                   QStringLiteral("kinds"),  QStringLiteral("statuses"), QStringLiteral("event")};
    QSet<QString> seen;
    bool hasFrom = false, hasTo = false;
    for (const QString &pair : after.contains(QLatin1Char('?')) ? query.split(QLatin1Char('&'), Qt::SkipEmptyParts) : QStringList()) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        const QString name = eq < 0 ? pair : pair.left(eq);
        const QString raw = eq < 0 ? QString() : pair.mid(eq + 1);
        if (!known.contains(name))
            return fail(error, QStringLiteral("unknown link parameter \"%1\" (known: %2)")
                                   .arg(escapeControlChars(name), known.join(QStringLiteral(", "))));
        if (seen.contains(name))
            return fail(error, QStringLiteral("link parameter \"%1\" given twice").arg(name));
        seen.insert(name);
        // Lists and the event are split on their raw separators before decoding.
        QStringList parts;
        const bool list = name == QLatin1String("stores") || name == QLatin1String("kinds") || name == QLatin1String("statuses");
        const QStringList rawParts = list ? raw.split(QLatin1Char(','), Qt::SkipEmptyParts)
            : name == QLatin1String("event") && raw.contains(QLatin1Char(':'))
            ? QStringList{raw.left(raw.indexOf(QLatin1Char(':'))), raw.mid(raw.indexOf(QLatin1Char(':')) + 1)}
            : QStringList{raw};
        // Store and kind names hold no ',' and a kind no ':': a link that encoded its separators
        // too ("kinds=intent.attempt%2Cticket.created", "event=intent.attempt%3A308") means the
        // same, so those are split again after decoding. Statuses and ids may hold either.
        const bool names = name == QLatin1String("stores") || name == QLatin1String("kinds");
        for (const QString &r : rawParts) {
            const auto value = decode(r);
            if (!value)
                return fail(error, QStringLiteral("%1: not percent-encoded UTF-8").arg(name));
            if (names)
                parts << value->split(QLatin1Char(','), Qt::SkipEmptyParts);
            else
                parts << *value;
        }
        if (name == QLatin1String("event") && parts.size() == 1 && parts.first().contains(QLatin1Char(':'))) {
            const QString whole = parts.takeFirst();
            parts << whole.left(whole.indexOf(QLatin1Char(':'))) << whole.mid(whole.indexOf(QLatin1Char(':')) + 1);
        }
        const QString value = parts.value(0);
        if (name == QLatin1String("from") || name == QLatin1String("to")) {
            const auto t = parseUtcMicros(value);
            if (!t)
                return fail(error, QStringLiteral("%1: not an ISO time: \"%2\"").arg(name, escapeControlChars(value)));
            (name == QLatin1String("from") ? link.query.from : link.query.to) = *t;
            (name == QLatin1String("from") ? hasFrom : hasTo) = true;
        } else if (name == QLatin1String("biz_type")) {
            link.query.bizType = value;
        } else if (name == QLatin1String("tenant")) {
            link.query.tenant = value;
        } else if (name == QLatin1String("key")) {
            link.query.keySubstring = value;
        } else if (name == QLatin1String("task")) {
            link.query.taskId = value;
        } else if (name == QLatin1String("stores")) {
            for (const QString &p : parts) {
                const auto s = eventStoreFromName(p);
                if (!s)
                    return fail(error, QStringLiteral("stores: unknown store \"%1\"").arg(escapeControlChars(p)));
                link.query.stores << *s;
            }
        } else if (name == QLatin1String("kinds")) {
            for (const QString &p : parts) {
                const auto k = eventKindFromName(p);
                if (!k)
                    return fail(error, QStringLiteral("kinds: unknown kind \"%1\"").arg(escapeControlChars(p)));
                link.query.kinds << *k;
            }
        } else if (name == QLatin1String("statuses")) {
            link.query.statuses = parts;
        } else { // event
            if (parts.size() != 2 || parts.at(1).isEmpty())
                return fail(error, QStringLiteral("event: give <kind>:<id>"));
            const auto k = eventKindFromName(parts.at(0));
            if (!k)
                return fail(error, QStringLiteral("event: unknown kind \"%1\"").arg(escapeControlChars(parts.at(0))));
            link.event = std::pair(*k, parts.at(1));
        }
    }
    if (!hasFrom)
        return fail(error, QStringLiteral("the window link has no from"));
    if (!hasTo)
        return fail(error, QStringLiteral("the window link has no to"));
    if (link.query.from >= link.query.to)
        return fail(error, QStringLiteral("the window's start must be before its end"));
    return link;
}

} // namespace triage
