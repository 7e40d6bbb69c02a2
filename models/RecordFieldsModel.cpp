#include "RecordFieldsModel.h"

#include "StatusTone.h"

namespace triage {

RecordFieldsModel::RecordFieldsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RecordFieldsModel::setRecord(const std::optional<RecordDetail> &record)
{
    beginResetModel();
    m_record = record;
    m_fields.clear();
    if (record) {
        const RecordDetail &r = *record;
        static const QStringList timeColumns = {QStringLiteral("created_at"), QStringLiteral("updated_at"),
                                                QStringLiteral("expire_at")};
        for (const auto &[name, value] : r.allColumns) {
            Field f;
            f.name = name;
            f.value = value;
            f.isNull = value == QLatin1String("NULL");
            f.monospace = name == QLatin1String("idem_key") || timeColumns.contains(name) || name == QLatin1String("id");
            if (timeColumns.contains(name) && !f.isNull) {
                if (const auto t = parseUtcMicros(value))
                    f.toolTip = QStringLiteral("local: %1").arg(formatLocal(*t));
            }
            if (name == QLatin1String("status"))
                f.toolTip = QStringLiteral("status code; the console reads it as %1").arg(r.statusText);
            m_fields.append(f);
        }
        auto computed = [this](const QString &name, const QString &value, const QString &tip, int tone = -1) {
            Field f;
            f.name = name;
            f.value = value;
            f.toolTip = tip;
            f.computed = true;
            f.tone = tone;
            m_fields.append(f);
        };
        // A mapped status (DESIGN.md §10) says how it is stored; the seeds' codes say their table.
        const bool mappedSpelling = r.statusStored && (!r.statusCode || *r.statusStored != QString::number(*r.statusCode));
        computed(QStringLiteral("status text"), r.statusText,
                 mappedSpelling ? QStringLiteral("stored as \"%1\" (read through the [idempotency.map] status spellings; a value no "
                                                 "spelling matches is UNKNOWN_CODE_<value>)").arg(*r.statusStored)
                                : QStringLiteral("0 = PROCESSING, 1 = SUCCESS, 2 = FAILED; any other code is UNKNOWN_CODE_<n>"),
                 int(recordStatusTone(r.statusText, r.stale)));
        // A bundle's record (DESIGN.md §7 "Bundles"): ages at the export, or unknown.
        const bool atExport = r.ageBasis == RecordDetail::AgeBasis::AtExport;
        const bool unknownAge = r.ageBasis == RecordDetail::AgeBasis::Unknown;
        if (unknownAge)
            computed(QStringLiteral("age"), QStringLiteral("unknown (not in this bundle)"),
                     QStringLiteral("bundles of format version 1 and 2 do not carry the record's age"));
        else if (atExport)
            computed(QStringLiteral("age"), QStringLiteral("%1 at the export").arg(humanDuration(r.ageSeconds)),
                     QStringLiteral("time since updated_at on the database's clock when the export read the record (%1 s; "
                                    "server now below)").arg(r.ageSeconds, 0, 'f', 3));
        else
            computed(QStringLiteral("age"), humanDuration(r.ageSeconds),
                     QStringLiteral("time since updated_at on the database's clock (%1 s)").arg(r.ageSeconds, 0, 'f', 3));
        QString expires;
        if (!r.hasExpireAtColumn)
            expires = QStringLiteral("unknown (the table has no expire_at column)");
        else if (unknownAge)
            expires = QStringLiteral("unknown (not in this bundle)");
        else if (!r.expiresInSeconds)
            expires = QStringLiteral("unknown (expire_at is NULL)");
        else if (*r.expiresInSeconds <= 0)
            expires = QString::fromLatin1(atExport ? "expired %1 before the export" : "expired %1 ago").arg(humanDuration(-*r.expiresInSeconds));
        else
            expires = atExport ? QStringLiteral("%1 after the export").arg(humanDuration(*r.expiresInSeconds))
                               : humanDuration(*r.expiresInSeconds);
        computed(QStringLiteral("expires in"), expires,
                 QStringLiteral("expire_at - now() on the database's clock: when the evidence may be reaped"));
        computed(QStringLiteral("stale"), r.stale ? QString::fromLatin1(r.ageBasis == RecordDetail::AgeBasis::Live ? "yes" : "yes, at the export")
                                                  : QString::fromLatin1(r.ageBasis == RecordDetail::AgeBasis::Live ? "no" : "no, at the export"),
                 r.stale ? QStringLiteral("PROCESSING for longer than the processing timeout: the outcome is UNKNOWN")
                         : QStringLiteral("not PROCESSING, or younger than the processing timeout"),
                 r.stale ? int(Tone::Warning) : -1);
        computed(QStringLiteral("tenant"), r.tenant.isEmpty() ? QStringLiteral("(not in the key)") : r.tenant,
                 QStringLiteral("from the key by the biz_type's tenant pattern"));
        computed(QStringLiteral("processing timeout"), QStringLiteral("%1 s").arg(r.processingTimeoutS),
                 QStringLiteral("configured for this biz_type; a PROCESSING record older than this is stale"));
        computed(QStringLiteral("server now"), unknownAge ? QStringLiteral("unknown (not in this bundle)") : r.serverNow,
                 atExport ? QStringLiteral("the database's clock when the export read the record")
                          : QStringLiteral("the database's clock when the record was read"));
        m_fields.last().monospace = true;
        computed(QStringLiteral("version column"),
                 r.hasVersionColumn ? QStringLiteral("present") : QStringLiteral("absent"),
                 r.hasVersionColumn ? QStringLiteral("compare-and-set checks and bumps the version column")
                                    : QStringLiteral("compare-and-set compares updated_at on the server"));
    }
    endResetModel();
}

int RecordFieldsModel::rowOf(const QString &name) const
{
    for (int i = 0; i < m_fields.size(); ++i)
        if (m_fields[i].name == name)
            return i;
    return -1;
}

int RecordFieldsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_fields.size());
}

int RecordFieldsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RecordFieldsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Field &f = m_fields.at(index.row());
    const bool value = index.column() == ValueColumn;
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
    case roles::FullText: return value ? f.value : f.name;
    case Qt::ToolTipRole: return f.toolTip.isEmpty() ? QVariant() : QVariant(f.toolTip);
    case roles::IsNull: return value && f.isNull;
    case roles::Monospace: return value && f.monospace;
    case roles::Tone: return value && f.tone >= 0 ? QVariant(f.tone) : QVariant();
    case ComputedRole: return f.computed;
    default: return {};
    }
}

QVariant RecordFieldsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return section == NameColumn ? QStringLiteral("Field") : QStringLiteral("Value");
}

} // namespace triage
