// triagectl review: the daily review of escalations, its sign-off and notes (DESIGN.md §5,
// §8 "The daily review").
#include "Command.h"
#include "CommandOptions.h"
#include "ReviewCli.h"
#include "TextTable.h"

#include "ReviewExport.h"
#include "ReviewRecord.h"
#include "Workspace.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace triage::ctl {

std::optional<QDate> reviewDayOption(const QCommandLineParser &parser, const QString &name, QString *error)
{
    if (!parser.isSet(name))
        return std::nullopt;
    const QString text = parser.value(name).trimmed();
    const QDate day = QDate::fromString(text, QStringLiteral("yyyy-MM-dd"));
    if (!day.isValid()) {
        static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
        *error = shape.match(text).hasMatch() ? QStringLiteral("--%1 \"%2\": no such day").arg(name, text)
                                              : QStringLiteral("--%1 \"%2\": give a day as YYYY-MM-DD").arg(name, parser.value(name));
        return std::nullopt;
    }
    return day;
}

std::optional<QDate> reviewDateOption(const QCommandLineParser &parser, QString *error)
{
    return reviewDayOption(parser, QStringLiteral("date"), error);
}

QString reviewDayText(const ReviewDay &d)
{
    return QStringLiteral("%1 (%2, %3 – %4)")
        .arg(d.day.toString(Qt::ISODate), reviewZoneName(d.zone), formatUtcMicros(d.from.toMSecsSinceEpoch() * 1000),
             formatUtcMicros(d.to.toMSecsSinceEpoch() * 1000));
}

QByteArray reviewTable(const ReviewSnapshot &s)
{
    const ReviewTotals &t = s.totals;
    QString out = QStringLiteral("review of %1, as of %2\n").arg(reviewDayText(s.day), formatUtcMicros(s.day.asOf.toMSecsSinceEpoch() * 1000));
    out += QStringLiteral("open: %1 escalations (%2 keys); opened %3, resolved %4, breaches %5 that day\n")
               .arg(t.open)
               .arg(t.openKeys)
               .arg(t.opened)
               .arg(t.resolved)
               .arg(t.breaches);
    if (s.lastSignOff)
        out += QStringLiteral("since the last sign-off (%1, by %2 at %3): %4 new, %5 changed\n")
                   .arg(s.lastSignOff->day.toString(Qt::ISODate), s.lastSignOff->signedBy, s.lastSignOff->signedAt)
                   .arg(t.newSinceSignOff)
                   .arg(t.changedSinceSignOff);
    else
        out += QStringLiteral("no sign-off yet\n");
    out += s.thisDaySignOff ? QStringLiteral("this day is signed off by %1 at %2\n").arg(s.thisDaySignOff->signedBy, s.thisDaySignOff->signedAt)
                            : QStringLiteral("this day is not signed off\n");
    for (const MoneyTotal &m : t.openMoney)
        out += m.currency.isEmpty() && m.count == 0 ? QStringLiteral("open escalations without an amount: %1\n").arg(m.unknown)
                                                    : QStringLiteral("open money %1: %2 (%3 escalations, %4 unknown)\n")
                   .arg(m.currency.isEmpty() ? QStringLiteral("(no currency)") : m.currency, m.sum)
                   .arg(m.count)
                   .arg(m.unknown);
    TextTable buckets({QStringLiteral("AGE"), QStringLiteral("ESCALATIONS")});
    buckets.alignRight(1);
    for (AgeBucket b : allAgeBuckets())
        buckets.addRow({ageBucketLabel(b), QString::number(t.openByBucket.value(int(b)))});
    out += QString::fromUtf8(buckets.render());
    TextTable groups({QStringLiteral("AGE"), QStringLiteral("REASON"), QStringLiteral("BIZ_TYPE"), QStringLiteral("ESCALATIONS"),
                      QStringLiteral("KEYS"), QStringLiteral("BREACHED"), QStringLiteral("MONEY")});
    for (int c : {3, 4, 5})
        groups.alignRight(c);
    for (const ReviewGroup &g : s.groups) {
        QStringList money;
        for (const MoneyTotal &m : g.money)
            money << (m.count == 0 ? (m.currency.isEmpty() ? QStringLiteral("%1 without an amount") : QStringLiteral("%1 unknown")).arg(m.unknown)
                                   : QStringLiteral("%1 %2%3").arg(m.sum, m.currency,
                                                                   m.unknown ? QStringLiteral(" (+%1 unknown)").arg(m.unknown) : QString()))
                         .trimmed();
        groups.addRow({ageBucketLabel(g.bucket), escalationReasonName(g.reason), g.bizType, QString::number(g.escalations),
                       QString::number(g.keys), QString::number(g.breached), money.join(QStringLiteral("; "))});
    }
    out += QLatin1Char('\n') + QString::fromUtf8(groups.render());
    // The open escalations themselves: who has each, what is new since the last sign-off.
    TextTable items({QStringLiteral("ID"), QStringLiteral("AGE"), QStringLiteral("REASON"), QStringLiteral("BIZ_TYPE"),
                     QStringLiteral("IDEM_KEY"), QStringLiteral("SLA_DUE"), QStringLiteral("BREACHED"), QStringLiteral("CLAIMED_BY"),
                     QStringLiteral("SINCE_SIGNOFF"), QStringLiteral("REVIEWED_BY"), QStringLiteral("NOTES")});
    items.alignRight(0);
    items.alignRight(10);
    for (const ReviewItem &it : s.open) {
        const Escalation &e = it.row.escalation;
        const std::optional<Claim> claim = it.row.shownClaim();
        items.addRow({QString::number(e.id), ageBucketLabel(it.bucket), escalationReasonName(e.reason), e.bizType, e.idemKey, e.slaDueAt,
                      it.breached ? QStringLiteral("yes") : QString(), claim ? claim->holder : QString(), reviewSinceSignOffText(it),
                      it.lastReviewedBy, QString::number(it.notes)});
    }
    out += QLatin1Char('\n') + QString::fromUtf8(items.render());
    return out.toUtf8();
}

