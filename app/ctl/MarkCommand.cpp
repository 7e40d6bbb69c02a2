// triagectl mark: settle one record, or every record row of a queue, by compare-and-set
// (DESIGN.md §2, §6).
#include "ClaimCli.h"
#include "Command.h"
#include "CommandOptions.h"

#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"

#include "CanonicalTicket.h"
#include "Mark.h"
#include "RecordStatus.h"
#include "Workspace.h"
#include "Queue.h"
#include "KeyDetail.h"
#include "KeyDetailBulk.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

namespace triage::ctl {

namespace {

/// Exit code of one mark outcome (DESIGN.md §5).
int markExitCode(const Outcome<MarkResult> &o)
{
    if (!o.ok())
        return exitCodeFor(*o.error);
    switch (o->kind) {
    case MarkResult::Kind::Applied:
    case MarkResult::Kind::DryRun: return ExitOk;
    case MarkResult::Kind::Conflict: return ExitConflict;
    case MarkResult::Kind::Refused: return ExitRefused;
    case MarkResult::Kind::Error: return ExitDatabase;
    case MarkResult::Kind::Proposed: return ExitProposed;
    }
    return ExitDatabase;
}

/// Reads a snapshot file exactly as stored ("-" = standard input); nullopt on failure.
std::optional<QString> readSnapshotFile(const QString &path, QString *error)
{
    QFile f;
    const bool ok = path == QLatin1String("-") ? f.open(stdin, QIODevice::ReadOnly) : (f.setFileName(path), f.open(QIODevice::ReadOnly));
    if (!ok) {
        *error = QStringLiteral("--snapshot %1: %2").arg(path, f.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = f.readAll();
    QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes) {
        *error = QStringLiteral("--snapshot %1: not valid UTF-8").arg(path);
        return std::nullopt;
    }
    return text;
}

/// Prints mark outcomes (one per row) and returns the exit code: single row → its code;
/// several → combinedExitCode() of theirs (DESIGN.md §5).
int reportMarks(const CommandContext &c, const QVector<Outcome<MarkResult>> &results)
{
    auto name = [](const Outcome<MarkResult> &o) { return o.ok() ? markKindName(o->kind) : QStringLiteral("error"); };
    auto text = [](const Outcome<MarkResult> &o) { return o.ok() ? o->message : o.error->message; };
    const bool single = results.size() == 1;
    switch (c.out.format()) {
    case Format::Json: {
        QJsonArray rows;
        for (const auto &o : results) {
            if (o.ok()) {
                rows.append(json_export::markResult(*o));
            } else {
                QJsonObject e;
                e.insert(QStringLiteral("outcome"), QStringLiteral("error"));
                e.insert(QStringLiteral("message"), o.error->message);
                rows.append(e);
            }
        }
        c.out.print(single ? QJsonDocument(rows.first().toObject()).toJson(QJsonDocument::Indented)
                     : QJsonDocument(rows).toJson(QJsonDocument::Indented));
        break;
    }
    case Format::Csv: {
        QByteArray out = CsvWriter::record({QStringLiteral("idem_key"), QStringLiteral("outcome"), QStringLiteral("message"),
                                            QStringLiteral("audit_id")});
        for (const auto &o : results)
            out += CsvWriter::record({o.ok() ? o->idemKey : QString(), name(o), text(o),
                                      o.ok() && o->auditId ? QString::number(o->auditId) : QString()});
        c.out.print(out);
        break;
    }
    case Format::Table: {
        TextTable table({QStringLiteral("OUTCOME"), QStringLiteral("IDEM_KEY"), QStringLiteral("MESSAGE")});
        QMap<QString, int> tally;
        for (const auto &o : results) {
            table.addRow({name(o), o.ok() ? o->idemKey : QString(), text(o)});
            ++tally[name(o)];
        }
        QByteArray out = table.render();
        if (single && results[0].ok() && results[0]->current) {
            const RecordDetail &c = *results[0]->current;
            out += QStringLiteral("record now: status %1, updated_at %2%3\n")
                       .arg(c.statusText, c.updatedAt,
                            c.version ? QStringLiteral(", version %1").arg(*c.version) : QString())
                       .toUtf8();
        }
        QStringList parts;
        for (auto it = tally.cbegin(); it != tally.cend(); ++it)
            parts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
        out += results.isEmpty() ? QByteArray("nothing to mark\n")
                                 : QStringLiteral("%1 record(s): %2\n").arg(results.size()).arg(parts.join(QStringLiteral(", "))).toUtf8();
        c.out.print(out);
        break;
    }
    }
    for (const auto &o : results)
        if (o.ok())
            for (const QString &w : o->warnings)
                c.out.message(QStringLiteral("warning: ") + w);
    if (single)
        return markExitCode(results[0]);
    QSet<int> codes;
    for (const auto &o : results)
        codes.insert(markExitCode(o));
    return combinedExitCode(codes);
}

class MarkCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("mark"), QStringLiteral("mark KEY"),
            QStringLiteral("Settle a record (or every record row of a queue) by compare-and-set."),
            QStringLiteral("mark KEY --to success|failed --reason TEXT [options]  |  mark --queue QUEUE [filters] --to success|failed --reason TEXT"),
            QStringLiteral("Settle a record by compare-and-set (DESIGN.md §2): PROCESSING→SUCCESS, PROCESSING→FAILED,\n"
                           "FAILED→SUCCESS. SUCCESS is final. SUCCESS needs a JSON-object snapshot: --snapshot FILE\n"
                           "(- = stdin; kept byte-exact) or --snapshot-from-ticket ID (a ticket carrying KEY). Every\n"
                           "mark needs a reason of >= 10 characters. FAILED needs positive evidence of absence\n"
                           "(DESIGN.md §6): stale, no ticket, no SUCCEEDED or ESCALATED attempt, and a recorded upstream\n"
                           "NOT_FOUND (`query KEY`) obtained after updated_at + processing_timeout and after the latest\n"
                           "attempt, younger than failed_evidence_max_age (or failed_evidence = ticket_absent).\n"
                           "--override (reason >= 20 characters, audited) sets aside only missing or aged evidence and\n"
                           "an ESCALATED attempt, never a ticket, a SUCCEEDED attempt, an upstream FOUND or a record\n"
                           "that is not stale. Without --expect-* the current state is read first and used; with\n"
                           "--expect-status and --expect-updated-at (as `show --format json` prints them;\n"
                           "--expect-version where the table has one) exactly that state must still hold. --dry-run\n"
                           "decides and writes nothing (allowed in read-only mode). Every real outcome is audited\n"
                           "(triage_audit), refusals included. With --queue instead of KEY: every record row of the\n"
                           "queue (filters and --limit as for list; --limit 0 = all), one transaction per record, each\n"
                           "decided on its own evidence (no override in bulk); SUCCESS takes the snapshot of the key's\n"
                           "canonical ticket when it is its only live one. A SUCCESS snapshot comes only from the\n"
                           "canonical ticket (DESIGN.md §6). A key another operator's live claim holds (on the key or\n"
                           "on one of its open escalations; DESIGN.md §8) is not marked (exit 3, naming the holder)\n"
                           "unless --despite-claim, which notes the claim in the audited reason. Exit: 0 applied,\n"
                           "3 conflict or held by another's claim, 4 refused, 2 error, 6 proposed (four-eyes: another\n"
                           "operator approves it with triagectl approve ID)."),
            QList<QCommandLineOption>{
                option("to", QStringLiteral("The new status, success or failed."), QStringLiteral("STATUS")),
                option("reason", QStringLiteral("Why (required, >= 10 characters; audited)."), QStringLiteral("TEXT")),
                option("snapshot", QStringLiteral("Result snapshot file for SUCCESS (- = stdin)."), QStringLiteral("FILE")),
                option("snapshot-from-ticket", QStringLiteral("Take the snapshot from this ticket's payload."), QStringLiteral("ID")),
                option("expect-status", QStringLiteral("The status the record must still have: a name, or the value as stored."),
                       QStringLiteral("S")),
                option("expect-updated-at", QStringLiteral("The updated_at it must still have (as show prints it)."),
                       QStringLiteral("T")),
                option("expect-version", QStringLiteral("The version it must still have."), QStringLiteral("V")),
                option("override", QStringLiteral("Set aside missing FAILED evidence or an open escalation (reason >= 20 "
                                                  "characters; audited).")),
                option("dry-run", QStringLiteral("Show what would be applied; write nothing.")),
                option("queue", QStringLiteral("Every record row of this queue instead of one KEY."), QStringLiteral("QUEUE")),
                despiteClaimOption(),
            } << queueFilterOptions(),
            -1, QStringLiteral("queue"), true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (!keyArgumentOk(c, QStringLiteral("mark"), true))
            return ExitUsage;
        if (!c.args.isEmpty())
            return ExitOk;
        m_queue = readQueueRequest(c, c.parser.value(QStringLiteral("queue")));
        return m_queue ? ExitOk : ExitUsage;
    }

