#include "SchemaMap.h"

#include "RecordStatus.h"

#include <QRegularExpression>
#include <QSet>
#include <QSettings>

namespace triage {

QString timeEncodingName(TimeEncoding e)
{
    switch (e) {
    case TimeEncoding::Native: return QStringLiteral("native");
    case TimeEncoding::Local: return QStringLiteral("local");
    case TimeEncoding::EpochSeconds: return QStringLiteral("epoch_s");
    case TimeEncoding::EpochMillis: return QStringLiteral("epoch_ms");
    case TimeEncoding::IsoText: return QStringLiteral("iso_text");
    }
    return {};
}

namespace {

/// Case-folded with leading and trailing spaces removed, as the server's UPPER(TRIM(…))
/// (TRIM removes spaces only: a tab stays, here too).
QString fold(const QString &s, bool ignoreCase)
{
    if (!ignoreCase)
        return s;
    qsizetype from = 0, to = s.size();
    while (from < to && s.at(from) == QLatin1Char(' '))
        ++from;
    while (to > from && s.at(to - 1) == QLatin1Char(' '))
        --to;
    return s.mid(from, to - from).toUpper();
}

StatusMapping recordDefaults()
{
    StatusMapping m;
    m.spellings.insert(QStringLiteral("PROCESSING"), {QStringLiteral("0")});
    m.spellings.insert(QStringLiteral("SUCCESS"), {QStringLiteral("1")});
    m.spellings.insert(QStringLiteral("FAILED"), {QStringLiteral("2")});
    return m;
}

StatusMapping intentDefaults()
{
    StatusMapping m;
    m.text = true;
    for (const QString &s : intentStatuses())
        m.spellings.insert(s, {s});
    return m;
}

StatusMapping ticketDefaults()
{
    StatusMapping m;
    m.text = true;
    m.spellings.insert(QStringLiteral("CANCELLED"), {QStringLiteral("CANCELLED")});
    return m;
}

/// The setting as one string: QSettings turns an unquoted "a, b" into a QStringList.
QStringList settingList(const QVariant &v)
{
    if (v.metaType().id() == QMetaType::QStringList)
        return v.toStringList();
    const QString text = v.toString();
    return text.isEmpty() ? QStringList() : QStringList{text};
}

/// Reads one [*.map] section into the fields of a table map; `fail` gets "[section] key …".
class MapReader {
public:
    MapReader(QSettings &s, QString section) : m_s(s), m_section(std::move(section)) {}

    bool has(const char *key) const { return m_s.contains(path(key)); }

    /// A name key: `*out` keeps its default unless set; "" allowed only when `optional`.
    void name(const char *key, QString *out, bool optional = false, bool table = false)
    {
        if (!has(key))
            return;
        const QString v = m_s.value(path(key)).toString().trimmed();
        if (v.isEmpty() && optional) {
            *out = QString();
            return;
        }
        if (!isMappableName(v, table))
            return fail(key, v.isEmpty() ? QStringLiteral("needs a name (this column cannot be left out)")
                                         : QStringLiteral("\"%1\" is not a %2 name the console accepts (letters, digits, \"_\" "
                                                          "and \"$\", not starting with a digit, at most 63 characters%3)")
                                               .arg(v, table ? QStringLiteral("table") : QStringLiteral("column"),
                                                    table ? QStringLiteral("; schema.table allowed") : QString()));
        *out = v;
    }

    void time(TimeMapping *out)
    {
        if (has("time")) {
            const QString v = m_s.value(path("time")).toString().trimmed().toLower();
            bool found = false;
            for (TimeEncoding e : {TimeEncoding::Native, TimeEncoding::Local, TimeEncoding::EpochSeconds,
                                   TimeEncoding::EpochMillis, TimeEncoding::IsoText})
                if (timeEncodingName(e) == v) {
                    out->encoding = e;
                    found = true;
                }
            if (!found)
                return fail("time", QStringLiteral("must be native, local, epoch_s, epoch_ms or iso_text, not \"%1\"").arg(v));
        }
        if (has("time_zone")) {
            out->zone = m_s.value(path("time_zone")).toString().trimmed();
            static const QRegularExpression offset(QStringLiteral("^[+-](0\\d|1[0-4]):[0-5]\\d$"));
            static const QRegularExpression zoneName(QStringLiteral("^[A-Za-z]+(/[A-Za-z0-9_+-]+)*$"));
            if (!offset.match(out->zone).hasMatch() && !zoneName.match(out->zone).hasMatch())
                return fail("time_zone", QStringLiteral("must be an offset such as +08:00 or a zone name such as "
                                                        "Asia/Shanghai, not \"%1\"").arg(out->zone));
            if (out->encoding != TimeEncoding::Local)
                return fail("time_zone", QStringLiteral("applies only with time = local"));
        }
        if (out->encoding == TimeEncoding::Local && out->zone.isEmpty())
            return fail("time", QStringLiteral("local needs time_zone (the zone the columns' local times are in)"));
    }

