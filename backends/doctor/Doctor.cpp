#include "Doctor.h"

#include "Catalog.h"
#include "SchemaSql.h"
#include "Workspace.h"

#include <QRegularExpression>
#include <QSet>
#include <QSqlQuery>
#include <QSqlRecord>

namespace triage {

namespace {

/// One mapped column of a table: its config key and its name ("" = the table has none).
struct MappedColumn {
    const char *key;
    QString name;
};

/// What doctor checks of one store's mapped table.
struct MappedTable {
    QString section;             ///< "idempotency.map"
    QString table;
    bool isDefault = false;      ///< the mapping is the default one for this store
    QVector<MappedColumn> columns;
    QStringList timeColumns;     ///< the columns read with `time`
    TimeMapping time;
    QString status;              ///< the status column
    StatusMapping statuses;
    bool statusTypeKey = false;  ///< the section has status_type (records only)
};

MappedTable mappedTable(const SchemaMap &map, DbRole role)
{
    const SchemaMap defaults = SchemaMap::defaults();
    MappedTable t;
    switch (role) {
    case DbRole::Idempotency: {
        const RecordTableMap &r = map.records;
        t = {QStringLiteral("idempotency.map"), r.table, r == defaults.records,
             {{"id", r.id}, {"idem_key", r.key}, {"biz_type", r.bizType}, {"status", r.status}, {"result_snapshot", r.snapshot},
              {"created_at", r.createdAt}, {"updated_at", r.updatedAt}, {"expire_at", r.expireAt}, {"tenant", r.tenant}},
             {r.createdAt, r.updatedAt, r.expireAt}, r.time, r.status, r.statuses, true};
        break;
    }
    case DbRole::Intent: {
        const IntentTableMap &i = map.intents;
        t = {QStringLiteral("intent.map"), i.table, i == defaults.intents,
             {{"id", i.id}, {"task_id", i.taskId}, {"step_id", i.stepId}, {"action", i.action}, {"idem_key", i.key},
              {"status", i.status}, {"request", i.request}, {"response", i.response}, {"error", i.error},
              {"state_before", i.stateBefore}, {"state_after", i.stateAfter}, {"actor", i.actor}, {"created_at", i.createdAt},
              {"updated_at", i.updatedAt}},
             {i.createdAt, i.updatedAt}, i.time, i.status, i.statuses, false};
        break;
    }
    case DbRole::Ticket: {
        const TicketTableMap &k = map.tickets;
        t = {QStringLiteral("ticket.map"), k.table, k == defaults.tickets,
             {{"id", k.id}, {"idem_key", k.key}, {"tenant_id", k.tenant}, {"title", k.title}, {"status", k.status},
              {"payload", k.payload}, {"created_at", k.createdAt}, {"updated_at", k.updatedAt}},
             {k.createdAt, k.updatedAt}, k.time, k.status, k.statuses, false};
        break;
    }
    }
    return t;
}

/// What a time column of `encoding` needs on `dialect`, or "" when `kind` will do.
QString timeNeeds(Dialect d, TimeEncoding encoding, const CatalogColumn &c)
{
    const ColumnKind k = c.kind;
    switch (encoding) {
    case TimeEncoding::EpochSeconds:
    case TimeEncoding::EpochMillis:
        return k == ColumnKind::Integer ? QString() : QStringLiteral("an integer type");
    case TimeEncoding::IsoText:
        return k == ColumnKind::Text ? QString() : QStringLiteral("a text type");
    case TimeEncoding::Native:
        switch (d) {
        case Dialect::PostgreSql:
            return k == ColumnKind::Zoned || k == ColumnKind::Unzoned ? QString()
                                                                       : QStringLiteral("timestamptz (or a timestamp holding UTC)");
        case Dialect::MySql:
            return k == ColumnKind::Unzoned || k == ColumnKind::Zoned ? QString() : QStringLiteral("DATETIME or TIMESTAMP (UTC)");
        case Dialect::Sqlite:
            return k == ColumnKind::Text || k == ColumnKind::Unzoned || c.type.isEmpty() ? QString()
                                                                                         : QStringLiteral("text (ISO-8601 UTC)");
        }
        break;
    case TimeEncoding::Local:
        switch (d) {
        case Dialect::PostgreSql:
            return k == ColumnKind::Unzoned ? QString() : QStringLiteral("timestamp without time zone");
        case Dialect::MySql: return k == ColumnKind::Unzoned ? QString() : QStringLiteral("DATETIME");
        case Dialect::Sqlite:
            return k == ColumnKind::Text || k == ColumnKind::Unzoned || c.type.isEmpty() ? QString() : QStringLiteral("text");
        }
        break;
    }
    return {};
}

QString fold(const QString &s, bool ignoreCase)
{
    return ignoreCase ? s.trimmed().toUpper() : s;
}

/// The problems of the status column `c` for `m` (see doctor_sql::mappingProblems()).
QStringList statusProblems(const MappedTable &m, const CatalogColumn &c)
{
    const QString where = QStringLiteral("[%1] status: column %2.%3 is %4").arg(m.section, m.table, m.status, c.type);
    if (!m.statuses.text) {
        if (c.kind != ColumnKind::Integer)
            return {where + QStringLiteral(", but status_type = integer needs an integer type")};
        return {};
    }
    if (c.kind == ColumnKind::Text)
        return {};
    if (c.kind == ColumnKind::Enum) {
        QStringList problems;
        QStringList labels;
        for (const QString &l : c.labels)
            labels << fold(l, m.statuses.ignoreCase);
        for (auto it = m.statuses.spellings.cbegin(); it != m.statuses.spellings.cend(); ++it)
            for (const QString &s : *it)
                if (!labels.contains(fold(s, m.statuses.ignoreCase)))
                    problems << QStringLiteral("[%1] status_%2: \"%3\" is not a label of %4 %5.%6 (labels: %7)")
                                    .arg(m.section, it.key().toLower(), s,
                                         c.enumType.isEmpty() ? QStringLiteral("the ENUM of column")
                                                              : QStringLiteral("enum %1 of column").arg(c.enumType),
                                         m.table, m.status, c.labels.join(QStringLiteral(", ")));
        return problems;
    }
    bool allIntegers = true;
    for (const QStringList &spellings : m.statuses.spellings)
        for (const QString &s : spellings) {
            bool ok = false;
            s.trimmed().toLongLong(&ok);
            allIntegers = allIntegers && ok;
        }
    if (c.kind == ColumnKind::Integer && allIntegers)
        return {};
    return {where + (m.statusTypeKey ? QStringLiteral(", but status_type = text needs a text or enum column")
                                     : QStringLiteral(", but the status spellings are text: it needs a text or enum column"))};
}

/// The catalog column named `name` (PostgreSQL: exact, as sqlName() keeps the case of a
/// name that is not plain lower-case; elsewhere case-insensitive), or null.
const CatalogColumn *findColumn(Dialect d, const QVector<CatalogColumn> &columns, const QString &name)
{
    for (const CatalogColumn &c : columns)
        if (d == Dialect::PostgreSql ? c.name == name : c.name.compare(name, Qt::CaseInsensitive) == 0)
            return &c;
    return nullptr;
}

/// Epoch seconds of 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z: the plausible years.
constexpr qint64 kPlausibleFrom = 946684800;
constexpr qint64 kPlausibleTo = 4102444800;

/// The epoch units a value is plausible in (DESIGN.md §10 "doctor").
enum class EpochUnit { Seconds, Millis, Micros, None };

EpochUnit epochUnitOf(qint64 v)
{
    for (auto [unit, scale] : {std::pair{EpochUnit::Seconds, qint64(1)}, std::pair{EpochUnit::Millis, qint64(1000)},
                               std::pair{EpochUnit::Micros, qint64(1000000)}})
        if (v >= kPlausibleFrom * scale && v < kPlausibleTo * scale)
            return unit;
    return EpochUnit::None;
}

QString epochUnitWords(EpochUnit u)
{
    switch (u) {
    case EpochUnit::Seconds: return QStringLiteral("epoch seconds");
    case EpochUnit::Millis: return QStringLiteral("epoch milliseconds");
    case EpochUnit::Micros: return QStringLiteral("epoch microseconds");
    case EpochUnit::None: break;
    }
    return QStringLiteral("no epoch unit");
}

/// What the mapping should say for values in `u`: "use time = epoch_ms", ….
QString epochUnitFix(EpochUnit u)
{
    switch (u) {
    case EpochUnit::Seconds: return QStringLiteral("use time = epoch_s");
    case EpochUnit::Millis: return QStringLiteral("use time = epoch_ms");
    default: return QStringLiteral("the console reads only epoch_s and epoch_ms");
    }
}

/// The one form an iso_text column must hold (DESIGN.md §10): text times compare as text,
/// so only one fixed-width form orders like the instants.
bool isCanonicalIsoText(const QString &v)
{
    static const QRegularExpression re(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$"));
    return re.match(v).hasMatch() && parseUtcMicros(v).has_value();
}

/// The problem of the iso_text column `column` of `m` when sampled values are not in the
/// canonical form: the rows of the 500 highest and 500 lowest ids (the id's own index, so it
/// is cheap on any table), "" when all are.
QString isoTextProblem(DbSession &session, const MappedTable &m, const char *key, const QString &column)
{
    const Dialect d = session.dialect().kind();
    const QString id = m.columns.value(0).name; // every MappedTable lists "id" first
    if (id.isEmpty())
        return {};
    constexpr int kHalf = 500;
    QMap<QString, QString> sampled; // id → value (the two ends overlap on a small table)
    for (const char *order : {"DESC", "ASC"}) {
        QSqlQuery q = session.exec(QStringLiteral("SELECT CAST(%1 AS %2), %3 FROM %4 WHERE %3 IS NOT NULL ORDER BY %1 %5 LIMIT %6")
                                       .arg(sqlName(d, id), d == Dialect::MySql ? QStringLiteral("CHAR") : QStringLiteral("TEXT"),
                                            sqlName(d, column), sqlName(d, m.table), QLatin1String(order))
                                       .arg(kHalf));
        while (q.next())
            sampled.insert(q.value(0).toString(), QString::fromUtf8(q.value(1).toByteArray()));
    }
    QStringList bad;
    for (const QString &v : std::as_const(sampled))
        if (!isCanonicalIsoText(v))
            bad << v;
    if (bad.isEmpty())
        return {};
    bad.sort();
    bad.removeDuplicates();
    QStringList examples;
    for (const QString &v : bad.mid(0, 3))
        examples << QLatin1Char('"') + v + QLatin1Char('"');
    return QStringLiteral("[%1] %2: %3 of %4 sampled rows of %5.%6 are not in the iso_text form YYYY-MM-DDTHH:MM:SS.ffffffZ "
                          "(six fractional digits, UTC), e.g. %7: text times compare as text, so ordering, staleness and "
                          "compare-and-set would be wrong for them; rewrite them in that form")
        .arg(m.section, QString::fromLatin1(key))
        .arg(std::count_if(sampled.cbegin(), sampled.cend(), [](const QString &v) { return !isCanonicalIsoText(v); }))
        .arg(sampled.size())
        .arg(m.table, column, examples.join(QStringLiteral(", ")));
}

} // namespace

namespace doctor_sql {

TimeValueFindings timeValueFindings(DbSession &session, const SchemaMap &map)
{
    TimeValueFindings out;
    const Dialect d = session.dialect().kind();
    const MappedTable m = mappedTable(map, session.role());
    const TimeEncoding encoding = m.time.encoding;
    const bool epoch = encoding == TimeEncoding::EpochSeconds || encoding == TimeEncoding::EpochMillis;
    const bool liteText = d == Dialect::Sqlite && (encoding == TimeEncoding::Native || encoding == TimeEncoding::Local);
    if (!epoch && !liteText)
        return out;
    const auto columns = catalog_sql::columnsOf(session, m.table);
    if (!columns)
        return out;
    QVector<MappedColumn> sampled;
    QStringList select;
    for (const MappedColumn &mc : m.columns) {
        if (mc.name.isEmpty() || !m.timeColumns.contains(mc.name) || !findColumn(d, *columns, mc.name))
            continue;
        sampled << mc;
        const QString c = sqlName(d, mc.name);
        select << (d == Dialect::Sqlite ? QStringLiteral("typeof(%1), %1").arg(c) : c);
    }
    if (sampled.isEmpty())
        return out;
    // A bounded sample (never a full scan): the first rows the table returns.
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM %2 LIMIT 100").arg(select.join(QStringLiteral(", ")), sqlName(d, m.table)));
    const int width = d == Dialect::Sqlite ? 2 : 1;
    QVector<QVector<QVariant>> values(sampled.size());
    QVector<QStringList> types(sampled.size());
    while (q.next())
        for (int i = 0; i < sampled.size(); ++i) {
            const QVariant v = q.value(i * width + width - 1);
            if (v.isNull())
                continue;
            values[i] << v;
            types[i] << (d == Dialect::Sqlite ? q.value(i * width).toString() : QString());
        }
    for (int i = 0; i < sampled.size(); ++i) {
        if (values[i].isEmpty())
            continue;
        const QString where = QStringLiteral("[%1] %2: ").arg(m.section, QString::fromLatin1(sampled[i].key));
        if (liteText) {
            // SQLite keeps whatever is written: a text time column holding numbers compares wrongly.
            int numbers = 0;
            qint64 example = 0;
            QSet<int> units; // EpochUnit values
            // A number, or digits only (a TEXT column turns a written number into its digits).
            static const QRegularExpression digits(QStringLiteral("^\\s*-?[0-9]+(\\.[0-9]*)?\\s*$"));
            for (int k = 0; k < values[i].size(); ++k)
                if (types[i][k] == QLatin1String("integer") || types[i][k] == QLatin1String("real")
                    || digits.match(values[i][k].toString()).hasMatch()) {
                    const qint64 v = values[i][k].toLongLong();
                    if (numbers++ == 0 || v > example)
                        example = v;
                    units.insert(int(epochUnitOf(v)));
                }
            if (numbers == 0)
                continue;
            QString looks;
            if (units.size() == 1 && EpochUnit(*units.cbegin()) != EpochUnit::None)
                looks = QStringLiteral("; they look like %1: %2").arg(epochUnitWords(EpochUnit(*units.cbegin())), epochUnitFix(EpochUnit(*units.cbegin())));
            out.problems << where
                    + QStringLiteral("column %1.%2 holds numbers (%3 of %4 sampled values, e.g. %5), but time = %6 needs ISO-8601 text%7")
                          .arg(m.table, sampled[i].name)
                          .arg(numbers)
                          .arg(values[i].size())
                          .arg(example)
                          .arg(timeEncodingName(encoding), looks);
            continue;
        }
        const EpochUnit mapped = encoding == TimeEncoding::EpochSeconds ? EpochUnit::Seconds : EpochUnit::Millis;
        QSet<int> units; // EpochUnit values
        qint64 example = 0;
        qint64 odd = 0;
        int implausible = 0;
        bool first = true;
        for (const QVariant &v : std::as_const(values[i])) {
            bool ok = false;
            const qint64 n = v.toLongLong(&ok);
            const EpochUnit u = ok ? epochUnitOf(n) : EpochUnit::None;
            units.insert(int(u));
            if (first || n > example)
                example = n;
            first = false;
            if (u != mapped && (implausible++ == 0))
                odd = n;
        }
        if (implausible == 0)
            continue;
        if (units.size() == 1 && EpochUnit(*units.cbegin()) != EpochUnit::None) {
            out.problems << where
                    + QStringLiteral("values look like %1 (e.g. %2) but the mapping says time = %3; %4")
                          .arg(epochUnitWords(EpochUnit(*units.cbegin())))
                          .arg(example)
                          .arg(timeEncodingName(encoding), epochUnitFix(EpochUnit(*units.cbegin())));
        } else {
            out.warnings << where
                    + QStringLiteral("%1 of %2 sampled values of %3.%4 are not %5 of the years 2000..2099 (e.g. %6): check time = %7")
                          .arg(implausible)
                          .arg(values[i].size())
                          .arg(m.table, sampled[i].name, epochUnitWords(mapped))
                          .arg(odd)
                          .arg(timeEncodingName(encoding));
        }
    }
    return out;
}

QStringList mappingProblems(DbSession &session, const SchemaMap &map)
{
    const Dialect d = session.dialect().kind();
    const MappedTable m = mappedTable(map, session.role());
    const auto columns = catalog_sql::columnsOf(session, m.table);
    if (!columns) {
        // A default table that does not exist is init-schema's to create (the index findings say so).
        if (m.isDefault)
            return {};
        return {QStringLiteral("[%1] table: table %2 does not exist").arg(m.section, m.table)};
    }
    QStringList problems;
    for (const MappedColumn &mc : m.columns) {
        if (mc.name.isEmpty())
            continue;
        const CatalogColumn *c = findColumn(d, *columns, mc.name);
        if (!c) {
            problems << QStringLiteral("[%1] %2: column %3.%4 does not exist").arg(m.section, QString::fromLatin1(mc.key), m.table, mc.name);
            continue;
        }
        if (!mc.name.isEmpty() && m.timeColumns.contains(mc.name)) {
            if (const QString needs = timeNeeds(d, m.time.encoding, *c); !needs.isEmpty())
                problems << QStringLiteral("[%1] %2: column %3.%4 is %5, but time = %6 needs %7")
                                .arg(m.section, QString::fromLatin1(mc.key), m.table, mc.name, c->type,
                                     timeEncodingName(m.time.encoding), needs);
            else if (m.time.encoding == TimeEncoding::IsoText && findColumn(d, *columns, m.columns.value(0).name))
                if (const QString bad = isoTextProblem(session, m, mc.key, mc.name); !bad.isEmpty())
                    problems << bad;
        }
        if (mc.name == m.status)
            problems << statusProblems(m, *c);
    }
    return problems;
}

QVector<IndexFinding> inspect(DbSession &session, const SchemaMap &map, bool probe)
{
    const Dialect d = session.dialect().kind();
    const MappedTable m = mappedTable(map, session.role());
    // The mapped table's columns once (nullopt: no such table).
    const auto mappedColumns = catalog_sql::columnsOf(session, m.table);
    QVector<IndexFinding> findings;
    for (const IndexNeed &need : indexNeeds(map, d, session.role())) {
        IndexFinding f;
        f.need = need;
        f.fix = need.createSql;
        const auto columns = need.agents ? mappedColumns : catalog_sql::columnsOf(session, need.table);
        if (!columns) {
            if (need.agents && !m.isDefault)
                continue; // a mapping problem ("[x.map] table: … does not exist")
            f.fix = QStringLiteral("table %1 does not exist: run `triagectl init-schema`").arg(need.table);
            findings.append(f);
            continue;
        }
        bool known = true;
        for (const QString &c : need.columns)
            known = known && findColumn(d, *columns, c);
        if (!known)
            continue; // a mapping problem ("[x.map] <key>: column … does not exist")
        if (d == Dialect::PostgreSql && !need.leadingExpression.isEmpty()
            && findColumn(d, *columns, need.columns.first())->kind == ColumnKind::Enum) {
            // An enum's text is not IMMUTABLE: PostgreSQL refuses an index on UPPER(TRIM(CAST(e AS text))).
            f.need.unservable = QStringLiteral("with status_ignore_case = true the queues compare %1, and PostgreSQL cannot index "
                                               "an enum column's text: spell the statuses exactly as the enum's labels and set "
                                               "status_ignore_case = false")
                                    .arg(need.leadingExpression);
            f.fix = QStringLiteral("-- no index can serve %1(%2) on an enum column: spell the statuses as its labels and set "
                                   "status_ignore_case = false")
                        .arg(need.table, need.shownColumns().join(QStringLiteral(", ")));
        }
        // With status_ignore_case only an index on the queues' UPPER(TRIM(…)) serves them.
        const QVector<CatalogIndex> indexes = catalog_sql::indexesOf(session, need.table);
        if (const CatalogIndex *index = servingIndex(indexes, need)) {
            f.present = true;
            f.satisfiedBy = index->name;
            f.fix.clear();
        }
        const bool statusQueue = need.agents && need.role != DbRole::Ticket && need.columns.first() == m.status;
        if (probe && statusQueue && d != Dialect::Sqlite) {
            // What the planner does with the queue's first-page query right now (UNKNOWN: the
            // stale PROCESSING records and the UNKNOWN intent steps).
            SqlBuilder b;
            QString condition;
            QString updated;
            QString id;
            if (need.role == DbRole::Idempotency) {
                const RecordSql r(d, map.records);
                condition = r.statuses.isAny(b, r.status, {QStringLiteral("PROCESSING")});
                updated = r.updatedAt;
                id = r.id;
            } else {
                const IntentSql i(d, map.intents);
                condition = i.statuses.isAny(b, i.status, {QStringLiteral("UNKNOWN")});
                updated = i.updatedAt;
                id = i.id;
            }
            const QString probe = QStringLiteral("EXPLAIN SELECT %1 FROM %2 WHERE %3 ORDER BY %4, %1 LIMIT 50")
                                      .arg(id, sqlName(d, need.table), condition, updated);
            QSqlQuery q = session.exec(probe, b);
            QStringList lines;
            while (q.next()) {
                if (d == Dialect::PostgreSql) {
                    lines << q.value(0).toString().trimmed();
                } else {
                    const QSqlRecord r = q.record();
                    lines << QStringLiteral("type %1, key %2").arg(q.value(r.indexOf(QStringLiteral("type"))).toString(),
                                                                    q.value(r.indexOf(QStringLiteral("key"))).toString());
                }
            }
            f.plan = lines.join(QStringLiteral(" | "));
        }
        findings.append(f);
    }
    return findings;
}

} // namespace doctor_sql

QFuture<Outcome<StoreCheck>> checkStore(Workspace &workspace, DbRole role)
{
    const SchemaMap map = workspace.config().schema;
    return workspace.worker(role).run<StoreCheck>([map](DbSession &s) {
        StoreCheck c;
        c.mappingProblems = doctor_sql::mappingProblems(s, map);
        if (c.mappingProblems.isEmpty()) {
            const doctor_sql::TimeValueFindings values = doctor_sql::timeValueFindings(s, map);
            c.mappingProblems = values.problems;
            c.mappingWarnings = values.warnings;
        }
        c.indexes = doctor_sql::inspect(s, map, c.mappingProblems.isEmpty());
        return c;
    });
}

void installMappingCheck(Workspace &workspace)
{
    const SchemaMap map = workspace.config().schema;
    // The structure first; when it matches, the sampled time values (a wrong epoch unit
    // would otherwise move stale records silently: DESIGN.md §10). Warnings stay doctor's.
    workspace.setOpenCheck([map](DbSession &s) {
        QStringList problems = doctor_sql::mappingProblems(s, map);
        if (problems.isEmpty())
            problems = doctor_sql::timeValueFindings(s, map).problems;
        return problems;
    });
}

QFuture<Outcome<QVector<IndexFinding>>> inspectIndexes(Workspace &workspace, DbRole role)
{
    const SchemaMap map = workspace.config().schema;
    return workspace.worker(role).run<QVector<IndexFinding>>([map](DbSession &s) { return doctor_sql::inspect(s, map); });
}

} // namespace triage
