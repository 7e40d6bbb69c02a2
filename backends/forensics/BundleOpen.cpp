// The offline viewer's two-step read of a bundle file (DESIGN.md §7 "Offline viewer"): the
// header and the first events at once, the rest (readBundleJson()) later, off the GUI thread.
#include "Bundle.h"
#include "BundleParts.h"

#include <QJsonDocument>

namespace triage {

namespace {

/// The writer's layout (writeBundleJson()): every member of the root indented by four spaces,
/// "events" one canonical line each indented by eight, then "keys" and the closing brace.
const QByteArray kEventsOpen = "\n    \"events\": [";
const QByteArray kLineStart = "\n        ";

/// The head of `bytes` when they are in the writer's layout; nullopt otherwise (the caller
/// then reads the whole document, which gives the exact message for bad input).
std::optional<BundleHead> headOfWriterLayout(const QByteArray &bytes, int firstEvents)
{
    // A file cut short (the usual damage) does not end as the writer ends it.
    if (!bytes.endsWith("]\n}\n"))
        return std::nullopt;
    const qsizetype open = bytes.indexOf(kEventsOpen);
    if (open < 0)
        return std::nullopt;
    // The header: every member before "events" (the last one's comma cut), closed.
    QByteArray header = bytes.left(open);
    if (!header.endsWith(','))
        return std::nullopt;
    header.chop(1);
    header += "\n}\n";
    QString error;
    qint64 count = -1;
    std::optional<IncidentBundle> head = bundle_parts::readBundleDocument(header, bundle_parts::Parts::Header, &error, &count);
    if (!head || count < 0)
        return std::nullopt;
    // The first events: one line each, read as one small JSON array.
    QByteArray lines = "[";
    qsizetype at = open + kEventsOpen.size();
    qsizetype taken = 0;
    while (taken < std::min<qint64>(count, firstEvents)) {
        if (!QByteArrayView(bytes).sliced(at).startsWith(kLineStart))
            return std::nullopt;
        at += kLineStart.size();
        const qsizetype end = bytes.indexOf('\n', at); // JSON strings hold no raw line break
        if (end < 0)
            return std::nullopt;
        QByteArrayView line = QByteArrayView(bytes).sliced(at, end - at);
        if (line.endsWith(','))
            line.chop(1);
        if (taken)
            lines += ',';
        lines.append(line);
        ++taken;
        at = end;
    }
    lines += ']';
    QJsonParseError parse;
    const QJsonArray events = QJsonDocument::fromJson(lines, &parse).array();
    if (parse.error != QJsonParseError::NoError || events.size() != taken)
        return std::nullopt;
    const JsonIn in(QJsonObject{}, QString{});
    head->events.reserve(taken);
    for (qsizetype i = 0; i < taken && in.ok(); ++i)
        head->events.append(bundle_parts::readEvent(in, events.at(i), QStringLiteral("events[%1]").arg(i)));
    if (!in.ok())
        return std::nullopt;
    return BundleHead{std::move(*head), count, false};
}

} // namespace

std::optional<BundleHead> readBundleHead(const QByteArray &bytes, int firstEvents, QString *error)
{
    if (std::optional<BundleHead> head = headOfWriterLayout(bytes, firstEvents))
        return head;
    // Another layout (or bad input): the whole document, read now.
    std::optional<IncidentBundle> whole = readBundleJson(bytes, error);
    if (!whole)
        return std::nullopt;
    const qint64 count = whole->events.size();
    return BundleHead{std::move(*whole), count, true};
}

} // namespace triage
