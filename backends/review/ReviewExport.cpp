// The daily review's JSON and CSV (DESIGN.md §8 "The daily review"): one snapshot, printed.
#include "ReviewExport.h"

#include "DeepLink.h"
#include "ReviewRecord.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

namespace {

QJsonValue textOrNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

QJsonValue doubleOrNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QString utcText(const QDateTime &t)
{
    return formatUtcMicros(t.toMSecsSinceEpoch() * 1000);
}

QString localText(const QDateTime &t, const QTimeZone &zone)
{
    return t.toTimeZone(zone).toString(Qt::ISODate);
}

QJsonArray moneyJson(const QVector<MoneyTotal> &money)
{
    QJsonArray a;
    for (const MoneyTotal &m : money)
        a.append(QJsonObject{{QStringLiteral("currency"), m.currency},
                             {QStringLiteral("sum"), m.sum},
                             {QStringLiteral("count"), m.count},
                             {QStringLiteral("unknown"), m.unknown}});
    return a;
}

QJsonValue signOffJson(const std::optional<ReviewSignOff> &o)
{
    if (!o)
        return QJsonValue(QJsonValue::Null);
    return QJsonObject{{QStringLiteral("id"), o->id},
                       {QStringLiteral("day"), o->day.toString(Qt::ISODate)},
                       {QStringLiteral("zone"), o->zone},
                       {QStringLiteral("window_from"), o->windowFrom},
                       {QStringLiteral("window_to"), o->windowTo},
                       {QStringLiteral("signed_by"), o->signedBy},
                       {QStringLiteral("signed_at"), o->signedAt},
                       {QStringLiteral("counts"), QJsonDocument::fromJson(o->countsJson.toUtf8()).object()},
                       {QStringLiteral("open_by_bucket"), QJsonDocument::fromJson(o->openByBucketJson.toUtf8()).object()},
                       {QStringLiteral("report_sha256"), o->reportSha256},
                       {QStringLiteral("note"), o->note}};
}

QJsonObject itemJson(const ReviewItem &it)
{
    const Escalation &e = it.row.escalation;
    const std::optional<Claim> claim = it.row.shownClaim();
    return {{QStringLiteral("id"), e.id},
            {QStringLiteral("idem_key"), e.idemKey},
            {QStringLiteral("biz_type"), e.bizType},
            {QStringLiteral("tenant"), e.tenant},
            {QStringLiteral("reason"), escalationReasonName(e.reason)},
            {QStringLiteral("bucket"), ageBucketKey(it.bucket)},
            {QStringLiteral("first_escalated_at"), e.firstEscalatedAt},
            {QStringLiteral("last_seen_at"), e.lastSeenAt},
            {QStringLiteral("sla_due_at"), textOrNull(e.slaDueAt)},
            {QStringLiteral("resolved_at"), textOrNull(e.resolvedAt)},
            {QStringLiteral("resolved_by"), textOrNull(e.resolvedBy)},
            {QStringLiteral("breached"), it.breached},
            {QStringLiteral("breach_due_at"), textOrNull(it.breachDueAt)},
            {QStringLiteral("new_since_signoff"), it.newSinceSignOff},
            {QStringLiteral("changed_since_signoff"), it.changedSinceSignOff},
            {QStringLiteral("amount"), e.amount ? QJsonValue(*e.amount) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("currency"), e.currency},
            {QStringLiteral("claimed_by"), claim ? QJsonValue(claim->holder) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("last_reviewed_by"), textOrNull(it.lastReviewedBy)},
            {QStringLiteral("last_reviewed_at"), textOrNull(it.lastReviewedAt)},
            {QStringLiteral("notes"), it.notes},
            {QStringLiteral("link"), keyLink(e.idemKey)}};
}

QString csvField(const QString &s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))
        && !s.contains(QLatin1Char('\r')))
        return s;
    QString q = s;
    q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

const QStringList kCsvColumns = {QStringLiteral("section"), QStringLiteral("day"), QStringLiteral("zone"), QStringLiteral("name"),
                                 QStringLiteral("value"), QStringLiteral("bucket"), QStringLiteral("reason"), QStringLiteral("biz_type"),
                                 QStringLiteral("escalations"), QStringLiteral("keys"), QStringLiteral("breached"),
                                 QStringLiteral("currency"), QStringLiteral("sum"), QStringLiteral("counted"), QStringLiteral("unknown"),
                                 QStringLiteral("id"), QStringLiteral("idem_key"), QStringLiteral("first_escalated_at"),
                                 QStringLiteral("sla_due_at"), QStringLiteral("link"), QStringLiteral("since_signoff"),
                                 QStringLiteral("claimed_by"), QStringLiteral("claimed_until"), QStringLiteral("last_reviewed_by"),
                                 QStringLiteral("notes")};

