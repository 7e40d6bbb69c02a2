#pragma once
// triagectl: the daily review's shared pieces (review and report; DESIGN.md §5, §8 "The
// daily review").

#include "CtlOutput.h"
#include "Review.h"

#include <QCommandLineParser>

namespace triage::ctl {

/// Option `name` (without "--") of `parser` as a day YYYY-MM-DD (nullopt when not given);
/// `*error` set when it does not read: "--from \"2026-02-30\": no such day" for a day that does
/// not exist, "--date \"12/03\": give a day as YYYY-MM-DD" for another shape.
std::optional<QDate> reviewDayOption(const QCommandLineParser &parser, const QString &name, QString *error);
/// reviewDayOption(parser, "date", error).
std::optional<QDate> reviewDateOption(const QCommandLineParser &parser, QString *error);

/// "2026-12-02 (Europe/Berlin, 2026-12-01T23:00:00.000000Z – 2026-12-02T23:00:00.000000Z)":
/// the day, zone and window every review output names.
QString reviewDayText(const ReviewDay &day);

/// The review summary in table form (the day, zone, window, totals, buckets, groups).
QByteArray reviewTable(const ReviewSnapshot &s);

} // namespace triage::ctl
