// `triagectl map --suggest` (DESIGN.md §10): which table of a catalog looks like which store's
// table, by column-name heuristics (MapSuggest.cpp writes the draft from the choice).
#include "MapSuggest.h"
#include "MapSuggestMatch.h"

#include "SchemaMap.h"

#include <QSet>

#include <array>

namespace triage {

namespace map_suggest_match {

/// `name` matches `pattern`: exact, "prefix*", "*suffix" or "*part*" (lower-case names).
bool matches(const QString &name, const QString &pattern)
{
    const bool head = pattern.startsWith(QLatin1Char('*'));
    const bool tail = pattern.endsWith(QLatin1Char('*'));
    const QString core = pattern.mid(head ? 1 : 0, pattern.size() - (head ? 1 : 0) - (tail ? 1 : 0));
    if (head && tail)
        return name.contains(core);
    if (head)
        return name.endsWith(core);
    if (tail)
        return name.startsWith(core);
    return name == core;
}

QStringList patterns(const char *list)
{
    return QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

const QStringList &keyPatterns()
{
    static const QStringList p = patterns("idem_key idempotency_key *idem* request_key *_key key");
    return p;
}
const QStringList &statusPatterns()
{
    static const QStringList p = patterns("status state *_status *_state status_* state_*");
    return p;
}
const QStringList &createdPatterns()
{
    static const QStringList p = patterns("created_at created* create_* inserted* *_created placed* opened*");
    return p;
}
const QStringList &updatedPatterns()
{
    static const QStringList p = patterns("updated_at updated* update_* modified* changed* *_updated");
    return p;
}
const QStringList &snapshotPatterns()
{
    static const QStringList p = patterns("result_snapshot *snapshot* response_body result* response*");
    return p;
}

/// The first column of `t` (in pattern order) matching one of `pats` and not in `used`; "".
QString find(const SuggestTable &t, const QStringList &pats, const QSet<QString> &used)
{
    for (const QString &p : pats)
        for (const CatalogColumn &c : t.columns)
            if (!used.contains(c.name) && matches(c.name.toLower(), p))
                return c.name;
    return {};
}

bool has(const SuggestTable &t, const char *list)
{
    return !find(t, patterns(list)).isEmpty();
}

bool uniqueOn(const SuggestTable &t, const QString &column)
{
    for (const CatalogIndex &i : t.indexes)
        if (i.unique && i.columns.size() == 1 && i.columns.first().compare(column, Qt::CaseInsensitive) == 0)
            return true;
    return false;
}

const CatalogColumn *column(const SuggestTable &t, const QString &name)
{
    for (const CatalogColumn &c : t.columns)
        if (c.name == name)
            return &c;
    return nullptr;
}

/// How much `t` looks like the table of each role (index by DbRole).
std::array<int, 3> scores(const SuggestTable &t)
{
    const QString key = find(t, keyPatterns());
    const bool status = !find(t, statusPatterns()).isEmpty();
    const bool updated = !find(t, updatedPatterns()).isEmpty();
    const bool taskStep = has(t, "task* job* run_id workflow*") && has(t, "step*");
    const bool snapshot = !find(t, snapshotPatterns()).isEmpty() && !taskStep;
    int records = (!key.isEmpty() && status && updated ? 5 : 0) + (!key.isEmpty() && uniqueOn(t, key) ? 2 : 0) + (snapshot ? 1 : 0);
    int intents = (taskStep ? 5 : 0) + (status ? 1 : 0) + (!key.isEmpty() ? 1 : 0);
    int tickets = (!key.isEmpty() ? 3 : 0) + (has(t, "payload body data *json* content details") ? 2 : 0)
        + (has(t, "title summary subject") ? 1 : 0) + (has(t, "tenant*") ? 1 : 0) - (snapshot ? 3 : 0);
    if (taskStep) {
        records -= 10;
        tickets -= 10;
    }
    return {records, intents, tickets};
}

/// chooseTable() with or without the tables other stores took; `*score` gets the winner's score.
int bestTable(const SuggestInput &input, bool skipTaken, int *score)
{
    const int role = int(input.role);
    static const int threshold[3] = {5, 5, 3};
    int best = -1;
    int bestScore = 0;
    for (int i = 0; i < input.tables.size(); ++i) {
        if (skipTaken && input.taken.contains(input.tables[i].name))
            continue;
        const auto sc = scores(input.tables[i]);
        if (sc[role] < threshold[role])
            continue;
        // A table that looks more like another store's table is that one's.
        if (sc[(role + 1) % 3] > sc[role] || sc[(role + 2) % 3] > sc[role])
            continue;
        if (sc[role] > bestScore) {
            best = i;
            bestScore = sc[role];
        }
    }
    if (score)
        *score = bestScore;
    return best;
}

} // namespace map_suggest_match

using map_suggest_match::bestTable;

int chooseTable(const SuggestInput &input)
{
    return bestTable(input, true);
}

void assignTables(QVector<SuggestInput> &inputs, const std::function<bool(int, int)> &sameDatabase)
{
    QVector<bool> done(inputs.size(), false);
    for (;;) {
        int bestInput = -1, bestScore = -1, best = -1;
        for (int i = 0; i < inputs.size(); ++i) {
            if (done[i])
                continue;
            int score = 0;
            const int t = bestTable(inputs[i], true, &score);
            if (t >= 0 && score > bestScore) {
                bestInput = i;
                bestScore = score;
                best = t;
            }
        }
        if (bestInput < 0)
            return;
        done[bestInput] = true;
        const QString name = inputs[bestInput].tables[best].name;
        for (int j = 0; j < inputs.size(); ++j)
            if (j != bestInput && sameDatabase(j, bestInput))
                inputs[j].taken.insert(name, roleName(inputs[bestInput].role) + QStringLiteral(".map"));
    }
}

} // namespace triage