/// One CSV row being filled by column name.
class CsvRows {
public:
    CsvRows(const QString &day, const QString &zone) : m_day(day), m_zone(zone) {}
    void add(const QString &section, const QList<std::pair<QString, QString>> &fields)
    {
        QStringList row(kCsvColumns.size());
        row[0] = section;
        row[1] = m_day;
        row[2] = m_zone;
        for (const auto &[name, value] : fields)
            row[kCsvColumns.indexOf(name)] = value;
        for (QString &f : row)
            f = csvField(f);
        m_out += row.join(QLatin1Char(',')).toUtf8() + "\r\n";
    }
    QByteArray bytes() const { return kCsvColumns.join(QLatin1Char(',')).toUtf8() + "\r\n" + m_out; }

private:
    QString m_day, m_zone;
    QByteArray m_out;
};

} // namespace

QByteArray reviewJson(const ReviewSnapshot &s)
{
    const ReviewDay &d = s.day;
    const QString zone = reviewZoneName(d.zone);
    QJsonObject review{{QStringLiteral("day"), d.day.toString(Qt::ISODate)},
                       {QStringLiteral("zone"), zone},
                       {QStringLiteral("window"), QJsonObject{{QStringLiteral("from_utc"), utcText(d.from)},
                                                              {QStringLiteral("to_utc"), utcText(d.to)},
                                                              {QStringLiteral("from_local"), localText(d.from, d.zone)},
                                                              {QStringLiteral("to_local"), localText(d.to, d.zone)}}},
                       {QStringLiteral("as_of"), utcText(d.asOf)},
                       {QStringLiteral("server_now"), s.serverNow},
                       {QStringLiteral("generated_by"), s.generatedBy}};
    QJsonObject buckets;
    for (AgeBucket b : allAgeBuckets())
        buckets.insert(ageBucketKey(b), s.totals.openByBucket.value(int(b)));
    const ReviewTotals &t = s.totals;
    QJsonObject totals{{QStringLiteral("open"), t.open},
                       {QStringLiteral("open_keys"), t.openKeys},
                       {QStringLiteral("opened"), t.opened},
                       {QStringLiteral("resolved"), t.resolved},
                       {QStringLiteral("breaches"), t.breaches},
                       {QStringLiteral("new_since_signoff"), t.newSinceSignOff},
                       {QStringLiteral("changed_since_signoff"), t.changedSinceSignOff},
                       {QStringLiteral("open_by_bucket"), buckets},
                       {QStringLiteral("open_money"), moneyJson(t.openMoney)}};
    QJsonArray groups;
    for (const ReviewGroup &g : s.groups) {
        QJsonArray ids;
        for (qint64 id : g.escalationIds)
            ids.append(id);
        groups.append(QJsonObject{{QStringLiteral("bucket"), ageBucketKey(g.bucket)},
                                  {QStringLiteral("reason"), escalationReasonName(g.reason)},
                                  {QStringLiteral("biz_type"), g.bizType},
                                  {QStringLiteral("escalations"), g.escalations},
                                  {QStringLiteral("keys"), g.keys},
                                  {QStringLiteral("breached"), g.breached},
                                  {QStringLiteral("money"), moneyJson(g.money)},
                                  {QStringLiteral("escalation_ids"), ids}});
    }
    QJsonArray sla;
    for (const ReviewSla &v : s.sla)
        sla.append(QJsonObject{{QStringLiteral("biz_type"), v.bizType},
                               {QStringLiteral("sla_hours"), v.slaHours},
                               {QStringLiteral("open"), v.open},
                               {QStringLiteral("overdue"), v.overdue},
                               {QStringLiteral("breached_today"), v.breachedToday}});
    QJsonArray trend;
    for (const ReviewDailyRow &r : s.trend)
        trend.append(QJsonObject{{QStringLiteral("day"), r.day.toString(Qt::ISODate)},
                                 {QStringLiteral("biz_type"), r.bizType},
                                 {QStringLiteral("reason"), escalationReasonName(r.reason)},
                                 {QStringLiteral("opened"), r.opened},
                                 {QStringLiteral("resolved"), r.resolved},
                                 {QStringLiteral("open_end"), r.openAtEnd},
                                 {QStringLiteral("breaches"), r.breaches},
                                 {QStringLiteral("median_resolve_s"), doubleOrNull(r.medianResolveS)},
                                 {QStringLiteral("complete"), r.complete}});
    QJsonArray open, resolved;
    for (const ReviewItem &it : s.open)
        open.append(itemJson(it));
    for (const ReviewItem &it : s.resolvedToday)
        resolved.append(itemJson(it));
    const QJsonObject o{{QStringLiteral("review"), review},
                        {QStringLiteral("totals"), totals},
                        {QStringLiteral("groups"), groups},
                        {QStringLiteral("sla"), sla},
                        {QStringLiteral("trend"), trend},
                        {QStringLiteral("median_resolve_s"), QJsonObject{{QStringLiteral("14d"), doubleOrNull(s.median14S)},
                                                                         {QStringLiteral("30d"), doubleOrNull(s.median30S)}}},
                        {QStringLiteral("open"), open},
                        {QStringLiteral("resolved"), resolved},
                        {QStringLiteral("last_signoff"), signOffJson(s.lastSignOff)},
                        {QStringLiteral("this_day_signoff"), signOffJson(s.thisDaySignOff)}};
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QByteArray reviewCsv(const ReviewSnapshot &s)
{
    const ReviewDay &d = s.day;
    CsvRows rows(d.day.toString(Qt::ISODate), reviewZoneName(d.zone));
    const ReviewTotals &t = s.totals;
    auto summary = [&](const QString &name, const QString &value) {
        rows.add(QStringLiteral("summary"), {{QStringLiteral("name"), name}, {QStringLiteral("value"), value}});
    };
    summary(QStringLiteral("window_from_utc"), utcText(d.from));
    summary(QStringLiteral("window_to_utc"), utcText(d.to));
    summary(QStringLiteral("window_from_local"), localText(d.from, d.zone));
    summary(QStringLiteral("window_to_local"), localText(d.to, d.zone));
    summary(QStringLiteral("as_of"), utcText(d.asOf));
    summary(QStringLiteral("server_now"), s.serverNow);
    summary(QStringLiteral("generated_by"), s.generatedBy);
    summary(QStringLiteral("open"), QString::number(t.open));
    summary(QStringLiteral("open_keys"), QString::number(t.openKeys));
    summary(QStringLiteral("opened"), QString::number(t.opened));
    summary(QStringLiteral("resolved"), QString::number(t.resolved));
    summary(QStringLiteral("breaches"), QString::number(t.breaches));
    summary(QStringLiteral("new_since_signoff"), QString::number(t.newSinceSignOff));
    summary(QStringLiteral("changed_since_signoff"), QString::number(t.changedSinceSignOff));
    summary(QStringLiteral("last_signoff_by"), s.lastSignOff ? s.lastSignOff->signedBy : QString());
    summary(QStringLiteral("last_signoff_at"), s.lastSignOff ? s.lastSignOff->signedAt : QString());
    summary(QStringLiteral("this_day_signed_by"), s.thisDaySignOff ? s.thisDaySignOff->signedBy : QString());
    for (AgeBucket b : allAgeBuckets())
        rows.add(QStringLiteral("bucket"), {{QStringLiteral("bucket"), ageBucketKey(b)},
                                            {QStringLiteral("escalations"), QString::number(t.openByBucket.value(int(b)))}});
    auto money = [&](const QString &section, const MoneyTotal &m, QList<std::pair<QString, QString>> more) {
        more << std::make_pair(QStringLiteral("currency"), m.currency) << std::make_pair(QStringLiteral("sum"), m.sum)
             << std::make_pair(QStringLiteral("counted"), QString::number(m.count))
             << std::make_pair(QStringLiteral("unknown"), QString::number(m.unknown));
        rows.add(section, more);
    };
    for (const MoneyTotal &m : t.openMoney)
        money(QStringLiteral("money"), m, {});
    for (const ReviewGroup &g : s.groups) {
        const QList<std::pair<QString, QString>> key = {{QStringLiteral("bucket"), ageBucketKey(g.bucket)},
                                                        {QStringLiteral("reason"), escalationReasonName(g.reason)},
                                                        {QStringLiteral("biz_type"), g.bizType}};
        rows.add(QStringLiteral("group"), key + QList<std::pair<QString, QString>>{
                                                    {QStringLiteral("escalations"), QString::number(g.escalations)},
                                                    {QStringLiteral("keys"), QString::number(g.keys)},
                                                    {QStringLiteral("breached"), QString::number(g.breached)}});
        for (const MoneyTotal &m : g.money)
            money(QStringLiteral("group_money"), m, key);
    }
    for (const ReviewSla &v : s.sla)
        rows.add(QStringLiteral("sla"), {{QStringLiteral("biz_type"), v.bizType},
                                         {QStringLiteral("name"), QStringLiteral("sla_hours")},
                                         {QStringLiteral("value"), QString::number(v.slaHours)},
                                         {QStringLiteral("escalations"), QString::number(v.open)},
                                         {QStringLiteral("breached"), QString::number(v.overdue)},
                                         {QStringLiteral("counted"), QString::number(v.breachedToday)}});
    for (const ReviewDailyRow &r : s.trend)
        rows.add(QStringLiteral("trend"), {{QStringLiteral("name"), r.day.toString(Qt::ISODate)},
                                           {QStringLiteral("value"), r.complete ? QStringLiteral("complete") : QStringLiteral("current")},
                                           {QStringLiteral("reason"), escalationReasonName(r.reason)},
                                           {QStringLiteral("biz_type"), r.bizType},
                                           {QStringLiteral("escalations"), QString::number(r.openAtEnd)},
                                           {QStringLiteral("counted"), QString::number(r.opened)},
                                           {QStringLiteral("unknown"), QString::number(r.resolved)},
                                           {QStringLiteral("breached"), QString::number(r.breaches)}});
    auto item = [&](const QString &section, const ReviewItem &it) {
        const Escalation &e = it.row.escalation;
        const std::optional<Claim> claim = it.row.shownClaim();
        rows.add(section, {{QStringLiteral("bucket"), ageBucketKey(it.bucket)},
                           {QStringLiteral("reason"), escalationReasonName(e.reason)},
                           {QStringLiteral("biz_type"), e.bizType},
                           {QStringLiteral("escalations"), QStringLiteral("1")},
                           {QStringLiteral("breached"), it.breached ? QStringLiteral("1") : QStringLiteral("0")},
                           {QStringLiteral("currency"), e.currency},
                           {QStringLiteral("sum"), e.amount.value_or(QString())},
                           {QStringLiteral("id"), QString::number(e.id)},
                           {QStringLiteral("idem_key"), e.idemKey},
                           {QStringLiteral("first_escalated_at"), e.firstEscalatedAt},
                           {QStringLiteral("sla_due_at"), e.slaDueAt},
                           {QStringLiteral("link"), keyLink(e.idemKey)},
                           {QStringLiteral("since_signoff"), reviewSinceSignOffText(it)},
                           {QStringLiteral("claimed_by"), claim ? claim->holder : QString()},
                           {QStringLiteral("claimed_until"), claim ? claim->expiresAt : QString()},
                           {QStringLiteral("last_reviewed_by"), it.lastReviewedBy},
                           {QStringLiteral("notes"), QString::number(it.notes)}});
    };
    for (const ReviewItem &it : s.open)
        item(QStringLiteral("open"), it);
    for (const ReviewItem &it : s.resolvedToday)
        item(QStringLiteral("resolved"), it);
    return rows.bytes();
}

QString reviewSinceSignOffText(const ReviewItem &item)
{
    return item.newSinceSignOff ? QStringLiteral("new") : item.changedSinceSignOff ? QStringLiteral("changed") : QString();
}

QString reviewReportSha256(const ReviewSnapshot &snapshot)
{
    ReviewSnapshot figures = snapshot;
    figures.serverNow.clear();
    figures.generatedBy.clear();
    figures.thisDaySignOff.reset();
    return QString::fromLatin1(QCryptographicHash::hash(reviewJson(figures), QCryptographicHash::Sha256).toHex());
}

QString reviewFingerprintCheck(const ReviewSnapshot &snapshot, const QString &fingerprint)
{
    if (!snapshot.thisDaySignOff)
        return {};
    const ReviewSignOff &so = *snapshot.thisDaySignOff;
    if (so.reportSha256 == fingerprint)
        return QStringLiteral("matches this day's sign-off");
    // Signed before the day ended: its figures were "as of" the signing, which no later report
    // is — saying "the figures changed" would be false.
    const std::optional<UtcMicros> signedAt = parseUtcMicros(so.signedAt);
    if (signedAt && snapshot.day.to.isValid() && *signedAt < snapshot.day.to.toMSecsSinceEpoch() * 1000)
        return QStringLiteral("differs from this day's sign-off (%1): it was signed at %2 UTC, before the day ended, and a running "
                              "day's figures move with \"as of\"; only a report as of that instant reproduces it")
            .arg(so.reportSha256, utcToSecond(so.signedAt).mid(11, 8));
    return QStringLiteral("differs from this day's sign-off (%1): the figures changed since it was signed").arg(so.reportSha256);
}

} // namespace triage
