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
                           "Times are relative to each database's clock. Prints counts and time."),
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
        c.out.printSummary({QStringLiteral("records"), QStringLiteral("tickets"), QStringLiteral("intents"), QStringLiteral("seed"),
                            QStringLiteral("elapsed_seconds")},
                           {outcome->records, outcome->tickets, outcome->intents, m_seed, elapsed},
                           QStringLiteral("seeded %1 (seed %2): %3 records, %4 tickets, %5 intent-log rows in %6 s")
                               .arg(what)
                               .arg(m_seed)
                               .arg(outcome->records)
                               .arg(outcome->tickets)
                               .arg(outcome->intents)
                               .arg(elapsed, 0, 'f', 2));
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
