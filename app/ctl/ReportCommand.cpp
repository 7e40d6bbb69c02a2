// triagectl report: an incident bundle's report as one HTML file or a PDF (DESIGN.md §5, §7
// "Reports"), reading only the bundle file (no database is opened); without a BUNDLE, the
// daily review's report (DESIGN.md §8 "The daily review") as JSON or CSV.
#include "Command.h"
#include "CommandOptions.h"
#include "ReviewCli.h"

#include "Bundle.h"
#include "BundleReport.h"
#include "ReviewExport.h"
#include "ReviewRecord.h"
#include "ReviewReport.h"
#include "TextEscape.h"
#include "Workspace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QTimeZone>

namespace triage::ctl {

namespace {

class ReportCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s = [] {
            CommandSpec spec{
                QStringLiteral("report"), QStringLiteral("report [BUNDLE]"),
                QStringLiteral("An incident bundle's report (HTML or PDF), or the daily review's (HTML, PDF, JSON or CSV)."),
                QStringLiteral("report BUNDLE.json --out FILE.html|FILE.pdf [--format html|pdf] [--zone ZONE]  |  "
                               "report [--date YYYY-MM-DD | --from DAY --to DAY] --out FILE.html|.pdf|.json|.csv [--format html|pdf|json|csv]"),
                QStringLiteral(
                    "Writes the report of an incident bundle (triagectl incident export): the window and\n"
                    "filters, the stores with their failures, watermarks and clock offsets, the summary, the\n"
                    "histogram of events per bucket stacked by store, pinned events and notes, each key's\n"
                    "outcome, every event, the bundle's hash (checked against its events) and what was redacted.\n"
                    "Times are printed in UTC and in --zone (an IANA name such as Europe/Berlin; default this\n"
                    "machine's zone). The HTML file needs nothing else (inline CSS and SVG); the PDF is A4\n"
                    "landscape. The format comes from --out's extension (.html, .htm, .pdf) or --format.\n"
                    "No database is opened. Exit 1 when the bundle cannot be read or the file written.\n"
                    "Without a BUNDLE: the daily review's report of --date (default today in [console]\n"
                    "review_time_zone), or of every day from --from to --to (days YYYY-MM-DD, both included, at\n"
                    "most 31), as HTML (self-contained, charts inline), PDF (A4 landscape), JSON or CSV (triagectl\n"
                    "review --format json|csv prints the same), every format from one snapshot per day with the\n"
                    "same totals; it records the SLA breaches noticed now and the trend rows first (noticed_by\n"
                    "\"report\"). Prints each day's totals and fingerprint (the SHA-256 of its JSON form, which a\n"
                    "sign-off records), and the file written."),
                {option("out", QStringLiteral("The report file to write (.html or .pdf; the review also .json or .csv)."), QStringLiteral("FILE")),
                 option("zone", QStringLiteral("The reader's time zone (IANA name; default this machine's)."), QStringLiteral("ZONE")),
                 option("date", QStringLiteral("The day to review, YYYY-MM-DD in the review zone (default today)."), QStringLiteral("DAY")),
                 option("from", QStringLiteral("The review: first day, YYYY-MM-DD."), QStringLiteral("DAY")),
                 option("to", QStringLiteral("The review: last day, YYYY-MM-DD (included)."), QStringLiteral("DAY"))},
                0, QString(), false};
            spec.variadic = true;
            spec.checksMapping = false;
            spec.ownsFormat = true;
            spec.needsGui = true;
            return spec;
        }();
        return s;
    }

    int prepare(const CommandContext &c) override
    {
        if (c.args.size() > 1)
            return c.out.usage(QStringLiteral("report: unexpected argument \"%1\"").arg(c.args.value(1)));
        m_review = c.args.isEmpty();
        if (m_review)
            return prepareReview(c);
        for (const char *o : {"date", "from", "to"})
            if (c.parser.isSet(QString::fromLatin1(o)))
                return c.out.usage(QStringLiteral("report BUNDLE takes no --%1 (without a BUNDLE: the daily review)").arg(QLatin1String(o)));
        m_out = c.parser.value(QStringLiteral("out"));
        if (m_out.isEmpty())
            return c.out.usage(QStringLiteral("report: give --out FILE.html or FILE.pdf"));
        const std::optional<ReportFormat> format = c.parser.isSet(QStringLiteral("format"))
            ? reportFormatFromName(c.parser.value(QStringLiteral("format")))
            : reportFormatForPath(m_out);
        if (!format)
            return c.out.usage(c.parser.isSet(QStringLiteral("format"))
                                   ? QStringLiteral("--format \"%1\": report writes html or pdf").arg(c.parser.value(QStringLiteral("format")))
                                   : QStringLiteral("--out \"%1\": name a .html or .pdf file, or give --format html|pdf").arg(m_out));
        m_format = *format;
        if (c.parser.isSet(QStringLiteral("zone"))) {
            m_options.zone = QTimeZone(c.parser.value(QStringLiteral("zone")).trimmed().toUtf8());
            if (!m_options.zone.isValid())
                return c.out.usage(QStringLiteral("--zone \"%1\": not a time zone (an IANA name such as Europe/Berlin, or UTC)")
                                       .arg(c.parser.value(QStringLiteral("zone"))));
        }
        return ExitOk;
    }

