// The incident bundle's file form (DESIGN.md §7 "Bundles"): the canonical event list and its
// hash, the JSON writer (members in a fixed order) and the strict reader. Redaction is in
// BundleRedact.cpp, the export from the stores in BundleExport.cpp.
#include "Bundle.h"
#include "BundleParts.h"

#include "JsonRead.h"
#include "JsonText.h"
#include "KeyDetailJson.h"

#include <cmath>
#include <QBuffer>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtConcurrent/QtConcurrentMap>

namespace triage {

namespace {

const QStringList &eventColumns()
{
    static const QStringList columns = {
        QStringLiteral("at"),       QStringLiteral("store"),  QStringLiteral("kind"),
        QStringLiteral("id"),       QStringLiteral("idem_key"), QStringLiteral("biz_type"),
        QStringLiteral("status"),   QStringLiteral("status_now"), QStringLiteral("status_unmapped"),
        QStringLiteral("actor"),    QStringLiteral("detail"), QStringLiteral("settling")};
    return columns;
}

/// A nullable text: JSON null for a null QString (SQL NULL, or no such value for the kind), else
/// the text ("" for a stored empty string). QJsonValue(QString()) would write "".
QJsonValue nullableText(const QString &s)
{
    return s.isNull() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

QJsonArray eventArray(const WindowEvent &e)
{
    return QJsonArray{e.atText,          eventStoreName(e.store), eventKindName(e.kind),
                      e.id,              nullableText(e.idemKey), nullableText(e.bizType),
                      nullableText(e.status), nullableText(e.statusNow), e.statusUnmapped,
                      nullableText(e.actor),  nullableText(e.detail),    e.settling};
}

/// Appends one event's canonical line (without its "\n"): eventArray(e) as
/// QJsonDocument::Compact writes it, written directly (appendJsonString()), since a
/// QJsonArray per event cost more than the rest of the line's way into the file.
void appendEventLine(QByteArray *out, const WindowEvent &e)
{
    const auto text = [out](const QString &s) {
        if (s.isNull())
            *out += "null";
        else
            appendJsonString(out, s);
    };
    *out += '[';
    appendJsonString(out, e.atText);
    *out += ',';
    appendJsonString(out, eventStoreName(e.store));
    *out += ',';
    appendJsonString(out, eventKindName(e.kind));
    *out += ',';
    appendJsonString(out, e.id);
    for (const QString *s : {&e.idemKey, &e.bizType, &e.status, &e.statusNow}) {
        *out += ',';
        text(*s);
    }
    *out += e.statusUnmapped ? ",true," : ",false,";
    text(e.actor);
    *out += ',';
    text(e.detail);
    *out += e.settling ? ",true]" : ",false]";
}

} // namespace

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

QJsonObject windowJson(const WindowQuery &q)
{
    return QJsonObject{
        {QStringLiteral("from"), formatUtcMicros(q.from)},
        {QStringLiteral("to"), formatUtcMicros(q.to)},
        {QStringLiteral("from_us"), q.from},
        {QStringLiteral("to_us"), q.to},
        {QStringLiteral("lookback_s"), q.lookbackS},
        {QStringLiteral("filters"), QJsonDocument::fromJson(incidentFiltersJson(q).toUtf8()).object()},
    };
}

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

QJsonObject summaryJson(const WindowSummary &s)
{
    QJsonArray perMinute;
    for (const MinuteCount &m : s.perMinute)
        perMinute.append(QJsonObject{{QStringLiteral("minute"), m.minute},
                                     {QStringLiteral("kind"), eventKindName(m.kind)},
                                     {QStringLiteral("events"), m.events}});
    QJsonObject events, keys;
    for (EventKind k : allEventKinds()) {
        events.insert(eventKindName(k), s.events[int(k)]);
        keys.insert(eventKindName(k), s.keys[int(k)]);
    }
    auto counts = [](const QVector<NameCount> &list) {
        QJsonArray a;
        for (const NameCount &n : list)
            a.append(QJsonObject{{QStringLiteral("name"), n.name}, {QStringLiteral("count"), n.count}});
        return a;
    };
    return QJsonObject{{QStringLiteral("per_minute"), perMinute},
                       {QStringLiteral("events"), events},
                       {QStringLiteral("keys"), keys},
                       {QStringLiteral("unknown_keys"), s.unknownKeys},
                       {QStringLiteral("still_processing"), s.stillProcessing},
                       {QStringLiteral("duplicate_groups"), s.duplicateGroups},
                       {QStringLiteral("settled_by"), counts(s.settledBy)},
                       {QStringLiteral("top_biz_types"), counts(s.topBizTypes)},
                       {QStringLiteral("top_tenants"), counts(s.topTenants)}};
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

QJsonValue incidentJson(const std::optional<IncidentDetail> &detail)
{
    if (!detail)
        return QJsonValue(QJsonValue::Null);
    const Incident &i = detail->incident;
    QJsonArray pins, notes;
    for (const IncidentPin &p : detail->pins)
        pins.append(QJsonObject{{QStringLiteral("id"), p.id},
                                {QStringLiteral("kind"), eventKindName(p.kind)},
                                {QStringLiteral("event_id"), p.eventId},
                                {QStringLiteral("event_at"), p.eventAt},
                                {QStringLiteral("note"), p.note},
                                {QStringLiteral("pinned_by"), p.pinnedBy},
                                {QStringLiteral("pinned_at"), p.pinnedAt},
                                {QStringLiteral("event"), p.event ? QJsonValue(eventArray(*p.event)) : QJsonValue()}});
    for (const IncidentNote &n : detail->notes)
        notes.append(QJsonObject{{QStringLiteral("id"), n.id},
                                 {QStringLiteral("operator"), n.operatorName},
                                 {QStringLiteral("at"), n.at},
                                 {QStringLiteral("text"), n.text},
                                 {QStringLiteral("event_kind"), n.eventKind ? QJsonValue(eventKindName(*n.eventKind)) : QJsonValue()},
                                 {QStringLiteral("event_id"), n.eventId}});
    return QJsonObject{{QStringLiteral("id"), i.id},
                       {QStringLiteral("title"), i.title},
                       {QStringLiteral("window"), windowJson(i.query)},
                       {QStringLiteral("open"), i.open},
                       {QStringLiteral("created_by"), i.createdBy},
                       {QStringLiteral("created_at"), i.createdAt},
                       {QStringLiteral("closed_by"), i.closedBy},
                       {QStringLiteral("closed_at"), i.closedAt},
                       {QStringLiteral("version"), i.version},
                       {QStringLiteral("pin_count"), i.pins},
                       {QStringLiteral("note_count"), i.notes},
                       {QStringLiteral("pins"), pins},
                       {QStringLiteral("notes"), notes}};
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

/// `value` as JSON text indented by `depth` levels of four spaces past its first line.
QByteArray valueText(const QJsonValue &value, int depth)
{
    QByteArray text;
    if (value.isObject())
        text = QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented);
    else if (value.isArray())
        text = QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented);
    else // a scalar: written inside an array, the brackets cut
        return QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    text.chop(1); // the final "\n"
    // JSON strings hold no raw line break, so every "\n" is the writer's.
    return text.replace("\n", "\n" + QByteArray(4 * depth, ' '));
}

void member(QByteArray *out, const char *name, const QByteArray &text)
{
    *out += "    \"";
    *out += name;
    *out += "\": ";
    *out += text;
    *out += ",\n";
}

void member(QByteArray *out, const char *name, const QJsonValue &value)
{
    member(out, name, valueText(value, 1));
}

/// The "redactions" member's value exactly as valueText() writes the array of {"field",
/// "sha256", "where"} objects (QJsonObject's sorted member order), written directly: an
/// export can list 100,000 redactions.
QByteArray redactionsText(const QVector<Redaction> &list)
{
    if (list.isEmpty())
        return valueText(QJsonArray(), 1);
    QByteArray out = "[";
    for (const Redaction &r : list) {
        out += out.size() == 1 ? "\n        {\n            \"field\": " : ",\n        {\n            \"field\": ";
        appendJsonString(&out, r.field);
        out += ",\n            \"sha256\": ";
        appendJsonString(&out, r.sha256);
        out += ",\n            \"where\": ";
        appendJsonString(&out, r.where);
        out += "\n        }";
    }
    out += "\n    ]";
    return out;
}

} // namespace

bool IncidentBundle::complete() const
{
    for (const BundleStore &s : stores)
        if (!s.ok)
            return false;
    return true;
}

QByteArray canonicalEventList(const QVector<WindowEvent> &events)
{
    QByteArray out;
    for (const WindowEvent &e : events) {
        appendEventLine(&out, e);
        out += '\n';
    }
    return out;
}

namespace {

/// Events per block of canonical lines made at once on the pool, and blocks per round: at most
/// a round's text (about 32,000 lines) is held.
constexpr qsizetype kEventsPerBlock = 4096;
constexpr qsizetype kBlocksPerRound = 8;

/// Calls `take(text)` with the canonical lines of `events` (each ended by "\n"), block by block
/// in order; the blocks of a round are made on the global pool's threads (the calling thread
/// helping). `take` returns false to stop.
template <typename Take>
bool forEachLineBlock(const QVector<WindowEvent> &events, Take take)
{
    for (qsizetype round = 0; round < events.size(); round += kEventsPerBlock * kBlocksPerRound) {
        QList<qsizetype> starts;
        for (qsizetype b = round; b < std::min(events.size(), round + kEventsPerBlock * kBlocksPerRound); b += kEventsPerBlock)
            starts << b;
        const QList<QByteArray> blocks = QtConcurrent::blockingMapped(starts, [&events](qsizetype start) {
            QByteArray text;
            for (qsizetype i = start; i < std::min(events.size(), start + kEventsPerBlock); ++i) {
                appendEventLine(&text, events.at(i));
                text += '\n';
            }
            return text;
        });
        for (const QByteArray &block : blocks)
            if (!take(block))
                return false;
    }
    return true;
}

} // namespace

QString bundleEventsSha256(const QVector<WindowEvent> &events)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    forEachLineBlock(events, [&hash](const QByteArray &block) { // block by block: never held whole
        hash.addData(block);
        return true;
    });
    return QString::fromLatin1(hash.result().toHex());
}

