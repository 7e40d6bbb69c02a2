#include "Proposal.h"

#include "Audit.h"
#include "ColumnText.h"
#include "Policy.h"
#include "SafetyPolicy.h"
#include "SqlBuilder.h"
#include "TimeText.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace triage {

namespace {

const QString kTable = QStringLiteral("triage_proposal");

DbException failure(DbError::Kind kind, const QString &message)
{
    return DbException({DbRole::Idempotency, kind, message, {}});
}

/// The server's CURRENT_USER as an expression ('' on SQLite, which has no users).
QString currentUserExpr(const SqlDialect &d)
{
    switch (d.kind()) {
    case Dialect::PostgreSql: return QStringLiteral("CAST(current_user AS VARCHAR(128))");
    case Dialect::MySql: return QStringLiteral("CURRENT_USER()");
    case Dialect::Sqlite: return QStringLiteral("''");
    }
    return QStringLiteral("''");
}

QString columns(const SqlDialect &d)
{
    return QStringLiteral("id, action, idem_key, biz_type, to_status, expected_state, snapshot, snapshot_source, reason, evidence, "
                          "proposal_hash, proposed_by, proposed_db_user, %1, %2, state, decided_by, decided_db_user, %3, "
                          "decision_reason, version, CASE WHEN expires_at <= %4 THEN 1 ELSE 0 END, override_rule")
        .arg(d.timeText(QStringLiteral("proposed_at")), d.timeText(QStringLiteral("expires_at")),
             d.timeText(QStringLiteral("decided_at")), d.nowValue());
}

ProposalRow fromQuery(const QSqlQuery &q)
{
    auto text = [&q](int i) { return columnText(q.value(i)).value_or(QString()); };
    ProposalRow r;
    r.id = q.value(0).toLongLong();
    r.action = text(1);
    r.idemKey = text(2);
    r.bizType = text(3);
    r.toStatus = text(4);
    r.expectedState = text(5);
    r.snapshot = columnText(q.value(6));
    r.snapshotSource = text(7);
    r.reason = text(8);
    r.evidence = text(9);
    r.hash = text(10).trimmed(); // CHAR(64): some drivers pad
    r.proposedBy = text(11);
    r.proposedDbUser = text(12);
    r.proposedAt = canonicalTimeText(q.value(13));
    r.expiresAt = canonicalTimeText(q.value(14));
    r.state = text(15);
    r.decidedBy = text(16);
    r.decidedDbUser = text(17);
    r.decidedAt = q.value(18).isNull() ? QString() : canonicalTimeText(q.value(18));
    r.decisionReason = text(19);
    r.version = q.value(20).toLongLong();
    r.expired = q.value(21).toInt() == 1;
    r.override = q.value(22).toInt() == 1;
    return r;
}

/// Adds `hours` (bound) to the server's now, in the time columns' type.
QString nowPlusHours(const SqlDialect &d, const QString &param)
{
    switch (d.kind()) {
    case Dialect::PostgreSql: return QStringLiteral("(clock_timestamp() + CAST(%1 AS integer) * interval '1 hour')").arg(param);
    case Dialect::MySql: return QStringLiteral("(UTC_TIMESTAMP(6) + INTERVAL %1 HOUR)").arg(param);
    case Dialect::Sqlite:
        return QStringLiteral("(strftime('%Y-%m-%dT%H:%M:%f', 'now', '+' || CAST(%1 AS TEXT) || ' hours') || '000Z')").arg(param);
    }
    return {};
}

/// `s` for a NOT NULL text column: a null QString would bind SQL NULL.
QVariant notNull(const QString &s)
{
    return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}


} // namespace

QString operatorKey(const QString &name)
{
    // Compatibility decomposition first, so accents come apart from their letters and are
    // dropped with the other marks ("alicé", "zoë", "ZOË" → "alice", "zoe"), then case folding.
    QString out;
    for (const QChar c : name.normalized(QString::NormalizationForm_KD).toCaseFolded())
        if (!c.isSpace() && !c.isMark() && c.category() != QChar::Other_Format) // also zero-width joiners and the like
            out += c;
    return out.normalized(QString::NormalizationForm_KC);
}

