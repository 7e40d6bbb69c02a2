#include "RecordStatus.h"

#include "SchemaMap.h"

#include <QStringList>

#include <cmath>

namespace triage {

std::optional<qint64> recordStatusCode(const QVariant &status)
{
    if (status.isNull() || !status.isValid())
        return std::nullopt;
    if (status.typeId() == QMetaType::Double || status.typeId() == QMetaType::Float) {
        // SQLite keeps 1.5 in a TINYINT column; QVariant would round it to a known code.
        const double d = status.toDouble();
        if (!std::isfinite(d) || d != std::trunc(d) || std::fabs(d) > 9.0e15)
            return std::nullopt;
        return qint64(d);
    }
    bool ok = false;
    const qlonglong code = status.toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return code;
}

QString recordStatusText(const QVariant &status)
{
    if (status.isNull() || !status.isValid())
        return QStringLiteral("NULL");
    const std::optional<qint64> code = recordStatusCode(status);
    if (!code)
        return QStringLiteral("UNKNOWN_CODE_") + status.toString();
    switch (*code) {
    case Processing:
    case Success:
    case Failed: return recordStatusName(RecordStatusCode(*code));
    default: return QStringLiteral("UNKNOWN_CODE_%1").arg(*code);
    }
}

QString recordStatusName(RecordStatusCode code)
{
    switch (code) {
    case Processing: return QStringLiteral("PROCESSING");
    case Success: return QStringLiteral("SUCCESS");
    case Failed: return QStringLiteral("FAILED");
    }
    return QStringLiteral("UNKNOWN_CODE_%1").arg(int(code));
}

StoredRecordStatus StoredRecordStatus::fromColumn(const QVariant &status)
{
    const bool isNull = status.isNull() || !status.isValid();
    return {recordStatusCode(status), recordStatusText(status), isNull ? std::nullopt : std::optional<QString>(status.toString())};
}

StoredRecordStatus StoredRecordStatus::fromMapped(const QVariant &status, const StatusMapping &mapping)
{
    // The seeds' codes: unknown integers keep their code ("UNKNOWN_CODE_7"), as always.
    if (mapping == SchemaMap::defaults().records.statuses)
        return fromColumn(status);
    if (status.isNull() || !status.isValid())
        return {std::nullopt, QStringLiteral("NULL"), std::nullopt};
    StoredRecordStatus s;
    s.stored = status.toString();
    if (const std::optional<QString> name = mapping.decode(*s.stored)) {
        if (const auto code = recordStatusFromText(*name))
            s.code = qint64(*code);
        s.text = *name;
        return s;
    }
    // A value no spelling matches is unknown, even an integer that is a known code elsewhere:
    // no code, so no rule ever reads it as a known status.
    s.text = QStringLiteral("UNKNOWN_CODE_") + *s.stored;
    return s;
}

std::optional<RecordStatusCode> StoredRecordStatus::known() const
{
    if (code && (*code == Processing || *code == Success || *code == Failed))
        return RecordStatusCode(*code);
    return std::nullopt;
}

std::optional<RecordStatusCode> recordStatusFromText(const QString &text)
{
    const QString t = text.trimmed().toUpper();
    if (t == QLatin1String("PROCESSING"))
        return Processing;
    if (t == QLatin1String("SUCCESS"))
        return Success;
    if (t == QLatin1String("FAILED"))
        return Failed;
    return std::nullopt;
}

const QStringList &intentStatuses()
{
    static const QStringList s = {QStringLiteral("INTENT"),  QStringLiteral("SUCCEEDED"),
                                  QStringLiteral("FAILED"),  QStringLiteral("UNKNOWN"),
                                  QStringLiteral("RECONCILE_PENDING"), QStringLiteral("ESCALATED"),
                                  QStringLiteral("COMPENSATED")};
    return s;
}

} // namespace triage
