// Notes on a window's filters (DESIGN.md §7): what a --status value is compared with.
#include "WindowNotes.h"

#include <QSet>

namespace triage {

namespace {

/// The outcomes the console writes into triage_audit (marks, queries, incidents, compensations).
const QStringList &auditOutcomes()
{
    static const QStringList s{QStringLiteral("applied"),   QStringLiteral("conflict"), QStringLiteral("refused"),
                               QStringLiteral("error"),     QStringLiteral("recorded"), QStringLiteral("dry-run"),
                               QStringLiteral("invalid"),   QStringLiteral("not-found"), QStringLiteral("planned"),
                               QStringLiteral("succeeded"), QStringLiteral("failed"),   QStringLiteral("unknown"),
                               QStringLiteral("existing"),  QStringLiteral("not_found")};
    return s;
}

} // namespace

QStringList windowStatusNotes(const WorkspaceConfig &config, const WindowQuery &query)
{
    QSet<QString> names;  // upper case: compared in any case
    QSet<QString> stored; // exact
    auto mapped = [&](const StatusMapping &m) {
        for (auto it = m.spellings.cbegin(); it != m.spellings.cend(); ++it) {
            names.insert(it.key().toUpper());
            for (const QString &s : it.value())
                stored.insert(s);
        }
    };
    for (EventKind k : selectedKinds(query)) {
        switch (k) {
        case EventKind::RecordCreated:
        case EventKind::RecordUpdated: mapped(config.schema.records.statuses); break;
        case EventKind::IntentAttempt: mapped(config.schema.intents.statuses); break;
        case EventKind::TicketCreated: mapped(config.schema.tickets.statuses); break;
        case EventKind::Audit:
            for (const QString &o : auditOutcomes())
                stored.insert(o);
            break;
        case EventKind::Compensation:
            for (const char *s : {"INTENT", "SUCCEEDED", "FAILED", "UNKNOWN"})
                stored.insert(QString::fromLatin1(s));
            break;
        case EventKind::CompensationAttempt:
            for (const char *s : {"IN_FLIGHT", "SUCCEEDED", "REFUSED", "UNKNOWN", "CONFIRMED", "ABSENT", "UNUSABLE"})
                stored.insert(QString::fromLatin1(s));
            break;
        }
    }
    QStringList notes;
    for (const QString &s : query.statuses)
        if (!names.contains(s.toUpper()) && !stored.contains(s))
            notes << QStringLiteral("status \"%1\" is not a console status; compared as stored").arg(s);
    return notes;
}

} // namespace triage
