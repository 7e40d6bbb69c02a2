// `triagectl map --suggest`: a draft of the [*.map] sections from the live catalogs
// (DESIGN.md §10). Heuristics only: every value it cannot decide carries a TODO.
#include "MapSuggest.h"
#include "MapSuggestMatch.h"

#include "RecordStatus.h"
#include "SchemaMap.h"
#include "FutureChain.h"
#include "Workspace.h"

#include <QSet>

#include <array>

namespace triage {

using namespace map_suggest_match;

namespace {

/// "value" for an INI file: quoted (with \" and \\) when QSettings would otherwise change it
/// (surrounding spaces, ',', ';', '"', '=', '\\').
QString iniValue(const QString &v)
{
    static const QString special = QStringLiteral(",;\"=\\#");
    bool quote = v != v.trimmed();
    for (QChar c : v)
        quote = quote || special.contains(c);
    if (!quote)
        return v;
    QString e = v;
    e.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + e + QLatin1Char('"');
}

QString quotedList(const QStringList &values)
{
    QStringList q;
    for (const QString &v : values)
        q << QLatin1Char('"') + v + QLatin1Char('"');
    return q.join(QStringLiteral(", "));
}

/// Writes the lines of one section.
class Section {
public:
    explicit Section(const QString &name) { m_lines << QLatin1Char('[') + name + QLatin1Char(']'); }
    void set(const QString &key, const QString &value) { m_lines << key + QLatin1Char('=') + value; }
    void todo(const QString &why) { m_lines << QStringLiteral("; TODO: ") + why; }
    /// `line` commented out (a key left for the operator to fill in).
    void commented(const QString &line) { m_lines << QStringLiteral("; ") + line; }
    /// A column key: its value, or a TODO and the key commented out when no column fits
    /// (`optional`: "key=" says the table has none).
    void column(const QString &key, const QString &name, bool optional = false)
    {
        if (!name.isEmpty())
            set(key, name);
        else if (optional)
            set(key, QString());
        else {
            todo(QStringLiteral("no column looks like %1: name it").arg(key));
            commented(key + QLatin1Char('='));
        }
    }
    QString text() const { return m_lines.join(QLatin1Char('\n')) + QLatin1Char('\n'); }

private:
    QStringList m_lines;
};

/// The time encoding of the table from its created/updated columns' types.
void suggestTime(Section &s, const SuggestInput &in, const SuggestTable &t, const QStringList &timeColumns)
{
    QStringList encodings;
    QString todo;
    for (const QString &name : timeColumns) {
        const CatalogColumn *c = column(t, name);
        if (!c)
            continue;
        const QString lower = name.toLower();
        QString e;
        switch (c->kind) {
        case ColumnKind::Zoned: e = QStringLiteral("native"); break;
        case ColumnKind::Unzoned:
            e = QStringLiteral("native");
            if (in.dialect == Dialect::PostgreSql)
                todo = QStringLiteral("%1 is %2: native if it holds UTC, else time=local with time_zone").arg(name, c->type);
            break;
        case ColumnKind::Text: e = in.dialect == Dialect::Sqlite ? QStringLiteral("native") : QStringLiteral("iso_text"); break;
        case ColumnKind::Integer:
            if (lower.endsWith(QLatin1String("ms")))
                e = QStringLiteral("epoch_ms");
            else if (lower.endsWith(QLatin1String("_s")) || lower.endsWith(QLatin1String("_sec"))
                     || lower.endsWith(QLatin1String("_secs")) || lower.endsWith(QLatin1String("_seconds")))
                e = QStringLiteral("epoch_s");
            else if (in.maxValues.contains(name))
                e = in.maxValues.value(name) >= 100000000000LL ? QStringLiteral("epoch_ms") : QStringLiteral("epoch_s");
            else
                todo = QStringLiteral("%1 is %2 and the table is empty: epoch_s or epoch_ms?").arg(name, c->type);
            break;
        default: todo = QStringLiteral("%1 is %2: no time encoding reads it").arg(name, c->type); break;
        }
        if (!e.isEmpty() && !encodings.contains(e))
            encodings << e;
    }
    if (encodings.size() > 1)
        todo = QStringLiteral("the time columns differ (%1): one encoding serves a table").arg(encodings.join(QStringLiteral(", ")));
    if (!todo.isEmpty())
        s.todo(todo);
    if (encodings.isEmpty())
        s.commented(QStringLiteral("time="));
    else
        s.set(QStringLiteral("time"), encodings.first());
}

/// Synonyms (lower-case, trimmed) of each console status, for guessing stored spellings.
QList<QPair<QString, QStringList>> synonyms(DbRole role)
{
    auto p = [](const char *name, const char *list) { return qMakePair(QString::fromLatin1(name), patterns(list)); };
    switch (role) {
    case DbRole::Idempotency:
        return {p("PROCESSING", "processing pending in_progress inprogress running started new"),
                p("SUCCESS", "success succeeded done ok completed complete"),
                p("FAILED", "failed fail failure error errored")};
    case DbRole::Intent:
        return {p("INTENT", "intent started start pending begun in_progress"),
                p("SUCCEEDED", "succeeded success ok done completed"), p("FAILED", "failed fail failure error"),
                p("UNKNOWN", "unknown timeout timed_out lost"),
                p("RECONCILE_PENDING", "reconcile_pending reconcile reconciling to_reconcile"),
                p("ESCALATED", "escalated escalate"), p("COMPENSATED", "compensated undone rolled_back")};
    case DbRole::Ticket: return {p("CANCELLED", "cancelled canceled voided void deleted revoked")};
    }
    return {};
}

/// The status keys of a text status column: spellings guessed from the DISTINCT values seen.
/// `required`: every status must be spelled (records as text); otherwise an unspelled one
/// keeps the console's default. `othersAreLive`: values that match no status are expected
/// (tickets: every other value is a live ticket).
void suggestTextStatuses(Section &s, const SuggestInput &in, bool required, bool othersAreLive)
{
    const auto syn = synonyms(in.role);
    QStringList names;
    for (const auto &n : syn)
        names << n.first;
    const QStringList &seen = in.statusValues;
    bool consoleSpellings = true;
    for (const QString &v : seen)
        consoleSpellings = consoleSpellings && (names.contains(v) || othersAreLive);
    if (in.role == DbRole::Ticket)
        consoleSpellings = seen.contains(QStringLiteral("CANCELLED")) || seen.isEmpty();
    if (seen.isEmpty()) {
        s.todo(QStringLiteral("the status column holds no value yet: the console's spellings are written; check them"));
    }
    if (consoleSpellings && !required) {
        for (const QString &n : names)
            s.set(QStringLiteral("status_") + n.toLower(), n);
        s.set(QStringLiteral("status_ignore_case"), QStringLiteral("false"));
        return;
    }
    // Case or surrounding spaces vary: compare folded.
    QSet<QString> folded;
    bool ignoreCase = false;
    for (const QString &v : seen) {
        const QString f = v.trimmed().toUpper();
        ignoreCase = ignoreCase || v != v.trimmed() || folded.contains(f);
        folded.insert(f);
    }
    QStringList unmatched = seen;
    QList<QPair<QString, QStringList>> spelled;
    for (const auto &[name, words] : syn) {
        QStringList spellings;
        for (const QString &v : seen) {
            if (!words.contains(v.trimmed().toLower()))
                continue;
            unmatched.removeAll(v);
            const QString w = ignoreCase ? v.trimmed().toUpper() : v;
            if (!spellings.contains(w))
                spellings << w;
        }
        spelled.append({name, spellings});
    }
    if (!seen.isEmpty())
        s.todo(QStringLiteral("status spellings guessed from the values the column holds (DISTINCT, at most 20): %1%2")
                   .arg(quotedList(seen),
                        unmatched.isEmpty() || othersAreLive
                            ? QString()
                            : QStringLiteral("; no guess for %1").arg(quotedList(unmatched))));
    for (const auto &[name, spellings] : spelled) {
        const QString key = QStringLiteral("status_") + name.toLower();
        if (spellings.isEmpty()) {
            s.todo(QStringLiteral("no stored value looks like %1: spell it").arg(name));
            s.commented(key + QLatin1Char('=') + (required ? QString() : name));
            continue;
        }
        QStringList values;
        for (const QString &v : spellings)
            values << iniValue(v);
        s.set(key, values.join(QStringLiteral(", ")));
    }
    s.set(QStringLiteral("status_ignore_case"), ignoreCase ? QStringLiteral("true") : QStringLiteral("false"));
}

/// "id": the table's one primary-key column, else a column named id; "".
QString idColumn(const SuggestTable &t)
{
    QStringList pk;
    for (const CatalogColumn &c : t.columns)
        if (c.primaryKey)
            pk << c.name;
    if (pk.size() == 1)
        return pk.first();
    return find(t, {QStringLiteral("id")});
}

QString recordsSection(const SuggestInput &in, const SuggestTable &t)
{
    Section s(QStringLiteral("idempotency.map"));
    QSet<QString> used;
    auto take = [&](const QStringList &pats) {
        const QString c = find(t, pats, used);
        if (!c.isEmpty())
            used.insert(c);
        return c;
    };
    s.set(QStringLiteral("table"), t.name);
    const QString id = idColumn(t);
    used.insert(id);
    s.column(QStringLiteral("id"), id);
    s.column(QStringLiteral("idem_key"), take(keyPatterns()));
    const QString biz = take(patterns("biz_type *biz* kind type operation op"));
    if (biz.isEmpty()) {
        s.todo(QStringLiteral("no column looks like biz_type: name the table's one biz_type"));
        s.set(QStringLiteral("biz_type"), QString());
        s.commented(QStringLiteral("biz_type_value="));
    } else {
        s.set(QStringLiteral("biz_type"), biz);
    }
    const QString status = take(statusPatterns());
    s.column(QStringLiteral("status"), status);
    const CatalogColumn *sc = column(t, status);
    if (sc && sc->kind == ColumnKind::Integer) {
        s.set(QStringLiteral("status_type"), QStringLiteral("integer"));
        bool codes = true;
        for (const QString &v : in.statusValues)
            codes = codes && (v == QLatin1String("0") || v == QLatin1String("1") || v == QLatin1String("2"));
        if (in.statusValues.isEmpty())
            s.todo(QStringLiteral("the status column holds no value yet: the seeds' codes are written; check them"));
        else if (!codes)
            s.todo(QStringLiteral("status codes: the column holds (DISTINCT, at most 20) %1: map each to a status")
                       .arg(in.statusValues.join(QStringLiteral(", "))));
        s.set(QStringLiteral("status_processing"), QStringLiteral("0"));
        s.set(QStringLiteral("status_success"), QStringLiteral("1"));
        s.set(QStringLiteral("status_failed"), QStringLiteral("2"));
    } else if (sc) {
        s.set(QStringLiteral("status_type"), QStringLiteral("text"));
        suggestTextStatuses(s, in, true, false);
    }
    s.column(QStringLiteral("result_snapshot"), take(snapshotPatterns()));
    const QString created = take(createdPatterns());
    const QString updated = take(updatedPatterns());
    s.column(QStringLiteral("created_at"), created);
    s.column(QStringLiteral("updated_at"), updated);
    const QString expire = take(patterns("expire_at expire* expires* expiry* ttl*"));
    s.column(QStringLiteral("expire_at"), expire, true);
    s.column(QStringLiteral("version"), take(patterns("version row_version lock_version")), true);
    s.column(QStringLiteral("tenant"), take(patterns("tenant tenant_id tenant*")), true);
    suggestTime(s, in, t, QStringList{created, updated, expire});
    return s.text();
}

QString intentsSection(const SuggestInput &in, const SuggestTable &t)
{
    Section s(QStringLiteral("intent.map"));
    QSet<QString> used;
    auto take = [&](const QStringList &pats) {
        const QString c = find(t, pats, used);
        if (!c.isEmpty())
            used.insert(c);
        return c;
    };
    s.set(QStringLiteral("table"), t.name);
    const QString id = idColumn(t);
    used.insert(id);
    // Claimed first, so that "req*" and "step*" cannot take them.
    const QString key = take(keyPatterns());
    const QString status = take(statusPatterns());
    s.column(QStringLiteral("id"), id);
    s.column(QStringLiteral("task_id"), take(patterns("task_id task* job_id job* run_id workflow*")));
    s.column(QStringLiteral("step_id"), take(patterns("step_id step_name step step*")));
    s.column(QStringLiteral("action"), take(patterns("action op operation *_action tool* method")));
    s.column(QStringLiteral("idem_key"), key);
    s.column(QStringLiteral("status"), status);
    if (!status.isEmpty())
        suggestTextStatuses(s, in, false, false);
    s.column(QStringLiteral("request"), take(patterns("request req_json request_* req* input* args*")));
    s.column(QStringLiteral("response"), take(patterns("response resp_json response_* resp* output* result*")));
    s.column(QStringLiteral("error"), take(patterns("error err_text error_* err* failure*")));
    s.column(QStringLiteral("state_before"), take(patterns("state_before before* *_before pre_*")));
    s.column(QStringLiteral("state_after"), take(patterns("state_after after* *_after post_*")));
    s.column(QStringLiteral("actor"), take(patterns("actor agent agent_* worker* *_by")));
    const QString created = take(createdPatterns());
    const QString updated = take(updatedPatterns());
    s.column(QStringLiteral("created_at"), created);
    s.column(QStringLiteral("updated_at"), updated);
    suggestTime(s, in, t, QStringList{created, updated});
    return s.text();
}

QString ticketsSection(const SuggestInput &in, const SuggestTable &t)
{
    Section s(QStringLiteral("ticket.map"));
    QSet<QString> used;
    auto take = [&](const QStringList &pats) {
        const QString c = find(t, pats, used);
        if (!c.isEmpty())
            used.insert(c);
        return c;
    };
    s.set(QStringLiteral("table"), t.name);
    const QString id = idColumn(t);
    used.insert(id);
    s.column(QStringLiteral("id"), id);
    s.column(QStringLiteral("idem_key"), take(keyPatterns()));
    s.column(QStringLiteral("tenant_id"), take(patterns("tenant_id tenant*")), true);
    s.column(QStringLiteral("title"), take(patterns("title summary subject name")), true);
    const QString status = take(statusPatterns());
    s.column(QStringLiteral("status"), status);
    if (!status.isEmpty())
        suggestTextStatuses(s, in, false, true);
    s.column(QStringLiteral("payload"), take(patterns("payload body data *json* content details")));
    const QString created = take(createdPatterns());
    const QString updated = take(updatedPatterns());
    s.column(QStringLiteral("created_at"), created);
    s.column(QStringLiteral("updated_at"), updated, true);
    suggestTime(s, in, t, QStringList{created, updated});
    return s.text();
}

QString statusColumnOf(const SuggestTable &t, DbRole role)
{
    Q_UNUSED(role);
    return find(t, statusPatterns());
}

} // namespace

QString draftMapSection(const SuggestInput &in)
{
    const int chosen = chooseTable(in);
    if (chosen < 0) {
        Section s(roleName(in.role) + QStringLiteral(".map"));
        static const char *const what[3] = {
            "a table with a unique key-like column (idem_key, request_key), a status and an updated time",
            "an append-only table with task and step columns",
            "a business table with a key column (idem_key, request_key) and a payload, title or tenant"};
        if (const int taken = bestTable(in, false); taken >= 0) {
            const QString name = in.tables[taken].name;
            s.todo(QStringLiteral("the table in the %1 that looks most like %2, %3, is drafted as [%4] (one table serves one "
                                  "store): set table and its columns")
                       .arg(roleTitle(in.role), QString::fromLatin1(what[int(in.role)]), name, in.taken.value(name)));
        } else {
            s.todo(QStringLiteral("no table in the %1 looks like %2: set table and its columns")
                       .arg(roleTitle(in.role), QString::fromLatin1(what[int(in.role)])));
        }
        s.commented(QStringLiteral("table="));
        return s.text();
    }
    const SuggestTable &t = in.tables[chosen];
    switch (in.role) {
    case DbRole::Idempotency: return recordsSection(in, t);
    case DbRole::Intent: return intentsSection(in, t);
    case DbRole::Ticket: return ticketsSection(in, t);
    }
    return {};
}

namespace map_suggest_sql {

SuggestInput readCatalog(DbSession &session)
{
    SuggestInput in;
    in.role = session.role();
    in.dialect = session.dialect().kind();
    for (const QString &name : catalog_sql::tablesOf(session)) {
        if (name.section(QLatin1Char('.'), -1).startsWith(QLatin1String("triage_"), Qt::CaseInsensitive))
            continue;
        if (!isMappableName(name, true)) // a name the mapping cannot hold ("my table") is no draft
            continue;
        const auto columns = catalog_sql::columnsOf(session, name);
        if (!columns)
            continue;
        in.tables.append({name, *columns, catalog_sql::indexesOf(session, name)});
    }
    return in;
}

SuggestInput read(DbSession &session)
{
    SuggestInput in = readCatalog(session);
    readDetails(session, in);
    return in;
}

void readDetails(DbSession &session, SuggestInput &in)
{
    const int chosen = chooseTable(in);
    if (chosen < 0)
        return;
    const SuggestTable &t = in.tables[chosen];
    if (const QString status = statusColumnOf(t, in.role); !status.isEmpty())
        in.statusValues = catalog_sql::distinctValues(session, t.name, status, 20);
    for (const CatalogColumn &c : t.columns) {
        const QString lower = c.name.toLower();
        bool time = false;
        for (const QStringList *pats : {&createdPatterns(), &updatedPatterns()})
            for (const QString &p : *pats)
                time = time || matches(lower, p);
        if (time && c.kind == ColumnKind::Integer)
            if (const auto max = catalog_sql::maxValue(session, t.name, c.name))
                in.maxValues.insert(c.name, *max);
    }
}

} // namespace map_suggest_sql

QFuture<Outcome<QString>> suggestMapping(Workspace &ws)
{
    // First the three catalogs; then one table per store where stores share a database
    // (assignTables()); then each chosen table's values, and the drafts.
    const QList<DbRole> roles{DbRole::Idempotency, DbRole::Intent, DbRole::Ticket};
    QList<DbWorker *> workers;
    QList<QFuture<Outcome<SuggestInput>>> catalogs;
    QList<QFuture<void>> all;
    for (DbRole role : roles) {
        workers << &ws.worker(role);
        catalogs << workers.last()->run<SuggestInput>([](DbSession &s) { return map_suggest_sql::readCatalog(s); });
        all << QFuture<void>(catalogs.last());
    }
    const WorkspaceConfig config = ws.config();
    QThreadPool *pool = ws.mergePool();
    return continueAfterAll(all, pool, [catalogs, workers, roles, config, pool]() {
                  QVector<SuggestInput> inputs;
                  for (const auto &f : catalogs) {
                      const Outcome<SuggestInput> o = f.result(); // finished
                      if (!o.ok())
                          return QtFuture::makeReadyFuture(Outcome<QString>::failure(*o.error));
                      inputs << *o;
                  }
                  assignTables(inputs, [&](int i, int j) { return config.profile(roles[i]).sameDatabase(config.profile(roles[j])); });
                  QList<QFuture<Outcome<QString>>> parts;
                  QList<QFuture<void>> drafts;
                  for (int i = 0; i < inputs.size(); ++i) {
                      parts << workers[i]->run<QString>([in = inputs[i]](DbSession &s) mutable {
                          map_suggest_sql::readDetails(s, in);
                          return draftMapSection(in);
                      });
                      drafts << QFuture<void>(parts.last());
                  }
                  return continueAfterAll(drafts, pool, [parts]() {
                      QString text = QStringLiteral(
                          "; Draft of the schema mapping (DESIGN.md §10), by `triagectl map --suggest` from the live catalogs.\n"
                          "; Names and encodings are guesses: review every line, settle each TODO, then run `triagectl doctor`.\n");
                      for (const auto &f : parts) {
                          const Outcome<QString> o = f.result(); // finished
                          if (!o.ok())
                              return Outcome<QString>::failure(*o.error);
                          text += QLatin1Char('\n') + *o;
                      }
                      return Outcome<QString>::success(text);
                  });
              });
}

} // namespace triage
