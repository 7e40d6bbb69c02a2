#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

class QSettings;

namespace triage {

/// How a table stores its times (DESIGN.md §10). Every comparison stays on the server and
/// in the column's own representation, so indexes on the time columns keep working.
enum class TimeEncoding {
    Native,      ///< PostgreSQL timestamptz, MySQL/MariaDB DATETIME in UTC, SQLite ISO text
    Local,       ///< timestamp / DATETIME without zone, holding local time of `zone`
    EpochSeconds,///< BIGINT seconds since 1970-01-01T00:00:00Z
    EpochMillis, ///< BIGINT milliseconds since 1970-01-01T00:00:00Z
    IsoText,     ///< text "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" (any backend)
};

/// The config spelling of `e`: "native", "local", "epoch_s", "epoch_ms", "iso_text".
QString timeEncodingName(TimeEncoding e);

/// A table's time representation: the encoding, and for Local the zone ("+08:00",
/// "-05:30"; on PostgreSQL also an IANA name such as "Asia/Shanghai").
struct TimeMapping {
    TimeEncoding encoding = TimeEncoding::Native;
    QString zone;
    bool operator==(const TimeMapping &) const = default;
};

/// How a status column spells the console's statuses (DESIGN.md §10): integer codes or
/// text, and for each console status the stored spellings. The first spelling of a status
/// is the one the console writes; every spelling is read as that status. A stored value
/// that matches no spelling stays visible as unknown (never mapped to a known status).
struct StatusMapping {
    bool text = false;        ///< false: integer codes (the seeds' TINYINT)
    /// Text only: stored values are compared trimmed and case-folded ("Done ", "done" and
    /// "DONE" are one spelling). Off: exact.
    bool ignoreCase = false;
    /// Console status name ("PROCESSING", "SUCCEEDED", "CANCELLED") → stored spellings, in
    /// the order given (the first is written). Integer codes are their decimal text ("0").
    QMap<QString, QStringList> spellings;

    /// The console status a stored value (as text: "1", "DONE ") stands for; nullopt when no
    /// spelling matches (an unknown value).
    std::optional<QString> decode(const QString &stored) const;
    /// The spelling written for console status `name`; "" when the mapping has none.
    QString written(const QString &name) const;
    bool operator==(const StatusMapping &) const = default;
};

/// The idempotency-record table as the agents built it (DESIGN.md §1, §10). Column names
/// are plain identifiers; an empty optional column means "the table has none".
struct RecordTableMap {
    QString table = QStringLiteral("idempotency_record"); ///< may be schema-qualified ("billing.idem")
    QString id = QStringLiteral("id");
    QString key = QStringLiteral("idem_key");
    QString bizType = QStringLiteral("biz_type"); ///< "": no column, every row is `bizTypeValue`
    QString bizTypeValue;                          ///< the one biz_type when `bizType` is ""
    QString status = QStringLiteral("status");
    QString snapshot = QStringLiteral("result_snapshot");
    QString createdAt = QStringLiteral("created_at");
    QString updatedAt = QStringLiteral("updated_at");
    QString expireAt = QStringLiteral("expire_at"); ///< "": none
    /// Used (compared and bumped by the compare-and-set) when the table has it; "": never.
    QString version = QStringLiteral("version");
    QString tenant;                                 ///< "": the tenant comes from the key pattern
    StatusMapping statuses;                         ///< PROCESSING, SUCCESS, FAILED
    TimeMapping time;
    bool operator==(const RecordTableMap &) const = default;
};

/// The agents' intent log (DESIGN.md §1, §10): one row per attempt.
struct IntentTableMap {
    QString table = QStringLiteral("intent_log");
    QString id = QStringLiteral("id");
    QString taskId = QStringLiteral("task_id");
    QString stepId = QStringLiteral("step_id");
    QString action = QStringLiteral("action");
    QString key = QStringLiteral("idem_key");
    QString status = QStringLiteral("status");
    QString request = QStringLiteral("request");
    QString response = QStringLiteral("response");
    QString error = QStringLiteral("error");
    QString stateBefore = QStringLiteral("state_before");
    QString stateAfter = QStringLiteral("state_after");
    QString actor = QStringLiteral("actor");
    QString createdAt = QStringLiteral("created_at");
    QString updatedAt = QStringLiteral("updated_at");
    StatusMapping statuses; ///< INTENT, SUCCEEDED, FAILED, UNKNOWN, RECONCILE_PENDING, ESCALATED, COMPENSATED
    TimeMapping time;
    bool operator==(const IntentTableMap &) const = default;
};

/// The business table (DESIGN.md §1 "business table backstop", §10). Its id is an opaque
/// value (BIGINT, VARCHAR, UUID).
struct TicketTableMap {
    QString table = QStringLiteral("ticket");
    QString id = QStringLiteral("id");
    QString key = QStringLiteral("idem_key");
    QString tenant = QStringLiteral("tenant_id"); ///< "": none
    QString title = QStringLiteral("title");      ///< "": none
    QString status = QStringLiteral("status");
    QString payload = QStringLiteral("payload");  ///< JSON (text, JSON or JSONB)
    QString createdAt = QStringLiteral("created_at");
    QString updatedAt = QStringLiteral("updated_at"); ///< "": none
    /// Text statuses; the console knows only CANCELLED (an undone ticket); every other
    /// value is a live ticket and is shown as stored.
    StatusMapping statuses;
    TimeMapping time;
    bool operator==(const TicketTableMap &) const = default;
};

/// The whole mapping: one table description per store, read from the config sections
/// [idempotency.map], [intent.map], [ticket.map] (resources/triage.example.ini documents
/// every key); a section left out keeps today's names (resources/schema/).
struct SchemaMap {
    RecordTableMap records;
    IntentTableMap intents;
    TicketTableMap tickets;

    /// The default schema's mapping (resources/schema/): what an empty config means.
    static SchemaMap defaults();
    /// True when nothing differs from defaults().
    bool isDefault() const;

    /// Reads the three map sections of `s`. Returns nullopt with `*error` set to
    /// "[<section>] <key> …" (the first problem: a name that is not an identifier, an
    /// unknown encoding, a status spelled twice, a missing spelling, a zone that is not an
    /// offset or a zone name, biz_type_value without an empty biz_type, …) so the caller can
    /// name file and line. Never touches a database (the live catalog is doctor's job).
    static std::optional<SchemaMap> fromSettings(QSettings &s, QString *error);
    bool operator==(const SchemaMap &) const = default;
};

/// True when `name` is a table or column name the mapping accepts: one identifier
/// ([A-Za-z_][A-Za-z0-9_$]*, at most 63 characters) or, for tables, schema.identifier.
bool isMappableName(const QString &name, bool allowSchema);

/// The console status names of the record table, in the order of RecordStatusCode.
const QStringList &recordStatusNames();
/// The ticket status names the console knows (only "CANCELLED").
const QStringList &ticketStatusNames();

} // namespace triage