    bool dryRun(const QCommandLineParser &parser) const override { return parser.isSet(QStringLiteral("dry-run")); }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const QString key = c.args.value(0);
        const std::optional<RecordStatusCode> to = recordStatusFromText(c.parser.value(QStringLiteral("to")));
        if (!to || *to == Processing)
            return c.out.usage(QStringLiteral("mark: --to must be success or failed"));
        const QString reason = c.parser.value(QStringLiteral("reason"));
        if (reason.trimmed().isEmpty())
            return c.out.usage(QStringLiteral("mark: --reason is required (it is audited)"));
        const bool bulk = key.isEmpty();
        const bool anyExpect = c.parser.isSet(QStringLiteral("expect-status")) || c.parser.isSet(QStringLiteral("expect-updated-at"))
            || c.parser.isSet(QStringLiteral("expect-version"));
        if (bulk && (anyExpect || c.parser.isSet(QStringLiteral("snapshot")) || c.parser.isSet(QStringLiteral("snapshot-from-ticket"))))
            return c.out.usage(QStringLiteral("mark --queue: --expect-*, --snapshot and --snapshot-from-ticket name one record; give a KEY"));
        if (bulk && c.parser.isSet(QStringLiteral("override")))
            return c.out.usage(QStringLiteral("mark --queue: --override sets a rule aside for one key at a time, never in bulk (DESIGN.md §6)"));
        if (*to == Failed && (c.parser.isSet(QStringLiteral("snapshot")) || c.parser.isSet(QStringLiteral("snapshot-from-ticket"))))
            return c.out.usage(QStringLiteral("mark: a snapshot goes with --to success only"));