namespace {

class ReviewCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s{
            QStringLiteral("review"), QStringLiteral("review"),
            QStringLiteral("The daily review of escalations; sign a day off; mark one reviewed or add a note."),
            QStringLiteral("review [--date YYYY-MM-DD]  |  review signoff [--date YYYY-MM-DD] [--note TEXT]  |  "
                           "review note ID --text TEXT [--reviewed]"),
            QStringLiteral(
                "Prints the review of a calendar day in [console] review_time_zone (default UTC; --date, default\n"
                "today there): the day, zone and window in UTC, the open escalations as of the day's end (or now)\n"
                "by age (< 24 h, 1-3 d, 3-7 d, > 7 d in calendar days of the zone), opened, resolved and SLA\n"
                "breaches that day, what is new or changed since the last sign-off, open money per currency, and\n"
                "the groups by age, reason and biz_type. Records the SLA breaches noticed now (once each) and the\n"
                "trend rows first. --format json / csv prints the report triagectl report writes.\n"
                "signoff signs the day off as the operator: stores the counts and the SHA-256 of the JSON report\n"
                "(printed); a day already signed exits 3 naming who signed it when. note ID adds a note on\n"
                "escalation ID (--text), or marks it reviewed (--reviewed); audited. Read-only mode: signoff and\n"
                "note exit 4. Without console schema version 5: exit 1 (run triagectl init-schema)."),
            {option("date", QStringLiteral("The day to review, YYYY-MM-DD in the review zone (default today)."), QStringLiteral("DAY")),
             option("note", QStringLiteral("signoff: a note stored with the sign-off."), QStringLiteral("TEXT")),
             option("text", QStringLiteral("note: the note's text."), QStringLiteral("TEXT")),
             option("reviewed", QStringLiteral("note: mark the escalation reviewed."))},
            0, QString(), false, true, true};
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        m_sub = c.args.value(0);
        QString error;
        m_day = reviewDateOption(c.parser, &error);
        if (!error.isEmpty())
            return c.out.usage(QStringLiteral("review: ") + error);
        if (m_sub.isEmpty()) {
            for (const char *o : {"note", "text", "reviewed"})
                if (c.parser.isSet(QString::fromLatin1(o)))
                    return c.out.usage(QStringLiteral("review: --%1 goes with %2").arg(QLatin1String(o), o[0] == 'n' ? QStringLiteral("signoff")
                                                                                                                     : QStringLiteral("note")));
            return ExitOk;
        }
        if (m_sub == QLatin1String("signoff")) {
            if (c.args.size() > 1)
                return c.out.usage(QStringLiteral("review signoff: unexpected argument \"%1\"").arg(c.args.value(1)));
            for (const char *o : {"text", "reviewed"})
                if (c.parser.isSet(QString::fromLatin1(o)))
                    return c.out.usage(QStringLiteral("review signoff takes no --%1").arg(QLatin1String(o)));
            return ExitOk;
        }
        if (m_sub == QLatin1String("note")) {
            if (c.args.size() != 2)
                return c.out.usage(c.args.size() < 2 ? QStringLiteral("review note: missing escalation ID")
                                                     : QStringLiteral("review note: unexpected argument \"%1\"").arg(c.args.value(2)));
            bool ok = false;
            m_id = c.args.value(1).trimmed().toLongLong(&ok);
            if (!ok || m_id <= 0)
                return c.out.usage(QStringLiteral("review note: \"%1\" is not an escalation ID").arg(c.args.value(1)));
            if (c.parser.isSet(QStringLiteral("date")) || c.parser.isSet(QStringLiteral("note")))
                return c.out.usage(QStringLiteral("review note takes --text and --reviewed only"));
            if (!c.parser.isSet(QStringLiteral("reviewed")) && c.parser.value(QStringLiteral("text")).trimmed().isEmpty())
                return c.out.usage(QStringLiteral("review note needs --text TEXT (or --reviewed)"));
            return ExitOk;
        }
        return c.out.usage(QStringLiteral("review: unknown subcommand \"%1\" (signoff or note)").arg(m_sub));
    }

    int run(Workspace &ws, const CommandContext &c) override
    {
        if (m_sub == QLatin1String("note"))
            return note(ws, c);
        const auto snap = readReview(ws, m_day, QStringLiteral("triagectl")).result();
        if (!snap.ok())
            return c.out.dbFailure(*snap.error);
        if (m_sub == QLatin1String("signoff"))
            return signOff(ws, c, *snap);
        switch (c.out.format()) {
        case Format::Json: c.out.print(reviewJson(*snap)); break;
        case Format::Csv: c.out.print(reviewCsv(*snap)); break;
        case Format::Table: c.out.print(reviewTable(*snap)); break;
        }
        return ExitOk;
    }