    /// Status spellings: `status_<name lower-case>` keys for each of `names`. A status not
    /// given keeps the spelling it has in `*out`; with `requireAll`, once any is given, all
    /// must be.
    void statuses(StatusMapping *out, const QStringList &names, bool requireAll)
    {
        if (has("status_ignore_case")) {
            const QString v = m_s.value(path("status_ignore_case")).toString().trimmed().toLower();
            out->ignoreCase = v == QLatin1String("true") || v == QLatin1String("yes") || v == QLatin1String("on")
                || v == QLatin1String("1");
        }
        bool any = false;
        for (const QString &n : names) {
            const QByteArray key = "status_" + n.toLower().toLatin1();
            if (!has(key.constData()))
                continue;
            any = true;
            QStringList spellings;
            for (const QString &raw : settingList(m_s.value(path(key.constData())))) {
                // Spaces inside a stored value matter unless status_ignore_case folds them.
                const QString v = out->ignoreCase ? raw.trimmed() : raw;
                if (v.isEmpty())
                    return fail(key.constData(), QStringLiteral("has an empty spelling"));
                if (!out->text) {
                    bool ok = false;
                    v.trimmed().toLongLong(&ok);
                    if (!ok)
                        return fail(key.constData(), QStringLiteral("\"%1\" is not an integer (set status_type = text for "
                                                                    "text statuses)").arg(v));
                    spellings << QString::number(v.trimmed().toLongLong());
                } else {
                    spellings << v;
                }
            }
            if (spellings.isEmpty())
                return fail(key.constData(), QStringLiteral("needs at least one stored spelling"));
            out->spellings.insert(n, spellings);
        }
        // Record statuses as text have no default spellings: every one must be spelled.
        if (requireAll && any)
            for (const QString &n : names)
                if (!out->spellings.contains(n))
                    return fail(QByteArray("status_" + n.toLower().toLatin1()).constData(),
                                QStringLiteral("is missing: with text statuses every status needs its spelling"));
        QHash<QString, QString> seen;
        for (auto it = out->spellings.cbegin(); it != out->spellings.cend(); ++it)
            for (const QString &v : *it) {
                const QString f = fold(v, out->ignoreCase);
                if (seen.contains(f) && seen.value(f) != it.key())
                    return fail(QByteArray("status_" + it.key().toLower().toLatin1()).constData(),
                                QStringLiteral("\"%1\" also spells %2: a stored value must mean one status").arg(v, seen.value(f)));
                seen.insert(f, it.key());
            }
    }

    bool ok() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }
    void fail(const char *key, const QString &why)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("[%1] %2 %3").arg(m_section, QString::fromLatin1(key), why);
    }

private:
    QString path(const char *key) const { return m_section + QLatin1Char('/') + QString::fromLatin1(key); }
    QSettings &m_s;
    QString m_section;
    QString m_error;
};

} // namespace

std::optional<QString> StatusMapping::decode(const QString &stored) const
{
    QString v = fold(stored, ignoreCase);
    if (!text) {
        bool ok = false;
        const qint64 n = stored.trimmed().toLongLong(&ok);
        if (!ok)
            return std::nullopt;
        v = QString::number(n);
    }
    for (auto it = spellings.cbegin(); it != spellings.cend(); ++it)
        for (const QString &s : *it)
            if (fold(s, ignoreCase) == v)
                return it.key();
    return std::nullopt;
}

QString StatusMapping::written(const QString &name) const
{
    const QStringList s = spellings.value(name);
    return s.isEmpty() ? QString() : s.first();
}

bool isMappableName(const QString &name, bool allowSchema)
{
    static const QRegularExpression ident(QStringLiteral("^[A-Za-z_][A-Za-z0-9_$]{0,62}$"));
    const QStringList parts = name.split(QLatin1Char('.'));
    if (parts.size() > (allowSchema ? 2 : 1))
        return false;
    for (const QString &p : parts)
        if (!ident.match(p).hasMatch())
            return false;
    return true;
}

const QStringList &recordStatusNames()
{
    static const QStringList names = {QStringLiteral("PROCESSING"), QStringLiteral("SUCCESS"), QStringLiteral("FAILED")};
    return names;
}

const QStringList &ticketStatusNames()
{
    static const QStringList names = {QStringLiteral("CANCELLED")};
    return names;
}

