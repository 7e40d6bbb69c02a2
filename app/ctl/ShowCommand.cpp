// triagectl show: everything about one idempotency key (DESIGN.md §5).
#include "Command.h"
#include "CommandOptions.h"

#include "JsonExport.h"
#include "TextTable.h"

#include "AsOf.h"
#include "Window.h"
#include "DeepLink.h"
#include "TextEscape.h"
#include "Workspace.h"
#include "KeyDetail.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage::ctl {

namespace {

/// Characters of a result_snapshot that `show` prints in the table format without --full.
constexpr int kSnapshotPreviewChars = 2000;

/// "the ticket database and the intent-log database": the stores that failed.
QString failedStoreNames(const KeyDetail &d)
{
    QStringList names;
    for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
        names << roleTitle(it.key());
    return names.join(QStringLiteral(" and "));
}

/// A canonical UTC time with the operator's local time beside it (DESIGN.md §4).
QString withLocal(const QString &utc)
{
    if (utc.isNull())
        return QStringLiteral("NULL");
    const auto t = parseUtcMicros(utc);
    return t ? QStringLiteral("%1  (local %2)").arg(utc, formatLocal(*t)) : utc;
}

/// The table form of `show`: record fields, warnings, tickets, attempts, timeline, errors.
void printShowTable(const KeyDetail &d, bool full, Output &output)
{
    QByteArray out;
    auto line = [&](const QString &s) { out += (s + QLatin1Char('\n')).toUtf8(); };
    auto failedStore = [&](DbRole role) {
        return escapeControlChars(storeFailureText(role, d.errors.value(role).message));
    };
    line(QStringLiteral("idem_key: %1").arg(d.idemKey));
    line(QString());
    if (d.record) {
        const RecordDetail &r = *d.record;
        line(QStringLiteral("Record (idempotency_record)"));
        TextTable fields({QStringLiteral("FIELD"), QStringLiteral("VALUE")});
        QString status = r.statusText;
        // The stored value where it is not the seeds' code (a mapped spelling, DESIGN.md §10).
        // (An unknown value is already in its UNKNOWN_CODE_<value> text.)
        if (r.statusStored && r.statusCode && *r.statusStored != QString::number(*r.statusCode))
            status += QStringLiteral(" (stored \"%1\")").arg(escapeControlChars(*r.statusStored));
        else if (r.statusCode)
            status += QStringLiteral(" (code %1)").arg(*r.statusCode);
        if (r.stale)
            status += QStringLiteral(": stale, outcome UNKNOWN");
        fields.addRow({QStringLiteral("id"), QString::number(r.id)});
        fields.addRow({QStringLiteral("idem_key"), r.idemKey});
        fields.addRow({QStringLiteral("biz_type"), orNull(r.bizType)});
        fields.addRow({QStringLiteral("status"), status});
        fields.addRow({QStringLiteral("created_at"), withLocal(r.createdAt)});
        fields.addRow({QStringLiteral("updated_at"), withLocal(r.updatedAt)});
        fields.addRow({QStringLiteral("expire_at"),
                       r.hasExpireAtColumn ? withLocal(r.expireAt) : QStringLiteral("(no expire_at column)")});
        fields.addRow({QStringLiteral("version"), r.hasVersionColumn ? (r.version ? QString::number(*r.version) : QStringLiteral("NULL"))
                                                                    : QStringLiteral("(no version column)")});
        fields.addRow({QStringLiteral("age"), QStringLiteral("%1 (%2 s; processing timeout %3 s)")
                                                  .arg(humanDuration(r.ageSeconds))
                                                  .arg(r.ageSeconds, 0, 'f', 3)
                                                  .arg(r.processingTimeoutS)});
        fields.addRow({QStringLiteral("expires in"), r.expiresInSeconds ? humanDuration(*r.expiresInSeconds)
                                                     : r.hasExpireAtColumn ? QStringLiteral("NULL")
                                                                           : QStringLiteral("unknown")});
        fields.addRow({QStringLiteral("tenant"), r.tenant.isEmpty() ? QStringLiteral("(none)") : r.tenant});
        for (const auto &[name, text] : r.allColumns) {
            if (!r.isMappedColumn(name)) // shown above; the mapping leaves out the rest (DESIGN.md §10)
                fields.addRow({name, text});
        }
        out += fields.render(QStringLiteral("  "));
        if (r.resultSnapshot) {
            const QString &snap = *r.resultSnapshot;
            const bool preview = snap.size() > kSnapshotPreviewChars && !full;
            if (preview)
                line(QStringLiteral("  result_snapshot (%1, as stored; the first %2 shown, --full prints all):")
                         .arg(countText(snap.size(), QStringLiteral("character")))
                         .arg(kSnapshotPreviewChars));
            else
                line(QStringLiteral("  result_snapshot (%1, as stored):").arg(countText(snap.size(), QStringLiteral("character"))));
            line(QStringLiteral("    ") + escapeControlChars(preview ? snap.left(kSnapshotPreviewChars) + QChar(0x2026) : snap));
        } else {
            line(QStringLiteral("  result_snapshot: NULL"));
        }
    } else if (!d.errors.contains(DbRole::Idempotency)) {
        line(QStringLiteral("Record: none (no idempotency_record has this key)"));
    } else {
        line(QStringLiteral("Record: unknown (%1)").arg(failedStore(DbRole::Idempotency)));
    }
    line(QString());
    QStringList warnings = d.warnings;
    // A status no rule reads (as the console's detail view says it).
    if (d.record && (d.record->statusText.startsWith(QLatin1String("UNKNOWN_CODE_")) || d.record->statusText == QLatin1String("NULL")))
        warnings.prepend(QStringLiteral("Status %1 is not one the console knows (the seeds' codes 0, 1, 2 or the [idempotency.map] "
                                        "spellings): treat the outcome as unknown.")
                             .arg(d.record->statusText));
    if (!warnings.isEmpty()) {
        line(QStringLiteral("Warnings"));
        for (const QString &w : std::as_const(warnings))
            line(QStringLiteral("  ! ") + escapeControlChars(w));
        line(QString());
    }
    if (d.errors.contains(DbRole::Ticket))
        line(QStringLiteral("Tickets: unknown (%1)").arg(failedStore(DbRole::Ticket)));
    else
        line(QStringLiteral("Tickets (%1)").arg(d.tickets.size()));
    if (!d.tickets.isEmpty()) {
        TextTable t({QStringLiteral("ID"), QStringLiteral("STATUS"), QStringLiteral("TENANT"), QStringLiteral("CREATED_AT"),
                     QStringLiteral("UPDATED_AT"), QStringLiteral("TITLE"), QStringLiteral("PAYLOAD")});
        t.alignRight(0);
        for (const TicketRow &r : d.tickets)
            t.addRow({r.id.text(), orNull(r.status), orNull(r.tenantId), orNull(r.createdAt), orNull(r.updatedAt),
                      orNull(r.title), orNull(r.payload)});
        out += t.render(QStringLiteral("  "));
    }
    line(QString());
    if (d.errors.contains(DbRole::Intent))
        line(QStringLiteral("Intent-log attempts: unknown (%1)").arg(failedStore(DbRole::Intent)));
    else
        line(QStringLiteral("Intent-log attempts (%1)").arg(d.attempts.size()));
    if (!d.attempts.isEmpty()) {
        TextTable t({QStringLiteral("ID"), QStringLiteral("TASK"), QStringLiteral("STEP"), QStringLiteral("ACTION"),
                     QStringLiteral("STATUS"), QStringLiteral("ACTOR"), QStringLiteral("CREATED_AT"), QStringLiteral("UPDATED_AT"),
                     QStringLiteral("ERROR")});
        t.alignRight(0);
        for (const IntentAttempt &a : d.attempts)
            t.addRow({QString::number(a.id), orNull(a.taskId), orNull(a.stepId), orNull(a.action), orNull(a.status),
                      orNull(a.actor), orNull(a.createdAt), orNull(a.updatedAt), orNull(a.error)});
        out += t.render(QStringLiteral("  "));
        line(QStringLiteral("  (requests, responses and before/after snapshots: --format json)"));
    }
    line(QString());
    if (d.errors.isEmpty())
        line(QStringLiteral("Timeline (%1)").arg(countText(d.timeline.size(), QStringLiteral("event"))));
    else
        line(QStringLiteral("Timeline (%1; incomplete: %2 failed)")
                 .arg(countText(d.timeline.size(), QStringLiteral("event")), failedStoreNames(d)));
    if (!d.timeline.isEmpty()) {
        TextTable t({QStringLiteral("TIME (UTC)"), QStringLiteral("SOURCE"), QStringLiteral("KIND"), QStringLiteral("EVENT")});
        for (const TimelineEvent &e : d.timeline)
            t.addRow({e.time, e.source, e.kind, e.summary});
        out += t.render(QStringLiteral("  "));
    }
    if (!d.errors.isEmpty()) {
        line(QString());
        line(QStringLiteral("Errors (these stores could not be read; what they hold is missing above)"));
        for (auto it = d.errors.cbegin(); it != d.errors.cend(); ++it)
            line(QStringLiteral("  %1: %2").arg(roleName(it.key()), it->message));
    }
    output.print(out);
}

/// A text, or null for a null QString.
QJsonValue orJsonNull(const QString &s)
{
    return s.isNull() ? QJsonValue() : QJsonValue(s);
}

/// `show KEY --as-of T` as JSON: the key, T, and per part its summary and items, each with
/// its creation time, its basis, its state at T and from when that state is known to hold
/// ("since"; both null when not established; DESIGN.md §7 "As of T").
QJsonObject asOfJson(const KeyStateAsOf &state)
{
    QJsonArray parts;
    for (const AsOfSection &s : state.sections) {
        QJsonArray items;
        for (const AsOfItem &i : s.items)
            items.append(QJsonObject{{QStringLiteral("ref"), i.ref},
                                     {QStringLiteral("created_at"), orJsonNull(i.createdAt)},
                                     {QStringLiteral("since"), orJsonNull(i.since)},
                                     {QStringLiteral("basis"), asOfBasisName(i.basis)},
                                     {QStringLiteral("state_at_t"), i.stateAtT ? orJsonNull(*i.stateAtT) : QJsonValue()},
                                     {QStringLiteral("state_now"), orJsonNull(i.stateNow)},
                                     {QStringLiteral("text"), i.text}});
        parts.append(QJsonObject{{QStringLiteral("part"), asOfPartName(s.part)},
                                 {QStringLiteral("summary"), s.summary},
                                 {QStringLiteral("unknown"), s.unknown},
                                 {QStringLiteral("created_after_t"), s.later},
                                 {QStringLiteral("items"), items}});
    }
    return QJsonObject{{QStringLiteral("idem_key"), state.idemKey},
                       {QStringLiteral("as_of"), state.atText},
                       {QStringLiteral("inclusive"), true},
                       {QStringLiteral("parts"), parts}};
}

class ShowCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("show"), QStringLiteral("show KEY"),
            QStringLiteral("Everything about one key: record, tickets, intent-log attempts, timeline."),
            QStringLiteral("show KEY [--full] [--as-of TIME]  |  show --link triage://key/KEY [--full] [--as-of TIME]"),
            QStringLiteral("Everything about one idempotency key: the record (every field), warnings,\n"
                           "tickets, intent-log attempts and the merged timeline (table or json).\n"
                           "The table format previews a result_snapshot over 2000 characters\n"
                           "(--full prints all of it). A key found in no store exits 1; a store\n"
                           "that fails is shown as unknown, the others still shown, and exits 2.\n"
                           "--as-of TIME prints instead what each store held at TIME (UTC, a row\n"
                           "written exactly at TIME counts) as far as its history allows: the\n"
                           "record's status only where updated_at or an audit row establishes it,\n"
                           "attempts, tickets, operator actions and compensations existing then\n"
                           "(DESIGN.md \u00a77 \"As of T\").\n"
                           "--link takes the key from a key link (triage://key/<percent-encoded key>)."),
            {option("full", QStringLiteral("Print a large result_snapshot in full (table format).")),
             option("as-of", QStringLiteral("Show the key as of this time (ISO-8601; no zone = UTC)."), QStringLiteral("TIME")),
             linkOption()},
            -1, QStringLiteral("link"), false};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (c.out.format() == Format::Csv)
            return c.out.usage(QStringLiteral("show has no csv form: use --format table or json"));
        if (c.parser.isSet(QStringLiteral("link"))) {
            QString error;
            const auto link = parseDeepLink(c.parser.value(QStringLiteral("link")), &error);
            if (!link)
                return c.out.usage(QStringLiteral("--link: ") + error);
            if (link->kind != DeepLink::Kind::Key)
                return c.out.usage(QStringLiteral("--link: show takes a key link (triage://key/<key>); open a window link with "
                                                  "triagectl timeline --link"));
            m_key = link->key;
        } else {
            m_key = c.args.first();
        }
        if (m_key.isEmpty())
            return c.out.usage(QStringLiteral("show: the key is empty"));
        if (!readTimeOption(c, QStringLiteral("as-of"), &m_asOf))
            return ExitUsage;
        return ExitOk;
    }

    int run(Workspace &workspace, const CommandContext &c) override
    {
        const QString &key = m_key;
        const KeyDetail detail = loadKeyDetail(workspace, key).result();
        const bool found = detail.record || !detail.tickets.isEmpty() || !detail.attempts.isEmpty();
        if (!found && detail.errors.isEmpty()) {
            c.out.message(QStringLiteral("no record, ticket or intent-log entry has key \"%1\"").arg(key));
            return ExitUsage;
        }
        if (m_asOf) {
            // T after the database's now: every row is as last written, the current state.
            if (!detail.errors.contains(DbRole::Idempotency)) {
                const auto now = workspace.worker(DbRole::Idempotency)
                                     .run<QString>([](DbSession &s) { return window_sql::serverNow(s); })
                                     .result();
                if (!now.ok())
                    return c.out.dbFailure(*now.error);
                if (const auto n = parseUtcMicros(*now); n && *m_asOf > *n)
                    c.out.message(QStringLiteral("warning: --as-of %1 is after the database's now (%2): showing the current state")
                                      .arg(formatUtcMicros(*m_asOf), *now));
            }
            const KeyStateAsOf state = keyStateAsOf(detail, *m_asOf);
            if (c.out.format() == Format::Json)
                c.out.print(QJsonDocument(asOfJson(state)).toJson(QJsonDocument::Indented));
            else
            {
                QString text;
                for (const QString &line : asOfTextLines(state))
                    text += escapeControlChars(line) + QLatin1Char('\n');
                c.out.print(text.toUtf8());
            }
        } else if (c.out.format() == Format::Json) {
            c.out.print(QJsonDocument(json_export::keyDetail(detail)).toJson(QJsonDocument::Indented));
        } else {
            printShowTable(detail, c.parser.isSet(QStringLiteral("full")), c.out);
        }
        if (detail.errors.isEmpty())
            return ExitOk;
        int code = ExitOk;
        for (const DbError &e : detail.errors) {
            c.out.message(e.message);
            const int failure = exitCodeFor(e);
            code = code == ExitDatabase ? code : failure;
        }
        return code;
    }

private:
    QString m_key;                   ///< KEY, or the key of --link
    std::optional<UtcMicros> m_asOf; ///< --as-of: the key as of this time instead of now
};

} // namespace

std::unique_ptr<Command> makeShowCommand()
{
    return std::make_unique<ShowCommand>();
}

} // namespace triage::ctl
