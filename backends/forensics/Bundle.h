#pragma once
// The incident bundle (DESIGN.md §7 "Bundles"): one JSON file holding a window's facts as
// they were read, reopenable offline and checkable against the database later.
// This header is the contract shared by the exporter (Bundle.cpp, BundleExport.cpp), the
// reports (BundleReport.h) and the offline viewer (--open-bundle).

#include "Incident.h"
#include "KeyDetailTypes.h"
#include "Window.h"
#include "WindowSummary.h"

#include <QByteArray>
#include <QFuture>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

class QIODevice;

namespace triage {

class Workspace;

/// The bundle format this build writes and reads ("format_version"); a newer one is refused.
/// Version 2 names the stream's notes "window_notes" (version 1: "notes", still read).
/// Version 3 keeps each record's "server_now" (the database's clock when the export read it)
/// with "age_seconds", "expires_in_seconds" and "stale" measured against it; versions 1 and 2
/// wrote 0 / null there, read as unknown (RecordDetail::AgeBasis::Unknown).
constexpr int kBundleFormatVersion = 3;
/// The value of the bundle's "format" member.
inline constexpr char kBundleFormatName[] = "triage-incident-bundle";

/// One store's part of an export: read whole, or failed (the bundle names it and the export
/// exits non-zero: nothing is silently missing).
struct BundleStore {
    DbRole role = DbRole::Idempotency;
    bool ok = true;
    QString error;     ///< the store's error for operators when !ok
    QString watermark; ///< the store's now() minus the lookback at export, canonical ISO UTC ("" when failed)
};

/// One value the export replaced by a redaction marker (DESIGN.md §7 "Redaction").
struct Redaction {
    QString where;  ///< a path into the bundle: "keys[k:1].attempts[0].request.token", "events[3].detail"
    QString field;  ///< the header or JSON field name that matched ("Authorization", "password", …)
    QString sha256; ///< lower-case hex SHA-256 of the value's UTF-8 bytes (the marker holds it too)
};

/// Redaction settings: on by default; `fields` matched case-insensitively against JSON member
/// names and header names (Authorization and Cookie / Set-Cookie headers are always redacted
/// while enabled).
struct RedactionRules {
    bool enabled = true;
    QStringList fields = {QStringLiteral("token"), QStringLiteral("password"), QStringLiteral("secret"),
                          QStringLiteral("api_key"), QStringLiteral("apikey"), QStringLiteral("access_token"),
                          QStringLiteral("refresh_token"), QStringLiteral("authorization"), QStringLiteral("cookie")};
};

/// A recorded export of a bundle hash (triage_incident_export).
struct BundleExportRecord {
    qint64 id = 0;
    std::optional<qint64> incidentId;
    QString eventsSha256;
    qint64 eventCount = 0;
    QString exportedBy, exportedAt; ///< operator; canonical ISO UTC
    bool redacted = true;
};

/// An export as it is written to and read from the bundle file. Times are canonical ISO UTC
/// text; events keep WindowEvent's values exactly as read (text that was not valid UTF-8 is
/// already escapeInvalidUtf8()-escaped by the readers and stays so).
struct IncidentBundle {
    int formatVersion = kBundleFormatVersion;
    QString toolVersion;               ///< the exporting build's version ("0.1.0")
    QString generatedAt;               ///< export time, canonical ISO UTC (the only member two exports of the same data differ in)
    QString generatedBy;               ///< operator who exported
    std::optional<IncidentDetail> incident; ///< set when exported from an incident (its pins and notes)
    WindowQuery query;                 ///< the exact absolute window, filters and lookback
    QVector<BundleStore> stores;       ///< every store the export read, ok or failed
    QVector<StoreClock> clocks;        ///< measured clock offsets
    QVector<WindowEvent> events;       ///< every event of the window in window order (final, then the settling tail, each flagged)
    QString eventsSha256;              ///< bundleEventsSha256(events), lower-case hex
    QVector<KeyDetail> keys;           ///< the involved keys' details (every distinct non-empty idemKey of the events)
    WindowSummary summary;
    RedactionRules redactionRules;     ///< as applied
    QVector<Redaction> redactions;     ///< what was redacted, in bundle order
    QStringList notes;                 ///< filters a stream could not apply (WindowPage::notes); the file's "window_notes"
    /// Not in the file: the export as exportBundle() recorded it (triage_incident_export), or
    /// nullopt with `notRecordedReason` saying why ("read-only mode: the export is not
    /// recorded", "not recorded (--no-record)").
    std::optional<BundleExportRecord> recorded;
    QString notRecordedReason;
    std::optional<DbError> recordError; ///< not in the file: why recording failed (a database without the table: kind Config)