private:
    int signOff(Workspace &ws, const CommandContext &c, const ReviewSnapshot &snap) const
    {
        const QString sha = reviewReportSha256(snap);
        const auto out = signOffReview(ws, snap, sha, c.parser.value(QStringLiteral("note"))).result();
        if (!out.ok())
            return c.out.dbFailure(*out.error);
        if (c.out.format() == Format::Json) {
            const QJsonObject o{{QStringLiteral("day"), out->day.toString(Qt::ISODate)},
                                {QStringLiteral("zone"), out->zone},
                                {QStringLiteral("window_from"), out->windowFrom},
                                {QStringLiteral("window_to"), out->windowTo},
                                {QStringLiteral("signed_by"), out->signedBy},
                                {QStringLiteral("signed_at"), out->signedAt},
                                {QStringLiteral("counts"), QJsonDocument::fromJson(out->countsJson.toUtf8()).object()},
                                {QStringLiteral("open_by_bucket"), QJsonDocument::fromJson(out->openByBucketJson.toUtf8()).object()},
                                {QStringLiteral("report_sha256"), out->reportSha256}};
            c.out.print(QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n');
        } else {
            c.out.print(QStringLiteral("signed off %1 by %2 at %3: %4 open; report sha256 %5\n")
                            .arg(reviewDayText(snap.day), out->signedBy, out->signedAt)
                            .arg(snap.totals.open)
                            .arg(out->reportSha256)
                            .toUtf8());
        }
        return ExitOk;
    }

    int note(Workspace &ws, const CommandContext &c) const
    {
        // --text and --reviewed together: the note, then the reviewed mark (two rows, in that order).
        const bool reviewed = c.parser.isSet(QStringLiteral("reviewed"));
        const QString text = c.parser.value(QStringLiteral("text"));
        if (!reviewed || !text.trimmed().isEmpty()) {
            const auto out = addReviewNote(ws, m_id, QStringLiteral("note"), text).result();
            if (!out.ok())
                return c.out.dbFailure(*out.error);
            c.out.print(QStringLiteral("escalation %1: note added (review note id %2)\n").arg(m_id).arg(*out).toUtf8());
        }
        if (reviewed) {
            const auto out = addReviewNote(ws, m_id, QStringLiteral("reviewed"), QString()).result();
            if (!out.ok())
                return c.out.dbFailure(*out.error);
            c.out.print(QStringLiteral("escalation %1 marked reviewed (review note id %2)\n").arg(m_id).arg(*out).toUtf8());
        }
        return ExitOk;
    }

    QString m_sub;
    std::optional<QDate> m_day;
    qint64 m_id = 0;
};

} // namespace

std::unique_ptr<Command> makeReviewCommand()
{
    return std::make_unique<ReviewCommand>();
}

} // namespace triage::ctl
