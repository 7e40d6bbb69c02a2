// The daily review's report (DESIGN.md §8 "The Review view and the report"): HTML for
// browsers, the same content through QTextDocument for the PDF (ReportHtml.h shares the pieces
// with the bundle report).
#include "ReviewReport.h"

#include "DeepLink.h"
#include "ReportColumns.h"
#include "ReportHtml.h"
#include "ReviewExport.h"
#include "ReviewCharts.h"
#include "ReviewModel.h"

#include <QImage>
#include <QSize>

namespace triage {

namespace {

const QString kChartResource = QStringLiteral("report:review-%1-%2.png"); // day index, chart kind
constexpr int kChartKinds = 4; // trend 14, trend 30, bucket, reason (refillReviewChart())
const QSize kChartSize[kChartKinds] = {QSize(680, 320), QSize(680, 320), QSize(480, 280), QSize(480, 280)};

QString esc(const QString &text)
{
    return reportEsc(text);
}

QString num(qint64 n)
{
    return QStringLiteral("<td class=\"num\">%1</td>").arg(n);
}

QString iso(const QDateTime &t)
{
    return t.isValid() ? formatUtcMicros(t.toMSecsSinceEpoch() * 1000) : QString();
}

QString zoneName(const ReviewSnapshot &s)
{
    return ReportClock(s.day.zone).zoneName();
}

QString headerSection(const ReviewSnapshot &s, const ReportClock &clock, ReportTarget target)
{
    // QTextDocument has no CSS grid: the PDF's header is a borderless two-column table.
    const bool pdf = target == ReportTarget::Pdf;
    QString out = QStringLiteral("<h1>%1</h1>%2").arg(esc(reviewReportTitle(s)), pdf ? QStringLiteral("<table cellpadding=\"2\">") : QStringLiteral("<dl>"));
    const auto item = [&out, pdf](const QString &name, const QString &html) {
        out += (pdf ? QStringLiteral("<tr><td class=\"muted\">%1</td><td>%2</td></tr>") : QStringLiteral("<dt>%1</dt><dd>%2</dd>")).arg(name, html);
    };
    item(QStringLiteral("Day"), esc(s.day.day.toString(Qt::ISODate)));
    item(QStringLiteral("Review time zone"), esc(zoneName(s)));
    item(QStringLiteral("Window"), QStringLiteral("from %1<br>to %2 (excluded)").arg(clock.both(iso(s.day.from)), clock.both(iso(s.day.to))));
    item(QStringLiteral("As of"), clock.both(iso(s.day.asOf)));
    item(QStringLiteral("Generated"), QStringLiteral("%1 by %2").arg(clock.both(s.serverNow), esc(s.generatedBy)));
    const auto signOff = [&clock](const std::optional<ReviewSignOff> &o) {
        return o ? QStringLiteral("%1 (%2) signed by %3 at %4").arg(esc(o->day.toString(Qt::ISODate)), esc(o->zone), esc(o->signedBy), clock.both(o->signedAt))
                 : QStringLiteral("<span class=\"muted\">none</span>");
    };
    item(QStringLiteral("Last sign-off"), signOff(s.lastSignOff));
    item(QStringLiteral("This day"), s.thisDaySignOff ? QStringLiteral("<span class=\"good\">signed off</span>: ") + signOff(s.thisDaySignOff)
                                                      : QStringLiteral("not signed off"));
    const QString fingerprint = reviewReportSha256(s);
    const QString check = reviewFingerprintCheck(s, fingerprint);
    item(QStringLiteral("Fingerprint"),
         QStringLiteral("<span class=\"mono\">%1</span>%2<br><span class=\"muted\">SHA-256 of this review's figures (its JSON form without who read it "
                        "when); a sign-off records it</span>")
             .arg(fingerprint,
                  check.isEmpty() ? QString()
                                  : QStringLiteral(" <span class=\"%1\">%2</span>")
                                        .arg(s.thisDaySignOff->reportSha256 == fingerprint ? QStringLiteral("good") : QStringLiteral("bad"), esc(check))));
    return out + (pdf ? QStringLiteral("</table>") : QStringLiteral("</dl>"));
}

QString totalsSection(const ReviewSnapshot &s)
{
    const ReviewTotals &t = s.totals;
    QStringList rows;
    const auto line = [&rows](const QString &name, const QString &value) { rows << reportHtmlRow({name, value}); };
    line(QStringLiteral("Open escalations (as of)"), num(t.open));
    line(QStringLiteral("Open keys (distinct)"), num(t.openKeys));
    line(QStringLiteral("Opened in the day"), num(t.opened));
    line(QStringLiteral("Resolved in the day"), num(t.resolved));
    line(QStringLiteral("SLA breaches due in the day"), num(t.breaches));
    line(QStringLiteral("New since the last sign-off"), num(t.newSinceSignOff));
    line(QStringLiteral("Changed since the last sign-off"), num(t.changedSinceSignOff));
    line(QStringLiteral("Open money (per currency)"), esc(reviewMoneyText(t.openMoney)));
    line(QStringLiteral("Median time to resolve, 14 days"), esc(reviewDurationText(s.median14S)));
    line(QStringLiteral("Median time to resolve, 30 days"), esc(reviewDurationText(s.median30S)));
    return QStringLiteral("<h2>Totals</h2><p class=\"muted\">Counts are per escalation unless labelled keys. The 14- and 30-day "
                          "medians come from the resolution times still held, never from averaging daily medians.</p>")
        + reportHtmlTable({QStringLiteral("Figure"), QStringLiteral("Value")}, rows);
}

QString bucketSection(const ReviewSnapshot &s)
{
    QStringList rows, terms;
    int sum = 0;
    for (AgeBucket b : allAgeBuckets()) {
        const int n = s.totals.openByBucket.value(int(b));
        sum += n;
        terms << QString::number(n);
        rows << reportHtmlRow({esc(ageBucketLabel(b)), num(n)});
    }
    rows << reportHtmlRow({QStringLiteral("Total"), num(sum)}, QStringLiteral("total"));
    const bool ok = sum == s.totals.open;
    return QStringLiteral("<h2>Open by age</h2>")
        + reportHtmlTable({QStringLiteral("Age (in %1)").arg(esc(zoneName(s))), QStringLiteral("Open")}, rows)
        + QStringLiteral("<p class=\"%1\">Check: %2 = %3 %4 open total %5</p>")
              .arg(ok ? QStringLiteral("good") : QStringLiteral("bad"), terms.join(QStringLiteral(" + ")))
              .arg(sum)
              .arg(ok ? QStringLiteral("=") : QStringLiteral("≠ (MISMATCH)"))
              .arg(s.totals.open);
}

QString groupsSection(const ReviewSnapshot &s)
{
    QStringList rows;
    for (const ReviewGroup &g : s.groups)
        rows << reportHtmlRow({esc(ageBucketLabel(g.bucket)), esc(escalationReasonName(g.reason)),
                               esc(g.bizType.isEmpty() ? QStringLiteral("(unknown)") : g.bizType), num(g.escalations), num(g.keys),
                               g.breached ? QStringLiteral("<td class=\"num bad\">%1</td>").arg(g.breached) : num(0),
                               esc(reviewMoneyText(g.money))});
    return QStringLiteral("<h2>Groups: age × reason × biz_type (%1)</h2>").arg(s.groups.size())
        + (rows.isEmpty() ? QStringLiteral("<p class=\"muted\">Nothing open.</p>")
                          : reportHtmlTable({QStringLiteral("Age"), QStringLiteral("Reason"), QStringLiteral("biz_type"),
                                             QStringLiteral("Escalations"), QStringLiteral("Keys"), QStringLiteral("Breached"),
                                             QStringLiteral("Money (per currency)")},
                                            rows));
}

QString slaSection(const ReviewSnapshot &s)
{
    QStringList rows;
    for (const ReviewSla &x : s.sla)
        rows << reportHtmlRow({esc(x.bizType.isEmpty() ? QStringLiteral("(unknown)") : x.bizType), num(x.slaHours), num(x.open),
                               x.overdue ? QStringLiteral("<td class=\"num bad\">%1</td>").arg(x.overdue) : num(0), num(x.breachedToday)});
    return QStringLiteral("<h2>SLA per biz_type</h2>")
        + (rows.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>")
                          : reportHtmlTable({QStringLiteral("biz_type"), QStringLiteral("SLA (h)"), QStringLiteral("Open"),
                                             QStringLiteral("Overdue"), QStringLiteral("Breaches due in the day")},
                                            rows));
}

QString itemRows(const ReviewSnapshot &s, const QVector<const ReviewItem *> &items, ReportTarget target)
{
    QString rows;
    for (const ReviewItem *i : items) {
        const Escalation &e = i->row.escalation;
        const QString link = reviewKeyLink(s, e.idemKey);
        const QString key = target == ReportTarget::Pdf ? breakAtNaturalPoints(esc(e.idemKey)) : esc(e.idemKey);
        const auto claim = i->row.shownClaim();
        rows += reportHtmlRow(
            {num(e.id),
             QStringLiteral("<td class=\"key mono\"><a href=\"%1\">%2</a></td>").arg(esc(link), key),
             esc(escalationReasonName(e.reason)), esc(e.bizType), esc(ageBucketLabel(i->bucket)),
             QStringLiteral("<td class=\"mono\">%1</td>").arg(esc(utcToSecond(e.firstEscalatedAt))),
             i->breached ? QStringLiteral("<span class=\"bad\">BREACHED</span> due %1").arg(esc(utcToSecond(i->breachDueAt)))
                         : esc(utcToSecond(e.slaDueAt)),
             i->newSinceSignOff ? QStringLiteral("new") : i->changedSinceSignOff ? QStringLiteral("changed") : QString(),
             esc(claim ? claim->holder : QString()),
             esc(i->lastReviewedBy.isEmpty() ? QString() : QStringLiteral("%1 %2").arg(i->lastReviewedBy, utcToSecond(i->lastReviewedAt))),
             num(i->notes), esc(e.amount ? QStringLiteral("%1 %2").arg(e.currency, *e.amount).trimmed() : QStringLiteral("—"))});
    }
    return rows;
}

QString itemsTable(const ReviewSnapshot &s, const QVector<const ReviewItem *> &items, ReportTarget target)
{
    return reportHtmlTable({QStringLiteral("Id"), QStringLiteral("Key (deep link)"), QStringLiteral("Reason"), QStringLiteral("biz_type"),
                            QStringLiteral("Age"), QStringLiteral("First escalated (UTC)"), QStringLiteral("SLA due (UTC)"),
                            QStringLiteral("Since sign-off"), QStringLiteral("Claimed by"), QStringLiteral("Reviewed"),
                            QStringLiteral("Notes"), QStringLiteral("Amount")},
                           {itemRows(s, items, target)});
}

QString itemsSections(const ReviewSnapshot &s, ReportTarget target)
{
    QVector<const ReviewItem *> all, changed;
    for (const ReviewItem &i : s.open) {
        all << &i;
        if (i.newSinceSignOff || i.changedSinceSignOff)
            changed << &i;
    }
    QString out = QStringLiteral("<h2>New or changed since the last sign-off (%1 new, %2 changed)</h2>")
                      .arg(s.totals.newSinceSignOff)
                      .arg(s.totals.changedSinceSignOff);
    out += changed.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>") : itemsTable(s, changed, target);
    out += QStringLiteral("<h2>Every open escalation (%1), oldest first</h2>").arg(s.open.size());
    out += all.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>") : itemsTable(s, all, target);
    return out;
}

QString chartsHtml(const ReviewSnapshot &s, ReportTarget target, int dayIndex)
{
    const QString titles[kChartKinds] = {QStringLiteral("Opened vs resolved per day, 14 days"), QStringLiteral("Opened vs resolved per day, 30 days"),
                                         QStringLiteral("Open by age"), QStringLiteral("Open by reason")};
    QString out;
    for (int k = 0; k < kChartKinds; ++k) {
        const QSize size = kChartSize[k];
        if (target == ReportTarget::Pdf) {
            out += QStringLiteral("<p><img src=\"%1\" width=\"%2\" height=\"%3\"></p>").arg(kChartResource.arg(dayIndex).arg(k)).arg(size.width()).arg(size.height());
            continue;
        }
        out += QStringLiteral("<div class=\"chart\">%1</div>").arg(inlineSvg(reportChartSvg(reviewChart(s, k), size, titles[k])));
    }
    return target == ReportTarget::Pdf ? out : QStringLiteral("<div class=\"charts\">%1</div>").arg(out);
}

QString trendsSection(const ReviewSnapshot &s, ReportTarget target, int dayIndex)
{
    QString out = QStringLiteral("<h2>Trends (triage_review_daily, in %1)</h2>").arg(esc(zoneName(s))) + chartsHtml(s, target, dayIndex);
    QStringList rows;
    for (const ReviewTrendDay &d : reviewTrendByDay(s, 30))
        rows << reportHtmlRow({esc(d.day.toString(Qt::ISODate)), num(d.opened), num(d.resolved), num(d.openAtEnd), num(d.breaches),
                               d.hasRows ? (d.complete ? QStringLiteral("complete") : QStringLiteral("running")) : QStringLiteral("<span class=\"muted\">no rows</span>")});
    out += QStringLiteral("<p>Median time to resolve: 14 days %1 · 30 days %2 (from the resolution times still held).</p>")
               .arg(esc(reviewDurationText(s.median14S)), esc(reviewDurationText(s.median30S)));
    out += QStringLiteral("<h2>Per day, last 30 days</h2>")
        + reportHtmlTable({QStringLiteral("Day"), QStringLiteral("Opened"), QStringLiteral("Resolved"), QStringLiteral("Open at end"),
                           QStringLiteral("Breaches"), QStringLiteral("Rows")},
                          rows);
    QStringList medians;
    for (const ReviewDailyRow &r : s.trend)
        if (r.medianResolveS)
            medians << reportHtmlRow({esc(r.day.toString(Qt::ISODate)), esc(r.bizType), esc(escalationReasonName(r.reason)), num(r.resolved),
                                      esc(reviewDurationText(r.medianResolveS))});
    out += QStringLiteral("<h2>Each day's median time to resolve (per biz_type and reason, as written that day)</h2>");
    out += medians.isEmpty() ? QStringLiteral("<p class=\"muted\">None.</p>")
                             : reportHtmlTable({QStringLiteral("Day"), QStringLiteral("biz_type"), QStringLiteral("Reason"),
                                                QStringLiteral("Resolved"), QStringLiteral("Median")},
                                               medians);
    return out;
}

QString signOffSection(const ReviewSnapshot &s, const ReportClock &clock)
{
    QString out = QStringLiteral("<h2>Last sign-off</h2>");
    if (!s.lastSignOff)
        return out + QStringLiteral("<p class=\"muted\">No earlier day signed off.</p>");
    const ReviewSignOff &o = *s.lastSignOff;
    return out + QStringLiteral("<dl><dt>Day</dt><dd>%1 (%2)</dd><dt>Window</dt><dd>from %3<br>to %4 (excluded)</dd><dt>Signed</dt><dd>%5 by %6</dd>"
                                "<dt>Counts</dt><dd class=\"mono\">%7</dd><dt>Open by age</dt><dd class=\"mono\">%8</dd>"
                                "<dt>Report SHA-256</dt><dd class=\"mono\">%9</dd><dt>Note</dt><dd>%10</dd></dl>")
                     .arg(esc(o.day.toString(Qt::ISODate)), esc(o.zone), clock.both(o.windowFrom), clock.both(o.windowTo), clock.both(o.signedAt),
                          esc(o.signedBy), esc(o.countsJson), esc(o.openByBucketJson), esc(o.reportSha256))
                     .arg(esc(o.note.isEmpty() ? QStringLiteral("—") : o.note));
}

QString title(const QVector<ReviewSnapshot> &days)
{
    if (days.size() == 1)
        return reviewReportTitle(days.first());
    return QStringLiteral("Daily reviews %1 to %2 (%3)")
        .arg(days.first().day.day.toString(Qt::ISODate), days.last().day.day.toString(Qt::ISODate), zoneName(days.first()));
}

/// One document: each day's sections in order (a range: one after the other, the days' own
/// titles as headings, a rule between them).
QString html(const QVector<ReviewSnapshot> &days, ReportTarget target)
{
    QString out = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                                 "<title>%1</title><style>%2</style></head><body>\n")
                      .arg(esc(title(days)), reportCss(target));
    for (int i = 0; i < days.size(); ++i) {
        const ReviewSnapshot &s = days[i];
        const ReportClock clock(s.day.zone);
        if (i > 0)
            out += QStringLiteral("<hr>\n");
        out += headerSection(s, clock, target) + QLatin1Char('\n');
        out += totalsSection(s) + QLatin1Char('\n');
        out += bucketSection(s) + QLatin1Char('\n');
        out += groupsSection(s) + QLatin1Char('\n');
        out += slaSection(s) + QLatin1Char('\n');
        out += itemsSections(s, target) + QLatin1Char('\n');
        out += trendsSection(s, target, i) + QLatin1Char('\n');
        out += signOffSection(s, clock) + QLatin1Char('\n');
    }
    out += QStringLiteral("</body></html>\n");
    return out;
}

} // namespace