    bool needsDatabase(const CommandContext &) const override { return m_review; }
    int run(Workspace &ws, const CommandContext &c) override { return m_review ? runReview(ws, c) : runOffline(c); }

    int runOffline(const CommandContext &c) override
    {
        const QString path = c.args.first();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            c.out.message(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
            return ExitUsage;
        }
        QString error;
        const std::optional<IncidentBundle> bundle = readBundleJson(file.readAll(), &error);
        if (!bundle) {
            c.out.message(QStringLiteral("%1: %2").arg(path, error));
            return ExitUsage;
        }
        if (!writeBundleReport(*bundle, m_out, m_format, m_options, &error)) {
            c.out.message(error);
            return ExitUsage;
        }
        if (!verifyBundleHash(*bundle))
            c.out.message(QStringLiteral("warning: %1: the events do not match the bundle's hash (the report says so)").arg(path));
        return ExitOk;
    }

private:
    int prepareReview(const CommandContext &c)
    {
        if (c.parser.values(QStringLiteral("out")).size() > 1)
            return c.out.usage(QStringLiteral("report: --out is given %1 times: one report file per run").arg(c.parser.values(QStringLiteral("out")).size()));
        m_out = c.parser.value(QStringLiteral("out"));
        if (m_out.isEmpty())
            return c.out.usage(QStringLiteral("report: give --out FILE.html, .pdf, .json or .csv (the daily review); for the JSON or "
                                              "CSV on standard output: triagectl review --format json|csv"));
        const QString lower = m_out.toLower();
        const QString byName = lower.endsWith(QLatin1String(".json")) ? QStringLiteral("json")
            : lower.endsWith(QLatin1String(".csv"))                   ? QStringLiteral("csv")
            : lower.endsWith(QLatin1String(".pdf"))                   ? QStringLiteral("pdf")
            : lower.endsWith(QLatin1String(".html")) || lower.endsWith(QLatin1String(".htm")) ? QStringLiteral("html")
                                                                                               : QString();
        QString format = c.parser.isSet(QStringLiteral("format")) ? c.parser.value(QStringLiteral("format")).trimmed().toLower() : byName;
        if (format == QLatin1String("htm"))
            format = QStringLiteral("html");
        if (!byName.isEmpty() && format != byName
            && QStringList{QStringLiteral("json"), QStringLiteral("csv"), QStringLiteral("html"), QStringLiteral("pdf")}.contains(format))
            return c.out.usage(QStringLiteral("report: --out \"%1\" names a .%2 file but --format is %3: make them agree").arg(m_out, byName, format));
        if (!QStringList{QStringLiteral("json"), QStringLiteral("csv"), QStringLiteral("html"), QStringLiteral("pdf")}.contains(format))
            return c.out.usage(c.parser.isSet(QStringLiteral("format"))
                                   ? QStringLiteral("--format \"%1\": the daily review's report is html, pdf, json or csv").arg(c.parser.value(QStringLiteral("format")))
                                   : QStringLiteral("--out \"%1\": name a .html, .pdf, .json or .csv file, or give --format html|pdf|json|csv").arg(m_out));
        m_reviewFormat = format;
        if (c.parser.isSet(QStringLiteral("zone")))
            return c.out.usage(QStringLiteral("report: --zone goes with a BUNDLE (the review's zone is [console] review_time_zone)"));
        const bool range = c.parser.isSet(QStringLiteral("from")) || c.parser.isSet(QStringLiteral("to"));
        if (range && c.parser.isSet(QStringLiteral("date")))
            return c.out.usage(QStringLiteral("report: give --date or --from/--to, not both"));
        QString error;
        if (!range) {
            const std::optional<QDate> day = reviewDateOption(c.parser, &error);
            if (!error.isEmpty())
                return c.out.usage(QStringLiteral("report: ") + error);
            m_days = {day};
            return ExitOk;
        }
        const std::optional<QDate> from = reviewDayOption(c.parser, QStringLiteral("from"), &error);
        const std::optional<QDate> to = error.isEmpty() ? reviewDayOption(c.parser, QStringLiteral("to"), &error) : std::nullopt;
        if (!error.isEmpty())
            return c.out.usage(QStringLiteral("report: ") + error);
        if (!from || !to)
            return c.out.usage(QStringLiteral("report: --from and --to go together (days YYYY-MM-DD, both included)"));
        if (*to < *from)
            return c.out.usage(QStringLiteral("report: --from %1 is after --to %2").arg(from->toString(Qt::ISODate), to->toString(Qt::ISODate)));
        if (from->daysTo(*to) > 30)
            return c.out.usage(QStringLiteral("report: --from %1 --to %2 is %3 days; at most 31")
                                   .arg(from->toString(Qt::ISODate), to->toString(Qt::ISODate))
                                   .arg(from->daysTo(*to) + 1));
        m_days.clear();
        for (QDate d = *from; d <= *to; d = d.addDays(1))
            m_days << std::optional<QDate>(d);
        return ExitOk;
    }

