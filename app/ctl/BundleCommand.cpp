// triagectl bundle verify, and the export behind `triagectl incident export` (DESIGN.md §5,
// §7 "Bundles").
#include "BundleCli.h"
#include "CommandOptions.h"

#include "Bundle.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace triage::ctl {

QList<QCommandLineOption> bundleExportOptions()
{
    return {option("out", QStringLiteral("export: the bundle file to write."), QStringLiteral("FILE")),
            option("no-redact", QStringLiteral("export: keep secrets (Authorization, cookies, listed fields) unredacted; audited.")),
            option("redact-field", QStringLiteral("export: one more JSON field or header name to redact (repeatable)."),
                   QStringLiteral("NAME")),
            option("no-record", QStringLiteral("export: do not record the export's hash in the database.")),
            option("lookback", QStringLiteral("Seconds before now() in which events still settle (default 60)."),
                   QStringLiteral("SECONDS"))};
}

int runBundleExport(Workspace &ws, const CommandContext &c, const WindowQuery &query, std::optional<qint64> incidentId)
{
    RedactionRules rules;
    rules.enabled = !c.parser.isSet(QStringLiteral("no-redact"));
    for (const QString &f : c.parser.values(QStringLiteral("redact-field")))
        if (!f.trimmed().isEmpty() && !rules.fields.contains(f.trimmed(), Qt::CaseInsensitive))
            rules.fields << f.trimmed();
    const auto out = exportBundle(ws, query, incidentId, rules, !c.parser.isSet(QStringLiteral("no-record"))).result();
    if (!out.ok())
        return c.out.dbFailure(*out.error);
    const IncidentBundle &b = *out;
    const QString path = c.parser.value(QStringLiteral("out"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !writeBundleJson(b, &file, nullptr) || !file.commit()) { // streamed
        c.out.message(QStringLiteral("cannot write the bundle to %1: %2").arg(path, file.errorString()));
        return ExitUsage;
    }
    QStringList failed;
    for (const BundleStore &s : b.stores)
        if (!s.ok) {
            failed << roleName(s.role);
            c.out.message(QStringLiteral("the %1 failed during the export (named in the bundle): %2").arg(roleTitle(s.role), s.error));
        }
    const QString redactions = b.redactionRules.enabled ? countText(b.redactions.size(), QStringLiteral("redaction"))
                                                        : QStringLiteral("not redacted (--no-redact)");
    const QString recorded = b.recorded ? QStringLiteral("recorded as export %1 by %2 at %3")
                                              .arg(b.recorded->id)
                                              .arg(b.recorded->exportedBy, b.recorded->exportedAt)
                                        : b.notRecordedReason;
    c.out.printSummary({QStringLiteral("events"), QStringLiteral("keys"), QStringLiteral("sha256"), QStringLiteral("redactions"),
                        QStringLiteral("redacted"), QStringLiteral("file"), QStringLiteral("complete"),
                        QStringLiteral("failed_stores"), QStringLiteral("export_id"), QStringLiteral("recorded")},
                       {qint64(b.events.size()), qint64(b.keys.size()), b.eventsSha256, qint64(b.redactions.size()),
                        b.redactionRules.enabled, path, b.complete(), failed,
                        b.recorded ? QVariant(b.recorded->id) : QVariant(), recorded},
                       QStringLiteral("exported %1, %2, sha256 %3, %4 → %5; %6")
                           .arg(countText(b.events.size(), QStringLiteral("event")), countText(b.keys.size(), QStringLiteral("key")),
                                b.eventsSha256, redactions, path, recorded));
    if (!b.complete())
        return ExitDatabase;
    if (b.recordError)
        return exitCodeFor(*b.recordError);
    return ExitOk;
}

namespace {

/// `triagectl bundle verify FILE`: the file's hash against its events, and against the
/// recorded exports when a database is configured.
class BundleCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("bundle"), QStringLiteral("bundle verify FILE"),
            QStringLiteral("Checks an incident bundle: its hash, and the export recorded in the database."),
            QStringLiteral("bundle verify FILE"),
            QStringLiteral(
                "Reads a bundle written by `triagectl incident export` (or the console's Export…), checks\n"
                "that its SHA-256 matches its events (the canonical event list, DESIGN.md §7 \"Bundles\"),\n"
                "and, when a database is configured (--config, the --*-db URLs or --demo), looks the hash up\n"
                "in the recorded exports (triage_incident_export): \"matches the export recorded by alice\n"
                "at …\" or \"no recorded export with this hash\"; without a database \"not checked against a\n"
                "database\". Exit 0 when everything checked matches, 1 for an unreadable file or one that\n"
                "is not a bundle, 4 when the hash does not match the events (the file was changed after the\n"
                "export), 3 when the database has no recorded export with this hash, 2 for a database error."),
            {}, 2, QString(), false, true, false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (c.args.value(0) != QLatin1String("verify"))
            return c.out.usage(QStringLiteral("bundle: unknown action \"%1\" (verify)").arg(c.args.value(0)));
        QFile file(c.args.value(1));
        if (!file.open(QIODevice::ReadOnly)) {
            c.out.message(QStringLiteral("cannot read %1: %2").arg(c.args.value(1), file.errorString()));
            return ExitUsage;
        }
        QString error;
        m_bundle = readBundleJson(file.readAll(), &error);
        if (!m_bundle) {
            c.out.message(QStringLiteral("%1: %2").arg(c.args.value(1), error));
            return ExitUsage;
        }
        m_hashOk = verifyBundleHash(*m_bundle);
        return ExitOk;
    }

    bool needsDatabase(const CommandContext &c) const override
    {
        for (const char *o : {"config", "profile", "demo", "idempotency-db", "intent-db", "ticket-db"})
            if (c.parser.isSet(QString::fromLatin1(o)))
                return true;
        return false;
    }

    int runOffline(const CommandContext &c) override
    {
        return report(c, QStringLiteral("not checked against a database"), std::nullopt);
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        const auto found = findBundleExports(ws, m_bundle->eventsSha256).result();
        if (!found.ok())
            return c.out.dbFailure(*found.error);
        if (found->isEmpty())
            return report(c, QStringLiteral("no recorded export with this hash"), *found);
        const BundleExportRecord &r = *matchingExport(*m_bundle, *found);
        // A changed file still carries the hash that was exported: name that export, never as a match.
        QString line = m_hashOk ? QStringLiteral("matches the export recorded by %1 at %2 (export %3").arg(r.exportedBy, r.exportedAt).arg(r.id)
                                : QStringLiteral("the hash it records was exported by %1 at %2 (export %3), but its events no longer match it")
                                      .arg(r.exportedBy, r.exportedAt).arg(r.id);
        if (found->size() > 1)
            line += QStringLiteral("; exported %1 in all").arg(countText(found->size(), QStringLiteral("time")));
        return report(c, m_hashOk ? line + QLatin1Char(')') : line, *found);
    }

private:
    int report(const CommandContext &c, const QString &database, const std::optional<QVector<BundleExportRecord>> &found) const
    {
        const IncidentBundle &b = *m_bundle;
        QStringList failed;
        for (const BundleStore &s : b.stores)
            if (!s.ok)
                failed << QStringLiteral("%1 (%2)").arg(roleName(s.role), s.error);
        // The hash covers the canonical event list only (DESIGN.md §7 "Bundles"): said with a match.
        const QString hash = m_hashOk ? QStringLiteral("sha256 %1 matches its %2 (the hash covers the events only, not the notes, "
                                                       "pins, key details or summary)")
                                            .arg(b.eventsSha256, countText(b.events.size(), QStringLiteral("event")))
                                      : QStringLiteral("sha256 %1 does NOT match its %2 (they hash to %3): the file was changed after the export")
                                            .arg(b.eventsSha256, countText(b.events.size(), QStringLiteral("event")),
                                                 bundleEventsSha256(b.events));
        if (c.out.format() == Format::Json) {
            QJsonArray records;
            for (const BundleExportRecord &r : found.value_or(QVector<BundleExportRecord>()))
                records.append(QJsonObject{{QStringLiteral("id"), r.id},
                                           {QStringLiteral("incident"), r.incidentId ? QJsonValue(*r.incidentId) : QJsonValue()},
                                           {QStringLiteral("exported_by"), r.exportedBy},
                                           {QStringLiteral("exported_at"), r.exportedAt},
                                           {QStringLiteral("event_count"), r.eventCount},
                                           {QStringLiteral("redacted"), r.redacted}});
            const QJsonObject o{{QStringLiteral("file"), c.args.value(1)},
                                {QStringLiteral("events"), qint64(b.events.size())},
                                {QStringLiteral("sha256"), b.eventsSha256},
                                {QStringLiteral("hash_ok"), m_hashOk},
                                {QStringLiteral("complete"), b.complete()},
                                {QStringLiteral("failed_stores"), QJsonArray::fromStringList(failed)},
                                {QStringLiteral("database"), database},
                                {QStringLiteral("recorded_exports"), found ? QJsonValue(records) : QJsonValue()}};
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Indented));
        } else {
            QString text = hash + QLatin1Char('\n') + database + QLatin1Char('\n');
            if (!failed.isEmpty())
                text += QStringLiteral("incomplete: failed during the export: %1\n").arg(failed.join(QStringLiteral("; ")));
            c.out.print(text.toUtf8());
        }
        if (!m_hashOk)
            return ExitRefused;
        if (found && found->isEmpty())
            return ExitConflict;
        return ExitOk;
    }

    std::optional<IncidentBundle> m_bundle;
    bool m_hashOk = false;
};

} // namespace

std::unique_ptr<Command> makeBundleCommand()
{
    return std::make_unique<BundleCommand>();
}

} // namespace triage::ctl
