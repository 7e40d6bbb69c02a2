// triagectl duplicates: the Duplicate keys queue, the record/ticket inconsistencies and the
// intent-log steps with regenerated keys (DESIGN.md §1, §5).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "TextTable.h"

#include "Duplicates.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

/// The tenants as JSON: a null QString (SQL NULL) is null, not "NULL".
QJsonArray tenantsJson(const QStringList &tenants)
{
    QJsonArray a;
    for (const QString &t : tenants)
        a.append(t.isNull() ? QJsonValue() : QJsonValue(t));
    return a;
}

class DuplicatesCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("duplicates"), QStringLiteral("duplicates"),
            QStringLiteral("Ticket groups sharing one idem_key, record/ticket inconsistencies, regenerated keys."),
            QStringLiteral("duplicates [--key SUBSTR] [--tenant T] [--created-from T] [--created-to T] [--all]"),
            QStringLiteral("The Duplicate keys queue: ticket groups sharing one idem_key (unresolved ones, i.e. with more\n"
                           "than one ticket not CANCELLED, unless --all) with size, tenants, first/last creation and\n"
                           "the record's status; tickets whose record is PROCESSING or FAILED; SUCCESS snapshots naming\n"
                           "a missing or CANCELLED ticket or differing from its payload; intent-log steps whose attempts\n"
                           "used more than one key. --key filters all three; at most --limit rows of each. The groups are\n"
                           "the newest ones, read window by window; --limit 0 reads every group in one aggregate\n"
                           "statement over the ticket table (about the cost of a whole-table GROUP BY)."),
            {option("key", QStringLiteral("Only keys containing this text (case-sensitive); filters all three sections."),
                    QStringLiteral("SUBSTR")),
             option("tenant", QStringLiteral("Only groups with a ticket of this tenant."), QStringLiteral("T")),
             option("created-from", QStringLiteral("Count only tickets created at or after TIME (ISO-8601 UTC)."),
                    QStringLiteral("TIME")),
             option("created-to", QStringLiteral("Count only tickets created before TIME."), QStringLiteral("TIME")),
             option("all", QStringLiteral("Also resolved groups.")), pageSizeOption()},
            0, QString(), false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        return readPageSize(c, &m_pageSize) ? ExitOk : ExitUsage;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        DuplicateFilter f;
        f.keySubstring = c.parser.value(QStringLiteral("key"));
        f.tenant = c.parser.value(QStringLiteral("tenant"));
        f.includeResolved = c.parser.isSet(QStringLiteral("all"));
        for (const auto &[name, target] : {std::pair<const char *, std::optional<UtcMicros> *>{"created-from", &f.createdFrom},
                                           std::pair<const char *, std::optional<UtcMicros> *>{"created-to", &f.createdTo}}) {
            const QString v = c.parser.value(QLatin1String(name));
            if (v.isEmpty())
                continue;
            *target = parseUtcMicros(v);
            if (!*target)
                return c.out.usage(QStringLiteral("--%1 \"%2\": ISO-8601 UTC (2026-11-29T21:55:07Z)").arg(QLatin1String(name), v));
        }
        QVector<DuplicateGroup> groups;
        bool moreGroups = false; // --limit stopped the listing before the last group
        if (c.limit == 0) {
            // Everything: one aggregate statement over the ticket table (the full scan).
            const auto page = fetchAllDuplicateGroups(workspace, f).result();
            if (!page.ok())
                return c.out.dbFailure(*page.error);
            groups = page->groups;
        } else {
            std::optional<DuplicateCursor> cursor;
            do {
                // The newest groups, window by window (a small page would re-read the window it
                // stopped in).
                const auto page = fetchDuplicateGroups(workspace, f, cursor, c.limit - int(groups.size())).result();
                if (!page.ok())
                    return c.out.dbFailure(*page.error);
                groups += page->groups;
                cursor = page->next;
            } while (cursor && groups.size() < c.limit);
            moreGroups = cursor.has_value();
        }

        QVector<DuplicateInconsistency> issues;
        std::optional<qint64> after = 0;
        while (after && (c.limit == 0 || issues.size() < c.limit)) {
            const auto page = fetchInconsistencies(workspace, *after, m_pageSize, f.keySubstring).result();
            if (!page.ok())
                return c.out.dbFailure(*page.error);
            issues += page->rows;
            after = page->nextRecordId;
        }
        // --limit cut this section when more rows were found, or more records remain unread.
        const bool moreIssues = c.limit > 0 && (issues.size() > c.limit || after.has_value());
        if (c.limit > 0 && issues.size() > c.limit)
            issues.resize(c.limit);
        QVector<RegeneratedKeyStep> regenerated;
        std::optional<RegeneratedCursor> rc;
        bool firstPage = true;
        while ((firstPage || rc) && (c.limit == 0 || regenerated.size() < c.limit)) {
            firstPage = false;
            const auto page = fetchRegeneratedKeys(workspace, rc, m_pageSize, f.keySubstring).result();
            if (!page.ok())
                return c.out.dbFailure(*page.error);
            regenerated += page->steps;
            rc = page->next;
        }
        const bool moreRegenerated = c.limit > 0 && (regenerated.size() > c.limit || rc.has_value());
        if (c.limit > 0 && regenerated.size() > c.limit)
            regenerated.resize(c.limit);

        switch (c.out.format()) {
        case Format::Json: {
            QJsonArray g, i, r;
            for (const DuplicateGroup &x : std::as_const(groups))
                g.append(QJsonObject{{QStringLiteral("idem_key"), x.idemKey},
                                     {QStringLiteral("size"), x.size},
                                     {QStringLiteral("live"), x.live},
                                     {QStringLiteral("tenants"), tenantsJson(x.tenants)},
                                     {QStringLiteral("first_created_at"), x.firstCreatedAt},
                                     {QStringLiteral("last_created_at"), x.lastCreatedAt},
                                     {QStringLiteral("record_status"), x.recordText()},
                                     {QStringLiteral("resolved"), x.resolved}});
            for (const DuplicateInconsistency &x : std::as_const(issues))
                i.append(QJsonObject{{QStringLiteral("kind"), inconsistencyKindName(x.kind)},
                                     {QStringLiteral("idem_key"), x.idemKey},
                                     {QStringLiteral("record_id"), x.recordId},
                                     {QStringLiteral("record_status"), recordStatusName(x.recordStatus)},
                                     {QStringLiteral("ticket_id"), x.ticketId.toJson()},
                                     {QStringLiteral("detail"), x.detail}});
            for (const RegeneratedKeyStep &x : std::as_const(regenerated))
                r.append(QJsonObject{{QStringLiteral("task_id"), x.taskId},
                                     {QStringLiteral("step_id"), x.stepId},
                                     {QStringLiteral("attempts"), x.attempts},
                                     {QStringLiteral("keys"), QJsonArray::fromStringList(x.keys)}});
            c.out.print(QJsonDocument(QJsonObject{{QStringLiteral("groups"), g},
                                            {QStringLiteral("inconsistencies"), i},
                                            {QStringLiteral("regenerated_keys"), r}})
                      .toJson(QJsonDocument::Indented));
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("size"), QStringLiteral("live"),
                                                QStringLiteral("tenants"), QStringLiteral("first_created_at"),
                                                QStringLiteral("last_created_at"), QStringLiteral("record_status"), QStringLiteral("resolved")});
            for (const DuplicateGroup &x : std::as_const(groups))
                out += CsvWriter::record({x.idemKey, QString::number(x.size), QString::number(x.live), x.tenantsText(QStringLiteral(" ")),
                                          x.firstCreatedAt, x.lastCreatedAt, x.recordText(),
                                          x.resolved ? QStringLiteral("true") : QStringLiteral("false")});
            c.out.print(out);
            break;
        }
        case Format::Table: {
            TextTable t({QStringLiteral("IDEM_KEY"), QStringLiteral("TICKETS"), QStringLiteral("LIVE"), QStringLiteral("TENANTS"),
                         QStringLiteral("FIRST CREATED (UTC)"), QStringLiteral("LAST CREATED (UTC)"), QStringLiteral("RECORD")});
            for (const DuplicateGroup &x : std::as_const(groups))
                t.addRow({x.idemKey, QString::number(x.size), QString::number(x.live), x.tenantsText(QStringLiteral(" ")), x.firstCreatedAt,
                          x.lastCreatedAt, x.recordText()});
            QByteArray out = t.render();
            out += QStringLiteral("%1%2%3\n")
                       .arg(countText(groups.size(), QStringLiteral("duplicate-key group"), QStringLiteral("duplicate-key groups")))
                       .arg(f.includeResolved ? QString() : QStringLiteral(" (unresolved)"))
                       .arg(moreGroups ? QStringLiteral("; --limit reached (--limit 0 lists all)") : QString())
                       .toUtf8();
            TextTable ti({QStringLiteral("KIND"), QStringLiteral("IDEM_KEY"), QStringLiteral("RECORD"), QStringLiteral("TICKET"),
                          QStringLiteral("DETAIL")});
            for (const DuplicateInconsistency &x : std::as_const(issues))
                ti.addRow({inconsistencyKindName(x.kind), x.idemKey, recordStatusName(x.recordStatus), x.ticketId.text(), x.detail});
            out += "\n" + ti.render()
                + (countText(issues.size(), QStringLiteral("inconsistency"), QStringLiteral("inconsistencies"))
                   + (moreIssues ? QStringLiteral("; --limit reached (--limit 0 lists all)") : QString()) + QLatin1Char('\n'))
                      .toUtf8();
            TextTable tr({QStringLiteral("TASK_ID"), QStringLiteral("STEP_ID"), QStringLiteral("ATTEMPTS"), QStringLiteral("KEYS")});
            for (const RegeneratedKeyStep &x : std::as_const(regenerated))
                tr.addRow({x.taskId, x.stepId, QString::number(x.attempts), x.keys.join(QLatin1Char(' '))});
            out += "\n" + tr.render()
                + (countText(regenerated.size(), QStringLiteral("step"), QStringLiteral("steps")) + QStringLiteral(" with regenerated keys")
                   + (moreRegenerated ? QStringLiteral("; --limit reached (--limit 0 lists all)") : QString()) + QLatin1Char('\n'))
                      .toUtf8();
            c.out.print(out);
            break;
        }
        }
        return ExitOk;
    }

private:
    int m_pageSize = kDefaultPageSize;
};

} // namespace

std::unique_ptr<Command> makeDuplicatesCommand()
{
    return std::make_unique<DuplicatesCommand>();
}

} // namespace triage::ctl
