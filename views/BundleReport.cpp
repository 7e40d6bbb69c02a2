// The bundle report (DESIGN.md §7 "Reports"): HTML for browsers, the same content through
// QTextDocument for the PDF.
#include "BundleReport.h"

#include "HistogramChart.h"
#include "Incident.h"
#include "ReportColumns.h"
#include "ReportPages.h"
#include "StoreRole.h"
#include "TextEscape.h"
#include "Theme.h"
#include "WindowHistogram.h"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QStackedBarSeries>
#include <QSet>
#include <QSvgGenerator>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QUrl>

#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>

namespace triage {

namespace {

/// Where the report is read: a browser (inline SVG, CSS in px) or QTextDocument for the PDF
/// (the histogram as an image resource, sizes in pt, long cells clipped).
enum class Target { Browser, Pdf };

constexpr int kPdfCellMaxChars = 2000;
const QString kHistogramResource = QStringLiteral("report:histogram.png");

/// Text for HTML: control characters escaped for one line (TextEscape.h), then <, >, &, " and '.
QString esc(const QString &text)
{
    return escapeControlChars(text).toHtmlEscaped().replace(QLatin1Char('\''), QStringLiteral("&#39;"));
}

/// esc(), clipped for the PDF where a cell could not fit a page.
QString cell(const QString &text, Target target)
{
    if (target == Target::Pdf && text.size() > kPdfCellMaxChars)
        return esc(text.left(kPdfCellMaxChars)) + QStringLiteral("… <i>(%1 characters; the HTML report and the bundle hold all)</i>")
                                                   .arg(text.size());
    return esc(text);
}

QString storeColorCss(int store)
{
    return theme::storeColor(store).name();
}

/// Times in UTC and in the reader's zone.
class Clock {
public:
    explicit Clock(QTimeZone zone) : m_zone(zone.isValid() ? zone : QTimeZone::utc()) {}