QString proposalHash(const ProposalRow &row)
{
    const QJsonArray canonical{row.action,
                               row.idemKey,
                               row.bizType,
                               row.toStatus,
                               row.expectedState,
                               row.snapshot ? QJsonValue(*row.snapshot) : QJsonValue(QJsonValue::Null),
                               row.snapshotSource,
                               row.reason,
                               row.evidence,
                               row.proposedBy,
                               row.override};
    return QString::fromLatin1(
        QCryptographicHash::hash(QJsonDocument(canonical).toJson(QJsonDocument::Compact), QCryptographicHash::Sha256).toHex());
}

QString proposalDecisionReasonRefusal(const QString &reason)
{
    const int n = int(reason.trimmed().size());
    return n >= 10 ? QString() : QStringLiteral("a decision on a proposal needs a reason of at least 10 characters (got %1)").arg(n);
}

QString compensationProposalText(const ProposalRow &p)
{
    if (p.action != QLatin1String("compensate"))
        return QString();
    const QJsonObject e = QJsonDocument::fromJson(p.expectedState.toUtf8()).object();
    return QStringLiteral("compensation %1 of ticket %2 (ticket %3, record %4 when proposed)")
        .arg(e.value(QStringLiteral("action")).toString(), e.value(QStringLiteral("target")).toString(),
             e.value(QStringLiteral("ticket_status")).isNull() ? QStringLiteral("NULL") : e.value(QStringLiteral("ticket_status")).toString(),
             e.value(QStringLiteral("record_status")).toString());
}

QString proposalWhatText(const ProposalRow &p)
{
    if (const QString compensation = compensationProposalText(p); !compensation.isEmpty())
        return compensation;
    if (p.action == policyProposalAction()) {
        const QJsonObject to = QJsonDocument::fromJson(p.snapshot.value_or(QString()).toUtf8()).object();
        const QJsonValue was = QJsonDocument::fromJson(p.expectedState.toUtf8()).object().value(QStringLiteral("value"));
        return QStringLiteral("policy %1 = %2 (was %3)")
            .arg(to.value(QStringLiteral("name")).toString(), to.value(QStringLiteral("value")).toString(),
                 was.isString() ? was.toString() : QStringLiteral("unset"));
    }
    return QStringLiteral("\u2192 %1").arg(p.toStatus);
}

QString proposalRecordKey(const ProposalRow &p)
{
    return p.action == policyProposalAction() ? QString() : p.idemKey;
}