namespace {

/// Keys serialised per parallel batch: the writer holds at most one batch's text (DESIGN.md §7
/// "Bundles": memory stays bounded).
constexpr qsizetype kKeysPerBatch = 64;

bool put(QIODevice *device, const QByteArray &bytes, QString *error)
{
    if (device->write(bytes) == bytes.size())
        return true;
    if (error)
        *error = device->errorString();
    return false;
}

} // namespace

bool writeBundleJson(const IncidentBundle &b, QIODevice *device, QString *error)
{
    QJsonArray stores, clocks;
    for (const BundleStore &s : b.stores)
        stores.append(QJsonObject{{QStringLiteral("role"), roleName(s.role)},
                                  {QStringLiteral("ok"), s.ok},
                                  {QStringLiteral("error"), s.error},
                                  {QStringLiteral("watermark"), s.watermark}});
    for (const StoreClock &c : b.clocks)
        clocks.append(QJsonObject{{QStringLiteral("role"), roleName(c.role)},
                                  {QStringLiteral("offset_ms"), c.offsetMs},
                                  {QStringLiteral("round_trip_ms"), c.roundTripMs}});
    QByteArray out = "{\n";
    member(&out, "format", QString::fromLatin1(kBundleFormatName));
    member(&out, "format_version", kBundleFormatVersion); // always this build's layout
    member(&out, "tool_version", b.toolVersion);
    member(&out, "generated_at", b.generatedAt);
    member(&out, "generated_by", b.generatedBy);
    member(&out, "complete", b.complete());
    member(&out, "window", windowJson(b.query));
    member(&out, "incident", incidentJson(b.incident));
    member(&out, "stores", stores);
    member(&out, "clocks", clocks);
    member(&out, "summary", summaryJson(b.summary));
    member(&out, "redaction", QJsonObject{{QStringLiteral("enabled"), b.redactionRules.enabled},
                                          {QStringLiteral("fields"), QJsonArray::fromStringList(b.redactionRules.fields)}});
    member(&out, "redactions", redactionsText(b.redactions));
    member(&out, "window_notes", QJsonArray::fromStringList(b.notes)); // "notes" in format version 1
    member(&out, "events_sha256", b.eventsSha256);
    member(&out, "event_count", qint64(b.events.size()));
    member(&out, "event_columns", QJsonArray::fromStringList(eventColumns()));
    // The events one canonical line each (the lines the hash covers, indented), streamed.
    out += "    \"events\": [";
    bool first = true;
    const bool written = forEachLineBlock(b.events, [&](const QByteArray &block) {
        // Each line indented, its "\n" turned into the separator (JSON strings hold no raw "\n").
        for (qsizetype at = 0; at < block.size();) {
            const qsizetype end = block.indexOf('\n', at);
            out += first ? "\n        " : ",\n        ";
            first = false;
            out.append(QByteArrayView(block).sliced(at, end - at));
            at = end + 1;
        }
        const bool ok = put(device, out, error);
        out.clear();
        return ok;
    });
    if (!written)
        return false;
    out += b.events.isEmpty() ? "],\n" : "\n    ],\n";
    out += "    \"keys\": [";
    // One compact line per key (a key with thousands of attempts stays one line), each its own
    // small QJsonDocument; a batch of keys is serialised on the pool's threads at once, in order.
    for (qsizetype start = 0; start < b.keys.size(); start += kKeysPerBatch) {
        const qsizetype end = std::min(b.keys.size(), start + kKeysPerBatch);
        QList<qsizetype> batch;
        for (qsizetype i = start; i < end; ++i)
            batch << i;
        const QList<QByteArray> lines = QtConcurrent::blockingMapped(batch, [&b](qsizetype i) {
            return QJsonDocument(key_json::keyDetailFull(b.keys.at(i))).toJson(QJsonDocument::Compact);
        });
        for (qsizetype i = start; i < end; ++i) {
            out += i ? ",\n        " : "\n        ";
            out += lines.at(i - start);
        }
        if (!put(device, out, error))
            return false;
        out.clear();
    }
    out += b.keys.isEmpty() ? "]\n" : "\n    ]\n";
    out += "}\n";
    return put(device, out, error);
}

QByteArray writeBundleJson(const IncidentBundle &b)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    writeBundleJson(b, &buffer, nullptr); // a QBuffer write does not fail
    return bytes;
}

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
                     .arg(QString::fromUtf8(valueText(format, 0)));
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

bool verifyBundleHash(const IncidentBundle &bundle)
{
    return bundle.eventsSha256 == bundleEventsSha256(bundle.events);
}

} // namespace triage