    QString zoneName() const
    {
        const QString id = QString::fromUtf8(m_zone.id());
        return id.isEmpty() ? QStringLiteral("local") : id;
    }
    /// "2026-12-01 10:10:00 +08:00" (to the second, with the offset then in force).
    QString local(UtcMicros t) const
    {
        const QDateTime d = QDateTime::fromMSecsSinceEpoch(t / 1000, QTimeZone::utc()).toTimeZone(m_zone);
        const int offset = d.offsetFromUtc();
        return d.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss ")) + QStringLiteral("%1%2:%3")
                                                                        .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
                                                                        .arg(qAbs(offset) / 3600, 2, 10, QLatin1Char('0'))
                                                                        .arg(qAbs(offset) % 3600 / 60, 2, 10, QLatin1Char('0'));
    }
    /// "2026-12-01 02:10:00 UTC (2026-12-01 10:10:00 +08:00 Asia/Shanghai)" for canonical text;
    /// text that is not a time is shown as it is.
    QString both(const QString &iso) const
    {
        const auto t = parseUtcMicros(iso);
        if (!t)
            return esc(iso.isEmpty() ? QStringLiteral("—") : iso);
        return QStringLiteral("%1 UTC <span class=\"local\">(%2 %3)</span>").arg(esc(utcToSecond(iso)), esc(local(*t)), esc(zoneName()));
    }

private:
    QTimeZone m_zone;
};

QString css(Target target)
{
    if (target == Target::Pdf)
        return QStringLiteral(
            "body { font-family: sans-serif; font-size: 8pt; }"
            "h1 { font-size: 15pt; } h2 { font-size: 11pt; margin-top: 12pt; }"
            "th { background-color: #e8eaed; text-align: left; font-weight: bold; }"
            ".mono { font-family: monospace; } .local { color: #5f6368; } .muted { color: #5f6368; }"
            ".emono { font-family: monospace; font-size: 7pt; }"
            ".bad { color: #a4231a; font-weight: bold; } .good { color: #1e6b34; font-weight: bold; }"
            ".pinned { font-weight: bold; } .settling { font-style: italic; }");
    return QStringLiteral(
        "body { font-family: system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; font-size: 14px; color: #202124;"
        " margin: 24px auto; max-width: 1400px; padding: 0 16px; }"
        "h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #dadce0;"
        " padding-bottom: 4px; }"
        "table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #dadce0; padding: 3px 6px;"
        " vertical-align: top; text-align: left; }"
        "th { background: #f1f3f4; position: sticky; top: 0; } tr { break-inside: avoid; } thead { display: table-header-group; }"
        "td.num { text-align: right; } .mono { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; }"
        ".local { color: #5f6368; } .muted { color: #5f6368; } .bad { color: #a4231a; font-weight: bold; }"
        ".good { color: #1e6b34; font-weight: bold; } .pinned td { font-weight: bold; background: #fff8e1; }"
        ".settling td { font-style: italic; } .swatch { display: inline-block; width: 10px; height: 10px;"
        " border-radius: 2px; margin-right: 4px; vertical-align: middle; }"
        ".chart svg { max-width: 100%; height: auto; } td.detail { max-width: 480px; overflow-wrap: anywhere; }"
        "td.key { overflow-wrap: anywhere; max-width: 260px; } dl { display: grid; grid-template-columns: max-content auto;"
        " gap: 2px 12px; } dt { color: #5f6368; } dd { margin: 0; }");
}

/// A table; with `percents` (one per header) its columns get those widths and it spans the page.
QString table(const QStringList &headers, const QStringList &rows, const QString &cls = QString(), const QVector<int> &percents = {})
{
    QString out = QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"%1%2><thead><tr>")
                      .arg(cls.isEmpty() ? QString() : QStringLiteral(" class=\"%1\"").arg(cls),
                           percents.isEmpty() ? QString() : QStringLiteral(" width=\"100%\""));
    for (qsizetype i = 0; i < headers.size(); ++i)
        out += percents.isEmpty() ? QStringLiteral("<th>%1</th>").arg(headers[i])
                                  : QStringLiteral("<th width=\"%1%\">%2</th>").arg(percents.value(i, 1)).arg(headers[i]);
    out += QStringLiteral("</tr></thead><tbody>") + rows.join(QString()) + QStringLiteral("</tbody></table>");
    return out;
}

QString row(const QStringList &cells, const QString &cls = QString())
{
    QString out = cls.isEmpty() ? QStringLiteral("<tr>") : QStringLiteral("<tr class=\"%1\">").arg(cls);
    for (const QString &c : cells)
        out += c.startsWith(QStringLiteral("<td")) ? c : QStringLiteral("<td>%1</td>").arg(c);
    return out + QStringLiteral("</tr>");
}

/// Names and counts: "alice mark_success 5, bob mark_success 1", or "none".
QString nameCounts(const QVector<NameCount> &v)
{
    QStringList out;
    for (const NameCount &n : v)
        out << QStringLiteral("%1 %2").arg(esc(n.name)).arg(n.count);
    return out.isEmpty() ? QStringLiteral("none") : out.join(QStringLiteral(", "));
}

QString storeCell(EventStore store, Target target)
{
    const QString name = esc(eventStoreName(store));
    if (target == Target::Pdf)
        return QStringLiteral("<td style=\"white-space: nowrap\"><font color=\"%1\">■</font> %2</td>").arg(storeColorCss(int(store)), name);
    return QStringLiteral("<td><span class=\"swatch\" style=\"background:%1\"></span>%2</td>").arg(storeColorCss(int(store)), name);
}

QString title(const IncidentBundle &b)
{
    if (b.incident)
        return QStringLiteral("Incident %1: %2").arg(b.incident->incident.id).arg(b.incident->incident.title);
    return QStringLiteral("Window %1 – %2 UTC").arg(utcToSecond(formatUtcMicros(b.query.from)), utcToSecond(formatUtcMicros(b.query.to)));
}

QString headerSection(const IncidentBundle &b, const Clock &clock)
{
    QString out = QStringLiteral("<h1>%1</h1>").arg(esc(title(b)));
    out += QStringLiteral("<dl>");
    auto item = [&out](const QString &name, const QString &html) {
        out += QStringLiteral("<dt>%1</dt><dd>%2</dd>").arg(name, html);
    };
    item(QStringLiteral("Window"), QStringLiteral("from %1<br>to %2 (excluded)")
                                       .arg(clock.both(formatUtcMicros(b.query.from)), clock.both(formatUtcMicros(b.query.to))));
    item(QStringLiteral("Filters"), esc(incidentFiltersText(b.query)));
    if (b.incident) {
        const Incident &i = b.incident->incident;
        item(QStringLiteral("Incident"), QStringLiteral("%1, created by %2 at %3%4")
                                             .arg(i.open ? QStringLiteral("open") : QStringLiteral("closed"), esc(i.createdBy),
                                                  clock.both(i.createdAt),
                                                  i.open ? QString()
                                                         : QStringLiteral("; closed by %1 at %2").arg(esc(i.closedBy), clock.both(i.closedAt))));
    }
    item(QStringLiteral("Exported"), QStringLiteral("%1 by %2 (triage %3, bundle format %4)")
                                         .arg(clock.both(b.generatedAt), esc(b.generatedBy), esc(b.toolVersion))
                                         .arg(b.formatVersion));
    item(QStringLiteral("Reader's zone"), esc(clock.zoneName()));
    out += QStringLiteral("</dl>");
    if (!b.complete())
        out += QStringLiteral("<p class=\"bad\">Incomplete: a store failed during the export (below); its events are missing.</p>");
    for (const QString &n : b.notes)
        out += QStringLiteral("<p class=\"muted\">Note: %1</p>").arg(esc(n));
    return out;
}

QString storesSection(const IncidentBundle &b, const Clock &clock)
{
    QStringList rows;
    for (const BundleStore &s : b.stores) {
        QString offset = QStringLiteral("—");
        for (const StoreClock &c : b.clocks)
            if (c.role == s.role)
                offset = QStringLiteral("%1%2 ms (round trip %3 ms)%4")
                             .arg(c.offsetMs < 0 ? QStringLiteral("−") : QStringLiteral("+"))
                             .arg(qAbs(c.offsetMs))
                             .arg(c.roundTripMs)
                             .arg(qAbs(c.offsetMs) > kClockSkewWarnMs ? QStringLiteral(" <span class=\"bad\">order across stores approximate</span>")
                                                                      : QString());
        rows << row({esc(roleTitle(s.role)),
                     s.ok ? QStringLiteral("<span class=\"good\">read whole</span>")
                          : QStringLiteral("<span class=\"bad\">FAILED: %1</span>").arg(esc(s.error)),
                     s.watermark.isEmpty() ? QStringLiteral("—") : clock.both(s.watermark), offset});
    }
    return QStringLiteral("<h2>Stores</h2>")
        + table({QStringLiteral("Store"), QStringLiteral("Export"), QStringLiteral("Watermark (settling after)"),
                 QStringLiteral("Clock vs the exporting machine")},
                rows)
        + (b.clocks.size() == 1 && b.stores.size() > 1
               ? QStringLiteral("<p class=\"muted\">One clock measurement: the stores share one database.</p>")
               : QString());
}

QString summarySection(const IncidentBundle &b)
{
    const WindowSummary &s = b.summary;
    QStringList rows;
    for (EventKind k : selectedKinds(b.query))
        rows << row({esc(eventKindName(k)), QStringLiteral("<td class=\"num\">%1</td>").arg(s.events[int(k)]),
                     QStringLiteral("<td class=\"num\">%1</td>").arg(s.keys[int(k)])});
    // A figure the export's stream filters leave out is "not counted", never 0 (DESIGN.md §7 "summary").
    const auto figure = [&b](SummaryFigure f, const QString &value) {
        const QString why = summaryFigureFilteredOut(b.query, f);
        return why.isEmpty() ? value : QStringLiteral("not counted (filtered out by %1)").arg(esc(why));
    };
    QString out = QStringLiteral("<h2>Summary</h2>")
        + table({QStringLiteral("Kind"), QStringLiteral("Events"), QStringLiteral("Keys")}, rows);
    out += QStringLiteral("<p>Keys with an UNKNOWN attempt: <b>%1</b> · records created in the window still PROCESSING: <b>%2</b>"
                          " · keys with 2+ tickets created in the window: <b>%3</b><br>Settled by operators: %4<br>Top biz_types: %5"
                          "<br>Top tenants: %6</p>")
               .arg(figure(SummaryFigure::UnknownKeys, QString::number(s.unknownKeys)),
                    figure(SummaryFigure::StillProcessing, QString::number(s.stillProcessing)),
                    figure(SummaryFigure::DuplicateGroups, QString::number(s.duplicateGroups)),
                    figure(SummaryFigure::SettledBy, nameCounts(s.settledBy)),
                    figure(SummaryFigure::TopBizTypes, nameCounts(s.topBizTypes)),
                    figure(SummaryFigure::TopTenants, nameCounts(s.topTenants)));
    return out;
}

QString histogramSection(const IncidentBundle &b, Target target)
{
    QString out = QStringLiteral("<h2>Events per bucket</h2>");
    if (target == Target::Pdf)
        return out + QStringLiteral("<p><img src=\"%1\" width=\"900\" height=\"244\"></p>").arg(kHistogramResource);
    QString svg = QString::fromUtf8(bundleHistogramSvg(b));
    // Inline in HTML5: no XML prolog, no namespace declarations (nothing that looks like a URL).
    svg = svg.mid(svg.indexOf(QStringLiteral("<svg")));
    svg.remove(QStringLiteral(" xmlns=\"http://www.w3.org/2000/svg\""));
    svg.remove(QStringLiteral(" xmlns:xlink=\"http://www.w3.org/1999/xlink\""));
    return out + QStringLiteral("<div class=\"chart\">%1</div>").arg(svg);
}

QString pinsSection(const IncidentBundle &b, const Clock &clock, Target target)
{
    if (!b.incident)
        return {};
    QStringList pins;
    for (const IncidentPin &p : b.incident->pins)
        pins << row({clock.both(p.eventAt), esc(eventKindName(p.kind)), QStringLiteral("<span class=\"mono\">%1</span>").arg(esc(p.eventId)),
                     cell(pinnedEventLine(p), target), cell(p.note, target), esc(p.pinnedBy)});
    QStringList notes;
    for (const IncidentNote &n : b.incident->notes)
        notes << row({clock.both(n.at), esc(n.operatorName),
                      n.eventKind ? esc(QStringLiteral("%1 %2").arg(eventKindName(*n.eventKind), n.eventId)) : QStringLiteral("—"),
                      cell(n.text, target)});
    QString out = QStringLiteral("<h2>Pinned events (%1)</h2>").arg(pins.size());
    out += pins.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>")
                          : table({QStringLiteral("At"), QStringLiteral("Kind"), QStringLiteral("Id"), QStringLiteral("Event"),
                                   QStringLiteral("Note"), QStringLiteral("Pinned by")},
                                  pins);
    out += QStringLiteral("<h2>Notes (%1)</h2>").arg(notes.size());
    out += notes.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>")
                           : table({QStringLiteral("At"), QStringLiteral("Operator"), QStringLiteral("About"), QStringLiteral("Note")}, notes);
    return out;
}

/// One operator action on a key: an audit row or a compensation (exactly one set).
struct OperatorAction {
    const AuditEntry *audit = nullptr;
    const CompensationRow *compensation = nullptr;
};

/// The key's audit rows and compensations in time order (audit `at`, compensation
/// `created_at`), then by id, an audit row before a compensation at the same time and id; a
/// time that is not readable sorts last (DESIGN.md §7 "Reports").
QVector<OperatorAction> operatorActions(const KeyDetail &k)
{
    struct Sorted {
        UtcMicros at;
        int kind; // 0 audit, 1 compensation
        qint64 id;
        OperatorAction action;
    };
    QVector<Sorted> all;
    constexpr UtcMicros kUnreadable = std::numeric_limits<UtcMicros>::max();
    for (const AuditEntry &a : k.audit)
        all.append({parseUtcMicros(a.at).value_or(kUnreadable), 0, a.id, {&a, nullptr}});
    for (const CompensationRow &c : k.compensations)
        all.append({parseUtcMicros(c.createdAt).value_or(kUnreadable), 1, c.id, {nullptr, &c}});
    std::stable_sort(all.begin(), all.end(), [](const Sorted &x, const Sorted &y) {
        return std::tie(x.at, x.id, x.kind) < std::tie(y.at, y.id, y.kind);
    });
    QVector<OperatorAction> out;
    for (const Sorted &s : all)
        out << s.action;
    return out;
}

QString keysSection(const IncidentBundle &b, const Clock &clock, Target target)
{
    QStringList rows;
    for (const KeyDetail &k : b.keys) {
        QString record;
        if (k.record)
            record = esc(k.record->statusText) + (k.record->stale ? QStringLiteral(" <span class=\"bad\">stale</span>") : QString());
        else if (k.errors.contains(DbRole::Idempotency))
            record = QStringLiteral("<span class=\"bad\">unknown (%1)</span>").arg(esc(k.errors.value(DbRole::Idempotency).message));
        else
            record = QStringLiteral("<span class=\"muted\">no record</span>");
        QStringList tickets;
        for (const TicketRow &t : k.tickets)
            tickets << QStringLiteral("%1 (%2)").arg(esc(t.id.text()), esc(t.status.value_or(QStringLiteral("NULL"))));
        if (k.errors.contains(DbRole::Ticket))
            tickets << QStringLiteral("<span class=\"bad\">unknown (%1)</span>").arg(esc(k.errors.value(DbRole::Ticket).message));
        QString attempts = QString::number(k.attempts.size());
        if (!k.attempts.isEmpty())
            attempts += QStringLiteral(" (last %1)").arg(esc(k.attempts.last().status.value_or(QStringLiteral("NULL"))));
        QStringList actions;
        for (const OperatorAction &a : operatorActions(k))
            actions << (a.audit ? QStringLiteral("%1 %2 %3 <b>%4</b>")
                                      .arg(clock.both(a.audit->at), esc(a.audit->operatorName), esc(a.audit->action), esc(a.audit->outcome))
                                : QStringLiteral("%1 compensation %2 by %3: <b>%4</b>")
                                      .arg(clock.both(a.compensation->createdAt), esc(a.compensation->action),
                                           esc(a.compensation->operatorName), esc(a.compensation->status)));
        rows << row({QStringLiteral("<td class=\"key mono\">%1</td>").arg(cell(k.idemKey, target)), record,
                     tickets.isEmpty() ? QStringLiteral("none") : tickets.join(QStringLiteral("<br>")),
                     QStringLiteral("<td class=\"num\">%1</td>").arg(attempts),
                     actions.isEmpty() ? QStringLiteral("<span class=\"muted\">none</span>") : actions.join(QStringLiteral("<br>"))});
    }
    return QStringLiteral("<h2>Keys (%1): outcomes</h2>").arg(b.keys.size())
        + (rows.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>")
                          : table({QStringLiteral("Key"), QStringLiteral("Record status"), QStringLiteral("Tickets"),
                                   QStringLiteral("Attempts"), QStringLiteral("Operator actions")},
                                  rows));
}

QString eventsSection(const IncidentBundle &b, const Clock &clock, Target target)
{
    QSet<QString> pinned; // "<kind> <id>"
    if (b.incident)
        for (const IncidentPin &p : b.incident->pins)
            pinned.insert(eventKindName(p.kind) + QLatin1Char(' ') + p.eventId);
    QStringList rows;
    rows.reserve(b.events.size());
    int settling = 0;
    // In the PDF, QTextDocument shares a table's width by its cells' words: a long detail left
    // the key a few characters and broke times, kinds and actors. There every column but the
    // key and the detail is as wide as its widest cell (bold: pinned rows) and never broken,
    // the key gets what is left and wraps after ':' '_' '/' '.' '@' (ReportColumns.h).
    const bool pdf = target == Target::Pdf;
    const QString nowrap = pdf ? QStringLiteral(" style=\"white-space: nowrap\"") : QString();
    const QStringList headers{QStringLiteral("#"), QStringLiteral("At (UTC)"), QStringLiteral("At (%1)").arg(esc(clock.zoneName())),
                              QStringLiteral("Store"), QStringLiteral("Kind"), QStringLiteral("Id"), QStringLiteral("Status"),
                              QStringLiteral("Key"), QStringLiteral("Actor"), QStringLiteral("Detail")};
    constexpr int kKeyColumn = 7, kDetailColumn = 9;
    QVector<double> widest(headers.size(), 0);
    double detailWord = 0; // the detail's longest word (pt), not to be cut
    QFont sans(QStringLiteral("sans-serif")), mono(QStringLiteral("monospace"));
    for (QFont *f : {&sans, &mono}) {
        f->setPointSizeF(8);
        f->setBold(true);
    }
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSizeF(7); // the events table's times, ids and keys (class emono)
    const QString monoClass = pdf ? QStringLiteral("emono") : QStringLiteral("mono");
    const auto measure = [&](int column, const QFont &font, const QString &text) {
        widest[column] = std::max(widest[column], reportTextWidthPt(font, text));
    };
    if (pdf)
        for (int c = 0; c < headers.size(); ++c)
            measure(c, sans, QTextDocumentFragment::fromHtml(headers[c]).toPlainText());
    for (int i = 0; i < b.events.size(); ++i) {
        const WindowEvent &e = b.events[i];
        settling += e.settling ? 1 : 0;
        QString cls = QStringLiteral("ev");
        if (pinned.contains(eventKindName(e.kind) + QLatin1Char(' ') + e.id))
            cls += QStringLiteral(" pinned");
        if (e.settling)
            cls += QStringLiteral(" settling");
        const bool shortId = e.id.size() <= 24;
        if (pdf) {
            measure(0, sans, QString::number(i + 1));
            measure(1, mono, (e.settling ? QStringLiteral("~") : QString()) + e.atText);
            measure(2, mono, clock.local(e.at));
            measure(3, sans, QStringLiteral("\u25a0 ") + eventStoreName(e.store));
            measure(4, sans, eventKindName(e.kind));
            measure(5, mono, shortId ? e.id : e.id.left(24));
            measure(6, sans, e.status);
            measure(kKeyColumn, mono, e.idemKey.left(kPdfCellMaxChars));
            measure(8, sans, e.actor);
            measure(kDetailColumn, sans, e.detail.left(kPdfCellMaxChars));
            for (const QString &word : e.detail.left(200).split(QLatin1Char(' '), Qt::SkipEmptyParts))
                detailWord = std::max(detailWord, reportTextWidthPt(sans, word));
        }
        rows << row({QStringLiteral("<td class=\"num\"%1>%2</td>").arg(nowrap).arg(i + 1),
                     QStringLiteral("<td class=\"%4\"%1>%2%3</td>").arg(nowrap, e.settling ? QStringLiteral("~") : QString(), esc(e.atText), monoClass),
                     QStringLiteral("<td class=\"%3 local\"%1>%2</td>").arg(nowrap, esc(clock.local(e.at)), monoClass), storeCell(e.store, target),
                     QStringLiteral("<td%1>%2</td>").arg(nowrap, esc(eventKindName(e.kind))),
                     QStringLiteral("<td class=\"%3\"%1>%2</td>").arg(shortId ? nowrap : QString(), cell(e.id, target), monoClass),
                     QStringLiteral("<td%1>%2</td>").arg(nowrap, esc(e.status)),
                     QStringLiteral("<td class=\"key %2\">%1</td>").arg(pdf ? breakAtNaturalPoints(cell(e.idemKey, target)) : cell(e.idemKey, target), monoClass),
                     QStringLiteral("<td%1>%2</td>").arg(nowrap, esc(e.actor)),
                     QStringLiteral("<td class=\"detail\">%1</td>").arg(cell(e.detail, target))},
                    cls);
    }
    QString out = QStringLiteral("<h2>Events (%1)</h2>").arg(b.events.size());
    out += QStringLiteral("<p class=\"muted\">In window order (time, store, kind, id)%1%2.</p>")
               .arg(settling ? QStringLiteral("; %1 settling (\"~\", italic: newer than the watermark when exported)").arg(settling)
                             : QString(),
                    pinned.isEmpty() ? QString() : QStringLiteral("; pinned events in bold"));
    if (!pdf) {
        out += table(headers, rows, QStringLiteral("events"));
        return out;
    }
    // Cell padding and borders (cellpadding 3 on each side, about 2 pt) and a little slack.
    for (double &w : widest)
        w += 6;
    const QVector<int> percents = reportColumnPercents(widest, kKeyColumn, kDetailColumn,
                                                       reportPdfPageLayout().paintRect(QPageLayout::Point).width(), detailWord + 6);
    out += table(headers, rows, QStringLiteral("events"), percents);
    return out;
}

QString integritySection(const IncidentBundle &b)
{
    QString out = QStringLiteral("<h2>Integrity and redaction</h2>");
    const bool matches = verifyBundleHash(b);
    out += QStringLiteral("<p>SHA-256 of the canonical event list (DESIGN.md §7 \"Bundles\"):<br><span class=\"mono\">%1</span><br>%2</p>")
               .arg(esc(b.eventsSha256),
                    matches ? QStringLiteral("<span class=\"good\">matches the %1 events in this bundle</span>").arg(b.events.size())
                            : QStringLiteral("<span class=\"bad\">DOES NOT MATCH the events in this bundle (recomputed: %1): the "
                                             "file was changed after the export</span>")
                                  .arg(esc(bundleEventsSha256(b.events))));
    out += QStringLiteral("<p class=\"muted\">The same hash is recorded in the database at export; a reopened bundle is checked "
                          "against that record (triage-console --open-bundle).</p>");
    if (!b.redactionRules.enabled)
        out += QStringLiteral("<p class=\"bad\">Redaction was OFF for this export (--no-redact, audited): values are as stored.</p>");
    else
        out += QStringLiteral("<p>Redacted: Authorization and cookie headers, and JSON fields named %1 (any case); each value "
                              "replaced by a marker holding its SHA-256.</p>")
                   .arg(esc(b.redactionRules.fields.join(QStringLiteral(", "))));
    QStringList rows;
    for (const Redaction &r : b.redactions)
        rows << row({QStringLiteral("<td class=\"mono\">%1</td>").arg(esc(r.where)), esc(r.field),
                     QStringLiteral("<td class=\"mono\">%1</td>").arg(esc(r.sha256))});
    out += rows.isEmpty() ? QStringLiteral("<p class=\"muted\">Nothing was redacted.</p>")
                          : table({QStringLiteral("Where"), QStringLiteral("Field"), QStringLiteral("SHA-256 of the value")}, rows);
    return out;
}

QString reportHtml(const IncidentBundle &b, const ReportOptions &options, Target target)
{
    const Clock clock(options.zone);
    QString html = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                                  "<title>%1</title><style>%2</style></head><body>\n")
                       .arg(esc(title(b)), css(target));
    html += headerSection(b, clock) + QLatin1Char('\n');
    html += storesSection(b, clock) + QLatin1Char('\n');
    html += summarySection(b) + QLatin1Char('\n');
    html += histogramSection(b, target) + QLatin1Char('\n');
    html += pinsSection(b, clock, target) + QLatin1Char('\n');
    html += keysSection(b, clock, target) + QLatin1Char('\n');
    html += eventsSection(b, clock, target) + QLatin1Char('\n');
    html += integritySection(b) + QLatin1Char('\n');
    html += QStringLiteral("</body></html>\n");
    return html;
}