    /// True when every store was read whole.
    bool complete() const;
};

/// The canonical serialisation of an event list that the bundle's hash covers (documented in
/// DESIGN.md §7 "Bundles"): one line per event, each a compact JSON array
/// [at, store, kind, id, idem_key, biz_type, status, status_now, status_unmapped, actor,
/// detail, settling] with `at` the canonical ISO UTC text, store and kind as
/// eventStoreName()/eventKindName() spell them, texts as stored (null for a null QString: SQL
/// NULL or no such value for the kind; "" only for a stored empty string) and
/// status_unmapped and settling JSON booleans; each line ended by "\n"; UTF-8.
QByteArray canonicalEventList(const QVector<WindowEvent> &events);
/// Lower-case hex SHA-256 of canonicalEventList(events).
QString bundleEventsSha256(const QVector<WindowEvent> &events);

/// The bundle as its JSON document (indented, members in a fixed order: two exports of the
/// same data are byte-identical except "generated_at" and "clocks", both measured at the
/// export); each event and each key one compact line (DESIGN.md §7 "Bundles").
/// Always in this build's format version (kBundleFormatVersion), whatever bundle.formatVersion
/// says (a version-1 bundle read and written again comes out in version 2, same events, same hash).
QByteArray writeBundleJson(const IncidentBundle &bundle);
/// The same bytes as writeBundleJson(bundle), written to `device` as they are made: the events
/// in blocks, the keys a batch at a time (each key's line serialised on the global pool, the
/// calling thread helping), so at most a batch's text is held besides the bundle. False with
/// `*error` (when given) the device's message when a write fails.
bool writeBundleJson(const IncidentBundle &bundle, QIODevice *device, QString *error);
/// Reads a bundle file's bytes. nullopt with `*error` set when the bytes are not JSON, not a
/// bundle ("not a triage incident bundle (no \"format\")"), of a newer format version, or
/// malformed (the member path named). Does not check the hash: see verifyBundleHash().
std::optional<IncidentBundle> readBundleJson(const QByteArray &bytes, QString *error);
/// The start of a bundle file, for showing it before the rest is parsed (DESIGN.md §7
/// "Offline viewer").
/// Events the offline viewer reads before showing a bundle: the Incident view's first page
/// (WindowEventsModel pages 500) with room to spare.
constexpr int kBundleFirstEvents = 1000;
struct BundleHead {
    /// Every member but the keys and the events after the first ones asked for (all of them
    /// and the keys when `whole`).
    IncidentBundle bundle;
    qint64 eventCount = 0; ///< the file's "event_count" (the events the whole file holds)
    bool whole = false;    ///< true when `bundle` is the whole file, read by readBundleJson()
};
/// Reads the header and the first `firstEvents` events of a file in writeBundleJson()'s layout
/// without parsing the rest (the caller reads it with readBundleJson(), off the GUI thread, and
/// checks the hash there). A file in another layout (re-indented by a tool), cut short, or bad in
/// its header is read whole by readBundleJson() at once (`whole`; nullopt with its exact
/// message). A fault after the first events shows only in the later readBundleJson().
std::optional<BundleHead> readBundleHead(const QByteArray &bytes, int firstEvents, QString *error);
/// True when bundle.eventsSha256 equals bundleEventsSha256(bundle.events).
bool verifyBundleHash(const IncidentBundle &bundle);

/// Applies `rules` to `bundle` in place (the keys' texts and headers, the events' details,
/// actors and statuses, the pins' and the incident's notes: JSON members by name, free text's
/// `NAME=value` / `NAME: value` by the same names; DESIGN.md §7 "Redaction"), filling
/// bundle.redactions and bundle.redactionRules. Called by the exporter before hashing.
void redactBundle(IncidentBundle *bundle, const RedactionRules &rules);

/// Reads `query`'s whole window (every page, then the settling tail), its summary, clocks and
/// the involved keys' details from `workspace`, and (when `incidentId` is set) the incident's
/// pins and notes; redacts by `rules`; hashes. A store that fails is recorded in
/// bundle.stores (the rest is still exported). `recordExport`: write the hash to the
/// database (triage_incident_export with operator and time, audited; DESIGN.md §7), skipped
/// in read-only mode.
QFuture<Outcome<IncidentBundle>> exportBundle(Workspace &workspace, const WindowQuery &query,
                                              std::optional<qint64> incidentId, const RedactionRules &rules,
                                              bool recordExport);

/// The recorded exports whose hash is `sha256` (oldest first); empty when none.
QFuture<Outcome<QVector<BundleExportRecord>>> findBundleExports(Workspace &workspace, const QString &sha256);

/// Of `found` (the recorded exports with `bundle`'s events hash, oldest first), the one that
/// most likely wrote `bundle`: the same redaction setting first (a `--no-redact` export of
/// events that held no secret has the same hash), then the same incident (or none), then the
/// export recorded nearest the file's `generated_at` (the same events exported again, say after
/// a note was added, have the same hash); ties to the oldest. Null when `found` is empty. Pure.
const BundleExportRecord *matchingExport(const IncidentBundle &bundle, const QVector<BundleExportRecord> &found);

} // namespace triage
