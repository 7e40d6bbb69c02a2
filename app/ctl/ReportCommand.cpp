// triagectl report: an incident bundle's report as one HTML file or a PDF (DESIGN.md §5, §7
// "Reports"). Reads only the bundle file: no database is opened.
#include "Command.h"
#include "CommandOptions.h"

#include "Bundle.h"
#include "BundleReport.h"

#include <QFile>
#include <QTimeZone>

namespace triage::ctl {

namespace {

class ReportCommand final : public Command {
public:
    const CommandSpec &spec() const override
    {
        static const CommandSpec s = [] {
            CommandSpec spec{
                QStringLiteral("report"), QStringLiteral("report BUNDLE"),
                QStringLiteral("An incident bundle's report: one self-contained HTML file, or a PDF."),
                QStringLiteral("report BUNDLE.json --out FILE.html|FILE.pdf [--format html|pdf] [--zone ZONE]"),
                QStringLiteral(
                    "Writes the report of an incident bundle (triagectl incident export): the window and\n"
                    "filters, the stores with their failures, watermarks and clock offsets, the summary, the\n"
                    "histogram of events per bucket stacked by store, pinned events and notes, each key's\n"
                    "outcome, every event, the bundle's hash (checked against its events) and what was redacted.\n"
                    "Times are printed in UTC and in --zone (an IANA name such as Europe/Berlin; default this\n"
                    "machine's zone). The HTML file needs nothing else (inline CSS and SVG); the PDF is A4\n"
                    "landscape. The format comes from --out's extension (.html, .htm, .pdf) or --format.\n"
                    "No database is opened. Exit 1 when the bundle cannot be read or the file written."),
                {option("out", QStringLiteral("The report file to write (.html or .pdf)."), QStringLiteral("FILE")),
                 option("zone", QStringLiteral("The reader's time zone (IANA name; default this machine's)."), QStringLiteral("ZONE"))},
                1, QString(), false};
            spec.checksMapping = false;
            spec.ownsFormat = true;
            spec.needsGui = true;
            return spec;
        }();
        return s;
    }

    int prepare(const CommandContext &c) override
    {
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

    bool needsDatabase(const CommandContext &) const override { return false; }
    int run(Workspace &, const CommandContext &c) override { return runOffline(c); }

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
