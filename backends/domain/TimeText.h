#pragma once

#include <QString>
#include <QVariant>

#include <optional>

namespace triage {

/// A point in time as microseconds since 1970-01-01T00:00:00Z (UTC).
/// The console's in-memory time type: QDateTime keeps milliseconds only, and the
/// stores keep microseconds (DESIGN.md §4 "Time").
using UtcMicros = qint64;

/// Parses ISO-8601 text as the databases print it: "YYYY-MM-DD[T| ]HH:MM:SS[.f{1,9}]"
/// followed by "Z", "+HH:MM", "+HHMM", "+HH" or nothing (nothing means UTC; offsets up to
/// ±23:59). Digits past the sixth fractional one are truncated. Returns nullopt for anything
/// else, including impossible dates and times ("2026-02-30", "24:00:00", "+05:99").
std::optional<UtcMicros> parseUtcMicros(QStringView text);

/// Formats as "2026-11-29T21:55:07.123456Z": ISO-8601 UTC, always six fractional digits.
QString formatUtcMicros(UtcMicros t);

/// Formats in the operator's local time zone, to the second ("2026-11-29 22:55:07 CET").
QString formatLocal(UtcMicros t);

/// Time text to the second for people, in UTC without a zone suffix (the column or the
/// sentence says UTC): "2026-11-29 21:55:07" for "2026-11-29T21:55:07.123456Z" or any
/// other text parseUtcMicros() reads. A null QString stays null; text it cannot read is
/// returned as stored, so nothing is hidden. The one "to the second" printer.
QString utcToSecond(const QString &text);

/// Canonicalises a time read from a store: NULL stays a null QString; parsable text is
/// re-printed by formatUtcMicros(); unparsable text is returned unchanged, so nothing is lost.
QString canonicalTimeText(const QVariant &value);

/// "3d 4h", "5m 12s", "850ms": a human duration for ages; negative values get a leading '-'.
QString humanDuration(double seconds);

} // namespace triage