        MarkRequest base;
        base.toStatus = *to;
        base.reason = reason;
        base.override = c.parser.isSet(QStringLiteral("override"));
        base.dryRun = c.parser.isSet(QStringLiteral("dry-run"));
        base.operatorName = workspace.config().operatorName;

        if (!bulk) {
            MarkRequest r = base;
            r.idemKey = key;
            if (anyExpect) {
                if (!c.parser.isSet(QStringLiteral("expect-status")) || !c.parser.isSet(QStringLiteral("expect-updated-at")))
                    return c.out.usage(QStringLiteral("mark: --expect-status and --expect-updated-at go together"));
                ExpectedState e;
                // A status name (any stored spelling of it), NULL, or the value exactly as stored
                // (show --format json: status_stored); the name wins (DESIGN.md §5).
                const QString st = c.parser.value(QStringLiteral("expect-status"));
                const auto expected = expectedStatusFromText(st, workspace.config().schema.records.statuses);
                if (!expected)
                    return c.out.usage(QStringLiteral("--expect-status \"%1\": PROCESSING, SUCCESS, FAILED, NULL or the status "
                                                      "exactly as stored (an integer: the status column holds codes)")
                                           .arg(st));
                e.status = expected->status;
                e.statusStored = expected->statusStored;
                const QString at = c.parser.value(QStringLiteral("expect-updated-at")).trimmed();
                const auto micros = parseUtcMicros(at);
                if (!micros)
                    return c.out.usage(QStringLiteral("--expect-updated-at \"%1\": ISO-8601 UTC as show prints it "
                                                "(2026-11-29T21:55:07.123456Z)").arg(at));
                e.updatedAt = *micros;
                if (c.parser.isSet(QStringLiteral("expect-version"))) {
                    bool ok = false;
                    e.version = c.parser.value(QStringLiteral("expect-version")).trimmed().toLongLong(&ok);
                    if (!ok)
                        return c.out.usage(QStringLiteral("--expect-version: a whole number"));
                }
                r.expect = e;
            }
            if (c.parser.isSet(QStringLiteral("snapshot"))) {
                QString error;
                r.snapshot = readSnapshotFile(c.parser.value(QStringLiteral("snapshot")), &error);
                if (!r.snapshot)
                    return c.out.usage(error);
                r.snapshotSource = QStringLiteral("file:") + c.parser.value(QStringLiteral("snapshot"));
            } else if (c.parser.isSet(QStringLiteral("snapshot-from-ticket"))) {
                // A ticket id is opaque (a number, a VARCHAR or a UUID; DESIGN.md §4 "Business ids"):
                // the text as given, without surrounding spaces.
                const BusinessId id(c.parser.value(QStringLiteral("snapshot-from-ticket")).trimmed());
                if (id.isEmpty())
                    return c.out.usage(QStringLiteral("--snapshot-from-ticket: a ticket id"));
                r.snapshotFromTicket = id; // read and checked by markRecord() (a wrong ticket is an audited refusal)
            }
            if (const int held = checkClaimOnKey(workspace, c, key, QStringLiteral("marked"), &r.reason); held != ExitOk)
                return held;
            return reportMarks(c, {markRecord(workspace, r).result()});
        }