namespace proposal_sql {

bool hasProposalTable(DbSession &session)
{
    if (session.memo(QStringLiteral("has triage_proposal"), [&] { return QVariant(session.hasTable(kTable)); }).toBool())
        return true;
    if (!session.hasTable(kTable))
        return false;
    session.forgetMemo(QStringLiteral("has triage_proposal"));
    return session.memo(QStringLiteral("has triage_proposal"), [] { return QVariant(true); }).toBool();
}

QString currentDbUser(DbSession &session)
{
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1").arg(currentUserExpr(session.dialect())));
    return q.next() ? columnText(q.value(0)).value_or(QString()) : QString();
}

bool dbUsersShared(DbSession &session)
{
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT value FROM triage_policy WHERE name = %1").arg(b.bind(fourEyesDbUsersName())), b);
    return q.next() && q.value(0).toString() == QLatin1String("shared");
}

qint64 insert(DbSession &session, const ProposalRow &row)
{
    if (!hasProposalTable(session))
        throw failure(DbError::Kind::Config, QStringLiteral("the idempotency database has no triage_proposal (four-eyes needs console "
                                                            "schema version 7): run `triagectl init-schema`"));
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    const QString values = QStringList{b.bind(notNull(row.action)),
                                       b.bind(notNull(row.idemKey)),
                                       b.bind(notNull(row.bizType)),
                                       b.bind(notNull(row.toStatus)),
                                       b.bind(notNull(row.expectedState)),
                                       b.bind(row.snapshot ? QVariant(*row.snapshot) : QVariant(QMetaType(QMetaType::QString))),
                                       b.bind(notNull(row.snapshotSource)),
                                       b.bind(notNull(row.reason)),
                                       b.bind(notNull(row.evidence)),
                                       b.bind(proposalHash(row)),
                                       b.bind(notNull(row.proposedBy.left(64))),
                                       b.bind(operatorKey(row.proposedBy).left(256)),
                                       b.bind(row.override ? 1 : 0),
                                       currentUserExpr(d),
                                       d.nowValue(),
                                       nowPlusHours(d, b.bind(kProposalTtlHours))}
                               .join(QStringLiteral(", "));
    const QString sql = QStringLiteral("INSERT INTO triage_proposal (action, idem_key, biz_type, to_status, expected_state, snapshot, "
                                       "snapshot_source, reason, evidence, proposal_hash, proposed_by, proposed_by_key, override_rule, proposed_db_user, proposed_at, "
                                       "expires_at, state, version) VALUES (%1, 'open', 1)")
                            .arg(values);
    if (d.kind() == Dialect::PostgreSql) {
        QSqlQuery q = session.exec(sql + QStringLiteral(" RETURNING id"), b);
        return q.next() ? q.value(0).toLongLong() : 0;
    }
    QSqlQuery q = session.exec(sql, b);
    return q.lastInsertId().toLongLong();
}

std::optional<ProposalRow> read(DbSession &session, qint64 id)
{
    if (!hasProposalTable(session))
        return std::nullopt;
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_proposal WHERE id = %2").arg(columns(session.dialect()), b.bind(id)), b);
    if (!q.next())
        return std::nullopt;
    return fromQuery(q);
}

std::optional<ProposalRow> openFor(DbSession &session, const QString &idemKey, const QString &action)
{
    if (!hasProposalTable(session))
        return std::nullopt;
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_proposal WHERE idem_key = %2 AND action = %3 AND state = 'open' "
                                              "AND expires_at > %4 ORDER BY id DESC")
                                   .arg(columns(d), b.bind(idemKey), b.bind(action), d.nowValue()),
                               b);
    if (!q.next())
        return std::nullopt;
    return fromQuery(q);
}

std::optional<ProposalRow> rejectedFor(DbSession &session, const QString &idemKey, const QString &action, const QString &expectedState)
{
    if (!hasProposalTable(session))
        return std::nullopt;
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_proposal WHERE idem_key = %2 AND action = %3 AND state = 'rejected' "
                                              "AND expected_state = %4 ORDER BY id DESC")
                                   .arg(columns(session.dialect()), b.bind(idemKey), b.bind(action), b.bind(expectedState)),
                               b);
    if (!q.next())
        return std::nullopt;
    return fromQuery(q);
}

QVector<ProposalRow> openForKey(DbSession &session, const QString &idemKey)
{
    QVector<ProposalRow> out;
    if (!hasProposalTable(session))
        return out;
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("SELECT %1 FROM triage_proposal WHERE idem_key = %2 AND state = 'open' ORDER BY id")
                                   .arg(columns(session.dialect()), b.bind(idemKey)),
                               b);
    while (q.next())
        out << fromQuery(q);
    return out;
}

QVector<ProposalRow> list(DbSession &session, bool all)
{
    QVector<ProposalRow> out;
    if (!hasProposalTable(session))
        return out;
    const SqlDialect &d = session.dialect();
    const QString sql = all ? QStringLiteral("SELECT %1 FROM triage_proposal ORDER BY id DESC LIMIT 500").arg(columns(d))
                            : QStringLiteral("SELECT %1 FROM triage_proposal WHERE state = 'open' ORDER BY id").arg(columns(d));
    QSqlQuery q = session.exec(sql);
    while (q.next())
        out << fromQuery(q);
    return out;
}

