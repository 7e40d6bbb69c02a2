// The bundle report (DESIGN.md §7 "Reports"): HTML for browsers, the same content through
// QTextDocument for the PDF.
#include "BundleReport.h"

#include "HistogramChart.h"
#include "Incident.h"
#include "ReportColumns.h"
#include "ReportHtml.h"
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

/// Where the report is read (ReportHtml.h); the PDF's long cells are clipped.
using Target = ReportTarget;
using Clock = ReportClock;

constexpr int kPdfCellMaxChars = 2000;
const QString kHistogramResource = QStringLiteral("report:histogram.png");
/// The PDF keys table's key column: at most this share of the table's width (DESIGN.md §7
/// "Reports"); a longer key wraps at its natural points.
constexpr double kPdfKeyColumnMaxShare = 0.45;
/// The PDF keys table's record status and tickets columns: at most this share each.
constexpr double kPdfNarrowColumnMaxShare = 0.2;

QString esc(const QString &text)
{
    return reportEsc(text);
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

QString css(Target target)
{
    return reportCss(target);
}

QString table(const QStringList &headers, const QStringList &rows, const QString &cls = QString(), const QVector<int> &percents = {})
{
    return reportHtmlTable(headers, rows, cls, percents);
}

QString row(const QStringList &cells, const QString &cls = QString())
{
    return reportHtmlRow(cells, cls);
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

/// The report's top: title, window, filters, incident, export; above everything else, what a
/// reader must know before trusting the rest (the hash does not match: `hashMatches` false;
/// redaction off; a store failed).
QString headerSection(const IncidentBundle &b, const Clock &clock, bool hashMatches)
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
    if (!hashMatches)
        out += QStringLiteral("<p class=\"bad\">THE EVENTS DO NOT MATCH THIS BUNDLE'S HASH: the file was changed after the "
                              "export; do not trust its events (see \"Integrity and redaction\").</p>");
    if (!b.redactionRules.enabled)
        out += QStringLiteral("<p class=\"bad\">Redaction was OFF for this export (--no-redact): secrets are as stored.</p>");
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
    return out + QStringLiteral("<div class=\"chart\">%1</div>").arg(inlineSvg(bundleHistogramSvg(b)));
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
    // In the PDF, QTextDocument shares the table's width by its cells' words: the key column got
    // a few characters and keys wrapped mid-word. There the key column gets its longest key (up
    // to kPdfKeyColumnMaxShare of the page, then wrapping after ':' '_' '/' '.' '@'), the record
    // status and tickets their widest line (up to kPdfNarrowColumnMaxShare each), the attempts
    // their widest cell never broken, and the operator actions what is left (ReportColumns.h).
    const bool pdf = target == Target::Pdf;
    const QStringList headers{QStringLiteral("Key"), QStringLiteral("Record status"), QStringLiteral("Tickets"),
                              QStringLiteral("Attempts"), QStringLiteral("Operator actions")};
    constexpr int kKeyColumn = 0, kRecordColumn = 1, kTicketsColumn = 2, kAttemptsColumn = 3, kActionsColumn = 4;
    QVector<double> widest(headers.size(), 0);
    double actionsWord = 0; // the actions' longest word (pt), not to be cut
    QFont sans(QStringLiteral("sans-serif")), mono(QStringLiteral("monospace"));
    for (QFont *f : {&sans, &mono}) {
        f->setPointSizeF(8);
        f->setBold(true); // the widest a cell can be drawn (a stale status, the outcome)
    }
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSizeF(7); // keys in 7 pt mono as in the events table (class emono)
    const auto measure = [&](int column, const QFont &font, const QString &text) {
        widest[column] = std::max(widest[column], reportTextWidthPt(font, text));
    };
    const auto measureWords = [&](const QString &text) {
        for (const QString &word : text.left(200).split(QLatin1Char(' '), Qt::SkipEmptyParts))
            actionsWord = std::max(actionsWord, reportTextWidthPt(sans, word));
    };
    if (pdf)
        for (int c = 0; c < headers.size(); ++c)
            measure(c, sans, headers[c]);
    QStringList rows;
    for (const KeyDetail &k : b.keys) {
        QString record, recordText;
        if (k.record) {
            record = esc(k.record->statusText) + (k.record->stale ? QStringLiteral(" <span class=\"bad\">stale</span>") : QString());
            recordText = k.record->statusText + (k.record->stale ? QStringLiteral(" stale") : QString());
        } else if (k.errors.contains(DbRole::Idempotency)) {
            record = QStringLiteral("<span class=\"bad\">unknown (%1)</span>").arg(esc(k.errors.value(DbRole::Idempotency).message));
            recordText = QStringLiteral("unknown (%1)").arg(k.errors.value(DbRole::Idempotency).message);
        } else {
            record = QStringLiteral("<span class=\"muted\">no record</span>");
            recordText = QStringLiteral("no record");
        }
        QStringList tickets, ticketTexts;
        for (const TicketRow &t : k.tickets) {
            tickets << QStringLiteral("%1 (%2)").arg(esc(t.id.text()), esc(t.status.value_or(QStringLiteral("NULL"))));
            ticketTexts << QStringLiteral("%1 (%2)").arg(t.id.text(), t.status.value_or(QStringLiteral("NULL")));
        }
        if (k.errors.contains(DbRole::Ticket)) {
            tickets << QStringLiteral("<span class=\"bad\">unknown (%1)</span>").arg(esc(k.errors.value(DbRole::Ticket).message));
            ticketTexts << QStringLiteral("unknown (%1)").arg(k.errors.value(DbRole::Ticket).message);
        }
        QString attempts = QString::number(k.attempts.size()), attemptsText = attempts;
        if (!k.attempts.isEmpty()) {
            attempts += QStringLiteral(" (last %1)").arg(esc(k.attempts.last().status.value_or(QStringLiteral("NULL"))));
            attemptsText += QStringLiteral(" (last %1)").arg(k.attempts.last().status.value_or(QStringLiteral("NULL")));
        }
        QStringList actions;
        for (const OperatorAction &a : operatorActions(k)) {
            actions << (a.audit ? QStringLiteral("%1 %2 %3 <b>%4</b>")
                                      .arg(clock.both(a.audit->at), esc(a.audit->operatorName), esc(a.audit->action), esc(a.audit->outcome))
                                : QStringLiteral("%1 compensation %2 by %3: <b>%4</b>")
                                      .arg(clock.both(a.compensation->createdAt), esc(a.compensation->action),
                                           esc(a.compensation->operatorName), esc(a.compensation->status)));
            if (pdf)
                measureWords(a.audit ? QStringList{a.audit->operatorName, a.audit->action, a.audit->outcome}.join(QLatin1Char(' '))
                                     : QStringList{a.compensation->action, a.compensation->operatorName, a.compensation->status}.join(
                                           QLatin1Char(' ')));
        }
        if (pdf) {
            measure(kKeyColumn, mono, k.idemKey.left(kPdfCellMaxChars));
            measure(kRecordColumn, sans, recordText.left(kPdfCellMaxChars));
            for (const QString &t : std::as_const(ticketTexts))
                measure(kTicketsColumn, sans, t.left(kPdfCellMaxChars));
            measure(kTicketsColumn, sans, QStringLiteral("none"));
            measure(kAttemptsColumn, sans, attemptsText);
        }
        const QString key = pdf ? breakAtNaturalPoints(cell(k.idemKey, target)) : cell(k.idemKey, target);
        rows << row({QStringLiteral("<td class=\"key %2\">%1</td>").arg(key, pdf ? QStringLiteral("emono") : QStringLiteral("mono")), record,
                     tickets.isEmpty() ? QStringLiteral("none") : tickets.join(QStringLiteral("<br>")),
                     QStringLiteral("<td class=\"num\"%1>%2</td>").arg(pdf ? QStringLiteral(" style=\"white-space: nowrap\"") : QString(), attempts),
                     actions.isEmpty() ? QStringLiteral("<span class=\"muted\">none</span>") : actions.join(QStringLiteral("<br>"))});
    }
    const QString heading = QStringLiteral("<h2>Keys (%1): outcomes</h2>").arg(b.keys.size());
    if (rows.isEmpty())
        return heading + QStringLiteral("<p class=\"muted\">None.</p>");
    if (!pdf)
        return heading + table(headers, rows);
    const double tableWidth = reportPdfPageLayout().paintRect(QPageLayout::Point).width();
    // Cell padding and borders (cellpadding 3 on each side, about 2 pt), and one percent of the
    // table more as each percent is rounded down (so the widest cell still fits on one line).
    for (double &w : widest)
        w += 8 + tableWidth / 100;
    widest[kKeyColumn] = std::min(widest[kKeyColumn], tableWidth * kPdfKeyColumnMaxShare);
    widest[kRecordColumn] = std::min(widest[kRecordColumn], tableWidth * kPdfNarrowColumnMaxShare);
    widest[kTicketsColumn] = std::min(widest[kTicketsColumn], tableWidth * kPdfNarrowColumnMaxShare);
    // The key is sized like the fixed columns (no "key gets the rest"): the actions take what is left.
    return heading + table(headers, rows, QString(), reportColumnPercents(widest, -1, kActionsColumn, tableWidth, actionsWord + 8));
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

QString integritySection(const IncidentBundle &b, bool matches)
{
    QString out = QStringLiteral("<h2>Integrity and redaction</h2>");
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
        out += QStringLiteral("<p>Redacted: Authorization and cookie headers, JSON fields named %1 (any case), and in free text "
                              "(notes, details, raw text) the value of NAME=value, NAME: value or NAME=\"value\" with those names "
                              "(the scheme word of \"Authorization: Bearer\" kept); each value replaced by a marker holding its "
                              "SHA-256.</p>")
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
    const bool hashMatches = verifyBundleHash(b); // computed once: said at the top and under integrity
    html += headerSection(b, clock, hashMatches) + QLatin1Char('\n');
    html += storesSection(b, clock) + QLatin1Char('\n');
    html += summarySection(b) + QLatin1Char('\n');
    html += histogramSection(b, target) + QLatin1Char('\n');
    html += pinsSection(b, clock, target) + QLatin1Char('\n');
    html += keysSection(b, clock, target) + QLatin1Char('\n');
    html += eventsSection(b, clock, target) + QLatin1Char('\n');
    html += integritySection(b, hashMatches) + QLatin1Char('\n');
    html += QStringLiteral("</body></html>\n");
    return html;
}

/// The histogram chart of `b`, filled (the caller owns it).
QChart *histogramChart(const IncidentBundle &b)
{
    QStackedBarSeries *series = nullptr;
    QChart *chart = createHistogramChart(&series, QFont(QApplication::font().family(), 9));
    fillHistogramChart(chart, series, bucketWindow(b.summary.perMinute, b.query.from, b.query.to), b.query.from, b.query.to);
    return chart;
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
    return reportChartSvg(histogramChart(bundle), size, QStringLiteral("Events per bucket, by store"));
}

QString bundleReportHtml(const IncidentBundle &bundle, const ReportOptions &options)
{
    return reportHtml(bundle, options, Target::Browser);
}

bool writeBundleReportPdf(const IncidentBundle &bundle, const QString &path, const ReportOptions &options, QString *error)
{
    // The histogram as an image three times the size it is shown at (sharp when printed).
    const QImage image = reportChartImage(histogramChart(bundle), QSize(900, 244));
    return writeReportPdf(path, title(bundle), QStringLiteral("Triage Console %1").arg(bundle.toolVersion),
                          reportHtml(bundle, options, Target::Pdf), {{kHistogramResource, image}}, error);
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