SchemaMap SchemaMap::defaults()
{
    SchemaMap m;
    m.records.statuses = recordDefaults();
    m.intents.statuses = intentDefaults();
    m.tickets.statuses = ticketDefaults();
    return m;
}

bool SchemaMap::isDefault() const
{
    return *this == defaults();
}

std::optional<SchemaMap> SchemaMap::fromSettings(QSettings &s, QString *error)
{
    SchemaMap m = defaults();
    auto failed = [&](const MapReader &r) {
        if (error)
            *error = r.error();
        return std::nullopt;
    };
    {
        RecordTableMap &t = m.records;
        MapReader r(s, QStringLiteral("idempotency.map"));
        r.name("table", &t.table, false, true);
        r.name("id", &t.id);
        r.name("idem_key", &t.key);
        r.name("biz_type", &t.bizType, true);
        r.name("status", &t.status);
        r.name("result_snapshot", &t.snapshot);
        r.name("created_at", &t.createdAt);
        r.name("updated_at", &t.updatedAt);
        r.name("expire_at", &t.expireAt, true);
        r.name("version", &t.version, true);
        r.name("tenant", &t.tenant, true);
        if (r.has("biz_type_value"))
            t.bizTypeValue = s.value(QStringLiteral("idempotency.map/biz_type_value")).toString().trimmed();
        if (t.bizType.isEmpty() && t.bizTypeValue.isEmpty())
            r.fail("biz_type", QStringLiteral("is empty (no such column): then biz_type_value must name the table's one biz_type"));
        if (!t.bizType.isEmpty() && !t.bizTypeValue.isEmpty())
            r.fail("biz_type_value", QStringLiteral("applies only when biz_type is empty (the table has no biz_type column)"));
        if (r.has("status_type")) {
            const QString v = s.value(QStringLiteral("idempotency.map/status_type")).toString().trimmed().toLower();
            if (v != QLatin1String("integer") && v != QLatin1String("text"))
                r.fail("status_type", QStringLiteral("must be integer or text, not \"%1\"").arg(v));
            t.statuses.text = v == QLatin1String("text");
            if (t.statuses.text)
                t.statuses.spellings.clear(); // text statuses have no default spelling
        }
        if (r.ok())
            r.statuses(&t.statuses, recordStatusNames(), t.statuses.text);
        if (r.ok() && t.statuses.text && t.statuses.spellings.isEmpty())
            r.fail("status_type", QStringLiteral("text needs status_processing, status_success and status_failed"));
        if (r.ok() && !t.statuses.text && r.has("status_ignore_case"))
            r.fail("status_ignore_case", QStringLiteral("applies only with status_type = text"));
        if (r.ok())
            r.time(&t.time);
        if (!r.ok())
            return failed(r);
    }
    {
        IntentTableMap &t = m.intents;
        MapReader r(s, QStringLiteral("intent.map"));
        r.name("table", &t.table, false, true);
        for (auto [key, field] : std::initializer_list<std::pair<const char *, QString *>>{
                 {"id", &t.id}, {"task_id", &t.taskId}, {"step_id", &t.stepId}, {"action", &t.action}, {"idem_key", &t.key},
                 {"status", &t.status}, {"request", &t.request}, {"response", &t.response}, {"error", &t.error},
                 {"state_before", &t.stateBefore}, {"state_after", &t.stateAfter}, {"actor", &t.actor},
                 {"created_at", &t.createdAt}, {"updated_at", &t.updatedAt}}) {
            // An intent log may lack the state snapshots and the actor (DESIGN.md §10): "" = none.
            const QByteArray k(key);
            r.name(key, field, k == "state_before" || k == "state_after" || k == "actor");
        }
        if (r.ok())
            r.statuses(&t.statuses, intentStatuses(), false);
        if (r.ok())
            r.time(&t.time);
        if (!r.ok())
            return failed(r);
    }
    {
        TicketTableMap &t = m.tickets;
        MapReader r(s, QStringLiteral("ticket.map"));
        r.name("table", &t.table, false, true);
        r.name("id", &t.id);
        r.name("idem_key", &t.key);
        r.name("tenant_id", &t.tenant, true);
        r.name("title", &t.title, true);
        r.name("status", &t.status);
        r.name("payload", &t.payload);
        r.name("created_at", &t.createdAt);
        r.name("updated_at", &t.updatedAt, true);
        if (r.ok())
            r.statuses(&t.statuses, ticketStatusNames(), false);
        if (r.ok())
            r.time(&t.time);
        if (!r.ok())
            return failed(r);
    }
    return m;
}

} // namespace triage
