#include "DuplicateGroupsModel.h"

#include "QueryCancel.h"
#include "StatusTone.h"
#include "TimeText.h"
#include "Workspace.h"
#include "WhenReady.h"

namespace triage {

DuplicateGroupsModel::DuplicateGroupsModel(Workspace *workspace, QObject *parent)
    : PagedTableModel(workspace, parent)
{
}

void DuplicateGroupsModel::setFilter(const DuplicateFilter &filter)
{
    m_filter = filter;
    refresh();
}

void DuplicateGroupsModel::refresh()
{
    cancelFullScan(); // its groups would be dropped on arrival: free the ticket worker now
    beginResetModel();
    ++m_generation;
    m_rows.clear();
    m_cursor.reset();
    // Not started until the reset is over: a view (or the model tester) calling fetchMore()
    // from modelReset must not insert rows inside the reset (a page may apply synchronously).
    m_started = false;
    m_atEnd = false;
    m_failed = false;
    m_error.clear();
    m_progress = 0;
    m_scannedTo.clear();
    m_oldestAt.clear();
    m_newestAt.clear();
    const bool wasLoading = m_loading;
    const bool wasScanning = m_scanAll;
    m_loading = false;
    m_scanAll = false;
    endResetModel();
    if (wasLoading)
        emit loadingChanged(false);
    if (wasScanning)
        emit scanningAllChanged(false);
    m_started = true;
    startPage();
}

int DuplicateGroupsModel::findKey(const QString &key) const
{
    return indexOfKey(m_rows, key);
}

int DuplicateGroupsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DuplicateGroupsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DuplicateGroup &g = m_rows.at(index.row());
    switch (role) {
    case GroupRole: return QVariant::fromValue(g);
    case IdemKeyRole: return g.idemKey;
    case Qt::DisplayRole:
        switch (index.column()) {
        case KeyColumn: return g.idemKey;
        case SizeColumn: return g.size;
        case LiveColumn: return g.live;
        case TenantsColumn: return g.tenantsText(QStringLiteral(", "));
        case FirstCreatedColumn: return utcToSecond(g.firstCreatedAt);
        case LastCreatedColumn: return utcToSecond(g.lastCreatedAt);
        case RecordColumn: return g.recordText();
        }
        return {};
    case roles::FullText:
        switch (index.column()) {
        case FirstCreatedColumn: return g.firstCreatedAt;
        case LastCreatedColumn: return g.lastCreatedAt;
        default: return data(index, Qt::DisplayRole).toString();
        }
    case roles::Monospace:
        return index.column() == KeyColumn || index.column() == FirstCreatedColumn || index.column() == LastCreatedColumn;
    case roles::Tone:
        if (index.column() == RecordColumn) {
            if (!g.record)
                return int(Tone::Muted);
            // A record still PROCESSING while its tickets exist is unsettled: never "in progress".
            return int(g.record->known() == Processing ? Tone::Warning : recordStatusTone(g.record->text, false));
        }
        if (index.column() == LiveColumn)
            return int(g.live > 1 ? Tone::Warning : Tone::Ok);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == SizeColumn || index.column() == LiveColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == KeyColumn)
            return g.idemKey;
        if (index.column() == FirstCreatedColumn || index.column() == LastCreatedColumn)
            return data(index, roles::FullText);
        return {};
    }
    return {};
}

QVariant DuplicateGroupsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KeyColumn: return QStringLiteral("Key");
    case SizeColumn: return QStringLiteral("Tickets");
    case LiveColumn: return QStringLiteral("Live");
    case TenantsColumn: return QStringLiteral("Tenants");
    case FirstCreatedColumn: return QStringLiteral("First created (UTC)");
    case LastCreatedColumn: return QStringLiteral("Last created (UTC)");
    case RecordColumn: return QStringLiteral("Record");
    }
    return {};
}

void DuplicateGroupsModel::scanAll()
{
    if (m_scanAll || !m_started || m_atEnd || m_failed || !m_workspace)
        return;
    m_scanAll = true;
    emit scanningAllChanged(true);
    if (!m_loading)
        startPage(); // otherwise the page in flight chains the next one
}

void DuplicateGroupsModel::stopScan()
{
    if (!m_scanAll)
        return;
    cancelFullScan();
    m_scanAll = false;
    emit scanningAllChanged(false);
}

void DuplicateGroupsModel::cancelFullScan()
{
    if (m_scanToken.isNull() || !m_workspace)
        return;
    // The aggregate statement runs on the ticket worker; the cancel itself runs on the cancel
    // pool (QueryCancel.h). The short record-status reads after it are not tagged: a Stop that
    // comes once the statement is done lets the page arrive (its groups are then shown).
    cancelWork(m_scanToken, m_workspace->readWorkers(DbRole::Ticket));
    m_scanToken = CancelToken();
}

void DuplicateGroupsModel::startPage()
{
    // A view (or the model tester) may already have asked for this page from modelReset.
    if (!m_workspace || m_loading)
        return;
    m_loading = true;
    emit loadingChanged(true);
    const quint64 generation = m_generation;
    // The full scan: every remaining group in one statement, tagged so that Stop can cancel it.
    QFuture<Outcome<DuplicatePage>> next;
    if (m_scanAll) {
        m_scanToken = CancelToken::create();
        const CancelScope scope(m_scanToken);
        next = fetchAllDuplicateGroups(*m_workspace, m_filter, m_cursor);
    } else {
        next = fetchDuplicateGroups(*m_workspace, m_filter, m_cursor, m_pageSize, m_budgetMs);
    }
    whenReady(next, this, [this, generation](const Outcome<DuplicatePage> &page) {
            if (generation != m_generation)
                return; // a page of a filter that was replaced meanwhile
            m_scanToken = CancelToken();
            if (!page.ok() && page.error->kind == DbError::Kind::Cancelled) {
                // Stopped: the groups shown stay, and Scan all / Scan further start again.
                m_loading = false;
                emit loadingChanged(false);
                emit scanProgressChanged(m_progress, m_scannedTo);
                if (m_scanAll) // Scan all pressed again while the stopped one was ending
                    startPage();
                return;
            }
            if (!page.ok()) {
                m_loading = false;
                m_failed = true;
                m_error = page.error->message;
                emit loadingChanged(false);
                emit errorOccurred(m_error);
                stopScan();
                return;
            }
            m_error.clear();
            // The cursor moves before the rows are announced, and m_loading stays true until
            // they are in: a view or the model tester calling fetchMore() from the insert
            // signals must neither start a second fetch nor ask for these rows again.
            m_cursor = page->next;
            m_atEnd = !page->next;
            const int first = int(m_rows.size());
            const int added = int(page->groups.size());
            if (added > 0) {
                beginInsertRows({}, first, first + added - 1);
                m_rows += page->groups;
                endInsertRows();
            }
            m_loading = false;
            m_scannedTo = page->scannedTo;
            m_oldestAt = page->oldestAt;
            m_newestAt = page->newestAt;
            m_progress = page->progress();
            emit loadingChanged(false);
            emit pageLoaded(first, added, m_atEnd);
            emit scanProgressChanged(m_progress, m_scannedTo);
            if (m_atEnd)
                stopScan();
            else if (m_scanAll && generation == m_generation && !m_loading)
                startPage();
        });
}

} // namespace triage