/// Renders the histogram chart with `paint` on a scene of `size` (Qt Charts' layout needs the
/// event loop's polish pass, run here once).
template<typename Paint>
void renderHistogram(const IncidentBundle &b, QSize size, Paint paint)
{
    QStackedBarSeries *series = nullptr;
    QGraphicsScene scene;
    QChart *chart = createHistogramChart(&series, QFont(QApplication::font().family(), 9));
    scene.addItem(chart); // the scene owns it
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundBrush(Qt::white);
    chart->setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
    fillHistogramChart(chart, series, bucketWindow(b.summary.perMinute, b.query.from, b.query.to), b.query.from, b.query.to);
    QApplication::processEvents();
    scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
    paint(scene);
}

} // namespace

std::optional<ReportFormat> reportFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
        return ReportFormat::Html;
    if (suffix == QLatin1String("pdf"))
        return ReportFormat::Pdf;
    return std::nullopt;
}

std::optional<ReportFormat> reportFormatFromName(const QString &name)
{
    if (name.compare(QLatin1String("html"), Qt::CaseInsensitive) == 0)
        return ReportFormat::Html;
    if (name.compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0)
        return ReportFormat::Pdf;
    return std::nullopt;
}

QByteArray bundleHistogramSvg(const IncidentBundle &bundle, QSize size)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    renderHistogram(bundle, size, [&](QGraphicsScene &scene) {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setResolution(96);
        generator.setTitle(QStringLiteral("Events per bucket, by store"));
        QPainter painter(&generator);
        painter.setRenderHint(QPainter::Antialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), scene.sceneRect());
    });
    return buffer.data();
}

