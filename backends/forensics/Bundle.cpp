// The incident bundle's file form (DESIGN.md §7 "Bundles"): the canonical event list and its
// hash, and the JSON writer (members in a fixed order). The strict reader is in
// BundleRead.cpp, redaction in BundleRedact.cpp, the export from the stores in BundleExport.cpp.
#include "Bundle.h"
#include "BundleParts.h"

#include "JsonText.h"
#include "KeyDetailJson.h"
#include "KeyDetailJsonLine.h"
#include "Sha256Stream.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtConcurrent/QtConcurrentRun>

#include <deque>

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

namespace {


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

using bundle_parts::valueText;

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

/// The entries [from, to) of the "redactions" member's value exactly as valueText() writes
/// the array of {"field", "sha256", "where"} objects (QJsonObject's sorted member order), each
/// after its separator ("[" comes before the first): written directly, in blocks, since an
/// export can list 100,000 redactions.
QByteArray redactionEntries(const QVector<Redaction> &list, qsizetype from, qsizetype to)
{
    QByteArray out;
    for (qsizetype i = from; i < to; ++i) {
        const Redaction &r = list.at(i);
        out += i == 0 ? "\n        {\n            \"field\": " : ",\n        {\n            \"field\": ";
        appendJsonString(&out, r.field);
        out += ",\n            \"sha256\": ";
        appendJsonString(&out, r.sha256);
        out += ",\n            \"where\": ";
        appendJsonString(&out, r.where);
        out += "\n        }";
    }
    return out;
}

/// Redactions per block made on the pool, blocks made or held at once.
constexpr qsizetype kRedactionsPerBlock = 4096;
constexpr qsizetype kRedactionBlocksHeld = 8;

} // namespace

QByteArray bundle_parts::valueText(const QJsonValue &value, int depth)
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

/// Serialises items [0, count) in blocks of `perBlock` on the global pool's threads and calls
/// `take(text)` with each block's text in order (`text(from, to)` makes it) on the calling
/// thread. At most `window` blocks are being made or waiting at once, and a block is started as
/// soon as the oldest is taken, so the pool's threads never wait for a whole round to finish.
/// `take` returns false to stop (the blocks in flight are waited for, since they use `text`).
/// Returns false when `take` stopped.
template <typename Text, typename Take>
bool forEachBlockInOrder(qsizetype count, qsizetype perBlock, qsizetype window, const Text &text, const Take &take)
{
    std::deque<QFuture<QByteArray>> inFlight;
    qsizetype next = 0;
    const auto start = [&] {
        const qsizetype from = next, to = std::min(count, next + perBlock);
        inFlight.push_back(QtConcurrent::run([&text, from, to] { return text(from, to); }));
        next = to;
    };
    while (next < count && qsizetype(inFlight.size()) < window)
        start();
    while (!inFlight.empty()) {
        const QByteArray block = inFlight.front().result(); // waits (or runs it here if not started)
        inFlight.pop_front();
        if (next < count)
            start();
        if (!take(block)) {
            for (QFuture<QByteArray> &f : inFlight)
                f.waitForFinished();
            return false;
        }
    }
    return true;
}

/// Events per block of canonical lines made at once on the pool, and blocks made or held at
/// once: at most 16 blocks' text (about 64,000 lines) is held.
constexpr qsizetype kEventsPerBlock = 4096;
constexpr qsizetype kEventBlocksHeld = 16;

/// Calls `take(text)` with the canonical lines of `events` (each ended by "\n"), block by block
/// in order (forEachBlockInOrder()). `take` returns false to stop.
template <typename Take>
bool forEachLineBlock(const QVector<WindowEvent> &events, Take take)
{
    return forEachBlockInOrder(events.size(), kEventsPerBlock, kEventBlocksHeld, [&events](qsizetype from, qsizetype to) {
        QByteArray text;
        for (qsizetype i = from; i < to; ++i) {
            appendEventLine(&text, events.at(i));
            text += '\n';
        }
        return text;
    }, take);
}

} // namespace

QString bundleEventsSha256(const QVector<WindowEvent> &events)
{
    Sha256Stream hash; // libcrypto's SHA-256: the lines are tens of megabytes
    forEachLineBlock(events, [&hash](const QByteArray &block) { // block by block: never held whole
        hash.addData(block);
        return true;
    });
    return hash.hexResult();
}

namespace {

/// Keys serialised per block on the pool, blocks made or held at once: the writer holds at
/// most 16 blocks' text (DESIGN.md §7 "Bundles": memory stays bounded).
constexpr qsizetype kKeysPerBlock = 8;
constexpr qsizetype kKeyBlocksHeld = 16;

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
    if (b.redactions.isEmpty()) {
        member(&out, "redactions", QJsonArray());
    } else {
        out += "    \"redactions\": [";
        const bool listed = forEachBlockInOrder(b.redactions.size(), kRedactionsPerBlock, kRedactionBlocksHeld,
                                                [&b](qsizetype from, qsizetype to) { return redactionEntries(b.redactions, from, to); },
                                                [&](const QByteArray &block) {
                                                    out += block;
                                                    const bool ok = put(device, out, error);
                                                    out.clear();
                                                    return ok;
                                                });
        if (!listed)
            return false;
        out += "\n    ],\n";
    }
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
    // One compact line per key (a key with thousands of attempts stays one line), written by
    // keyDetailFullLine(); blocks of keys are serialised on the pool's threads while the ones
    // before are written, in order.
    if (!put(device, out, error))
        return false;
    out.clear();
    const bool keysWritten = forEachBlockInOrder(b.keys.size(), kKeysPerBlock, kKeyBlocksHeld, [&b](qsizetype from, qsizetype to) {
        QByteArray text;
        for (qsizetype i = from; i < to; ++i) {
            text += i ? ",\n        " : "\n        ";
            text += key_json::keyDetailFullLine(b.keys.at(i));
        }
        return text;
    }, [&](const QByteArray &block) { return put(device, block, error); });
    if (!keysWritten)
        return false;
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

bool verifyBundleHash(const IncidentBundle &bundle)
{
    return bundle.eventsSha256 == bundleEventsSha256(bundle.events);
}

} // namespace triage
