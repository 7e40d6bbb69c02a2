#include "UpstreamCheck.h"

#include "Audit.h"
#include "DemoData.h"
#include "RecordStatus.h"
#include "Workspace.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>
#include <QUuid>
#include <QtConcurrent>

namespace triage {

QByteArray UpstreamCheck::toJson() const
{
    // Splice the two members' own JSON (they keep raw texts as strings) without re-parsing numbers.
    QByteArray out = "{\"idem_key\":";
    out += QJsonDocument(QJsonObject{{QStringLiteral("k"), detail.idemKey}}).toJson(QJsonDocument::Compact).mid(5).chopped(1);
    out += ",\"verdict\":" + verdict.toJson();
    out += ",\"evidence\":" + evidence.toJson();
    out += ",\"audit_id\":" + (auditId ? QByteArray::number(auditId) : QByteArray("null"));
    out += ",\"record_note\":";
    out += recordNote.isEmpty() ? QByteArray("null")
                                : QJsonDocument(QJsonObject{{QStringLiteral("k"), recordNote}}).toJson(QJsonDocument::Compact).mid(5).chopped(1);
    out += '}';
    return out;
}

qint64 recordUpstreamCheck(Workspace &ws, const UpstreamCheck &check, QString *note)
{
    if (ws.config().readOnly) {
        *note = QStringLiteral("read-only mode: the query was not recorded in triage_audit");
        return 0;
    }
    AuditEntry a;
    a.requestId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    a.operatorName = ws.config().operatorName.isEmpty() ? osUserName() : ws.config().operatorName;
    a.dbUser = ws.config().idempotency.dialect == Dialect::Sqlite ? QString() : ws.config().idempotency.user;
    a.host = QSysInfo::machineHostName();
    a.action = QString::fromUtf16(audit_action::QueryUpstream);
    a.idemKey = check.detail.idemKey;
    if (check.detail.record) {
        QJsonObject from;
        from[QStringLiteral("status")] = check.detail.record->statusText;
        from[QStringLiteral("updated_at")] = check.detail.record->updatedAt;
        a.fromState = QString::fromUtf8(QJsonDocument(from).toJson(QJsonDocument::Compact));
    }
    a.reason = QStringLiteral("upstream %1 → suggested %2 (§6 row %3)")
                   .arg(upstreamClassName(check.evidence.classification), verdictName(check.verdict.kind))
                   .arg(check.verdict.row);
    a.evidence = QString::fromUtf8("{\"evidence\":" + check.evidence.toJson() + ",\"verdict\":" + check.verdict.toJson() + "}");
    a.outcome = QStringLiteral("recorded");
    a.detail = check.evidence.message;
    const auto out = ws.worker(DbRole::Idempotency)
                         .run<qint64>([a](DbSession &s) { return audit_sql::insert(s, a); }, DbWorker::Retry::Never)
                         .result();
    if (!out.ok()) {
        *note = QStringLiteral("the query was not recorded: %1").arg(out.error->message);
        return 0;
    }
    return *out;
}

QFuture<UpstreamCheck> checkUpstream(Workspace &ws, UpstreamClient &client, const QString &idemKey)
{
    Workspace *w = &ws;
    UpstreamClient *c = &client;
    return QtConcurrent::run(ws.mergePool(), [w, c, idemKey]() {
        UpstreamCheck check;
        check.detail = w->loadKeyDetail(idemKey).result();
        check.evidence = c->query(makeUpstreamQuery(w->config(), check.detail)).result();
        check.verdict = suggestVerdict(verdictInputFrom(check.detail, &check.evidence));
        check.auditId = recordUpstreamCheck(*w, check, &check.recordNote);
        return check;
    });
}

QMap<QString, UpstreamConfig> demoUpstreams(const QUrl &base)
{
    QMap<QString, UpstreamConfig> out;
    const QMap<QString, BizTypeConfig> bizTypes = demoBizTypes();
    for (auto it = bizTypes.cbegin(); it != bizTypes.cend(); ++it) {
        UpstreamConfig u;
        u.bizType = it.key();
        u.baseUrl = base.toString();
        u.queryUrl = QStringLiteral("/tickets?idem_key={idem_key}");
        u.timeoutMs = 5000;
        u.sendIdempotencyKey = false;
        u.notFound = NotFoundSignal::EmptyResult;
        u.resultPath = QStringLiteral("tickets");
        out.insert(it.key(), u);
    }
    return out;
}

} // namespace triage