    int runReview(Workspace &ws, const CommandContext &c)
    {
        QVector<ReviewSnapshot> snaps;
        for (const std::optional<QDate> &day : std::as_const(m_days)) {
            const auto snap = readReview(ws, day, QStringLiteral("report")).result();
            if (!snap.ok())
                return c.out.dbFailure(*snap.error);
            snaps << *snap;
        }
        QByteArray bytes;
        const bool json = m_reviewFormat == QLatin1String("json");
        if (m_reviewFormat == QLatin1String("pdf")) {
            QString error;
            if (!writeReviewPdf(snaps, m_out, &error)) {
                c.out.message(error);
                return ExitUsage;
            }
        } else if (m_reviewFormat == QLatin1String("html")) {
            bytes = reviewHtml(snaps);
        } else if (snaps.size() == 1) {
            bytes = json ? reviewJson(snaps.first()) : reviewCsv(snaps.first());
        } else if (json) {
            QJsonArray a;
            for (const ReviewSnapshot &s : std::as_const(snaps))
                a.append(QJsonDocument::fromJson(reviewJson(s)).object());
            bytes = QJsonDocument(QJsonObject{{QStringLiteral("reviews"), a}}).toJson(QJsonDocument::Indented);
        } else {
            for (qsizetype i = 0; i < snaps.size(); ++i) {
                const QByteArray csv = reviewCsv(snaps[i]);
                bytes += i == 0 ? csv : csv.mid(csv.indexOf('\n') + 1); // one header line
            }
        }
        if (m_reviewFormat != QLatin1String("pdf")) {
            QSaveFile file(m_out);
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
                c.out.message(QStringLiteral("cannot write %1: %2").arg(m_out, file.errorString()));
                return ExitUsage;
            }
        }
        for (const ReviewSnapshot &s : std::as_const(snaps)) {
            const QString fingerprint = reviewReportSha256(s);
            c.out.print(QStringLiteral("review of %1: %2 open, %3 opened, %4 resolved, %5; fingerprint %7%8%6\n")
                            .arg(reviewDayText(s.day))
                            .arg(s.totals.open)
                            .arg(s.totals.opened)
                            .arg(s.totals.resolved)
                            .arg(countText(s.totals.breaches, QStringLiteral("breach"), QStringLiteral("breaches")))
                            .arg(s.thisDaySignOff ? QStringLiteral("; signed off by %1 at %2").arg(s.thisDaySignOff->signedBy, s.thisDaySignOff->signedAt)
                                                  : QString())
                            .arg(fingerprint)
                            .arg(s.thisDaySignOff ? QStringLiteral(" (%1)").arg(reviewFingerprintCheck(s, fingerprint)) : QString())
                            .toUtf8());
        }
        c.out.print(QStringLiteral("wrote %1\n").arg(m_out).toUtf8());
        return ExitOk;
    }

    bool m_review = false;
    QString m_reviewFormat; ///< the daily review: "json", "csv", "html" or "pdf"
    QVector<std::optional<QDate>> m_days;
    QString m_out;
    ReportFormat m_format = ReportFormat::Html;
    ReportOptions m_options;
};

} // namespace

std::unique_ptr<Command> makeReportCommand()
{
    return std::make_unique<ReportCommand>();
}

} // namespace triage::ctl