QString reviewReportTitle(const ReviewSnapshot &snapshot)
{
    return QStringLiteral("Daily review %1 (%2)").arg(snapshot.day.day.toString(Qt::ISODate), zoneName(snapshot));
}

QString reviewKeyLink(const ReviewSnapshot &snapshot, const QString &key)
{
    const QString link = keyLink(key);
    const QString scheme = QStringLiteral("triage://");
    if (snapshot.deepLinkBase.isEmpty() || snapshot.deepLinkBase == scheme || !snapshot.deepLinkBase.endsWith(QLatin1Char('/')))
        return link;
    return snapshot.deepLinkBase + link.mid(scheme.size());
}

QByteArray reviewHtml(const QVector<ReviewSnapshot> &days)
{
    return days.isEmpty() ? QByteArray() : html(days, ReportTarget::Browser).toUtf8();
}

QByteArray reviewHtml(const ReviewSnapshot &snapshot)
{
    return reviewHtml(QVector<ReviewSnapshot>{snapshot});
}

bool writeReviewPdf(const QVector<ReviewSnapshot> &days, const QString &path, QString *error)
{
    if (days.isEmpty()) {
        *error = QStringLiteral("cannot write %1: no day to report").arg(path);
        return false;
    }
    QVector<std::pair<QString, QImage>> images;
    for (int i = 0; i < days.size(); ++i)
        for (int k = 0; k < kChartKinds; ++k)
            images.append({kChartResource.arg(i).arg(k), reportChartImage(reviewChart(days[i], k), kChartSize[k])});
    return writeReportPdf(path, title(days), QStringLiteral("Triage Console"), html(days, ReportTarget::Pdf), images, error);
}

bool writeReviewPdf(const ReviewSnapshot &snapshot, const QString &path, QString *error)
{
    return writeReviewPdf(QVector<ReviewSnapshot>{snapshot}, path, error);
}

} // namespace triage
