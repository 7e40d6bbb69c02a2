#include "KeyDetailJsonLine.h"

#include "JsonText.h"
#include "KeyDetailJson.h"

#include <QJsonDocument>

namespace triage::key_json {

namespace {

/// A text member's value: the JSON string, or null for SQL NULL (as str() in KeyDetailJson.cpp).
void text(QByteArray *out, const NullableText &s)
{
    if (s)
        appendJsonString(out, *s);
    else
        *out += "null";
}

void text(QByteArray *out, const QString &s)
{
    if (s.isNull())
        *out += "null";
    else
        appendJsonString(out, s);
}

/// `list` as a compact JSON array, each element written by `write(out, element)`.
template <typename List, typename Write>
void appendArray(QByteArray *out, const List &list, Write write)
{
    *out += '[';
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (i)
            *out += ',';
        write(out, list.at(i));
    }
    *out += ']';
}

/// attempt() plus "escaped_columns" (always, as keyDetailFull() has it), members sorted.
void appendAttempt(QByteArray *out, const IntentAttempt &a)
{
    *out += "{\"action\":";
    text(out, a.action);
    *out += ",\"actor\":";
    text(out, a.actor);
    *out += ",\"created_at\":";
    text(out, a.createdAt);
    *out += ",\"error\":";
    text(out, a.error);
    *out += ",\"escaped_columns\":";
    appendArray(out, a.escapedColumns, [](QByteArray *o, const QString &c) { appendJsonString(o, c); });
    *out += ",\"id\":";
    *out += QByteArray::number(a.id);
    *out += ",\"idem_key\":";
    text(out, a.idemKey);
    *out += ",\"request\":";
    text(out, a.request);
    *out += ",\"response\":";
    text(out, a.response);
    *out += ",\"state_after\":";
    text(out, a.stateAfter);
    *out += ",\"state_before\":";
    text(out, a.stateBefore);
    *out += ",\"status\":";
    text(out, a.status);
    *out += ",\"step_id\":";
    text(out, a.stepId);
    *out += ",\"task_id\":";
    text(out, a.taskId);
    *out += ",\"updated_at\":";
    text(out, a.updatedAt);
    *out += '}';
}

/// timelineEvent(), members sorted; a QString member is always a string (QJsonValue(QString)).
void appendTimelineEvent(QByteArray *out, const TimelineEvent &e)
{
    *out += "{\"kind\":";
    appendJsonString(out, e.kind);
    *out += ",\"ref_id\":";
    if (const auto n = e.refId.toInteger())
        *out += QByteArray::number(*n);
    else
        appendJsonString(out, e.refId.text());
    *out += ",\"source\":";
    appendJsonString(out, e.source);
    *out += ",\"summary\":";
    appendJsonString(out, e.summary);
    *out += ",\"time\":";
    appendJsonString(out, e.time);
    *out += '}';
}

/// A compact object's members without its braces ("" for {}).
QByteArrayView membersOf(const QByteArray &compactObject)
{
    return QByteArrayView(compactObject).sliced(1, compactObject.size() - 2);
}

} // namespace

QByteArray keyDetailFullLine(const KeyDetail &d)
{
    // keyDetailFull() of the rest, split around the two members written here: "attempts"
    // sorts first, "timeline" just before "warnings" (the last member).
    KeyDetail rest = d;
    rest.attempts.clear();
    rest.timeline.clear();
    QJsonObject before = keyDetailFull(rest);
    const bool attemptsKnown = !before.value(QStringLiteral("attempts")).isNull();
    before.remove(QStringLiteral("attempts"));
    before.remove(QStringLiteral("timeline"));
    QJsonObject after;
    for (auto it = before.begin(); it != before.end();) {
        if (it.key() > QLatin1String("timeline")) {
            after.insert(it.key(), it.value());
            it = before.erase(it);
        } else {
            ++it;
        }
    }
    const QByteArray head = QJsonDocument(before).toJson(QJsonDocument::Compact);
    const QByteArray tail = QJsonDocument(after).toJson(QJsonDocument::Compact);

    QByteArray out;
    out.reserve(head.size() + tail.size() + d.attempts.size() * 400 + d.timeline.size() * 160);
    out += "{\"attempts\":";
    if (attemptsKnown) {
        appendArray(&out, d.attempts, appendAttempt);
    } else {
        out += "null"; // the intent store failed: its rows are unknown
    }
    const QByteArrayView headMembers = membersOf(head), tailMembers = membersOf(tail);
    if (!headMembers.isEmpty()) {
        out += ',';
        out += headMembers;
    }
    out += ",\"timeline\":";
    appendArray(&out, d.timeline, appendTimelineEvent);
    if (!tailMembers.isEmpty()) {
        out += ',';
        out += tailMembers;
    }
    out += '}';
    return out;
}

} // namespace triage::key_json
