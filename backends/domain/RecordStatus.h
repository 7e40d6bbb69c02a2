#pragma once

#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

struct StatusMapping;

/// idempotency_record.status codes (DESIGN.md §1).
enum RecordStatusCode : int { Processing = 0, Success = 1, Failed = 2 };

/// DESIGN.md §4 spelling: "PROCESSING", "SUCCESS", "FAILED", or "UNKNOWN_CODE_<n>" for a
/// code the console does not know. A NULL status prints "NULL"; a non-integer value
/// prints "UNKNOWN_CODE_<text>" (1.5 prints "UNKNOWN_CODE_1.5"). Never maps an unknown code to a
/// known one.
QString recordStatusText(const QVariant &status);

/// The integer code of a status column value, or nullopt for NULL and for a value that is
/// not an integer ("done", 1.5: SQLite stores whatever it is given). Never rounds.
std::optional<qint64> recordStatusCode(const QVariant &status);

/// DESIGN.md §4 spelling of a known code: "PROCESSING", "SUCCESS", "FAILED".
QString recordStatusName(RecordStatusCode code);

/// One stored idempotency_record.status value, typed where it is read: its integer code
/// (nullopt for NULL and for a non-integer value, as recordStatusCode) and its DESIGN.md §4
/// spelling (recordStatusText: "SUCCESS", "UNKNOWN_CODE_7", "NULL").
struct StoredRecordStatus {
    std::optional<qint64> code;
    QString text;
    /// The value exactly as stored, as text ("1", "DONE "); nullopt for NULL. What a
    /// compare-and-set compares (DESIGN.md §10: the exact raw value the operator saw).
    std::optional<QString> stored;
    /// Reads a status column value of the default integer encoding (never rounds, never
    /// maps an unknown code to a known one).
    static StoredRecordStatus fromColumn(const QVariant &status);
    /// Reads a status column value through the mapping (SchemaMap.h): a stored spelling of a
    /// console status gives its code and name; a value no spelling matches has no code (so no
    /// rule reads it as a known status, even an integer that is a known code in the seeds'
    /// encoding) and reads "UNKNOWN_CODE_<stored value>"; NULL reads "NULL". With the default
    /// mapping (the seeds' 0/1/2) it is fromColumn(): an unknown integer keeps its code.
    static StoredRecordStatus fromMapped(const QVariant &status, const StatusMapping &mapping);
    /// The code when the console knows it (0, 1, 2), else nullopt (unknown code, NULL, non-integer).
    std::optional<RecordStatusCode> known() const;
    bool operator==(const StoredRecordStatus &) const = default;
};

/// Parses a status name (case-insensitive: "success", "Processing") to its code.
std::optional<RecordStatusCode> recordStatusFromText(const QString &text);

/// Intent-log / compensation statuses (DESIGN.md §1), in display order.
const QStringList &intentStatuses();

} // namespace triage
