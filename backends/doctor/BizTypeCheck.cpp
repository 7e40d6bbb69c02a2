#include "BizTypeCheck.h"
#include "FutureChain.h"

#include "ConfigKeys.h"
#include "DbSession.h"
#include "SqlBuilder.h"
#include "Workspace.h"

#include <QSet>

#include <algorithm>

namespace triage {

namespace biztype_sql {

BizTypeCensus census(DbSession &session, const RecordSql &records, const QStringList &configured, int limit)
{
    BizTypeCensus c;
    if (records.bizTypeColumn.isEmpty()) {
        // No biz_type column: every record has the mapping's one biz_type (DESIGN.md §10).
        QSqlQuery q = session.exec(QStringLiteral("SELECT 1 FROM %1 LIMIT 1").arg(records.table));
        if (q.next())
            c.bizTypes << records.map.bizTypeValue;
        return c;
    }
    const QString &col = records.bizTypeColumn;
    std::optional<QString> last;
    while (true) {
        SqlBuilder b;
        const QString sql = last ? QStringLiteral("SELECT %1 FROM %2 WHERE %1 > %3 ORDER BY %1 LIMIT 1")
                                       .arg(col, records.table, b.bind(*last))
                                 : QStringLiteral("SELECT %1 FROM %2 ORDER BY %1 LIMIT 1").arg(col, records.table);
        QSqlQuery q = session.exec(sql, b);
        if (!q.next())
            break;
        if (c.bizTypes.size() == limit) {
            c.complete = false;
            break;
        }
        last = q.value(0).toString();
        if (session.dialect().kind() != Dialect::MySql) {
            c.bizTypes << *last;
            continue;
        }
        // MySQL/MariaDB: a case- or accent-insensitive collation (the usual one, PAD SPACE
        // too) makes 'Ticket', 'ticket' and 'ticket ' one value for `>` and `=`, so the seek
        // above found one spelling of the group. The others are read exactly (BINARY) within
        // the group's index range, one statement per spelling found plus one to see none is
        // left (DESIGN.md §10).
        QStringList spellings{*last};
        while (true) {
            SqlBuilder vb;
            QStringList others;
            for (const QString &v : std::as_const(spellings))
                others << vb.bind(v);
            QSqlQuery more = session.exec(QStringLiteral("SELECT %1 FROM %2 WHERE %1 = %3 AND BINARY %1 NOT IN (%4) LIMIT 1")
                                              .arg(col, records.table, vb.bind(*last), others.join(QStringLiteral(", "))),
                                          vb);
            if (!more.next())
                break;
            spellings << QString::fromUtf8(more.value(0).toByteArray());
        }
        std::sort(spellings.begin(), spellings.end(),
                  [](const QString &a, const QString &b) { return a.toUtf8() < b.toUtf8(); }); // byte order within a group
        for (const QString &v : std::as_const(spellings)) {
            if (c.bizTypes.size() == limit) {
                c.complete = false;
                break;
            }
            c.bizTypes << v;
        }
        if (!c.complete)
            break;
    }
    if (!c.complete) {
        for (const QString &name : configured) {
            if (c.bizTypes.contains(name))
                continue;
            SqlBuilder b;
            QSqlQuery q = session.exec(
                QStringLiteral("SELECT 1 FROM %1 WHERE %2 LIMIT 1").arg(records.table, records.bizTypeIs(b, name)), b);
            if (q.next())
                c.configuredWithRecords << name;
        }
    }
    return c;
}

} // namespace biztype_sql

bool checksBizTypeSections(const WorkspaceConfig &config)
{
    return config.isDemo || !config.sourceFile.isEmpty();
}

QStringList bizTypeSectionWarnings(const WorkspaceConfig &config, const BizTypeCensus &census)
{
    QStringList out;
    // No record at all (a fresh database): nothing can be misconfigured for them yet.
    if (!checksBizTypeSections(config) || (census.complete && census.bizTypes.isEmpty()))
        return out;
    const QString where = config.isDemo ? QStringLiteral("demo settings") : QStringLiteral("config ") + config.sourceFile;
    const QStringList sections = config.bizTypes.keys();
    const QSet<QString> withRecords = QSet<QString>(census.bizTypes.begin(), census.bizTypes.end())
        + QSet<QString>(census.configuredWithRecords.begin(), census.configuredWithRecords.end());
    QStringList withoutSection;
    for (const QString &b : census.bizTypes)
        if (!config.bizTypes.contains(b))
            withoutSection << b;

    // Sections whose biz_type has no record, in file order.
    QList<QPair<int, QString>> unused;
    for (const QString &name : sections) {
        if (withRecords.contains(name))
            continue;
        const int line = config.sectionLines.value(QStringLiteral("biz.") + name);
        QString text = QStringLiteral("%1%2: [biz.%3]: no idempotency record has biz_type \"%3\", so its settings apply to nothing")
                           .arg(where, line > 0 ? QStringLiteral(":") + QString::number(line) : QString(), name);
        const QString nearest = nearestWord(name, withoutSection);
        if (!nearest.isEmpty() && editDistance(name, nearest) <= std::max(2, int(name.size() / 3)))
            text += QStringLiteral(" (did you mean %1?)").arg(nearest);
        unused.append({line, text});
    }
    std::stable_sort(unused.begin(), unused.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &u : std::as_const(unused))
        out << u.second;

    for (const QString &b : std::as_const(withoutSection))
        out << QStringLiteral("%1: biz_type \"%2\" has idempotency records but no [biz.%2] section: its records use "
                              "processing_timeout %3 s and no upstream")
                   .arg(where, b, QString::number(config.defaultProcessingTimeoutS));
    if (!census.complete)
        out << QStringLiteral("%1: the idempotency records have more than %2 biz_types: only the first %2 (in the "
                              "database's order) were checked for a [biz.*] section")
                   .arg(where, QString::number(census.bizTypes.size()));
    return out;
}

QFuture<Outcome<QStringList>> checkBizTypeSections(Workspace &workspace)
{
    const WorkspaceConfig config = workspace.config();
    if (!checksBizTypeSections(config))
        return QtFuture::makeReadyFuture(Outcome<QStringList>::success({}));
    const QStringList configured = config.bizTypes.keys();
    return continueWith(workspace.worker(DbRole::Idempotency)
        .run<BizTypeCensus>([configured, config](DbSession &s) {
            return biztype_sql::census(s, config.records(s.dialect().kind()), configured);
        }), workspace.mergePool(), [config](const Outcome<BizTypeCensus> &o) {
            if (!o.ok())
                return Outcome<QStringList>::failure(*o.error);
            return Outcome<QStringList>::success(bizTypeSectionWarnings(config, *o));
        });
}

} // namespace triage
