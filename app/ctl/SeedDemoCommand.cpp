// triagectl seed-demo: generated demo or production-like data (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "DemoData.h"
#include "Workspace.h"
#include "DemoWorkspace.h"

#include <QElapsedTimer>

namespace triage::ctl {

namespace {

class SeedDemoCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("seed-demo"), QStringLiteral("seed-demo"),
            QStringLiteral("Insert the demo set, or N records at production-like proportions."),
            QStringLiteral("seed-demo [--rows N] [--seed S]"),
            QStringLiteral("Insert generated data: without --rows (or --rows 0) the demo set covering\n"
                           "every case; N > 0 gives N records at production-like proportions\n"
                           "(2 % stale PROCESSING, 1 % in flight, 0.1 % duplicate tickets), batched.\n"
                           "Times are relative to each database's clock. Prints counts and time, and a\n"
                           "note for what the schema mapping made it leave out or store differently."),
            {option("rows", QStringLiteral("N records at production-like proportions (0 = the demo set)."), QStringLiteral("N")),
             option("seed", QStringLiteral("Random seed (same seed, same data; default %1).").arg(SeedOptions().seed),
                    QStringLiteral("S"))},
            0, QString(), true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        bool ok = false;
        if (c.parser.isSet(QStringLiteral("rows"))) {
            m_rows = c.parser.value(QStringLiteral("rows")).trimmed().toInt(&ok);
            if (!ok || m_rows < 0 || m_rows > 5000000)
                return c.out.usage(QStringLiteral("--rows \"%1\": give a number of records from 0 to 5000000")
                                       .arg(c.parser.value(QStringLiteral("rows"))));
        }
        m_seed = SeedOptions().seed;
        if (c.parser.isSet(QStringLiteral("seed"))) {
            m_seed = c.parser.value(QStringLiteral("seed")).trimmed().toUInt(&ok);
            if (!ok)
                return c.out.usage(QStringLiteral("--seed \"%1\": give a number from 0 to 4294967295")
                                       .arg(c.parser.value(QStringLiteral("seed"))));
        }
        return ExitOk;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        SeedOptions options;
        options.records = m_rows;
        options.seed = m_seed;
        QElapsedTimer timer;
        timer.start();
        const Outcome<SeedReport> outcome = seedWorkspace(workspace, options).result();
        if (!outcome.ok()) {
            return c.out.dbFailure(*outcome.error, outcome.error->isUniqueViolation()
                                                       ? QStringLiteral("keys of this seed are already in the database: seed an "
                                                                        "empty database, or pass another --seed")
                                                       : QString());
        }
        const double elapsed = timer.elapsed() / 1000.0;
        const QString what = m_rows > 0 ? QStringLiteral("%1 records at production-like proportions").arg(m_rows)
                                        : QStringLiteral("the demo set");
        // What the mapping made seed-demo leave out or write differently (DESIGN.md §10 "seed-demo").
        QStringList notes;
        if (!outcome->bizTypeValue.isEmpty())
            notes << QStringLiteral("the record table holds biz_type \"%1\" only (biz_type_value): %2 generated records of "
                                    "other biz_types left out, with their tickets and intent-log rows")
                         .arg(outcome->bizTypeValue)
                         .arg(outcome->otherBizTypeRecords);
        if (!outcome->unknownStatusNote.isEmpty())
            notes << outcome->unknownStatusNote;
        if (outcome->backstopRefusedTickets > 0)
            notes << QStringLiteral("the ticket table's UNIQUE(idem_key) backstop refused %1 duplicate tickets of the demo's duplicate "
                                    "cases (and the operator actions about them): the Duplicate keys queue shows fewer groups; "
                                    "init-schema --without-backstop on an empty database seeds them all")
                         .arg(outcome->backstopRefusedTickets);
        // The console's own rows (the demo outage's operator actions) are named when there are any.
        const QString consoleRows = outcome->audits + outcome->compensations == 0
            ? QString()
            : QStringLiteral(", %1 audit rows, %2 compensation(s)").arg(outcome->audits).arg(outcome->compensations);
        QString sentence = QStringLiteral("seeded %1 (seed %2): %3 records, %4 tickets, %5 intent-log rows%6 in %7 s")
                               .arg(what)
                               .arg(m_seed)
                               .arg(outcome->records)
                               .arg(outcome->tickets)
                               .arg(outcome->intents)
                               .arg(consoleRows)
                               .arg(elapsed, 0, 'f', 2);
        for (const QString &n : std::as_const(notes))
            sentence += QStringLiteral("\nnote: ") + n;
        const QVariant nullText = QVariant::fromValue(nullptr); // JSON null (a null QString would print "")
        c.out.printSummary({QStringLiteral("records"), QStringLiteral("tickets"), QStringLiteral("intents"), QStringLiteral("audit_rows"),
                            QStringLiteral("compensations"), QStringLiteral("seed"),
                            QStringLiteral("elapsed_seconds"), QStringLiteral("biz_type_value"),
                            QStringLiteral("other_biz_type_records_left_out"), QStringLiteral("unknown_status_records"),
                            QStringLiteral("unknown_status_stored"), QStringLiteral("backstop_refused_tickets"), QStringLiteral("notes")},
                           {outcome->records, outcome->tickets, outcome->intents, outcome->audits, outcome->compensations, m_seed,
                            elapsed,
                            outcome->bizTypeValue.isEmpty() ? nullText : QVariant(outcome->bizTypeValue),
                            outcome->otherBizTypeRecords, outcome->unknownStatusRows,
                            outcome->unknownStatusStored ? QVariant(*outcome->unknownStatusStored) : nullText,
                            outcome->backstopRefusedTickets, notes},
                           sentence);
        return ExitOk;
    }

private:
    int m_rows = 0;
    quint32 m_seed = 0;
};

} // namespace

std::unique_ptr<Command> makeSeedDemoCommand()
{
    return std::make_unique<SeedDemoCommand>();
}

} // namespace triage::ctl
