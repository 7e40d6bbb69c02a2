// The redaction's free-text rule (DESIGN.md §7 "Redaction").
#include "FreeTextSecrets.h"

#include <QStringList>

#include <algorithm>

namespace triage {

namespace {

const QLatin1String kMarkerPrefix("[redacted sha256:");

} // namespace

FreeTextSecrets::FreeTextSecrets(const QSet<QString> &names)
{
    QStringList sorted(names.cbegin(), names.cend());
    sorted.removeAll(QString());
    if (sorted.isEmpty())
        return;
    // Longest first, so "set-cookie" is tried before "cookie" at the same place.
    std::sort(sorted.begin(), sorted.end(), [](const QString &a, const QString &b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    // Cookie headers carry several NAME=value pairs separated by "; ": every pair is a
    // credential, so their bare value runs to the end of the line.
    QStringList alternatives, cookies;
    for (const QString &name : std::as_const(sorted)) {
        const bool cookie = name.compare(QLatin1String("cookie"), Qt::CaseInsensitive) == 0
                            || name.compare(QLatin1String("set-cookie"), Qt::CaseInsensitive) == 0;
        (cookie ? cookies : alternatives) << QRegularExpression::escape(name);
    }
    const QString never = QStringLiteral("(?!)"); // an alternative that matches nothing
    // NAME a whole word (no letter, digit, '_' or '-' before it), in optional matching quotes;
    // '=' or ':'; an optional scheme word; a quoted value, else a bare one ending before
    // whitespace , ; & or the end (a cookie header's: the end of the line), a quote right
    // before that end left out.
    const QString pattern = QStringLiteral(R"re((?<![\w-])(?<q>["']?)(?:(?<cookie>%1)|(?<name>%2))\k<q>[ \t]*[=:][ \t]*)re"
                                           R"re((?:(?:bearer|basic)[ \t]+)?)re"
                                           R"re((?:"(?<dq>[^"\r\n]*)"|'(?<sq>[^'\r\n]*)'|)re"
                                           R"re((?(<cookie>)["']?(?<line>[^\r\n]+?)(?=["']?[ \t]*(?:[\r\n]|$)))re"
                                           R"re(|["']?(?<bare>[^\s,;&]+?)(?=["']?(?:[\s,;&]|$)))))re")
                                .arg(cookies.isEmpty() ? never : cookies.join(QLatin1Char('|')),
                                     alternatives.isEmpty() ? never : alternatives.join(QLatin1Char('|')));
    m_pattern = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
    m_pattern.optimize(); // compiled here, once, before the pool's threads share it
    m_any = m_pattern.isValid();
}

QVector<FreeTextSecrets::Hit> FreeTextSecrets::find(const QString &text) const
{
    QVector<Hit> hits;
    if (!m_any || text.isEmpty())
        return hits;
    // Every shape has '=' or ':' after its NAME: a text with neither (a status, an actor, most
    // summaries) holds none, found without running the pattern.
    if (!text.contains(QLatin1Char('=')) && !text.contains(QLatin1Char(':')))
        return hits;
    QRegularExpressionMatchIterator it = m_pattern.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.capturedStart(u"cookie") >= 0 ? m.captured(u"cookie") : m.captured(u"name");
        for (const QStringView group : {QStringView(u"dq"), QStringView(u"sq"), QStringView(u"line"), QStringView(u"bare")}) {
            const qsizetype start = m.capturedStart(group);
            if (start < 0)
                continue;
            const qsizetype length = m.capturedLength(group);
            if (length > 0 && !QStringView(text).mid(start).startsWith(kMarkerPrefix))
                hits.append({start, length, name});
            break;
        }
    }
    return hits;
}

} // namespace triage