QString approve(DbSession &session, const ProposalRow &asRead, const QString &approver, const QString &reason)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    const QString user = currentUserExpr(d);
    // Every refusing condition is in this one statement (DESIGN.md §9 "Four-eyes"); the
    // table's CHECK refuses the same operator name for raw SQL too.
    const QString setKey = b.bind(operatorKey(approver).left(256));
    const QString whereKey = b.bind(operatorKey(approver).left(256));
    // (QString::arg() takes %1 … %9 here: the keys are pasted as placeholders, never values.)
    QSqlQuery q = session.exec(
        QStringLiteral("UPDATE triage_proposal SET state = 'approved', decided_by = %1, decided_by_key = KEY_SET, decided_db_user = %2, "
                       "decided_at = %3, decision_reason = %4, version = version + 1 "
                       "WHERE id = %5 AND state = 'open' AND version = %6 AND expires_at > %3 AND proposal_hash = %7 "
                       "AND LOWER(TRIM(proposed_by)) <> LOWER(TRIM(%8)) AND proposed_by_key <> KEY_WHERE "
                       "AND (proposed_db_user = '' OR proposed_db_user <> %2 "
                       "OR EXISTS (SELECT 1 FROM triage_policy WHERE name = %9 AND value = 'shared'))")
            .arg(b.bind(approver.left(64)), user, d.nowValue(), b.bind(reason), b.bind(asRead.id), b.bind(asRead.version),
                 b.bind(proposalHash(asRead)), b.bind(approver), b.bind(fourEyesDbUsersName()))
            .replace(QStringLiteral("KEY_SET"), setKey)
            .replace(QStringLiteral("KEY_WHERE"), whereKey),
        b);
    if (q.numRowsAffected() == 1)
        return {};
    // Why not: read it again and name the first condition that failed.
    const std::optional<ProposalRow> now = read(session, asRead.id);
    const QString id = QString::number(asRead.id);
    if (!now)
        return QStringLiteral("proposal %1 does not exist").arg(id);
    if (now->state != QLatin1String("open"))
        return QStringLiteral("proposal %1 is %2 (by %3 at %4: %5)").arg(id, now->state, now->decidedBy, now->decidedAt, now->decisionReason);
    if (now->expired)
        return QStringLiteral("proposal %1 expired at %2: nothing applied; propose it again").arg(id, now->expiresAt);
    if (now->hash != proposalHash(*now) || now->hash != proposalHash(asRead) || now->version != asRead.version)
        return QStringLiteral("proposal %1 was changed after it was proposed (its hash no longer matches what was proposed): void").arg(id);
    if (operatorKey(now->proposedBy) == operatorKey(approver))
        return QStringLiteral("proposal %1 was proposed by %2: a different operator must approve it (four-eyes)").arg(id, now->proposedBy);
    return QStringLiteral("proposal %1 was proposed by the same database user (%2) as this approval: four-eyes needs operators with "
                          "their own database users, or `triagectl policy set four_eyes_db_users shared` to make it a process control")
        .arg(id, now->proposedDbUser);
}

Proposed propose(DbSession &session, const ProposalRow &row, AuditEntry audit, const QString &rule, const QString &nothingDone)
{
    Proposed out;
    session.begin();
    try {
        out.id = insert(session, row);
        const std::optional<ProposalRow> stored = read(session, out.id);
        out.message = QStringLiteral("proposed as proposal %1 (%2): %3 until another operator approves it "
                                     "(triagectl approve %1 --reason …) before %4")
                          .arg(QString::number(out.id), rule, nothingDone, stored ? stored->expiresAt : QString());
        audit.outcome = QStringLiteral("recorded");
        audit.detail = out.message;
        out.auditId = audit_sql::insert(session, audit);
        session.commit();
    } catch (const DbException &) {
        session.rollback();
        throw;
    }
    return out;
}

bool close(DbSession &session, qint64 id, const QString &state, const QString &by, const QString &reason)
{
    const SqlDialect &d = session.dialect();
    SqlBuilder b;
    QSqlQuery q = session.exec(QStringLiteral("UPDATE triage_proposal SET state = %1, decided_by = %2, decided_db_user = %3, decided_at = %4, "
                                              "decision_reason = %5, version = version + 1 WHERE id = %6 AND state = 'open'")
                                   .arg(b.bind(state), b.bind(by.left(64)), currentUserExpr(d), d.nowValue(), b.bind(reason.left(2000)),
                                        b.bind(id)),
                               b);
    return q.numRowsAffected() == 1;
}

} // namespace proposal_sql

} // namespace triage