        // Bulk: every record row of the queue (as list would print it), in batches (markRecords()).
        QVector<QueueRow> rows;
        if (const auto error = fetchQueueRows(workspace, *m_queue, c.limit, kDefaultPageSize, &rows, ReadFrom::Primary))
            return c.out.dbFailure(*error);
        if (c.limit > 0 && rows.size() >= c.limit) // --limit counts the queue's rows (attempt rows too)
            c.out.message(QStringLiteral("--limit %1 reached: the queue's first %1 rows are taken; more may be left "
                                         "(--limit 0 marks every row)")
                              .arg(c.limit));
        QStringList keys;
        QSet<QString> seen;
        for (const QueueRow &row : rows)
            if (row.source == QueueSource::Record && !seen.contains(row.idemKey)) {
                seen.insert(row.idemKey);
                keys << row.idemKey;
            }
        QVector<MarkRequest> requests;
        if (*to == Success) {
            // SUCCESS takes the snapshot of the key's canonical ticket when it is its only live
            // one; the keys' details are read in bulk.
            const QVector<KeyDetail> details = loadKeyDetails(workspace, keys).result();
            for (int i = 0; i < keys.size(); ++i) {
                const KeyDetail &d = details[i];
                MarkRequest r = base;
                r.idemKey = keys[i];
                setSnapshotFrom(r, snapshotTicketFor(d, std::nullopt));
                requests << r;
            }
        } else {
            for (const QString &k : keys) {
                MarkRequest r = base;
                r.idemKey = k;
                requests << r;
            }
        }
        if (requests.isEmpty()) {
            c.out.message(QStringLiteral("mark --queue %1: no record rows match").arg(queueName(m_queue->kind)));
            return reportMarks(c, {});
        }
        // Claims stop others (DESIGN.md §8): a key held by another operator is not marked
        // (a conflict row) unless --despite-claim.
        int failure = ExitOk;
        const auto blocks = readClaimBlocks(workspace, c, keys, std::nullopt, &failure);
        if (!blocks)
            return failure;
        QVector<MarkRequest> allowed;
        QVector<int> heldAt;
        QVector<Outcome<MarkResult>> held;
        for (MarkRequest &r : requests) {
            if (blocks->contains(r.idemKey)) {
                if (c.parser.isSet(QStringLiteral("despite-claim"))) {
                    r.reason += blocks->value(r.idemKey).despiteNote();
                } else {
                    MarkResult m;
                    m.kind = MarkResult::Kind::Conflict;
                    m.idemKey = r.idemKey;
                    m.message = claimRefusalText(blocks->value(r.idemKey), QStringLiteral("marked"));
                    heldAt << int(allowed.size() + held.size());
                    held << Outcome<MarkResult>::success(m);
                    continue;
                }
            }
            allowed << r;
        }
        const QVector<Outcome<MarkResult>> done = allowed.isEmpty() ? QVector<Outcome<MarkResult>>() : markRecords(workspace, allowed).result();
        QVector<Outcome<MarkResult>> results;
        for (qsizetype i = 0, d = 0, h = 0; i < done.size() + held.size(); ++i)
            results << (h < heldAt.size() && heldAt[h] == i ? held[h++] : done[d++]);
        return reportMarks(c, results);
    }

private:
    std::optional<QueueRequest> m_queue; ///< mark --queue
};

} // namespace

std::unique_ptr<Command> makeMarkCommand()
{
    return std::make_unique<MarkCommand>();
}

} // namespace triage::ctl
