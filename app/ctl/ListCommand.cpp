// triagectl list: one work queue, oldest updated_at first (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "Workspace.h"
#include "Queue.h"

#include <QJsonDocument>

namespace triage::ctl {

namespace {

class ListCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("list"), QStringLiteral("list QUEUE"),
            QStringLiteral("List a work queue (unknown, inflight, failed, success, escalated)."),
            QStringLiteral("list QUEUE [filters]"),
            QStringLiteral("List a work queue, oldest updated_at first. QUEUE (case-insensitive):\n"
                           "  unknown    stale PROCESSING records and keys whose latest intent\n"
                           "             attempt is UNKNOWN / RECONCILE_PENDING\n"
                           "  inflight   PROCESSING records younger than their processing timeout\n"
                           "  failed     FAILED records\n"
                           "  success    SUCCESS records\n"
                           "  escalated  keys whose latest intent attempt is ESCALATED\n"
                           "Stops after --limit rows. The table format ends with \"N rows (of M)\"."),
            queueFilterOptions() << pageSizeOption(),
            1, QString(), false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (!readPageSize(c, &m_pageSize))
            return ExitUsage;
        m_request = readQueueRequest(c, c.args.first());
        return m_request ? ExitOk : ExitUsage;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const Format format = c.out.format();
        // The exact count only for humans: json and csv stay one pass over the pages.
        QFuture<Outcome<qint64>> count;
        if (format == Format::Table)
            count = countQueue(workspace, *m_request);
        QVector<QueueRow> rows;
        if (const auto error = fetchQueueRows(workspace, *m_request, c.limit, m_pageSize, &rows))
            return c.out.dbFailure(*error);

        switch (format) {
        case Format::Json: {
            QByteArray out = "[";
            for (int i = 0; i < rows.size(); ++i) {
                out += i == 0 ? "\n" : ",\n";
                out += QJsonDocument(json_export::queueRow(rows[i])).toJson(QJsonDocument::Compact);
            }
            out += rows.isEmpty() ? "]\n" : "\n]\n";
            c.out.print(out);
            break;
        }
        case Format::Csv: {
            QByteArray out = CsvWriter::record(json_export::queueCsvHeader());
            for (const QueueRow &r : rows)
                out += CsvWriter::record(json_export::queueCsvFields(r));
            c.out.print(out);
            break;
        }
        case Format::Table: {
            const Outcome<qint64> total = count.result();
            if (!total.ok())
                return c.out.dbFailure(*total.error);
            TextTable table({QStringLiteral("SOURCE"), QStringLiteral("STATUS"), QStringLiteral("BIZ_TYPE/ACTION"),
                             QStringLiteral("UPDATED_AT (UTC)"), QStringLiteral("AGE"), QStringLiteral("IDEM_KEY")});
            table.alignRight(4);
            for (const QueueRow &r : rows) {
                table.addRow({sourceName(r.source), r.status, orNull(r.source == QueueSource::Record ? r.bizType : r.action),
                              orNull(r.updatedAt), humanDuration(r.ageSeconds), r.idemKey});
            }
            QByteArray out = table.render();
            out += (shownOfTotalText(rows.size(), *total, c.limit, QStringLiteral("row"), QStringLiteral("rows"), true) + QLatin1Char('\n'))
                       .toUtf8();
            c.out.print(out);
            break;
        }
        }
        return ExitOk;
    }

private:
    int m_pageSize = kDefaultPageSize;
    std::optional<QueueRequest> m_request;
};

} // namespace

std::unique_ptr<Command> makeListCommand()
{
    return std::make_unique<ListCommand>();
}

} // namespace triage::ctl
