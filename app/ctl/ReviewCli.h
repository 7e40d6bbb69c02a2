#pragma once
// triagectl: the daily review's shared pieces (review and report; DESIGN.md §5, §8 "The
// daily review").

#include "CtlOutput.h"
#include "Review.h"

#include <QCommandLineParser>

namespace triage::ctl {

/// --date YYYY-MM-DD of `parser` (nullopt when not given); `*error` set when it does not read.
std::optional<QDate> reviewDateOption(const QCommandLineParser &parser, QString *error);

/// "2026-12-02 (Europe/Berlin, 2026-12-01T23:00:00.000000Z – 2026-12-02T23:00:00.000000Z)":
/// the day, zone and window every review output names.
QString reviewDayText(const ReviewDay &day);

/// The review summary in table form (the day, zone, window, totals, buckets, groups).
QByteArray reviewTable(const ReviewSnapshot &s);

} // namespace triage::ctl
