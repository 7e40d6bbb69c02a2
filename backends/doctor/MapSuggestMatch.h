#pragma once
// Column-name heuristics shared by `triagectl map --suggest`'s table choice
// (MapSuggestChoose.cpp) and its draft (MapSuggest.cpp), DESIGN.md §10. Internal to
// backends/doctor; pure (no database).

#include "MapSuggest.h"

#include <QSet>
#include <QString>
#include <QStringList>

#include <array>

namespace triage::map_suggest_match {

/// `name` matches `pattern`: exact, "prefix*", "*suffix" or "*part*" (lower-case names).
bool matches(const QString &name, const QString &pattern);
/// The space-separated patterns of `list`.
QStringList patterns(const char *list);
/// Name patterns of an idempotency key, a status, a creation time, an update time and a
/// result snapshot column, most likely first.
const QStringList &keyPatterns();
const QStringList &statusPatterns();
const QStringList &createdPatterns();
const QStringList &updatedPatterns();
const QStringList &snapshotPatterns();
/// The first column of `t` (in pattern order) matching one of `pats` and not in `used`; "".
QString find(const SuggestTable &t, const QStringList &pats, const QSet<QString> &used = {});
/// `t` has a column matching one of the space-separated patterns of `list`.
bool has(const SuggestTable &t, const char *list);
/// `t` has a unique index on exactly `column`.
bool uniqueOn(const SuggestTable &t, const QString &column);
/// The column of `t` named `name`; nullptr when none.
const CatalogColumn *column(const SuggestTable &t, const QString &name);
/// How much `t` looks like the table of each role (index by DbRole).
std::array<int, 3> scores(const SuggestTable &t);
/// chooseTable() with (`skipTaken`) or without the tables other stores took; `*score` gets the
/// winner's score; -1 when no table fits.
int bestTable(const SuggestInput &input, bool skipTaken, int *score = nullptr);

} // namespace triage::map_suggest_match