QString bundleReportHtml(const IncidentBundle &bundle, const ReportOptions &options)
{
    return reportHtml(bundle, options, Target::Browser);
}

bool writeBundleReportPdf(const IncidentBundle &bundle, const QString &path, const ReportOptions &options, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QPdfWriter writer(&file);
    writer.setPageLayout(reportPdfPageLayout()); // A4 landscape, 12 mm margins (the events table's widths assume it)
    writer.setTitle(title(bundle));
    writer.setCreator(QStringLiteral("Triage Console %1").arg(bundle.toolVersion));

    QTextDocument document;
    // The histogram as an image three times the size it is shown at (sharp when printed).
    const QSize shown(900, 244);
    QImage image(shown * 3, QImage::Format_ARGB32);
    image.fill(Qt::white);
    renderHistogram(bundle, shown, [&](QGraphicsScene &scene) {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), scene.sceneRect());
    });
    document.addResource(QTextDocument::ImageResource, QUrl(kHistogramResource), image);
    document.setHtml(reportHtml(bundle, options, Target::Pdf));
    // Our own pages (ReportPages.h): rows and headings whole, table headers repeated.
    printReportPages(document, writer, title(bundle));
    file.close();
    if (file.error() != QFileDevice::NoError) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

bool writeBundleReport(const IncidentBundle &bundle, const QString &path, ReportFormat format, const ReportOptions &options,
                       QString *error)
{
    if (format == ReportFormat::Pdf)
        return writeBundleReportPdf(bundle, path, options, error);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bundleReportHtml(bundle, options).toUtf8()) < 0
        || !file.flush()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace triage
