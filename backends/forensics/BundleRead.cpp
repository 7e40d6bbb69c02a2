// The incident bundle's strict reader (DESIGN.md §7 "Bundles"): every member checked, with
// the path of the first that is wrong. The writer and the canonical event list are in
// Bundle.cpp.
#include "Bundle.h"
#include "BundleParts.h"

#include "JsonRead.h"
#include "KeyDetailJson.h"

#include <cmath>
#include <QJsonArray>
#include <QJsonDocument>

namespace triage {

WindowEvent bundle_parts::readEvent(const JsonIn &in, const QJsonValue &value, const QString &path)
{
    WindowEvent e;
    const QJsonArray a = value.toArray();
    // [at, store, kind, id, idem_key, biz_type, status, status_now, status_unmapped, actor, detail, settling]
    bool shape = value.isArray() && a.size() == 12 && a.at(8).isBool() && a.at(11).isBool();
    for (int i = 0; shape && i < 4; ++i)
        shape = a.at(i).isString();
    for (int i : {4, 5, 6, 7, 9, 10})
        shape = shape && (a.at(i).isString() || a.at(i).isNull());
    if (!shape) {
        in.fail(QStringLiteral("\"%1\" must be [at, store, kind, id, idem_key, biz_type, status, status_now, "
                               "status_unmapped, actor, detail, settling]: texts (null where absent) and two booleans")
                    .arg(path));
        return e;
    }
    const auto text = [&a](int i) { return a.at(i).isNull() ? QString() : a.at(i).toString(); };
    e.atText = a.at(0).toString();
    const auto at = parseUtcMicros(e.atText);
    const auto store = eventStoreFromName(a.at(1).toString());
    const auto kind = eventKindFromName(a.at(2).toString());
    if (!at)
        in.fail(QStringLiteral("\"%1[0]\" is not a time: \"%2\"").arg(path, e.atText));
    else if (!store)
        in.fail(QStringLiteral("\"%1[1]\" names an unknown store \"%2\"").arg(path, a.at(1).toString()));
    else if (!kind)
        in.fail(QStringLiteral("\"%1[2]\" names an unknown kind \"%2\"").arg(path, a.at(2).toString()));
    e.at = at.value_or(0);
    e.store = store.value_or(EventStore::Idempotency);
    e.kind = kind.value_or(EventKind::RecordCreated);
    e.id = a.at(3).toString();
    e.idemKey = text(4);
    e.bizType = text(5);
    e.status = text(6);
    e.statusNow = text(7);
    e.statusUnmapped = a.at(8).toBool();
    e.actor = text(9);
    e.detail = text(10);
    e.settling = a.at(11).toBool();
    return e;
}

namespace {

using bundle_parts::readEvent;

WindowQuery readWindow(const JsonIn &in)
{
    WindowQuery q;
    q.from = in.integer(QStringLiteral("from_us"));
    q.to = in.integer(QStringLiteral("to_us"));
    q.lookbackS = int(in.integer(QStringLiteral("lookback_s")));
    const JsonIn filters = in.child(QStringLiteral("filters"));
    QString error;
    if (in.ok()
        && !readIncidentFiltersJson(QString::fromUtf8(QJsonDocument(filters.object()).toJson(QJsonDocument::Compact)), &q,
                                    &error))
        in.fail(QStringLiteral("\"%1\": %2").arg(filters.pathOf(QString()).chopped(1), error));
    return q;
}

QVector<NameCount> readCounts(const JsonIn &in, const QString &name)
{
    QVector<NameCount> out;
    const QJsonArray a = in.array(name);
    for (qsizetype i = 0; i < a.size() && in.ok(); ++i) {
        const JsonIn e = in.element(name, a, i);
        out.append({e.text(QStringLiteral("name")), e.integer(QStringLiteral("count"))});
    }
    return out;
}

WindowSummary readSummary(const JsonIn &in)
{
    WindowSummary s;
    const QJsonArray perMinute = in.array(QStringLiteral("per_minute"));
    for (qsizetype i = 0; i < perMinute.size() && in.ok(); ++i) {
        const JsonIn m = in.element(QStringLiteral("per_minute"), perMinute, i);
        const QString kind = m.text(QStringLiteral("kind"));
        const auto k = eventKindFromName(kind);
        if (m.ok() && !k)
            m.fail(QStringLiteral("\"%1\" names an unknown kind \"%2\"").arg(m.pathOf(QStringLiteral("kind")), kind));
        s.perMinute.append({m.text(QStringLiteral("minute")), k.value_or(EventKind::RecordCreated),
                            m.integer(QStringLiteral("events"))});
    }
    const JsonIn events = in.child(QStringLiteral("events"));
    const JsonIn keys = in.child(QStringLiteral("keys"));
    for (EventKind k : allEventKinds()) {
        s.events[int(k)] = events.integer(eventKindName(k));
        s.keys[int(k)] = keys.integer(eventKindName(k));
    }
    s.unknownKeys = in.integer(QStringLiteral("unknown_keys"));
    s.stillProcessing = in.integer(QStringLiteral("still_processing"));
    s.duplicateGroups = in.integer(QStringLiteral("duplicate_groups"));
    s.settledBy = readCounts(in, QStringLiteral("settled_by"));
    s.topBizTypes = readCounts(in, QStringLiteral("top_biz_types"));
    s.topTenants = readCounts(in, QStringLiteral("top_tenants"));
    return s;
}

std::optional<EventKind> readKind(const JsonIn &in, const QString &name)
{
    const QString text = in.text(name);
    const auto k = eventKindFromName(text);
    if (in.ok() && !k)
        in.fail(QStringLiteral("\"%1\" names an unknown kind \"%2\"").arg(in.pathOf(name), text));
    return k;
}

IncidentDetail readIncidentDetail(const JsonIn &in)
{
    IncidentDetail d;
    Incident &i = d.incident;
    i.id = in.integer(QStringLiteral("id"));
    i.title = in.text(QStringLiteral("title"));
    i.query = readWindow(in.child(QStringLiteral("window")));
    i.open = in.boolean(QStringLiteral("open"));
    i.createdBy = in.text(QStringLiteral("created_by"));
    i.createdAt = in.text(QStringLiteral("created_at"));
    i.closedBy = in.text(QStringLiteral("closed_by"));
    i.closedAt = in.text(QStringLiteral("closed_at"));
    i.version = in.integer(QStringLiteral("version"));
    i.pins = int(in.integer(QStringLiteral("pin_count")));
    i.notes = int(in.integer(QStringLiteral("note_count")));
    const QJsonArray pins = in.array(QStringLiteral("pins"));
    for (qsizetype n = 0; n < pins.size() && in.ok(); ++n) {
        const JsonIn p = in.element(QStringLiteral("pins"), pins, n);
        IncidentPin pin;
        pin.id = p.integer(QStringLiteral("id"));
        pin.kind = readKind(p, QStringLiteral("kind")).value_or(EventKind::RecordCreated);
        pin.eventId = p.text(QStringLiteral("event_id"));
        pin.eventAt = p.text(QStringLiteral("event_at"));
        pin.note = p.text(QStringLiteral("note"));
        pin.pinnedBy = p.text(QStringLiteral("pinned_by"));
        pin.pinnedAt = p.text(QStringLiteral("pinned_at"));
        const QJsonValue event = p.object().value(QStringLiteral("event"));
        if (!p.has(QStringLiteral("event")))
            p.fail(QStringLiteral("\"%1\" is missing").arg(p.pathOf(QStringLiteral("event"))));
        else if (!event.isNull())
            pin.event = readEvent(p, event, p.pathOf(QStringLiteral("event")));
        d.pins.append(pin);
    }
    const QJsonArray notes = in.array(QStringLiteral("notes"));
    for (qsizetype n = 0; n < notes.size() && in.ok(); ++n) {
        const JsonIn o = in.element(QStringLiteral("notes"), notes, n);
        IncidentNote note;
        note.id = o.integer(QStringLiteral("id"));
        note.operatorName = o.text(QStringLiteral("operator"));
        note.at = o.text(QStringLiteral("at"));
        note.text = o.text(QStringLiteral("text"));
        if (o.nullableText(QStringLiteral("event_kind")))
            note.eventKind = readKind(o, QStringLiteral("event_kind"));
        note.eventId = o.text(QStringLiteral("event_id"));
        d.notes.append(note);
    }
    return d;
}

} // namespace

std::optional<IncidentBundle> readBundleJson(const QByteArray &bytes, QString *error)
{
    return bundle_parts::readBundleDocument(bytes, bundle_parts::Parts::All, error, nullptr);
}

std::optional<IncidentBundle> bundle_parts::readBundleDocument(const QByteArray &bytes, Parts parts, QString *error,
                                                               qint64 *eventCount)
{
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parse);
    if (parse.error != QJsonParseError::NoError) {
        *error = QStringLiteral("not JSON: %1 at offset %2").arg(parse.errorString()).arg(parse.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("not a triage incident bundle (not a JSON object)");
        return std::nullopt;
    }
    const JsonIn in(doc.object(), QString());
    if (!in.has(QStringLiteral("format"))) {
        *error = QStringLiteral("not a triage incident bundle (no \"format\")");
        return std::nullopt;
    }
    const QJsonValue format = in.object().value(QStringLiteral("format"));
    if (format.toString() != QLatin1String(kBundleFormatName)) {
        *error = QStringLiteral("not a triage incident bundle (format %1)")
                     .arg(QString::fromUtf8(bundle_parts::valueText(format, 0)));
        return std::nullopt;
    }
    IncidentBundle b;
    b.formatVersion = int(in.integer(QStringLiteral("format_version")));
    if (in.ok() && b.formatVersion > kBundleFormatVersion) {
        *error = QStringLiteral("bundle format version %1 is newer than this build reads (%2): upgrade the console")
                     .arg(b.formatVersion)
                     .arg(kBundleFormatVersion);
        return std::nullopt;
    }
    b.toolVersion = in.text(QStringLiteral("tool_version"));
    b.generatedAt = in.text(QStringLiteral("generated_at"));
    b.generatedBy = in.text(QStringLiteral("generated_by"));
    b.query = readWindow(in.child(QStringLiteral("window")));
    if (!in.has(QStringLiteral("incident")) || !in.object().value(QStringLiteral("incident")).isNull())
        b.incident = readIncidentDetail(in.child(QStringLiteral("incident")));
    const QJsonArray stores = in.array(QStringLiteral("stores"));
    for (qsizetype i = 0; i < stores.size() && in.ok(); ++i) {
        const JsonIn s = in.element(QStringLiteral("stores"), stores, i);
        BundleStore store;
        const QString role = s.text(QStringLiteral("role"));
        const auto r = key_json::roleFromName(role);
        if (s.ok() && !r)
            s.fail(QStringLiteral("\"%1\" names an unknown store \"%2\"").arg(s.pathOf(QStringLiteral("role")), role));
        store.role = r.value_or(DbRole::Idempotency);
        store.ok = s.boolean(QStringLiteral("ok"));
        store.error = s.text(QStringLiteral("error"));
        store.watermark = s.text(QStringLiteral("watermark"));
        b.stores.append(store);
    }
    const QJsonArray clocks = in.array(QStringLiteral("clocks"));
    for (qsizetype i = 0; i < clocks.size() && in.ok(); ++i) {
        const JsonIn c = in.element(QStringLiteral("clocks"), clocks, i);
        StoreClock clock;
        const QString role = c.text(QStringLiteral("role"));
        const auto r = key_json::roleFromName(role);
        if (c.ok() && !r)
            c.fail(QStringLiteral("\"%1\" names an unknown store \"%2\"").arg(c.pathOf(QStringLiteral("role")), role));
        clock.role = r.value_or(DbRole::Idempotency);
        clock.offsetMs = c.integer(QStringLiteral("offset_ms"));
        clock.roundTripMs = c.integer(QStringLiteral("round_trip_ms"));
        b.clocks.append(clock);
    }
    b.summary = readSummary(in.child(QStringLiteral("summary")));
    const JsonIn rules = in.child(QStringLiteral("redaction"));
    b.redactionRules.enabled = rules.boolean(QStringLiteral("enabled"));
    b.redactionRules.fields = rules.strings(QStringLiteral("fields"));
    const QJsonArray redactions = in.array(QStringLiteral("redactions"));
    for (qsizetype i = 0; i < redactions.size() && in.ok(); ++i) {
        const JsonIn r = in.element(QStringLiteral("redactions"), redactions, i);
        b.redactions.append({r.text(QStringLiteral("where")), r.text(QStringLiteral("field")), r.text(QStringLiteral("sha256"))});
    }
    // The stream's notes: "window_notes" since format version 2, "notes" in version 1.
    b.notes = in.strings(b.formatVersion >= 2 ? QStringLiteral("window_notes") : QStringLiteral("notes"));
    b.eventsSha256 = in.text(QStringLiteral("events_sha256"));
    if (parts == Parts::All) {
        const QJsonArray events = in.array(QStringLiteral("events"));
        b.events.reserve(events.size());
        for (qsizetype i = 0; i < events.size() && in.ok(); ++i)
            b.events.append(readEvent(in, events.at(i), QStringLiteral("events[%1]").arg(i)));
    }
    const qint64 count = in.integer(QStringLiteral("event_count"));
    if (eventCount)
        *eventCount = count;
    if (in.ok() && parts == Parts::All && count != b.events.size())
        in.fail(QStringLiteral("\"event_count\" is %1 but \"events\" holds %2").arg(count).arg(b.events.size()));
    if (parts == Parts::All) {
        const QJsonArray keys = in.array(QStringLiteral("keys"));
        for (qsizetype i = 0; i < keys.size() && in.ok(); ++i)
            b.keys.append(key_json::readKeyDetail(in.element(QStringLiteral("keys"), keys, i)));
        // Before version 3 the export wrote age 0 and no server_now: the ages are unknown.
        if (b.formatVersion < 3)
            for (KeyDetail &k : b.keys)
                if (k.record) {
                    k.record->ageBasis = RecordDetail::AgeBasis::Unknown;
                    k.record->ageSeconds = std::nan("");
                    k.record->expiresInSeconds.reset();
                }
    }
    if (!in.ok()) {
        *error = QStringLiteral("malformed bundle: %1").arg(in.error());
        return std::nullopt;
    }
    return b;
}

} // namespace triage
